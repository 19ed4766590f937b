/* Who may look into another process through /proc (Linux's
 * ptrace_may_access with the fs ids): environ, maps, smaps, smaps_rollup
 * and fdinfo are EACCES at open, exe/cwd/root and fd/N EACCES to read or
 * follow (lstat still works), syscall EPERM at read; the owner of
 * /proc/<pid> entries (the effective ids; root for a process that is not
 * dumpable, but the directory itself); fd/ always open to the process
 * itself; and F_SETOWN's SIGIO only to a process its setter could
 * signal (Linux's sigio_perm). */
#include "cred_util.h"
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#define CAP_SYS_PTRACE_BIT (1ULL << 19)
#define CAP_SYS_ADMIN_BIT  (1ULL << 21)
#define CAP_PERFMON_BIT	   (1ULL << 38)

static pid_t other;  /* U2's process, dumpable again */
static pid_t hidden; /* U1's process, not dumpable (its uid changed) */

static bool become_dumpable(const void *uid)
{
	uid_t u = *(const uid_t *)uid;

	return setresuid(u, u, u) == 0 && prctl(PR_SET_DUMPABLE, 1) == 0;
}

static bool become_hidden(const void *uid)
{
	uid_t u = *(const uid_t *)uid;

	return setresuid(u, u, u) == 0;
}

static char path_buf[128];
static const char *pidpath(pid_t pid, const char *name)
{
	snprintf(path_buf, sizeof path_buf, "/proc/%d/%s", (int)pid, name);
	return path_buf;
}

static int open_of(pid_t pid, const char *name)
{
	int fd = open(pidpath(pid, name), O_RDONLY);

	if (fd >= 0)
		close(fd);
	return fd < 0 ? -errno : 0;
}

static int readlink_of(pid_t pid, const char *name)
{
	char buf[256];

	return readlink(pidpath(pid, name), buf, sizeof buf) < 0 ? -errno : 0;
}

/* The errno of reading /proc/<pid>/syscall (0: read fine). */
static int syscall_read(pid_t pid)
{
	char buf[256];
	int fd = open(pidpath(pid, "syscall"), O_RDONLY), err = 0;

	if (fd < 0)
		return -1000 - errno; /* not even opened */
	if (read(fd, buf, sizeof buf) < 0)
		err = -errno;
	close(fd);
	return err;
}

static bool owned_by(pid_t pid, const char *name, uid_t uid)
{
	struct stat st;

	if (lstat(name ? pidpath(pid, name) : pidpath(pid, ""), &st) != 0)
		return false;
	if (st.st_uid != uid)
		diag("%s: uid %u, expected %u", path_buf, st.st_uid, uid);
	return st.st_uid == uid;
}

/* An ordinary user against another user's process. */
static void other_user(void)
{
	struct stat st;

	ok(setresuid(U1, U1, U1) == 0, "become U1");
	is_int(open_of(other, "environ"), -EACCES, "environ: EACCES");
	is_int(open_of(other, "maps"), -EACCES, "maps: EACCES at open");
	is_int(open_of(other, "smaps"), -EACCES, "smaps: EACCES");
	is_int(open_of(other, "smaps_rollup"), -EACCES, "smaps_rollup: EACCES");
	is_int(open_of(other, "status"), 0, "status: readable");
	is_int(open_of(other, "stat"), 0, "stat: readable");
	is_int(open_of(other, "cmdline"), 0, "cmdline: readable");
	is_int(readlink_of(other, "exe"), -EACCES, "readlink exe: EACCES");
	is_int(readlink_of(other, "cwd"), -EACCES, "readlink cwd: EACCES");
	is_int(readlink_of(other, "root"), -EACCES, "readlink root: EACCES");
	ok(lstat(pidpath(other, "exe"), &st) == 0 && S_ISLNK(st.st_mode),
	   "lstat exe: a link all the same");
	is_errno(stat(pidpath(other, "cwd"), &st), EACCES, "stat through cwd: EACCES");
	is_errno(open(pidpath(other, "root/"), O_RDONLY | O_DIRECTORY), EACCES,
		 "a walk through root: EACCES");
	is_int(open_of(other, "fd"), -EACCES, "fd/ (0500, U2's): EACCES");
	is_int(readlink_of(other, "fd/0"), -EACCES, "fd/0: EACCES");
	is_int(open_of(other, "fdinfo"), -EACCES, "fdinfo/: EACCES");
	is_int(open_of(other, "fdinfo/0"), -EACCES, "fdinfo/0: EACCES");
	ok(stat(pidpath(other, "fdinfo"), &st) == 0 && (st.st_mode & 07777) == 0555,
	   "stat of fdinfo/ itself: fine, 0555");
	is_int(syscall_read(other), -1000 - EACCES, "syscall (0400, U2's): EACCES at open");
	ok(owned_by(other, NULL, U2), "/proc/<pid> belongs to U2");
	ok(owned_by(other, "status", U2) && owned_by(other, "exe", U2) && owned_by(other, "fd", U2),
	   "so do its files (dumpable)");
}

