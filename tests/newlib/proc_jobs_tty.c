/*
 * The controlling terminal: none after setsid (/dev/tty ENXIO, TIOCGPGRP
 * ENOTTY); a session leader opening the console takes it (fdkernel: the
 * test suite runs without one); TIOCGPGRP/TIOCSPGRP/TIOCGSID/TIOCSCTTY
 * and their errors; a background group reading gets SIGTTIN (EIO if it
 * ignores or blocks it), setting the foreground from the background gets
 * SIGTTOU (allowed if ignored); the session leader's exit frees the
 * terminal.  The host part: only what needs no terminal.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sigutil.h"

#define LWUNTRACED   2
#define TIOCSCTTY    0x540E
#define TIOCGPGRP    0x540F
#define TIOCSPGRP    0x5410
#define TIOCGSID     0x5429
#define L_STOPPED(s) (((s)&0xff) == 0x7f)
#define L_STOPSIG(s) (((s) >> 8) & 0xff)

/* The session child's results, in memory the test sees. */
enum {
	R_ACQUIRED,
	R_SID,
	R_DEVTTY,
	R_TTIN_STOPS,
	R_TTIN_IGNORED,
	R_TTIN_BLOCKED,
	R_SPGRP_EINVAL,
	R_SPGRP_ESRCH,
	R_SPGRP_EPERM,
	R_TTOU_STOPS,
	R_TTOU_IGNORED,
	R_FG_READS,
	R_BACK_TO_LEADER,
	R_SCTTY_AGAIN,
	R_SCTTY_NOT_LEADER,
	R_OTHER_SESSION,
	R_COUNT
};
static const char *const names[R_COUNT] = {
    "a session leader opening the console takes it: TIOCGPGRP is its group",
    "TIOCGSID: its session",
    "then /dev/tty opens",
    "a background group reading it is stopped by SIGTTIN",
    "... or reads EIO if it ignores SIGTTIN",
    "... or reads EIO if it blocks SIGTTIN",
    "TIOCSPGRP of -1: EINVAL",
    "TIOCSPGRP of no group: ESRCH",
    "TIOCSPGRP of a group of another session: EPERM",
    "TIOCSPGRP from a background group is stopped by SIGTTOU",
    "... and succeeds if it ignores SIGTTOU",
    "the new foreground group reads without a signal (EAGAIN)",
    "a leader blocking SIGTTOU takes the foreground back",
    "TIOCSCTTY again by its leader: 0",
    "TIOCSCTTY by a process that leads no session: EPERM",
    "another session: TIOCSCTTY EPERM, TIOCGPGRP ENOTTY, /dev/tty ENXIO",
};
static volatile char *res;

static long lwait4(pid_t pid, int *status, int options)
{
	return syscall(__NR_wait4, pid, status, options, NULL);
}

static long tiocg(int fd, unsigned long cmd, int *val)
{
	return syscall(__NR_ioctl, fd, cmd, val);
}

static long tiocspgrp(int fd, int pgrp)
{
	return syscall(__NR_ioctl, fd, TIOCSPGRP, &pgrp);
}

/* Runs fn(fd) in a child of the session in a group of its own; returns
 * its wait status (WUNTRACED: a stop counts; a stopped child is killed). */
static int in_background(int fd, int (*fn)(int fd))
{
	int status = -1;
	pid_t pid = fork();

	if (pid == 0) {
		syscall(__NR_setpgid, 0, 0);
		_exit(fn(fd));
	}
	syscall(__NR_setpgid, pid, pid);
	lwait4(pid, &status, LWUNTRACED);
	if (L_STOPPED(status)) {
		lsig_kill(pid, LSIGKILL);
		lwait4(pid, NULL, 0);
	}
	return status;
}

static int reads(int fd)
{
	char c;

	return read(fd, &c, 1) < 0 && errno == EIO ? 5 : 6;
}

static int reads_ignoring(int fd)
{
	lsig_action(LSIGTTIN, UAPI_SIG_IGN, 0, 0);
	return reads(fd);
}

static int reads_blocking(int fd)
{
	lsig_procmask(UAPI_SIG_BLOCK, LBIT(LSIGTTIN), NULL);
	return reads(fd);
}

static int takes_fg(int fd)
{
	return tiocspgrp(fd, getpid()) == 0 ? 5 : 6;
}

/* Ignoring SIGTTOU, becomes the foreground, then reads without blocking. */
static int takes_fg_and_reads(int fd)
{
	int pgrp = 0, fl = fcntl(fd, F_GETFL);
	char c;

	lsig_action(LSIGTTOU, UAPI_SIG_IGN, 0, 0);
	if (tiocspgrp(fd, getpid()) || tiocg(fd, TIOCGPGRP, &pgrp) || pgrp != getpid())
		return 6;
	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	return read(fd, &c, 1) < 0 && errno == EAGAIN ? 5 : 7;
}

static int sctty_not_leader(int fd)
{
	return syscall(__NR_ioctl, fd, TIOCSCTTY, 0) < 0 && errno == EPERM ? 5 : 6;
}

