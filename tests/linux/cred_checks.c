/* The privilege checks on processes and the system, as an ordinary user
 * against another user's process and against root's powers: setpriority
 * (EPERM, EACCES below RLIMIT_NICE), sched_setaffinity,
 * sched_setscheduler, sched_setparam, prlimit (EPERM), setrlimit raising
 * a hard limit, mlock within RLIMIT_MEMLOCK, sethostname/setdomainname, mount, umount2, pivot_root,
 * chroot (each after the errors Linux checks first), bind below port
 * 1024 (EACCES), SO_REUSEPORT across users, syslog, /dev/urandom's
 * ioctls, System V message
 * queues (mode and owner), kcmp, get_robust_list and pidfd_getfd
 * (ptrace_may_access), SO_PEERCRED's effective ids, and what a uid
 * change resets (dumpable, the parent-death signal). */
#include "cred_util.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/msg.h>
#include <sys/resource.h>
#include <sys/socket.h>

#define CAP_SYS_RESOURCE_BIT (1ULL << 24)

static pid_t victim; /* U2's pausing process */
static uint64_t all;

static bool become_user(const void *uid)
{
	return setresuid(*(const uid_t *)uid, *(const uid_t *)uid, *(const uid_t *)uid) == 0;
}

static void scheduling(void)
{
	cpu_set_t set;
	struct sched_param sp = {0};
	struct rlimit rl = {RLIM_INFINITY, RLIM_INFINITY};

	ok(setresuid(U1, U1, U1) == 0, "become U1");
	is_errno(setpriority(PRIO_PROCESS, victim, 5), EPERM, "setpriority of U2's process: EPERM");
	errno = 0;
	int prio = getpriority(PRIO_PROCESS, victim);
	if (!ok(prio == getpriority(PRIO_PROCESS, 0) && errno == 0, "getpriority of it is allowed"))
		diag("%d, errno %d", prio, errno);
	ok(setpriority(PRIO_PROCESS, 0, 5) == 0, "raising its own nice value: fine");
	is_errno(setpriority(PRIO_PROCESS, 0, 0), EACCES, "lowering it past RLIMIT_NICE: EACCES");
	ok(setpriority(PRIO_USER, 0, 6) == 0 && getpriority(PRIO_PROCESS, 0) == 6,
	   "PRIO_USER 0: the caller's own uid");
	sched_getaffinity(0, sizeof set, &set);
	is_errno(sched_setaffinity(victim, sizeof set, &set), EPERM,
		 "sched_setaffinity of U2's process: EPERM");
	ok(sched_setaffinity(0, sizeof set, &set) == 0, "its own: fine");
	/* musl's wrappers are ENOSYS by design: the raw calls */
	is_errno(syscall(SYS_sched_setscheduler, victim, SCHED_OTHER, &sp), EPERM,
		 "sched_setscheduler of U2's process: EPERM");
	is_errno(syscall(SYS_sched_setparam, victim, &sp), EPERM, "sched_setparam of it: EPERM");
	ok(syscall(SYS_sched_setscheduler, 0, SCHED_BATCH, &sp) == 0, "its own policy: fine");
	is_errno(prlimit(victim, RLIMIT_CORE, NULL, &rl), EPERM, "prlimit of U2's process: EPERM");
	is_errno(prlimit(getppid(), RLIMIT_CORE, NULL, &rl), EPERM,
		 "prlimit of root's process: EPERM");
}

