/* uts namespaces and setns, as Linux: unshare(CLONE_NEWUTS) and
 * clone(CLONE_NEWUTS) give a process a copy of the host and domain
 * names that it changes alone (uname, sethostname, setdomainname and
 * /proc/sys/kernel/hostname are the namespace's); /proc/<pid>/ns/uts
 * numbers it; setns enters it through that file or a pidfd, and the open
 * file keeps it after its last process is gone; setns's errors (EBADF,
 * EINVAL for a file of another kind or no namespace file, a pidfd
 * without kinds, EPERM without CAP_SYS_ADMIN, ESRCH for a reaped
 * process); setns into a mount namespace moves root and cwd to its root
 * and is EINVAL for an fs_struct shared with CLONE_FS.  Run as root (on
 * the host in a mount namespace of its own); the test's own process
 * never leaves its uts namespace. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cred_util.h"
#include "mount_ns.h"
#include "testutil.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#define CAP_SYS_ADMIN_BIT (1ULL << 21)

static char orig_host[65], orig_domain[65];

static void names(char *host, char *domain)
{
	struct utsname u;

	uname(&u);
	strcpy(host, u.nodename);
	strcpy(domain, u.domainname);
}

/* /proc/sys/kernel/hostname without its newline. */
static void proc_hostname(char *buf, size_t size)
{
	if (read_text("/proc/sys/kernel/hostname", buf, size) < 0)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

static unsigned long ns_ino(const char *pid, const char *kind)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof path, "/proc/%s/ns/%s", pid, kind);
	return stat(path, &st) ? 0 : st.st_ino;
}

