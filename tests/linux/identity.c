/* Who and where a musl program is: process ids and groups, user and group
 * ids (real and effective agree in a process that never changed them;
 * the set*id calls are cred_ids'), uname, the working
 * directory, resource limits and sysconf. */
#define _GNU_SOURCE
#include <limits.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "testutil.h"

static void new_session(void)
{
	pid_t sid = setsid();

	if (sid != getpid() || getpgrp() != getpid() || getsid(0) != getpid())
		_exit(1);
	_exit(setsid() == -1 && errno == EPERM ? 0 : 2); /* now a group leader */
}

int main(void)
{
	struct utsname u;
	struct rlimit rl;
	char cwd[PATH_MAX];

	plan(11);
	ok(getpid() > 0 && getppid() > 0 && getpid() != getppid(), "getpid and getppid");
	ok(getuid() == geteuid() && getgid() == getegid(), "real and effective ids agree");
	ok(uname(&u) == 0 && strcmp(u.machine, "x86_64") == 0 && u.sysname[0], "uname: x86_64");
	ok(getcwd(cwd, sizeof cwd) && cwd[0] == '/', "getcwd is absolute");
	ok(chdir("/tmp") == 0 && getcwd(cwd, sizeof cwd) && strcmp(cwd, "/tmp") == 0,
	   "chdir(/tmp), getcwd says so");
	is_errno(chdir("/no/such/dir"), ENOENT, "chdir to a missing dir: ENOENT");
	errno = 0;
	ok(getcwd(cwd, 1) == NULL && errno == ERANGE, "getcwd into 1 byte: ERANGE");
	ok(getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur >= 64 && rl.rlim_cur <= rl.rlim_max,
	   "RLIMIT_NOFILE: soft <= hard");
	is_int(sysconf(_SC_OPEN_MAX), (long)rl.rlim_cur,
	       "sysconf(_SC_OPEN_MAX) is that soft limit");
	ok(sysconf(_SC_CLK_TCK) == 100, "sysconf(_SC_CLK_TCK)");
	ok(exited_with(child_status(new_session), 0),
	   "setsid in a child: its own session and group, then EPERM as a group leader");
	return done();
}
