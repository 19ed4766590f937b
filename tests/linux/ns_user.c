/* User namespaces, as Linux: unshare(CLONE_NEWUSER) and clone with it
 * give a namespace where the ids outside show as 65534 until uid_map and
 * gid_map say otherwise (getuid, stat, /proc/self/status); the maps'
 * write rules (once, one line of one's own id unprivileged, gid_map only
 * after "deny" in setgroups, EINVAL for bad text, EPERM for ids one may
 * not map); set*id through the map; the nesting limit; the namespace
 * ioctls and setns.  And that the namespace is no way past a permission:
 * an unprivileged user who makes one has every capability in it, yet
 * cannot write a root-owned file, set the clock, mount or name the host,
 * while it may name a uts namespace of its own.  Run as root; every
 * change of identity happens in a child. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cred_util.h"
#include "testutil.h"

#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#define NS_GET_USERNS	 0xb701
#define NS_GET_PARENT	 0xb702
#define NS_GET_OWNER_UID 0xb704
#define ALL_CAPS	 ((1ULL << 41) - 1) /* CAP_LAST_CAP 40, as the host's 6.1 */

static char root_file[64], suid_copy[64];
static unsigned long host_user_ino;

static unsigned long ino_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : st.st_ino;
}

static unsigned long fd_ino(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? 0 : st.st_ino;
}

/* Writes text to /proc/<pid>/<file> in one write: 0, or -1 with errno. */
static int write_proc(pid_t pid, const char *file, const char *text)
{
	char path[64];
	int fd, saved;
	ssize_t n;

	snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, file);
	if ((fd = open(path, O_WRONLY)) < 0)
		return -1;
	n = write(fd, text, strlen(text));
	saved = errno;
	close(fd);
	errno = saved;
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static int map_self(const char *file, const char *text)
{
	return write_proc(getpid(), file, text);
}

/* The first line of /proc/self/status starting with key, its value's
 * first field. */
static long status_field(const char *key)
{
	char buf[4096], *p;

	if (read_text("/proc/self/status", buf, sizeof buf) < 0 || !(p = strstr(buf, key)))
		return -1;
	return strtol(p + strlen(key), NULL, 10);
}

/* Runs program path with "euid": its exit status. */
static int exec_status(const char *path)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		execl(path, path, "euid", (char *)NULL);
		_exit(3);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) ? WEXITSTATUS(status)
									       : -1;
}

/* A set-user-ID-root copy of this program, at suid_copy. */
static void make_suid_copy(const char *self)
{
	char buf[65536];
	int in = open(self, O_RDONLY), out = open(suid_copy, O_CREAT | O_WRONLY | O_TRUNC, 0755);
	ssize_t n;

	require(in >= 0 && out >= 0, "copy of the test program");
	while ((n = read(in, buf, sizeof buf)) > 0)
		require(write(out, buf, n) == n, "copy of the test program");
	require(fchmod(out, 04755) == 0, "set-user-ID bit");
	close(in);
	close(out);
}

/* U1 in G1, dumpable again (a uid change made it not: its /proc/self
 * files would be root's). */
static void become_u1(void)
{
	require(setgid(G1) == 0 && setuid(U1) == 0 && prctl(PR_SET_DUMPABLE, 1) == 0, "become U1");
}

/* As root: a new namespace shows every id as 65534, has every
 * capability, and maps root to root once uid_map says so (once). */