/* In a child: a group leader cannot call setsid. */
static int other_session(int fd)
{
	int pgrp, status;
	pid_t pid = fork();

	if (pid != 0)
		return lwait4(pid, &status, 0) == pid && WIFEXITED(status) ? WEXITSTATUS(status)
									   : 10;
	if (syscall(__NR_setsid) < 0)
		_exit(6);
	if (syscall(__NR_ioctl, fd, TIOCSCTTY, 0) == 0 || errno != EPERM)
		_exit(7);
	if (tiocg(fd, TIOCGPGRP, &pgrp) == 0 || errno != ENOTTY)
		_exit(8);
	_exit(open("/dev/tty", O_RDWR) < 0 && errno == ENXIO ? 5 : 9);
}

static void session_checks(int fd, pid_t outsider)
{
	int v = 0, me = getpid(), status;

	res[R_ACQUIRED] = tiocg(fd, TIOCGPGRP, &v) == 0 && v == me;
	res[R_SID] = tiocg(fd, TIOCGSID, &v) == 0 && v == me;
	res[R_DEVTTY] = (v = open("/dev/tty", O_RDWR)) >= 0 && close(v) == 0;
	status = in_background(fd, reads);
	res[R_TTIN_STOPS] = L_STOPPED(status) && L_STOPSIG(status) == LSIGTTIN;
	res[R_TTIN_IGNORED] = exited_with(in_background(fd, reads_ignoring), 5);
	res[R_TTIN_BLOCKED] = exited_with(in_background(fd, reads_blocking), 5);
	res[R_SPGRP_EINVAL] = tiocspgrp(fd, -1) < 0 && errno == EINVAL;
	res[R_SPGRP_ESRCH] = tiocspgrp(fd, 0x7ffffff0) < 0 && errno == ESRCH;
	res[R_SPGRP_EPERM] = tiocspgrp(fd, outsider) < 0 && errno == EPERM;
	status = in_background(fd, takes_fg);
	res[R_TTOU_STOPS] = L_STOPPED(status) && L_STOPSIG(status) == LSIGTTOU;
	status = in_background(fd, takes_fg_and_reads);
	res[R_TTOU_IGNORED] = !exited_with(status, 6);
	res[R_FG_READS] = exited_with(status, 5);
	lsig_procmask(UAPI_SIG_BLOCK, LBIT(LSIGTTOU), NULL);
	res[R_BACK_TO_LEADER] = tiocspgrp(fd, me) == 0 && tiocg(fd, TIOCGPGRP, &v) == 0 && v == me;
	res[R_SCTTY_AGAIN] = syscall(__NR_ioctl, fd, TIOCSCTTY, 0) == 0;
	res[R_SCTTY_NOT_LEADER] = exited_with(in_background(fd, sctty_not_leader), 5);
	res[R_OTHER_SESSION] = exited_with(in_background(fd, other_session), 5);
}

/* A new session in a child: 0 if /dev/tty is ENXIO and, with the console
 * opened (fdkernel), the checks ran. */
static int new_session(bool console)
{
	pid_t outsider = syscall(__NR_getpgrp), pid;
	int status, fd;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		if (syscall(__NR_setsid) < 0)
			_exit(2);
		if (open("/dev/tty", O_RDWR) >= 0 || errno != ENXIO)
			_exit(3);
		if (console) {
			if ((fd = open("/dev/console", O_RDWR)) < 0)
				_exit(4);
			session_checks(fd, outsider);
		}
		_exit(0);
	}
	return lwait4(pid, &status, 0) == pid && exited_with(status, 0);
}

/* A new session leader opening the console: 0 if it became its terminal. */
static bool takes_console(void)
{
	int status, fd, pgrp = 0;
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		syscall(__NR_setsid);
		fd = open("/dev/console", O_RDWR);
		_exit(fd >= 0 && tiocg(fd, TIOCGPGRP, &pgrp) == 0 && pgrp == getpid() ? 0 : 1);
	}
	return lwait4(pid, &status, 0) == pid && exited_with(status, 0);
}

int main(void)
{
	int fd, v;

	res = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	require(res != MAP_FAILED, "mmap");
	plan(R_COUNT + 4);
	ok(new_session(false), "after setsid, /dev/tty: ENXIO");
	if (!on_fdkernel()) {
		for (int i = 0; i < R_COUNT + 3; i++)
			skip("needs the console free to become a controlling terminal", names[0]);
		return done();
	}
	fd = open("/dev/console", O_RDWR | O_NOCTTY);
	ok(fd >= 0 && tiocg(fd, TIOCGPGRP, &v) < 0 && errno == ENOTTY,
	   "the suite has no controlling terminal: TIOCGPGRP ENOTTY");
	close(fd);
	ok(new_session(true), "a new session ran its checks");
	for (int i = 0; i < R_COUNT; i++)
		ok(res[i], "%s", names[i]);
	ok(takes_console(), "its leader's exit freed the terminal: another session takes it");
	return done();
}
