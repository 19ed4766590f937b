/*
 * execve of set-user-ID and set-group-ID programs, as Linux: the file's
 * owner becomes the effective and saved uid (its group the gid, when the
 * group may execute), root's capabilities follow an effective uid of 0,
 * AT_SECURE says so; nothing is granted on a nosuid mount, under
 * no_new_privs, to a script, or to a process whose root and working
 * directory another process shares (CLONE_FS) unless it has CAP_SETUID.
 * A set-id program started with fds 0-2 closed finds them open on
 * /dev/null (the C library does it, told by AT_SECURE).  A write,
 * truncate or chown drops the bits as Linux does.
 *
 * The program run is this test itself (copied, with the owner and mode
 * under test) with "--report": it writes its ids to fd REPORT_FD.  Runs
 * as root (the host leg too) on tmpfs mounts of its own, so that the
 * host's mount options do not matter.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cred_util.h"

#define REPORT_FD 9

/* What the program saw: ids, AT_SECURE, which of fds 0-2 are /dev/null,
 * its effective capabilities. */
struct report {
	unsigned ruid, euid, suid, rgid, egid, sgid;
	unsigned long secure;
	int null_fds;
	unsigned long long cap_eff;
};

static char dir[64], suid_dir[96], nosuid_dir[96];

static int report(void)
{
	uid_t r, e, s;
	gid_t gr, ge, gs;
	struct stat null, st;
	int fds = 0;

	if (stat("/dev/null", &null) != 0 || getresuid(&r, &e, &s) || getresgid(&gr, &ge, &gs))
		return 1;
	for (int fd = 0; fd < 3; fd++)
		if (fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == null.st_rdev)
			fds |= 1 << fd;
	dprintf(REPORT_FD, "%u %u %u %u %u %u %lu %d %llx\n", r, e, s, gr, ge, gs,
		getauxval(AT_SECURE), fds, caps_of(0).eff);
	return 0;
}

/* A copy of this program at path, owned by uid:gid, with mode. */
static void install(const char *path, uid_t uid, gid_t gid, mode_t mode)
{
	char buf[65536];
	int in = open("/proc/self/exe", O_RDONLY),
	    out = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0700);
	ssize_t n;

	require(in >= 0 && out >= 0, "open the program and its copy");
	while ((n = read(in, buf, sizeof buf)) > 0)
		require(write(out, buf, n) == n, "copy the program");
	require(n == 0 && fchown(out, uid, gid) == 0 && fchmod(out, mode) == 0 && close(out) == 0 &&
		    close(in) == 0,
		"finish the copy");
}

static void become(uid_t uid, gid_t gid)
{
	if (setgroups(0, NULL) || setresgid(gid, gid, gid) || setresuid(uid, uid, uid))
		_exit(126);
}

struct how {
	uid_t uid; /* 0: stays root */
	bool close_std, nnp, in_thread, share_fs;
};

static const char *exec_path;

static void *exec_prog(void *arg)
{
	(void)arg;
	execl(exec_path, exec_path, "--report", (char *)NULL);
	_exit(127);
}

static int exec_in_clone(void *arg)
{
	return (int)(long)exec_prog(arg);
}

/* The child's side of run: becomes what how says, then execs. */
static void child(const char *prog, const struct how *how, int wfd)
{
	static char stack[65536] __attribute__((aligned(16)));
	pthread_t th;
	int status;
	pid_t pid;

	if (dup2(wfd, REPORT_FD) != REPORT_FD)
		_exit(126);
	if (how->uid)
		become(how->uid, G1);
	if (how->nnp && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		_exit(126);
	if (how->close_std)
		close(0), close(1), close(2);
	exec_path = prog;
	if (how->in_thread) {
		pthread_create(&th, NULL, exec_prog, NULL);
		pthread_join(th, NULL);
	}
	if (how->share_fs) { /* a process sharing root and cwd runs it */
		pid = clone(exec_in_clone, stack + sizeof stack, CLONE_FS | SIGCHLD, NULL);
		_exit(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status)
			  ? WEXITSTATUS(status)
			  : 126);
	}
	exec_prog(NULL);
}

/* Runs prog as how says; false if it did not report. */
static bool run(const char *prog, const struct how *how, struct report *r)
{
	char line[256] = "";
	int p[2], status;
	ssize_t n;
	pid_t pid;

	require(pipe(p) == 0, "pipe");
	fflush(stdout);
	if ((pid = fork()) == 0)
		child(prog, how, p[1]);
	close(p[1]);
	n = read(p[0], line, sizeof line - 1);
	close(p[0]);
	waitpid(pid, &status, 0);
	if (n <= 0 ||
	    sscanf(line, "%u %u %u %u %u %u %lu %d %llx", &r->ruid, &r->euid, &r->suid, &r->rgid,
		   &r->egid, &r->sgid, &r->secure, &r->null_fds, &r->cap_eff) != 9) {
		diag("%s: no report (status 0x%x)", prog, status);
		return false;
	}
	return true;
}