static void root_unshare(void)
{
	char buf[256];
	struct stat st;

	is_int(unshare(CLONE_NEWUSER), 0, "root: unshare(CLONE_NEWUSER)");
	ok(getuid() == 65534 && geteuid() == 65534 && getgid() == 65534 && getegid() == 65534,
	   "unmapped: getuid, geteuid, getgid, getegid are 65534");
	ok(stat("/", &st) == 0 && st.st_uid == 65534 && st.st_gid == 65534,
	   "stat: a root-owned file shows 65534");
	is_int(status_field("Uid:\t"), 65534, "/proc/self/status: Uid 65534");
	ok(ino_of("/proc/self/ns/user") && ino_of("/proc/self/ns/user") != host_user_ino,
	   "/proc/self/ns/user: another namespace");
	struct caps c = caps_of(0);
	ok(c.eff == ALL_CAPS && c.prm == ALL_CAPS, "every capability in it");
	ok(read_text("/proc/self/uid_map", buf, sizeof buf) == 0, "uid_map: empty until written");
	ok(read_text("/proc/self/setgroups", buf, sizeof buf) > 0 && !strcmp(buf, "allow\n"),
	   "setgroups: allow");
	is_errno(setuid(0), EINVAL, "setuid(0) unmapped: EINVAL");
	is_int(map_self("uid_map", "0 0 1"), 0, "uid_map \"0 0 1\" by its owner");
	ok(read_text("/proc/self/uid_map", buf, sizeof buf) > 0 &&
	       !strcmp(buf, "         0          0          1\n"),
	   "uid_map reads back in Linux's format");
	ok(getuid() == 0 && geteuid() == 0 && getgid() == 65534, "uid 0 now, gid still 65534");
	ok(map_self("uid_map", "0 0 1") < 0 && errno == EPERM, "uid_map again: EPERM");
	is_int(map_self("setgroups", "deny"), 0, "setgroups: deny");
	is_int(map_self("gid_map", "0 0 1"), 0, "gid_map \"0 0 1\" after deny");
	ok(map_self("setgroups", "allow") < 0 && errno == EPERM,
	   "setgroups allow after deny: EPERM");
	is_errno(setgroups(0, NULL), EPERM, "setgroups() with setgroups denied: EPERM");
	ok(stat("/", &st) == 0 && st.st_uid == 0 && st.st_gid == 0, "stat: root is 0 again");
}

/* The maps' bad writes, by an unprivileged owner. */
static void map_rules(void)
{
	const char *bad[] = {"x",
			     "0 61001",
			     "0 61001 0",
			     "0 61001 1 2",
			     "4294967295 61001 1",
			     "0 4294967295 1",
			     "0 61001 1\n0 61002 1"};

	become_u1();
	require(unshare(CLONE_NEWUSER) == 0, "unshare");
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char shown[32];

		snprintf(shown, sizeof shown, "%s", bad[i]);
		for (char *nl; (nl = strchr(shown, '\n'));)
			*nl = '|'; /* one line of TAP */
		ok(map_self("uid_map", bad[i]) < 0 && errno == EINVAL, "uid_map \"%s\": EINVAL",
		   shown);
	}
	ok(map_self("uid_map", "0 0 1") < 0 && errno == EPERM, "uid_map of another's id: EPERM");
	ok(map_self("uid_map", "0 61001 2") < 0 && errno == EPERM, "uid_map of 2 ids: EPERM");
	ok(map_self("gid_map", "0 62001 1") < 0 && errno == EPERM,
	   "gid_map before setgroups deny: EPERM");
	ok(map_self("setgroups", "maybe") < 0 && errno == EINVAL, "setgroups \"maybe\": EINVAL");
	is_int(map_self("uid_map", "0 61001 1"), 0, "uid_map of its own uid");
	is_int(map_self("setgroups", "deny\n"), 0, "setgroups deny");
	is_int(map_self("gid_map", "5 62001 1"), 0, "gid_map of its own gid");
	ok(map_self("setgroups", "deny") < 0 && errno == EPERM, "setgroups once gid_map is: EPERM");
	ok(getuid() == 0 && getgid() == 5 && getegid() == 5, "ids through the maps: uid 0, gid 5");
	is_errno(setuid(1), EINVAL, "setuid to an unmapped id: EINVAL");
	is_int(setgid(5), 0, "setgid to a mapped id");
	is_errno(chown(root_file, 1, -1), EINVAL, "chown to an unmapped uid: EINVAL");
	is_int(unshare(CLONE_NEWIPC), 0, "unshare(CLONE_NEWIPC) in it");
	struct shmid_ds ds;
	int id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	ok(id >= 0 && shmctl(id, IPC_STAT, &ds) == 0 && ds.shm_perm.uid == 0 &&
	       ds.shm_perm.cuid == 0 && ds.shm_perm.gid == 5 && ds.shm_perm.cgid == 5,
	   "IPC_STAT: the ids through the maps");
	ds.shm_perm.uid = 1;
	is_errno(shmctl(id, IPC_SET, &ds), EINVAL, "IPC_SET to an unmapped uid: EINVAL");
	ds.shm_perm.uid = 0;
	ok(shmctl(id, IPC_SET, &ds) == 0 && shmctl(id, IPC_RMID, NULL) == 0,
	   "IPC_SET to 0: its own");
}