static int open_ns(pid_t pid, const char *kind)
{
	char path[64];

	snprintf(path, sizeof path, "/proc/%d/ns/%s", (int)pid, kind);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* A child's report through a pipe: a line of text. */
static int report[2];

static void say(const char *text)
{
	write(report[1], text, strlen(text) + 1);
}

static void hear(char *buf, size_t size)
{
	size_t n = 0;

	while (n < size - 1 && read(report[0], buf + n, 1) == 1 && buf[n])
		n++;
	buf[n] = '\0';
}

/* A process in a new uts namespace named ns-a / dom-a that waits for a
 * byte on go, then says its host name and exits. */
static pid_t holder(int go)
{
	pid_t pid = fork();
	char host[65], domain[65], c;

	if (pid)
		return pid;
	if (unshare(CLONE_NEWUTS))
		_exit(1);
	names(host, domain);
	say(!strcmp(host, orig_host) && !strcmp(domain, orig_domain) ? "copied" : "fresh");
	if (sethostname("ns-a", 4) || setdomainname("dom-a", 5))
		_exit(2);
	say("set");
	read(go, &c, 1);
	names(host, domain);
	say(host);
	_exit(0);
}

static void check_unshare_and_setns(void)
{
	int go[2], fd, pidfd, status;
	char text[80], host[65], domain[65], self_host[65], self_domain[65];
	pid_t a, b;

	require(pipe(go) == 0, "pipe");
	a = holder(go[0]);
	hear(text, sizeof text);
	is_int(strcmp(text, "copied"), 0, "unshare(CLONE_NEWUTS): the names copied");
	hear(text, sizeof text);
	names(self_host, self_domain);
	proc_hostname(host, sizeof host);
	ok(!strcmp(text, "set") && !strcmp(self_host, orig_host) &&
	       !strcmp(self_domain, orig_domain) && !strcmp(host, orig_host),
	   "its sethostname and setdomainname leave ours (uname, /proc/sys)");
	{
		char pid[16];
		snprintf(pid, sizeof pid, "%d", (int)a);
		ok(ns_ino(pid, "uts") && ns_ino(pid, "uts") != ns_ino("self", "uts") &&
		       ns_ino(pid, "mnt") == ns_ino("self", "mnt"),
		   "/proc/<pid>/ns/uts: another number, mnt the same");
	}

	fd = open_ns(a, "uts");
	pidfd = (int)syscall(SYS_pidfd_open, a, 0);
	require(fd >= 0 && pidfd >= 0, "ns file and pidfd");
	is_errno(setns(fd, CLONE_NEWNS), EINVAL, "setns(uts file, CLONE_NEWNS): EINVAL");
	is_errno(setns(fd, CLONE_NEWPID), EINVAL, "setns(uts file, CLONE_NEWPID): EINVAL");
	is_errno(setns(-1, 0), EBADF, "setns(-1): EBADF");
	is_errno(setns(report[0], 0), EINVAL, "setns(a pipe): EINVAL");
	is_errno(setns(pidfd, 0), EINVAL, "setns(pidfd, 0): EINVAL");
	is_errno(setns(pidfd, CLONE_VM), EINVAL, "setns(pidfd, CLONE_VM): EINVAL");

	/* b enters through the file, writes /proc/sys/kernel/hostname there. */
	if ((b = fork()) == 0) {
		int ok1 = setns(fd, CLONE_NEWUTS) == 0;
		names(host, domain);
		ok1 = ok1 && !strcmp(host, "ns-a") && !strcmp(domain, "dom-a");
		proc_hostname(host, sizeof host);
		ok1 = ok1 && !strcmp(host, "ns-a");
		ok1 = ok1 && write_text("/proc/sys/kernel/hostname", "ns-b\n") == 0;
		_exit(ok1 ? 0 : 1);
	}
	waitpid(b, &status, 0);
	ok(exited_with(status, 0), "setns(file, CLONE_NEWUTS): its names, /proc/sys too");
	proc_hostname(host, sizeof host);
	is_int(strcmp(host, orig_host), 0, "its /proc/sys/kernel/hostname write is not ours");

	/* c enters through the pidfd, with nstype 0 through the file too. */
	if ((b = fork()) == 0) {
		int ok1 = setns(pidfd, CLONE_NEWUTS) == 0;
		names(host, domain);
		ok1 = ok1 && !strcmp(host, "ns-b");
		ok1 = ok1 && setns(fd, 0) == 0;
		_exit(ok1 ? 0 : 1);
	}
	waitpid(b, &status, 0);
	ok(exited_with(status, 0), "setns(pidfd, CLONE_NEWUTS), setns(file, 0): enter it");

	/* Without CAP_SYS_ADMIN: EPERM, for unshare, setns and sethostname. */
	if ((b = fork()) == 0) {
		struct caps c = caps_of(0);
		if (caps_set(c.eff & ~CAP_SYS_ADMIN_BIT, c.prm & ~CAP_SYS_ADMIN_BIT, 0))
			_exit(3);
		_exit(unshare(CLONE_NEWUTS) == -1 && errno == EPERM && setns(fd, 0) == -1 &&
			      errno == EPERM && setns(pidfd, CLONE_NEWUTS) == -1 && errno == EPERM
			  ? 0
			  : 1);
	}
	waitpid(b, &status, 0);
	ok(exited_with(status, 0), "without CAP_SYS_ADMIN: unshare and setns EPERM");

	write(go[1], "x", 1);
	hear(text, sizeof text);
	is_int(strcmp(text, "ns-b"), 0, "the holder sees the name set through /proc/sys");
	waitpid(a, &status, 0);
	is_errno(setns(pidfd, CLONE_NEWUTS), ESRCH, "setns(pidfd of a reaped process): ESRCH");

	/* The open file keeps the namespace, names and all. */
	if ((b = fork()) == 0) {
		int ok1 = setns(fd, CLONE_NEWUTS) == 0;
		names(host, domain);
		_exit(ok1 && !strcmp(host, "ns-b") && !strcmp(domain, "dom-a") ? 0 : 1);
	}
	waitpid(b, &status, 0);
	ok(exited_with(status, 0), "the open file keeps the namespace after its processes");
	close(fd);
	close(pidfd);
	close(go[0]);
	close(go[1]);
}

static int clone_child(void)
{
	char host[65], domain[65];

	names(host, domain);
	if (strcmp(host, orig_host) || sethostname("ns-c", 4))
		return 1;
	names(host, domain);
	return strcmp(host, "ns-c") ? 2 : 0;
}

static void check_clone(void)
{
	char host[65], domain[65];
	int status;
	pid_t pid = (pid_t)syscall(SYS_clone, CLONE_NEWUTS | SIGCHLD, 0, 0, 0, 0);

	if (pid == 0)
		_exit(clone_child());
	waitpid(pid, &status, 0);
	names(host, domain);
	ok(exited_with(status, 0) && !strcmp(host, orig_host),
	   "clone(CLONE_NEWUTS): a copy the child renames alone");
}

/* A process with a tmpfs on dir/m in a mount namespace of its own. */
static pid_t mnt_holder(const char *dir, int go)
{
	char path[96], c;
	pid_t pid = fork();

	if (pid)
		return pid;
	snprintf(path, sizeof path, "%s/m", dir);
	if (unshare(CLONE_NEWNS) || mount("none", path, "tmpfs", 0, "size=64k"))
		_exit(1);
	snprintf(path, sizeof path, "%s/m/marker", dir);
	close(open(path, O_CREAT | O_WRONLY, 0600));
	say("mounted");
	read(go, &c, 1);
	_exit(0);
}

static int enter_mnt(int fd, const char *marker)
{
	char cwd[256];

	if (chdir("/tmp") || setns(fd, CLONE_NEWNS))
		return 1;
	if (!getcwd(cwd, sizeof cwd) || strcmp(cwd, "/"))
		return 2;
	return access(marker, F_OK) ? 3 : 0;
}

static void check_mnt(void)
{
	char dir[64] = "/tmp/ns_uts.XXXXXX", path[96], marker[96], text[16];
	int go[2], fd, status;
	pid_t a, b;

	require(mkdtemp(dir) && pipe(go) == 0, "scratch directory");
	snprintf(path, sizeof path, "%s/m", dir);
	snprintf(marker, sizeof marker, "%s/m/marker", dir);
	require(mkdir(path, 0700) == 0, "mount point");
	a = mnt_holder(dir, go[0]);
	hear(text, sizeof text);
	fd = open_ns(a, "mnt");
	ok(!strcmp(text, "mounted") && fd >= 0 && access(marker, F_OK) == -1,
	   "a child's mount is its namespace's");
	if ((b = fork()) == 0)
		_exit(enter_mnt(fd, marker));
	waitpid(b, &status, 0);
	ok(exited_with(status, 0), "setns(mnt file): its mounts, cwd and root its root");
	/* With CLONE_FS, the fs_struct is shared with another process. */
	if ((b = fork()) == 0) {
		pid_t sharer = (pid_t)syscall(SYS_clone, CLONE_FS | SIGCHLD, 0, 0, 0, 0);
		if (sharer == 0) {
			pause();
			_exit(0);
		}
		int r = setns(fd, CLONE_NEWNS) == -1 && errno == EINVAL ? 0 : 1;
		kill(sharer, SIGKILL);
		waitpid(sharer, NULL, 0);
		_exit(r);
	}
	waitpid(b, &status, 0);
	ok(exited_with(status, 0), "setns(mnt file) with a shared fs_struct: EINVAL");
	close(fd);
	write(go[1], "x", 1);
	waitpid(a, &status, 0);
	rmdir(path);
	rmdir(dir);
	close(go[0]);
	close(go[1]);
}

int main(void)
{
	if (geteuid() || access("/proc/self/ns/uts", F_OK))
		skip_all("not root, or no /proc/self/ns/uts");
	own_mount_namespace();
	require(pipe(report) == 0, "pipe");
	names(orig_host, orig_domain);
	plan(20);
	check_unshare_and_setns();
	check_clone();
	check_mnt();
	return done();
}