static void limits(void)
{
	struct rlimit rl = {0, 0}, got;

	ok(setrlimit(RLIMIT_CORE, &(struct rlimit){0, 4096}) == 0,
	   "lower RLIMIT_CORE's hard limit");
	ok(setresuid(U1, U1, U1) == 0, "become U1");
	is_errno(setrlimit(RLIMIT_CORE, &(struct rlimit){0, 8192}), EPERM,
		 "raising the hard limit: EPERM");
	ok(setrlimit(RLIMIT_CORE, &(struct rlimit){4096, 4096}) == 0,
	   "raising the soft limit to the hard one: fine");
	ok(setrlimit(RLIMIT_CORE, &rl) == 0 && getrlimit(RLIMIT_CORE, &got) == 0 &&
	       got.rlim_max == 0,
	   "lowering the hard limit: fine");
	pid_t pid = fork();
	if (pid == 0) {
		pause();
		_exit(0);
	}
	ok(prlimit(pid, RLIMIT_CORE, &(struct rlimit){0, 0}, &got) == 0 && got.rlim_max == 0,
	   "prlimit of its own child (same ids): fine");
	is_errno(prlimit(pid, RLIMIT_CORE, &(struct rlimit){0, 1}, NULL), EPERM,
		 "... but not raising its hard limit");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void memlock(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	require(p != MAP_FAILED, "mmap");
	ok(setrlimit(RLIMIT_MEMLOCK, &(struct rlimit){0, 0}) == 0, "RLIMIT_MEMLOCK 0");
	ok(mlock(p, page) == 0, "root (CAP_IPC_LOCK) locks all the same");
	ok(munlock(p, page) == 0 && setresuid(U1, U1, U1) == 0, "unlock, become U1");
	is_errno(mlock(p, page), EPERM, "mlock with RLIMIT_MEMLOCK 0: EPERM");
	is_errno(mlockall(MCL_CURRENT), EPERM, "mlockall: EPERM");
	ok(setrlimit(RLIMIT_MEMLOCK, &(struct rlimit){page, page}) != 0, "the hard limit stays 0");
	munmap(p, 4 * page);
}

static void memlock_page(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	require(p != MAP_FAILED, "mmap");
	ok(setrlimit(RLIMIT_MEMLOCK, &(struct rlimit){2 * page, 2 * page}) == 0 &&
	       setresuid(U1, U1, U1) == 0,
	   "RLIMIT_MEMLOCK two pages, become U1");
	is_errno(mlock(p, 3 * page), ENOMEM, "mlock of three pages: ENOMEM");
	ok(mlock(p, 2 * page) == 0, "two: fine");
	ok(mlock(p + page, page) == 0, "one of them again: counted once");
	is_errno(mlock(p + 2 * page, page), ENOMEM, "a third page: ENOMEM");
	is_errno(mlockall(MCL_CURRENT), ENOMEM, "mlockall(MCL_CURRENT): ENOMEM");
	ok(munlock(p, page) == 0 && mlock(p + 2 * page, page) == 0, "after an munlock: fine");
	munmap(p, 4 * page);
}

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#define KCMP_VM 1

static bool set_dumpable(const void *on)
{
	return prctl(PR_SET_DUMPABLE, *(const int *)on) == 0;
}

/* A child of the caller that pauses (dumpable as asked) and its pidfd. */
static pid_t paused_child(int dumpable, int *pidfd)
{
	pid_t pid = spawn_paused(set_dumpable, &dumpable);

	*pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	return pid;
}

/* Linux's ptrace_may_access: kcmp, get_robust_list, pidfd_getfd. */
static void inspect(void)
{
	void *head;
	size_t len;
	int vfd = (int)syscall(SYS_pidfd_open, victim, 0), cfd, nfd;

	ok(setresuid(U1, U1, U1) == 0 && prctl(PR_SET_DUMPABLE, 1) == 0,
	   "become U1, dumpable again");
	pid_t child = paused_child(1, &cfd), hidden = paused_child(0, &nfd);
	is_errno(syscall(SYS_kcmp, getpid(), victim, KCMP_VM, 0, 0), EPERM,
		 "kcmp with U2's process: EPERM");
	ok(syscall(SYS_kcmp, getpid(), child, KCMP_VM, 0, 0) > 0, "kcmp with its own child: fine");
	is_errno(syscall(SYS_kcmp, getpid(), hidden, KCMP_VM, 0, 0), EPERM,
		 "kcmp with its own child that is not dumpable: EPERM");
	is_errno(syscall(SYS_get_robust_list, victim, &head, &len), EPERM,
		 "get_robust_list of U2's process: EPERM");
	ok(syscall(SYS_get_robust_list, child, &head, &len) == 0, "of its own child: fine");
	is_errno(syscall(SYS_pidfd_getfd, vfd, 0, 0), EPERM,
		 "pidfd_getfd from U2's process: EPERM");
	int fd = (int)syscall(SYS_pidfd_getfd, cfd, 0, 0);
	ok(fd >= 0, "from its own child: an fd");
	close(fd);
	kill(child, SIGKILL);
	kill(hidden, SIGKILL);
	waitpid(child, NULL, 0);
	waitpid(hidden, NULL, 0);
}

static void root_powers(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int s;

	ok(setresuid(U1, U1, U1) == 0, "become U1");
	is_errno(sethostname("x", 1), EPERM, "sethostname: EPERM");
	is_errno(sethostname("x", -1), EPERM, "... before the length's EINVAL");
	is_errno(setdomainname("x", 1), EPERM, "setdomainname: EPERM");
	is_errno(mount("none", "/tmp", "tmpfs", 0, NULL), EPERM, "mount: EPERM");
	is_errno(mount("none", "/no/such/dir", "tmpfs", 0, NULL), ENOENT,
		 "mount on a missing target: ENOENT first");
	is_errno(umount2("/proc", 0), EPERM, "umount2: EPERM");
	is_errno(umount2("/proc", 0x100), EINVAL, "umount2 with an unknown flag: EINVAL first");
	is_errno(syscall(SYS_pivot_root, "/tmp", "/tmp"), EPERM, "pivot_root: EPERM");
	is_errno(chroot("/"), EPERM, "chroot: EPERM");
	is_errno(chroot("/no/such/dir"), ENOENT, "chroot to a missing dir: ENOENT first");
	is_errno(chroot("/proc/self/status"), ENOTDIR, "chroot to a file: ENOTDIR first");
	s = socket(AF_INET, SOCK_DGRAM, 0);
	a.sin_port = htons(1023);
	is_errno(bind(s, (struct sockaddr *)&a, sizeof a), EACCES, "bind to port 1023: EACCES");
	a.sin_port = 0;
	ok(bind(s, (struct sockaddr *)&a, sizeof a) == 0, "bind to an ephemeral port: fine");
	close(s);
	int rnd = open("/dev/urandom", O_RDONLY);
	is_errno(ioctl(rnd, _IO('R', 0x04)), EPERM, "RNDZAPENTCNT on /dev/urandom: EPERM");
	close(rnd);
	is_errno(klogctl(5, NULL, 0), EPERM, "syslog(CLEAR): EPERM");
	is_errno(klogctl(99, NULL, 0), EPERM, "syslog(unknown action): EPERM first");
	char dmesg[8] = "";
	if (read_text("/proc/sys/kernel/dmesg_restrict", dmesg, sizeof dmesg) > 0 &&
	    dmesg[0] == '1')
		skip("dmesg_restrict is 1 here", "syslog(SIZE_BUFFER) is allowed");
	else
		ok(klogctl(10, NULL, 0) > 0, "syslog(SIZE_BUFFER) is allowed");
}

/* Root binds a SO_REUSEPORT socket; another user's cannot share it. */
static void reuseport(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof a;
	int on = 1, r = socket(AF_INET, SOCK_DGRAM, 0);

	ok(setsockopt(r, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on) == 0 &&
	       bind(r, (struct sockaddr *)&a, sizeof a) == 0 &&
	       getsockname(r, (struct sockaddr *)&a, &len) == 0,
	   "root: a SO_REUSEPORT socket on an ephemeral port");
	ok(setresuid(U1, U1, U1) == 0, "become U1");
	int u = socket(AF_INET, SOCK_DGRAM, 0), u2 = socket(AF_INET, SOCK_DGRAM, 0);
	setsockopt(u, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on);
	is_errno(bind(u, (struct sockaddr *)&a, sizeof a), EADDRINUSE,
		 "U1's SO_REUSEPORT socket on root's port: EADDRINUSE");
	a.sin_port = 0;
	len = sizeof a;
	bind(u, (struct sockaddr *)&a, sizeof a);
	getsockname(u, (struct sockaddr *)&a, &len);
	setsockopt(u2, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on);
	ok(bind(u2, (struct sockaddr *)&a, sizeof a) == 0, "two of U1's share a port");
}

static int priv_q, open_q; /* root's queues: 0600 and 0666 */

static void sysv_user(void)
{
	struct msqid_ds ds;
	struct {
		long type;
		char c;
	} m = {1, 'x'};

	ok(setresuid(U1, U1, U1) == 0, "become U1 (gid stays 0)");
	is_errno(msgsnd(priv_q, &m, 1, IPC_NOWAIT), EACCES, "send to root's 0600 queue: EACCES");
	is_errno(msgctl(priv_q, IPC_STAT, &ds), EACCES, "IPC_STAT of it: EACCES");
	is_errno(msgctl(open_q, IPC_RMID, NULL), EPERM, "IPC_RMID of root's 0666 queue: EPERM");
	ok(msgsnd(open_q, &m, 1, IPC_NOWAIT) == 0, "send to the 0666 one: fine");
	int mine = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	ok(mine >= 0 && msgctl(mine, IPC_STAT, &ds) == 0 && ds.msg_perm.uid == U1 &&
	       ds.msg_perm.cuid == U1 && msgctl(mine, IPC_RMID, NULL) == 0,
	   "its own queue: owner and creator U1, removable");
}

static void sysv_queues(void)
{
	priv_q = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	open_q = msgget(IPC_PRIVATE, IPC_CREAT | 0666);
	require(priv_q >= 0 && open_q >= 0, "root made two queues");
	in_child("System V as U1", sysv_user);
	ok(msgctl(priv_q, IPC_RMID, NULL) == 0 && msgctl(open_q, IPC_RMID, NULL) == 0,
	   "root removes its queues");
}

static void resets(void)
{
	struct ucred uc;
	socklen_t len = sizeof uc;
	int sv[2], pdeath = -1;
	char want[4] = "0";

	ok(prctl(PR_SET_PDEATHSIG, SIGUSR1) == 0 && prctl(PR_GET_DUMPABLE) == 1,
	   "root: a parent-death signal, dumpable");
	ok(setresgid(G1, G1, G1) == 0 && setresuid(U3, U1, U1) == 0, "effective ids U1, G1");
	read_text("/proc/sys/fs/suid_dumpable", want, sizeof want);
	is_int(prctl(PR_GET_DUMPABLE), want[0] - '0', "no longer dumpable (suid_dumpable)");
	ok(prctl(PR_GET_PDEATHSIG, &pdeath) == 0 && pdeath == 0, "the parent-death signal is gone");
	ok(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0 &&
	       getsockopt(sv[0], SOL_SOCKET, SO_PEERCRED, &uc, &len) == 0 && uc.uid == U1 &&
	       uc.gid == G1 && uc.pid == getpid(),
	   "SO_PEERCRED: the effective uid and gid");
}

static void root_side(void)
{
	struct rlimit rl;

	if (!(all & CAP_SYS_RESOURCE_BIT)) {
		skip("no CAP_SYS_RESOURCE here", "root: prlimit of U2's process");
		skip("no CAP_SYS_RESOURCE here", "root raises a hard limit");
		return;
	}
	ok(prlimit(victim, RLIMIT_CORE, NULL, &rl) == 0, "root: prlimit of U2's process");
	ok(setrlimit(RLIMIT_CORE, &(struct rlimit){0, 0}) == 0 &&
	       setrlimit(RLIMIT_CORE, &(struct rlimit){0, RLIM_INFINITY}) == 0,
	   "root raises a hard limit");
}

int main(void)
{
	plan(77);
	all = root_caps();
	require(getuid() == 0, "the test runs as root");
	victim = spawn_paused(become_user, &(uid_t){U2});
	in_child("scheduling", scheduling);
	in_child("limits", limits);
	in_child("mlock", memlock);
	in_child("mlock pages", memlock_page);
	in_child("root's powers", root_powers);
	in_child("inspection", inspect);
	in_child("reuseport", reuseport);
	in_child("System V", sysv_queues);
	in_child("resets", resets);
	in_child("root", root_side);
	kill(victim, SIGKILL);
	waitpid(victim, NULL, 0);
	return done();
}