/* The same uid, but a process that is not dumpable: its files are
 * root's, its directory stays the owner's. */
static void not_dumpable(void)
{
	ok(setresuid(U1, U1, U1) == 0, "become U1");
	ok(owned_by(hidden, NULL, U1), "/proc/<pid> of a non-dumpable process: its euid");
	ok(owned_by(hidden, "status", 0) && owned_by(hidden, "maps", 0) &&
	       owned_by(hidden, "fdinfo", U1),
	   "its files: root's (fdinfo/ is 0555: the euid's)");
	is_int(open_of(hidden, "maps"), -EACCES, "maps of a non-dumpable process: EACCES");
	is_int(readlink_of(hidden, "exe"), -EACCES, "its exe: EACCES");
	is_int(open_of(hidden, "status"), 0, "its status: readable");
}

/* One's own processes: a dumpable child, and oneself not dumpable. */
static void own(void)
{
	char buf[64];
	pid_t kid;
	int p[2];

	ok(setresuid(U1, U1, U1) == 0, "become U1 (not dumpable now)");
	ok(prctl(PR_GET_DUMPABLE) == 0, "the uid change cleared dumpable");
	is_int(open_of(getpid(), "maps"), 0, "its own maps: fine");
	is_int(readlink_of(getpid(), "exe"), 0, "its own exe: fine");
	is_int(open_of(getpid(), "fd"), 0, "its own fd/ (root's 0500): fine");
	is_int(readlink_of(getpid(), "fd/1"), 0, "its own fd/1: fine");
	is_int(open_of(getpid(), "fdinfo/1"), 0, "its own fdinfo/1: fine");
	is_int(open_of(getpid(), "environ"), -EACCES,
	       "its own environ, root's 0400 while not dumpable: EACCES");
	ok(prctl(PR_SET_DUMPABLE, 1) == 0, "dumpable again");
	is_int(open_of(getpid(), "environ"), 0, "its own environ: fine");
	require(pipe(p) == 0, "pipe");
	if ((kid = fork()) == 0) {
		close(p[1]);
		read(p[0], buf, 1);
		_exit(0);
	}
	close(p[0]);
	is_int(open_of(kid, "maps"), 0, "a dumpable process of the same uid: maps");
	is_int(open_of(kid, "environ"), 0, "environ");
	is_int(readlink_of(kid, "exe"), 0, "exe");
	is_int(readlink_of(kid, "fd/0"), 0, "fd/0");
	is_int(open_of(kid, "fdinfo/0"), 0, "fdinfo/0");
	is_int(syscall_read(kid), 0, "syscall");
	close(p[1]);
	waitpid(kid, NULL, 0);
}

/* Root without CAP_SYS_PTRACE: the mode bits let it in
 * (CAP_DAC_READ_SEARCH), the ptrace check does not; reading the memory
 * map (maps, environ) takes CAP_PERFMON or CAP_SYS_ADMIN too. */