static bool ids(const struct report *r, unsigned ru, unsigned eu, unsigned rg, unsigned eg,
		unsigned long secure)
{
	bool ok = r->ruid == ru && r->euid == eu && r->suid == eu && r->rgid == rg &&
		  r->egid == eg && r->sgid == eg && r->secure == secure;

	if (!ok)
		diag("got uids %u %u %u gids %u %u %u secure %lu", r->ruid, r->euid, r->suid,
		     r->rgid, r->egid, r->sgid, r->secure);
	return ok;
}

static void set_id_bits(void)
{
	const struct how user = {.uid = U1};
	struct report r;

	install(path_at(suid_dir, "suid"), U2, G2, 04755);
	install(path_at(suid_dir, "sgid"), U2, G2, 02755);
	install(path_at(suid_dir, "sgid-nox"), U2, G2, 02745);
	install(path_at(suid_dir, "root"), 0, 0, 04755);
	install(path_at(suid_dir, "plain"), U2, G2, 0755);
	ok(run(path_at(suid_dir, "suid"), &user, &r) && ids(&r, U1, U2, G1, G1, 1) &&
	       r.cap_eff == 0,
	   "set-user-ID: the owner's uid effective and saved, AT_SECURE, no capability");
	ok(run(path_at(suid_dir, "sgid"), &user, &r) && ids(&r, U1, U1, G1, G2, 1),
	   "set-group-ID: the file's gid effective and saved");
	ok(run(path_at(suid_dir, "sgid-nox"), &user, &r) && ids(&r, U1, U1, G1, G1, 0),
	   "set-group-ID without group execute: nothing");
	ok(run(path_at(suid_dir, "root"), &user, &r) && ids(&r, U1, 0, G1, G1, 1) &&
	       r.cap_eff == root_caps(),
	   "set-user-ID root: euid 0 with root's capabilities");
	ok(run(path_at(suid_dir, "plain"), &user, &r) && ids(&r, U1, U1, G1, G1, 0),
	   "no set-id bit: the caller's ids, AT_SECURE 0");
	ok(run(path_at(suid_dir, "suid"), &(struct how){0}, &r) && ids(&r, 0, U2, 0, 0, 1) &&
	       r.cap_eff == 0,
	   "root running a set-user-ID program: effective and saved uid the owner's, no effective "
	   "capability");
	ok(run(path_at(suid_dir, "suid"), &(struct how){.uid = U1, .in_thread = true}, &r) &&
	       ids(&r, U1, U2, G1, G1, 1),
	   "exec from a second thread: the same");
}

static void refused(void)
{
	struct report r;
	char script[256];
	int fd;

	install(path_at(nosuid_dir, "suid"), U2, G2, 06755);
	ok(run(path_at(nosuid_dir, "suid"), &(struct how){.uid = U1}, &r) &&
	       ids(&r, U1, U1, G1, G1, 0),
	   "on a nosuid mount: nothing");
	ok(run(path_at(suid_dir, "suid"), &(struct how){.uid = U1, .nnp = true}, &r) &&
	       ids(&r, U1, U1, G1, G1, 0),
	   "under no_new_privs: nothing");
	ok(run(path_at(suid_dir, "suid"), &(struct how){.uid = U1, .share_fs = true}, &r) &&
	       ids(&r, U1, U1, G1, G1, 1),
	   "root and cwd shared with another process (CLONE_FS): no new id (AT_SECURE still)");
	ok(run(path_at(suid_dir, "suid"), &(struct how){.share_fs = true}, &r) &&
	       ids(&r, 0, U2, 0, 0, 1),
	   "... unless the caller has CAP_SETUID");
	snprintf(script, sizeof script, "#!%s --report\n", path_at(suid_dir, "plain"));
	fd = open(path_at(suid_dir, "script"), O_CREAT | O_WRONLY | O_TRUNC, 0700);
	require(fd >= 0 && write(fd, script, strlen(script)) == (ssize_t)strlen(script) &&
		    fchown(fd, U2, G2) == 0 && fchmod(fd, 06755) == 0 && close(fd) == 0,
		"a set-id script");
	ok(run(path_at(suid_dir, "script"), &(struct how){.uid = U1}, &r) &&
	       ids(&r, U1, U1, G1, G1, 0),
	   "a set-id script: its bits are ignored");
}