/* An unprivileged user with every capability in its own namespace still
 * has none over the host's objects. */
static void no_escape(void)
{
	struct timespec now;
	struct utsname u, host;
	int fd;

	become_u1();
	is_errno(unshare(CLONE_NEWUTS), EPERM, "U1: unshare(CLONE_NEWUTS) alone: EPERM");
	require(unshare(CLONE_NEWUSER) == 0, "unshare");
	require(map_self("uid_map", "0 61001 1") == 0, "uid_map");
	ok(caps_of(0).eff == ALL_CAPS && geteuid() == 0, "root with every capability in it");
	fd = open(root_file, O_WRONLY);
	ok(fd < 0 && errno == EACCES, "a root-owned 0644 file: EACCES to write");
	if (fd >= 0)
		close(fd);
	is_errno(chmod(root_file, 0666), EPERM, "chmod of it: EPERM");
	is_errno(chown(root_file, 0, -1), EPERM, "chown of it to 'root' (U1): EPERM");
	clock_gettime(CLOCK_REALTIME, &now);
	is_errno(clock_settime(CLOCK_REALTIME, &now), EPERM, "clock_settime: EPERM");
	is_errno(settimeofday(&(struct timeval){now.tv_sec, 0}, NULL), EPERM,
		 "settimeofday: EPERM");
	is_errno(mount("none", "/tmp", "tmpfs", 0, NULL), EPERM, "mount: EPERM");
	is_errno(sethostname("escaped", 7), EPERM, "sethostname of the host's: EPERM");
	is_errno(setuid(61002), EINVAL, "setuid to another host uid: EINVAL (unmapped)");
	ok(exec_status(suid_copy) == 0, "a set-user-ID-root program gives no root (unmapped)");
	uname(&host);
	is_int(unshare(CLONE_NEWUTS), 0, "unshare(CLONE_NEWUTS) in it");
	is_int(sethostname("userns", 6), 0, "sethostname of its own uts namespace");
	uname(&u);
	ok(!strcmp(u.nodename, "userns"), "uname shows it");
}

/* Nesting: Linux makes none below level 33 (ENOSPC). */
static void nesting(void)
{
	int levels = 0;

	for (;;) {
		if (unshare(CLONE_NEWUSER))
			break;
		levels++;
		if (map_self("uid_map", "0 0 1") || map_self("setgroups", "deny") ||
		    map_self("gid_map", "0 0 1"))
			break;
	}
	ok(levels == 33 && errno == ENOSPC, "33 nested namespaces, then ENOSPC (%d, errno %d)",
	   levels, errno);
}

/* An unmapped creator: EPERM (its ids mean nothing where it is). */
static void unmapped_creator(void)
{
	require(unshare(CLONE_NEWUSER) == 0, "unshare");
	is_errno(unshare(CLONE_NEWUSER), EPERM, "unshare again with the ids unmapped: EPERM");
}

/* A child in a new namespace (clone), its owner (U1) outside, the ioctls
 * and setns. */
