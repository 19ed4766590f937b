/*
 * Pseudo-terminals and job control: a session leader opening a slave
 * without O_NOCTTY takes it as controlling terminal (or with TIOCSCTTY),
 * /dev/tty is then the slave; ^C written to the master sends SIGINT to
 * the foreground group, TIOCSWINSZ sends SIGWINCH; a background group
 * reading gets SIGTTIN, changing the terminal SIGTTOU; TIOCSPGRP moves
 * the foreground; closing the master sends the session leader SIGHUP and
 * leaves the slave reading 0 and failing writes with EIO.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <unistd.h>

#include "testutil.h"

static char slave_path[64];
static int master_fd; /* a leader closes its copy: only the test's counts */

static int new_master(void)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY);

	require(m >= 0 && unlockpt(m) == 0, "a pty");
	master_fd = m;
	snprintf(slave_path, sizeof slave_path, "%s", ptsname(m));
	return m;
}

/* Reads from fd until c arrives (1) or end of file / error (0). */
static int wait_for(int fd, char c)
{
	char b;

	while (read(fd, &b, 1) == 1)
		if (b == c)
			return 1;
	return 0;
}

/* Waits until pid sleeps in read(2) (/proc/<pid>/syscall: number 0 first). */
static void wait_asleep_in_read(pid_t pid)
{
	char path[64], buf[128];

	snprintf(path, sizeof path, "/proc/%d/syscall", (int)pid);
	while (read_text(path, buf, sizeof buf) > 0 && strncmp(buf, "0 ", 2) != 0)
		sleep_ms(1);
}

static int waited(pid_t pid, int options)
{
	int status = -1;

	if (waitpid(pid, &status, options) != pid)
		return -1;
	return status;
}

/* ---- The session leader's side (in a child) ---- */

static sigset_t block(int a, int b)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, a);
	sigaddset(&set, b);
	sigprocmask(SIG_BLOCK, &set, NULL);
	return set;
}

/* Takes the slave by opening it; reports what it sees as a bitmask of
 * failures (0: all right), after the signal keys and a resize. */
static int leader_signals(void)
{
	sigset_t set = block(SIGINT, SIGWINCH);
	int s, pg = 0, sid = 0, t, bad = 0;
	struct stat a, b;

	if (setsid() < 0 || (s = open(slave_path, O_RDWR)) < 0)
		return 1;
	bad |= !(ioctl(s, TIOCGSID, &sid) == 0 && sid == getpid()) << 1;
	bad |= !(ioctl(s, TIOCGPGRP, &pg) == 0 && pg == getpid()) << 2;
	t = open("/dev/tty", O_RDWR);
	bad |= !(t >= 0 && fstat(t, &a) == 0 && fstat(s, &b) == 0 && a.st_rdev == makedev(5, 0))
	       << 3;
	write(s, "R", 1); /* ready: the parent types ^C */
	bad |= (sigwaitinfo(&set, NULL) != SIGINT) << 4;
	write(t, "W", 1); /* through /dev/tty: the parent resizes */
	bad |= (sigwaitinfo(&set, NULL) != SIGWINCH) << 5;
	return bad;
}

static void test_signals(void)
{
	int m = new_master(), status, pg = 0;
	struct winsize ws = {.ws_row = 50, .ws_col = 132};
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0)
		_exit((close(master_fd), leader_signals()));
	ok(wait_for(m, 'R'), "a session leader opened the slave");
	ok(ioctl(m, TIOCGPGRP, &pg) == 0 && pg == pid,
	   "TIOCGPGRP on the master: the leader's group is the foreground");
	ok(write(m, "\x03", 1) == 1 && wait_for(m, 'W'), "^C written to the master");
	ok(ioctl(m, TIOCSWINSZ, &ws) == 0, "TIOCSWINSZ on the master");
	status = waited(pid, 0);
	ok(WIFEXITED(status), "the leader exited");
	is_int(WEXITSTATUS(status), 0,
	       "it had the slave as controlling terminal (TIOCGSID, TIOCGPGRP, /dev/tty), "
	       "got SIGINT for ^C and SIGWINCH for the resize");
	close(m);
}

/* In a background group of the session: fn(s) exits with its code;
 * returns the wait status (a stop is kept: the caller kills). */
static int in_background(int s, int (*fn)(int s))
{
	pid_t pid;
	int status;

	if ((pid = fork()) == 0) {
		setpgid(0, 0);
		_exit(fn(s));
	}
	setpgid(pid, pid);
	status = waited(pid, WUNTRACED);
	if (WIFSTOPPED(status)) {
		kill(pid, SIGKILL);
		waited(pid, 0);
	}
	return status;
}

static int bg_read(int s)
{
	char c;

	return read(s, &c, 1) < 0 && errno == EIO ? 7 : 6;
}

static int bg_tcsetattr(int s)
{
	struct termios t;

	tcgetattr(s, &t);
	return tcsetattr(s, TCSANOW, &t) == 0 ? 7 : 6;
}

static int bg_write_tostop(int s)
{
	return write(s, "x", 1) == 1 ? 7 : 6;
}