static void closed_std_fds(void)
{
	struct report r;
	struct stat null;

	/* The C library opens /dev/null O_RDWR as the program's user, and
	 * crashes if it cannot: say what /dev/null was like then (it has
	 * failed this way now and then under a loaded full suite). */
	if (!ok(run(path_at(suid_dir, "suid"), &(struct how){.uid = U1, .close_std = true}, &r) &&
		    r.null_fds == 7,
		"set-user-ID with fds 0-2 closed: they are /dev/null") &&
	    stat("/dev/null", &null) == 0)
		diag("/dev/null: mode %o, owner %u:%u", (unsigned)null.st_mode, (unsigned)null.st_uid,
		     (unsigned)null.st_gid);
	ok(run(path_at(suid_dir, "plain"), &(struct how){.uid = U1, .close_std = true}, &r) &&
	       r.null_fds == 0,
	   "without set-id: they stay closed");
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_mode & 07777 : (mode_t)-1;
}

static const char *victim;

static void user_writes(void)
{
	int fd;

	become(U1, G1);
	fd = open(victim, O_WRONLY);
	_exit(fd >= 0 && write(fd, "x", 1) == 1 ? 0 : 1);
}

static void user_truncates(void)
{
	become(U1, G1);
	_exit(truncate(victim, 1) == 0 ? 0 : 1);
}

static void owner_writes(void)
{
	int fd;

	become(U2, G2);
	fd = open(victim, O_WRONLY | O_APPEND);
	_exit(fd >= 0 && write(fd, "x", 1) == 1 ? 0 : 1);
}

static bool as_child(void (*fn)(void))
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		fn();
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0;
}

static void reset(mode_t mode)
{
	require(chown(victim, U2, G2) == 0 && chmod(victim, mode) == 0, "reset the file");
}

static void bits_dropped(void)
{
	int fd;

	victim = path_at(dir, "victim");
	fd = open(victim, O_CREAT | O_WRONLY, 0600);
	require(fd >= 0 && close(fd) == 0, "a scratch file");
	reset(06777);
	ok(as_child(user_writes) && mode_of(victim) == 0777,
	   "a write by another user drops set-user-ID and (group-executable) set-group-ID");
	reset(06777);
	ok(as_child(owner_writes) && mode_of(victim) == 0777, "a write by the owner too");
	reset(06777);
	fd = open(victim, O_WRONLY);
	ok(fd >= 0 && write(fd, "y", 1) == 1 && close(fd) == 0 && mode_of(victim) == 06777,
	   "a write with CAP_FSETID (root) keeps them");
	ok(as_child(user_truncates) && mode_of(victim) == 0777, "a truncate by a user drops them");
	reset(06755);
	ok(chown(victim, -1, -1) == 0 && mode_of(victim) == 0755,
	   "chown, even by root and to the same ids, drops both");
	reset(02745);
	ok(chown(victim, U3, -1) == 0 && mode_of(victim) == 02745,
	   "... set-group-ID without group execute stays");
	reset(04744);
	ok(chmod(victim, 04744) == 0 && mode_of(victim) == 04744, "chmod by root sets them back");
	require(unlink(victim) == 0, "remove the scratch file");
	require(mkdir(victim, 0755) == 0 && chmod(victim, 02755) == 0, "a scratch directory");
	ok(chown(victim, U2, G2) == 0 && mode_of(victim) == 02755,
	   "a directory's set-group-ID stays through chown");
	require(rmdir(victim) == 0, "remove it");
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "--report")) /* a script's interpreter: 3 */
		return report();
	plan(23);
	if (geteuid() != 0)
		skip_all("needs root, to make set-id programs for another user");
	snprintf(dir, sizeof dir, "/tmp/setid-%d", (int)getpid());
	snprintf(suid_dir, sizeof suid_dir, "%s/suid", dir);
	snprintf(nosuid_dir, sizeof nosuid_dir, "%s/nosuid", dir);
	require(mkdir(dir, 0755) == 0 && mkdir(suid_dir, 0755) == 0 && mkdir(nosuid_dir, 0755) == 0,
		"scratch directories");
	if (mount("tmpfs", suid_dir, "tmpfs", 0, "mode=0755") ||
	    mount("tmpfs", nosuid_dir, "tmpfs", MS_NOSUID, "mode=0755")) {
		rmdir(suid_dir), rmdir(nosuid_dir), rmdir(dir);
		skip_all("cannot mount tmpfs here");
	}
	set_id_bits();
	refused();
	closed_std_fds();
	bits_dropped();
	ok(umount(suid_dir) == 0 && umount(nosuid_dir) == 0 && rmdir(suid_dir) == 0 &&
	       rmdir(nosuid_dir) == 0 && rmdir(dir) == 0,
	   "clean up");
	return done();
}