static void clone_and_ioctls(void)
{
	int go[2], ready[2], userfd, parentfd, utsfd, initfd, status;
	char path[64], text[128], c;
	uint32_t owner = 0;
	pid_t pid;

	require(pipe(go) == 0 && pipe(ready) == 0, "pipes");
	become_u1();
	initfd = open("/proc/self/ns/user", O_RDONLY);
	pid = (pid_t)syscall(SYS_clone, CLONE_NEWUSER | CLONE_NEWUTS | SIGCHLD, 0, 0, 0, 0);
	if (pid == 0) {
		int fd = open("/proc/self/ns/user", O_RDONLY);
		int pfd = ioctl(fd, NS_GET_PARENT);
		c = pfd < 0 && errno == EPERM ? 'y' : 'n';
		write(ready[1], &c, 1);
		read(go[0], &c, 1);
		_exit(0);
	}
	require(pid > 0, "clone(CLONE_NEWUSER | CLONE_NEWUTS)");
	read(ready[0], &c, 1);
	is_int(c, 'y', "in it: NS_GET_PARENT of its own namespace: EPERM (outside)");
	snprintf(path, sizeof path, "/proc/%d/ns/user", (int)pid);
	userfd = open(path, O_RDONLY);
	ok(userfd >= 0 && fd_ino(userfd) != host_user_ino, "the child's /proc/<pid>/ns/user");
	parentfd = ioctl(userfd, NS_GET_USERNS);
	ok(parentfd >= 0 && fd_ino(parentfd) == host_user_ino, "NS_GET_USERNS: ours, its parent");
	close(parentfd);
	parentfd = ioctl(userfd, NS_GET_PARENT);
	ok(parentfd >= 0 && fd_ino(parentfd) == host_user_ino, "NS_GET_PARENT: ours");
	ok(ioctl(userfd, NS_GET_OWNER_UID, &owner) == 0 && owner == U1, "NS_GET_OWNER_UID: U1");
	ok(ioctl(parentfd, NS_GET_USERNS) < 0 && errno == EPERM,
	   "NS_GET_USERNS of the initial one: EPERM");
	close(parentfd);
	snprintf(path, sizeof path, "/proc/%d/ns/uts", (int)pid);
	utsfd = open(path, O_RDONLY);
	parentfd = ioctl(utsfd, NS_GET_USERNS);
	ok(parentfd >= 0 && fd_ino(parentfd) == fd_ino(userfd),
	   "its uts namespace's NS_GET_USERNS: its user namespace");
	close(parentfd);
	ok(write_proc(pid, "uid_map", "0 61001 1") == 0, "the owner writes its uid_map");
	snprintf(path, sizeof path, "/proc/%d/uid_map", (int)pid);
	ok(read_text(path, text, sizeof text) > 0 &&
	       !strcmp(text, "         0      61001          1\n"),
	   "read from outside: the lower ids as the parent's");
	snprintf(path, sizeof path, "/proc/%d/gid_map", (int)pid);
	ok(read_text(path, text, sizeof text) == 0, "gid_map unwritten: empty");
	is_errno(setns(utsfd, CLONE_NEWUTS), EPERM, "U1 outside: setns into its uts: EPERM");
	is_int(setns(userfd, CLONE_NEWUSER), 0, "the owner enters it (setns)");
	ok(getuid() == 0 && caps_of(0).eff == ALL_CAPS, "there: uid 0, every capability");
	is_errno(setns(userfd, 0), EINVAL, "setns into its own namespace: EINVAL");
	is_int(setns(utsfd, CLONE_NEWUTS), 0, "now setns into its uts namespace");
	is_errno(setns(initfd, CLONE_NEWUSER), EPERM, "setns back up: EPERM");
	write(go[1], "x", 1);
	waitpid(pid, &status, 0);
	ok(exited_with(status, 0), "the child exits 0");
}

/* Lifetimes: a uts namespace's file keeps it and its owner after their
 * last process is gone; the owner's fd then still enters the user
 * namespace; nested namespaces go with their last holder (the leak
 * check counts them at the end of the suite). */