static void root_no_ptrace(void)
{
	struct caps c = caps_of(0);
	uint64_t mm_caps = CAP_PERFMON_BIT | CAP_SYS_ADMIN_BIT;

	ok(caps_set(c.eff & ~CAP_SYS_PTRACE_BIT, c.prm, c.inh) == 0, "drop CAP_SYS_PTRACE");
	is_int(syscall_read(other), -EPERM, "syscall: opened, EPERM at read");
	is_int(open_of(other, "maps"), 0, "maps: CAP_PERFMON and CAP_SYS_ADMIN let it");
	is_int(open_of(other, "fd"), 0, "fd/ opens (CAP_DAC_READ_SEARCH)");
	is_int(readlink_of(other, "fd/0"), -EACCES, "but fd/0 is EACCES");
	is_int(open_of(other, "fdinfo/0"), -EACCES, "fdinfo/0 too");
	ok(caps_set(c.eff & ~(CAP_SYS_PTRACE_BIT | CAP_PERFMON_BIT), c.prm, c.inh) == 0,
	   "drop CAP_PERFMON too");
	is_int(open_of(other, "maps"), 0, "maps: CAP_SYS_ADMIN lets it");
	ok(caps_set(c.eff & ~(CAP_SYS_PTRACE_BIT | mm_caps), c.prm, c.inh) == 0,
	   "drop CAP_SYS_ADMIN too");
	is_int(open_of(other, "maps"), -EACCES, "maps: EACCES");
	is_int(open_of(other, "environ"), -EACCES, "environ: EACCES");
	is_int(open_of(other, "status"), 0, "status: readable");
	ok(caps_set(c.eff, c.prm, c.inh) == 0, "CAP_SYS_PTRACE back");
	is_int(syscall_read(other), 0, "syscall: read");
	is_int(open_of(other, "maps"), 0, "maps");
	is_int(readlink_of(other, "fd/0"), 0, "fd/0");
	is_int(open_of(other, "environ"), 0, "environ");
}

/* SIGIO of a pipe whose owner U1 named goes to U1's processes only;
 * one root named reaches anyone. */
static bool sigio_pending(void)
{
	sigset_t s;
	struct timespec zero = {0, 0};

	sigemptyset(&s);
	sigaddset(&s, SIGIO);
	return sigtimedwait(&s, NULL, &zero) == SIGIO;
}

/* A U1 child writes a byte into p[1], after setting the owner to
 * owner_pid if that is not 0; the caller waits for it. */
static void u1_writes(int p[2], pid_t owner_pid)
{
	pid_t pid = fork();
	char c;

	if (pid == 0) {
		if (setresuid(U1, U1, U1) != 0 ||
		    (owner_pid && fcntl(p[0], F_SETOWN, owner_pid) != 0) ||
		    write(p[1], "x", 1) != 1)
			_exit(1);
		_exit(0);
	}
	int status;
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		diag("the writer failed: 0x%x", status);
	read(p[0], &c, 1);
}

static void sigio(void)
{
	sigset_t s;
	int p[2];

	sigemptyset(&s);
	sigaddset(&s, SIGIO);
	sigprocmask(SIG_BLOCK, &s, NULL);
	require(pipe(p) == 0 && fcntl(p[0], F_SETFL, O_ASYNC) == 0, "an O_ASYNC pipe");
	u1_writes(p, getpid());
	ok(!sigio_pending(), "U1 named root's process the owner: no SIGIO reaches it");
	ok(fcntl(p[0], F_SETOWN, getpid()) == 0, "root names itself");
	u1_writes(p, 0);
	ok(sigio_pending(), "root named the owner: U1's write sends SIGIO");
	ok(setresuid(U1, U1, U1) == 0 && fcntl(p[0], F_SETOWN, getpid()) == 0,
	   "as U1, name itself");
	ok(write(p[1], "y", 1) == 1 && sigio_pending(), "its own SIGIO comes");
}

int main(void)
{
	plan(66);
	require(getuid() == 0, "the test runs as root");
	other = spawn_paused(become_dumpable, &(uid_t){U2});
	hidden = spawn_paused(become_hidden, &(uid_t){U1});
	in_child("another user", other_user);
	in_child("not dumpable", not_dumpable);
	in_child("own", own);
	in_child("root without CAP_SYS_PTRACE", root_no_ptrace);
	in_child("sigio", sigio);
	kill(other, SIGKILL);
	kill(hidden, SIGKILL);
	waitpid(other, NULL, 0);
	waitpid(hidden, NULL, 0);
	return done();
}