static int bg_takes_fg(int s)
{
	int pg = 0;

	signal(SIGTTOU, SIG_IGN);
	return tcsetpgrp(s, getpid()) == 0 && ioctl(s, TIOCGPGRP, &pg) == 0 && pg == getpid() ? 7
											      : 6;
}

/* Job control on the slave, by TIOCSCTTY: a bitmask of failures. */
static int leader_jobs(void)
{
	int s, bad = 0, st, pg = 0;
	struct termios t;

	if (setsid() < 0 || (s = open(slave_path, O_RDWR | O_NOCTTY)) < 0)
		return 1;
	bad |= !(ioctl(s, TIOCGPGRP, &pg) < 0 && errno == ENOTTY) << 1;
	bad |= (ioctl(s, TIOCSCTTY, 0) != 0) << 2;
	st = in_background(s, bg_read);
	bad |= !(WIFSTOPPED(st) && WSTOPSIG(st) == SIGTTIN) << 3;
	st = in_background(s, bg_tcsetattr);
	bad |= !(WIFSTOPPED(st) && WSTOPSIG(st) == SIGTTOU) << 4;
	st = in_background(s, bg_write_tostop);
	bad |= !(WIFEXITED(st) && WEXITSTATUS(st) == 7) << 5; /* no TOSTOP: writes go */
	tcgetattr(s, &t);
	t.c_lflag |= TOSTOP;
	tcsetattr(s, TCSANOW, &t);
	st = in_background(s, bg_write_tostop);
	bad |= !(WIFSTOPPED(st) && WSTOPSIG(st) == SIGTTOU) << 6;
	signal(SIGTTIN, SIG_IGN);
	st = in_background(s, bg_read);
	bad |= !(WIFEXITED(st) && WEXITSTATUS(st) == 7) << 7; /* ignored SIGTTIN: EIO */
	st = in_background(s, bg_takes_fg);
	bad |= !(WIFEXITED(st) && WEXITSTATUS(st) == 7) << 8;
	signal(SIGTTOU, SIG_IGN); /* the leader is in the background now */
	bad |= !(tcsetpgrp(s, getpid()) == 0 && tcgetpgrp(s) == getpid()) << 9;
	signal(SIGHUP, SIG_IGN); /* TIOCNOTTY hangs up the foreground group: ours */
	bad |= !(ioctl(s, TIOCNOTTY) == 0 && ioctl(s, TIOCGPGRP, &pg) < 0 && errno == ENOTTY) << 10;
	bad |= !(open("/dev/tty", O_RDWR) < 0 && errno == ENXIO) << 11;
	return bad;
}

static void test_jobs(void)
{
	int m = new_master(), status;
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0)
		_exit((close(master_fd), leader_jobs()));
	status = waited(pid, 0);
	ok(WIFEXITED(status), "the job-control leader exited");
	is_int(WEXITSTATUS(status), 0,
	       "TIOCSCTTY; background read SIGTTIN, tcsetattr SIGTTOU, write SIGTTOU only with "
	       "TOSTOP, ignored SIGTTIN EIO; TIOCSPGRP both ways; TIOCNOTTY");
	close(m);
}

static volatile sig_atomic_t hups;

static void on_hup(int sig)
{
	(void)sig;
	hups++;
}

/* Sleeps reading the slave until the master closes. */
static int leader_hangup(void)
{
	struct sigaction sa = {.sa_handler = on_hup, .sa_flags = SA_RESTART};
	int s, bad = 0, pg;
	char c;

	sigaction(SIGHUP, &sa, NULL);
	if (setsid() < 0 || (s = open(slave_path, O_RDWR)) < 0)
		return 1;
	write(s, "R", 1);
	bad |= !(read(s, &c, 1) < 0 && errno == EIO) << 1; /* asleep in it */
	bad |= (read(s, &c, 1) != 0) << 7;		   /* a read after */
	bad |= (hups != 1) << 2;
	bad |= !(write(s, "x", 1) < 0 && errno == EIO) << 3;
	bad |= !(ioctl(s, TIOCGPGRP, &pg) < 0 && errno == EIO) << 4;
	bad |= !(open("/dev/tty", O_RDWR) < 0 && errno == ENXIO) << 5;
	bad |= !(open(slave_path, O_RDWR) < 0) << 6;
	return bad;
}

static void test_hangup(void)
{
	int m = new_master(), status;
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0)
		_exit((close(master_fd), leader_hangup()));
	ok(wait_for(m, 'R'), "a session leader reads its slave");
	wait_asleep_in_read(pid);
	close(m);
	status = waited(pid, 0);
	ok(WIFEXITED(status), "closing the master ended its read");
	is_int(WEXITSTATUS(status), 0,
	       "its read failed EIO, the next read 0; it got SIGHUP once; writes and TIOCGPGRP "
	       "fail EIO, /dev/tty ENXIO, "
	       "the node cannot be opened");
}

int main(void)
{
	plan(11);
	test_signals();
	test_jobs();
	test_hangup();
	return done();
}