static void lifetimes(void)
{
	int utsfd, userfd, fd, status, ready[2];
	unsigned long user_ino;
	char path[64];
	pid_t pid;

	require(pipe(ready) == 0, "pipe");
	become_u1();
	pid = (pid_t)syscall(SYS_clone, CLONE_NEWUSER | CLONE_NEWUTS | SIGCHLD, 0, 0, 0, 0);
	if (pid == 0) { /* 5 more below, each mapping its creator's ids as 0 */
		if (map_self("uid_map", "0 61001 1") || map_self("setgroups", "deny") ||
		    map_self("gid_map", "0 62001 1"))
			_exit(1);
		for (int i = 0; i < 5; i++)
			if (unshare(CLONE_NEWUSER) || map_self("uid_map", "0 0 1") ||
			    map_self("setgroups", "deny") || map_self("gid_map", "0 0 1"))
				_exit(1);
		write(ready[1], "x", 1);
		pause();
		_exit(0);
	}
	require(pid > 0, "clone");
	snprintf(path, sizeof path, "/proc/%d/ns/uts", (int)pid);
	utsfd = open(path, O_RDONLY);
	ok(read(ready[0], path, 1) == 1, "a process 6 levels down");
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	userfd = ioctl(utsfd, NS_GET_USERNS);
	user_ino = fd_ino(userfd);
	ok(userfd >= 0 && user_ino != host_user_ino,
	   "a uts file outlives its processes, and keeps its owner");
	fd = ioctl(userfd, NS_GET_USERNS);
	ok(fd >= 0 && fd_ino(fd) == host_user_ino, "whose parent is ours");
	close(fd);
	close(utsfd);
	is_int(setns(userfd, CLONE_NEWUSER), 0, "its owner enters it with no process in it");
	ok(ino_of("/proc/self/ns/user") == user_ino, "there now");
}

/* One SCM_CREDENTIALS message with ids uid and gid on fd: sendmsg's
 * result. */
static ssize_t send_cred(int fd, uid_t uid, gid_t gid)
{
	struct ucred u = {getpid(), uid, gid};
	union {
		char buf[CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} ctl;
	char byte = 'x';
	struct iovec iov = {&byte, 1};
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = ctl.buf,
			   .msg_controllen = sizeof ctl.buf};
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);

	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_CREDENTIALS;
	h->cmsg_len = CMSG_LEN(sizeof u);
	memcpy(CMSG_DATA(h), &u, sizeof u);
	return sendmsg(fd, &m, 0);
}

/* The uid of the SCM_CREDENTIALS received on fd, or -1. */
static long recv_cred_uid(int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} ctl;
	char byte;
	struct iovec iov = {&byte, 1};
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = ctl.buf,
			   .msg_controllen = sizeof ctl.buf};
	struct cmsghdr *h;
	struct ucred u;

	if (recvmsg(fd, &m, 0) != 1 || !(h = CMSG_FIRSTHDR(&m)) || h->cmsg_type != SCM_CREDENTIALS)
		return -1;
	memcpy(&u, CMSG_DATA(h), sizeof u);
	return u.uid;
}

/* Ids on sockets and in waitid through the maps: SO_PEERCRED,
 * SCM_CREDENTIALS both ways, si_uid. */
static void ids_elsewhere(void)
{
	struct ucred peer;
	socklen_t len = sizeof peer;
	int sv[2], on = 1;
	siginfo_t si;
	pid_t pid;

	become_u1();
	{ /* a signal from outside: the child names its sender's uid 0 */
		int ready[2], status;
		sigset_t usr1;
		char c;

		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		require(pipe(ready) == 0, "pipe");
		if ((pid = fork()) == 0) {
			sigprocmask(SIG_BLOCK, &usr1, NULL);
			if (unshare(CLONE_NEWUSER) || map_self("uid_map", "0 61001 1"))
				_exit(2);
			write(ready[1], "x", 1);
			_exit(sigwaitinfo(&usr1, &si) == SIGUSR1 && si.si_uid == 0 ? 0 : 1);
		}
		ok(read(ready[0], &c, 1) == 1 && kill(pid, SIGUSR1) == 0 &&
		       waitpid(pid, &status, 0) == pid && exited_with(status, 0),
		   "a kill from outside: the receiver sees si_uid 0 through its map");
	}
	require(unshare(CLONE_NEWUSER) == 0 && map_self("uid_map", "0 61001 1") == 0 &&
		    map_self("setgroups", "deny") == 0 && map_self("gid_map", "0 62001 1") == 0,
		"a mapped namespace");
	require(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0 &&
		    setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof on) == 0,
		"socketpair");
	ok(getsockopt(sv[0], SOL_SOCKET, SO_PEERCRED, &peer, &len) == 0 && peer.uid == 0 &&
	       peer.gid == 0,
	   "SO_PEERCRED: uid and gid 0 through the maps");
	ok(send_cred(sv[0], 0, 0) == 1 && recv_cred_uid(sv[1]) == 0,
	   "SCM_CREDENTIALS of uid 0: sent, received as 0");
	is_errno(send_cred(sv[0], 1, 0), EINVAL, "SCM_CREDENTIALS of an unmapped uid: EINVAL");
	if ((pid = fork()) == 0)
		_exit(0);
	ok(pid > 0 && waitid(P_PID, pid, &si, WEXITED) == 0 && si.si_uid == 0,
	   "waitid's si_uid: 0 through the map");

	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	kill(getpid(), SIGUSR1);
	ok(sigwaitinfo(&set, &si) == SIGUSR1 && si.si_code == SI_USER && si.si_uid == 0,
	   "kill's si_uid: 0 through the map");
	if ((pid = fork()) == 0)
		_exit(0);
	ok(sigwaitinfo(&set, &si) == SIGCHLD && si.si_pid == pid && si.si_uid == 0,
	   "SIGCHLD's si_uid: 0 through the map");
	waitpid(pid, NULL, 0);
}

/* clone3's set_tid needs CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE over
 * the user namespace owning the pid namespace (ours, the initial one):
 * every capability in a new user namespace is not enough. */
static void set_tid(void)
{
	struct {
		uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls,
		    set_tid, set_tid_size;
	} args = {0};
	pid_t tid = 1000;

	require(unshare(CLONE_NEWUSER) == 0, "unshare");
	args.exit_signal = SIGCHLD;
	args.set_tid = (uint64_t)(uintptr_t)&tid;
	args.set_tid_size = 1;
	is_errno(syscall(SYS_clone3, &args, sizeof args), EPERM,
		 "clone3 with set_tid from a new user namespace: EPERM");
}

static void clone_flags(void)
{
	is_errno(syscall(SYS_clone, CLONE_NEWUSER | CLONE_FS | SIGCHLD, 0, 0, 0, 0), EINVAL,
		 "clone(CLONE_NEWUSER | CLONE_FS): EINVAL");
	is_errno(syscall(SYS_clone,
			 CLONE_NEWUSER | CLONE_THREAD | CLONE_SIGHAND | CLONE_VM | SIGCHLD, 0, 0, 0,
			 0),
		 EINVAL, "clone(CLONE_NEWUSER | CLONE_THREAD): EINVAL");
}

int main(int argc, char **argv)
{
	int fd;

	if (argc > 1 && !strcmp(argv[1], "euid")) /* the set-user-ID copy: still the caller */
		return geteuid() == 0 && getuid() == 0 ? 0 : 1;
	if (geteuid() || access("/proc/self/ns/user", F_OK))
		skip_all("not root, or no /proc/self/ns/user");
	host_user_ino = ino_of("/proc/self/ns/user");
	snprintf(root_file, sizeof root_file, "/tmp/ns_user.%d", (int)getpid());
	fd = open(root_file, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	require(fd >= 0 && fchmod(fd, 0644) == 0, "a root-owned 0644 file");
	close(fd);
	snprintf(suid_copy, sizeof suid_copy, "/tmp/ns_user_suid.%d", (int)getpid());
	make_suid_copy("/proc/self/exe");
	plan(90);
	in_child("root unshare", root_unshare);
	in_child("map rules", map_rules);
	in_child("no escape", no_escape);
	in_child("nesting", nesting);
	in_child("unmapped creator", unmapped_creator);
	in_child("clone and ioctls", clone_and_ioctls);
	in_child("lifetimes", lifetimes);
	in_child("set_tid", set_tid);
	in_child("ids elsewhere", ids_elsewhere);
	clone_flags();
	is_int(gethostname((char[65]){0}, 65), 0, "the host's name untouched");
	unlink(root_file);
	unlink(suid_copy);
	return done();
}
