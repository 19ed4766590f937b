/* File leases, fcntl(F_SETLEASE/F_GETLEASE), as Linux keeps them: which
 * opens a read or a write lease allows, what F_GETLEASE reports during a
 * break, the holder's signal (SIGIO, or F_SETSIG's with POLL_MSG and
 * si_fd) when another open or a truncate conflicts, the breaker waiting
 * until the holder downgrades or removes the lease (EWOULDBLOCK with
 * O_NONBLOCK, EINTR for a signal), the owner a lease sets and its removal
 * clears, leases living with the open file description; and teardown in
 * hostile orders: the holder killed or closing during a break, the
 * breaker killed while it waits.  fdkernel only: /proc/sys/fs/
 * lease-break-time ending a break by force, and leases-enable 0. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

#define RTSIG	 (SIGRTMIN + 3)
#define MSG_BAND (POLLIN | POLLRDNORM | POLLMSG) /* Linux's band of POLL_MSG */
#define GUARD_S	 60 /* a wait that never ends fails the test instead of hanging it */

static char path[64];

/* sig, taken with its information, once it is pending; -1 after GUARD_S. */
static int take(int sig, siginfo_t *si, int secs)
{
	sigset_t s;
	struct timespec t = {secs, 0};

	sigemptyset(&s);
	sigaddset(&s, sig);
	memset(si, 0, sizeof(*si));
	return sigtimedwait(&s, si, &t);
}

/* An fd of path with RTSIG as its signal and a lease of type. */
static int leased(int flags, int type)
{
	int fd = open(path, flags);

	require(fd >= 0 && fcntl(fd, F_SETSIG, RTSIG) == 0, "open");
	require(fcntl(fd, F_SETLEASE, type) == 0, "F_SETLEASE");
	return fd;
}

/* Whether the break signal for fd came, with POLL_MSG's information. */
static bool break_signal(int fd)
{
	siginfo_t si;

	return take(RTSIG, &si, GUARD_S) == RTSIG && si.si_code == POLL_MSG && si.si_fd == fd &&
	       si.si_band == MSG_BAND;
}

/* A child that opens path with flags (truncates it if flags is -1) and
 * exits 0 once that worked, else with the errno. */
static pid_t breaker(int flags)
{
	pid_t pid = fork();

	require(pid >= 0, "fork");
	if (pid == 0) {
		int r = flags < 0 ? truncate(path, 0) : open(path, flags);
		_exit(r < 0 ? errno : 0);
	}
	return pid;
}

/* Whether child is still running (it is blocked: it has not exited). */
static bool still_waiting(pid_t child)
{
	int st;

	return waitpid(child, &st, WNOHANG) == 0;
}

static int reap(pid_t child)
{
	int st = -1;

	waitpid(child, &st, 0);
	return st;
}

static void test_rules(void)
{
	int ro = open(path, O_RDONLY), ro2 = open(path, O_RDONLY), wr;

	require(ro >= 0 && ro2 >= 0, "open");
	is_int(fcntl(ro, F_SETLEASE, F_RDLCK), 0, "a read lease on a read-only file");
	is_int(fcntl(ro, F_GETLEASE), F_RDLCK, "F_GETLEASE: F_RDLCK");
	is_int(fcntl(ro2, F_GETLEASE), F_UNLCK, "another description of the file holds none");
	is_int(fcntl(ro2, F_SETLEASE, F_RDLCK), 0, "two read leases share a file");
	is_errno(fcntl(ro, F_SETLEASE, F_WRLCK), EAGAIN,
		 "no write lease while another description is open");
	is_int(fcntl(ro2, F_SETLEASE, F_UNLCK), 0, "F_UNLCK removes it");
	is_errno(fcntl(ro2, F_SETLEASE, F_UNLCK), EAGAIN, "removing it again: EAGAIN");
	close(ro2);
	is_int(fcntl(ro, F_SETLEASE, F_WRLCK), 0,
	       "a read lease upgrades when no one else has it open");
	is_int(fcntl(ro, F_GETLEASE), F_WRLCK, "F_GETLEASE: F_WRLCK");
	is_int(fcntl(ro, F_SETLEASE, F_RDLCK), 0, "and downgrades");
	is_int(fcntl(ro, F_SETLEASE, F_UNLCK), 0, "and goes");
	wr = open(path, O_WRONLY);
	is_errno(fcntl(ro, F_SETLEASE, F_RDLCK), EAGAIN,
		 "no read lease while a writer has it open");
	close(wr);
	wr = open(path, O_RDWR);
	is_errno(fcntl(wr, F_SETLEASE, F_WRLCK), EAGAIN,
		 "no write lease while a reader has it open");
	close(ro);
	is_int(fcntl(wr, F_SETLEASE, F_WRLCK), 0, "a write lease on the only description");
	close(wr);
	ro = open(path, O_RDONLY);
	/* O_ACCMODE 3 opens for neither reading nor writing: no writer stays. */
	wr = open(path, O_ACCMODE);
	if (wr >= 0)
		close(wr);
	is_int(fcntl(ro, F_SETLEASE, F_RDLCK), 0, "an O_ACCMODE 3 open leaves no writer");
	fcntl(ro, F_SETLEASE, F_UNLCK);
	close(ro);
}

/* The lease belongs to the open file description: its dups and a fork's
 * copies see it; it goes with the last close only.  Setting it makes the
 * caller the owner, removing it takes owner and F_SETSIG away. */
static void test_description(void)
{
	int fd = open(path, O_RDONLY), dup1 = dup(fd), status;
	pid_t pid;

	require(fd >= 0 && dup1 >= 0, "open");
	is_int(fcntl(fd, F_GETOWN), 0, "no owner before");
	is_int(fcntl(fd, F_SETSIG, RTSIG), 0, "F_SETSIG");
	is_int(fcntl(fd, F_SETLEASE, F_RDLCK), 0, "a read lease");
	is_int(fcntl(fd, F_GETOWN), getpid(), "the lease made the caller the owner");
	is_int(fcntl(dup1, F_GETLEASE), F_RDLCK, "a dup sees it");
	pid = fork();
	if (pid == 0)
		_exit(fcntl(fd, F_GETLEASE) == F_RDLCK ? 0 : 1);
	waitpid(pid, &status, 0);
	ok(exited_with(status, 0), "a child's copy sees it");
	close(fd);
	is_int(fcntl(dup1, F_GETLEASE), F_RDLCK, "closing one fd leaves it");
	is_int(fcntl(dup1, F_SETLEASE, F_UNLCK), 0, "removed through the dup");
	is_int(fcntl(dup1, F_GETOWN), 0, "removal took the owner away");
	is_int(fcntl(dup1, F_GETSIG), 0, "and the F_SETSIG signal");
	fd = open(path, O_RDONLY);
	is_int(fcntl(dup1, F_SETLEASE, F_RDLCK), 0, "a lease again");
	close(dup1);
	is_int(fcntl(fd, F_SETLEASE, F_WRLCK), 0,
	       "the last close released it: a write lease for another description");
	fcntl(fd, F_SETLEASE, F_UNLCK);
	close(fd);
}

/*
 * A lease of type broken by a child opening with flags (-1: truncate):
 * the holder's signal with si_fd, the breaker waiting, F_GETLEASE showing
 * what the break asks (target), the holder's answer letting it through.
 */
static void one_break(int type, int flags, int target, const char *what)
{
	int fd = leased(O_RDONLY, type);
	pid_t child = breaker(flags);

	ok(break_signal(fd), "%s: the holder gets the break signal with si_fd", what);
	ok(still_waiting(child), "%s: the breaker waits", what);
	is_int(fcntl(fd, F_GETLEASE), target, "%s: F_GETLEASE shows what the break asks", what);
	is_int(fcntl(fd, F_SETLEASE, target), 0, "%s: the holder answers", what);
	ok(exited_with(reap(child), 0), "%s: the breaker then goes on", what);
	is_int(fcntl(fd, F_GETLEASE), target, "%s: the lease is what the answer made it", what);
	if (target != F_UNLCK)
		fcntl(fd, F_SETLEASE, F_UNLCK);
	close(fd);
}

static void test_breaks(void)
{
	one_break(F_RDLCK, O_WRONLY, F_UNLCK, "a writer's open, a read lease");
	one_break(F_WRLCK, O_RDONLY, F_RDLCK, "a reader's open, a write lease");
	one_break(F_WRLCK, O_RDWR, F_UNLCK, "a writer's open, a write lease");
	one_break(F_RDLCK, -1, F_UNLCK, "truncate, a read lease");
}

/* O_NONBLOCK: EWOULDBLOCK, the break started (even one's own lease);
 * plain SIGIO when no F_SETSIG signal was chosen. */
static void test_nonblock(void)
{
	int fd = open(path, O_RDONLY), wr;
	siginfo_t si;

	require(fd >= 0 && fcntl(fd, F_SETLEASE, F_RDLCK) == 0, "lease");
	is_errno(open(path, O_WRONLY | O_NONBLOCK), EWOULDBLOCK,
		 "O_NONBLOCK open for writing: EWOULDBLOCK");
	is_int(take(SIGIO, &si, GUARD_S), SIGIO, "the holder got SIGIO");
	is_int(fcntl(fd, F_GETLEASE), F_UNLCK, "the break is pending");
	is_errno(open(path, O_RDWR | O_NONBLOCK), EWOULDBLOCK, "still EWOULDBLOCK");
	is_int(take(SIGIO, &si, 0), -1, "no second signal for a break already pending");
	wr = open(path, O_RDONLY | O_NONBLOCK);
	ok(wr >= 0, "a reader does not conflict with a read lease");
	is_errno(fcntl(wr, F_SETLEASE, F_RDLCK), EAGAIN,
		 "no new read lease while another is being broken for a writer");
	close(wr);
	fcntl(fd, F_SETLEASE, F_UNLCK);
	wr = open(path, O_WRONLY | O_NONBLOCK);
	ok(wr >= 0, "open for writing once the lease is gone");
	close(wr);
	close(fd);
}

static void on_usr1(int sig)
{
	(void)sig;
}

/* A signal ends the breaker's wait: EINTR without SA_RESTART. */
static void test_eintr(void)
{
	int fd = leased(O_RDONLY, F_RDLCK), status;
	pid_t child = fork();

	require(child >= 0, "fork");
	if (child == 0) {
		struct sigaction sa = {.sa_handler = on_usr1};
		sigaction(SIGUSR1, &sa, NULL);
		int r = open(path, O_WRONLY);
		_exit(r < 0 && errno == EINTR ? 0 : 1);
	}
	ok(break_signal(fd), "the breaker started its wait");
	kill(child, SIGUSR1);
	waitpid(child, &status, 0);
	ok(exited_with(status, 0), "a signal ends it: EINTR");
	is_int(fcntl(fd, F_GETLEASE), F_UNLCK, "the break stays pending");
	is_int(fcntl(fd, F_SETLEASE, F_UNLCK), 0, "and the holder may still answer it");
	close(fd);
}

/* Hostile orders: the breaker killed while it waits; the holder closing
 * or killed during the break. */
static void test_teardown(void)
{
	int fd = leased(O_RDONLY, F_RDLCK), p[2], status;
	pid_t child = breaker(O_WRONLY), holder;
	char c;

	ok(break_signal(fd), "a breaker waits");
	kill(child, SIGKILL);
	ok(killed_by(reap(child), SIGKILL), "killed while it waits");
	is_int(fcntl(fd, F_SETLEASE, F_UNLCK), 0, "the holder removes the lease after");
	is_int(fcntl(fd, F_GETSIG), 0, "which reset its F_SETSIG signal");
	fcntl(fd, F_SETSIG, RTSIG);
	is_int(fcntl(fd, F_SETLEASE, F_RDLCK), 0, "and may take a new one");

	child = breaker(O_RDWR);
	ok(break_signal(fd), "the next breaker");
	close(fd);
	ok(exited_with(reap(child), 0), "the holder's close ends the break");

	require(pipe(p) == 0, "pipe");
	holder = fork();
	require(holder >= 0, "fork");
	if (holder == 0) {
		int hfd = leased(O_RDONLY, F_RDLCK);
		bool got;
		write(p[1], "r", 1);
		got = break_signal(hfd);
		write(p[1], got ? "b" : "x", 1);
		pause();
		_exit(0);
	}
	read(p[0], &c, 1);
	child = breaker(O_WRONLY);
	ok(read(p[0], &c, 1) == 1 && c == 'b', "a holder in another process is signalled");
	ok(still_waiting(child), "its breaker waits");
	kill(holder, SIGKILL);
	waitpid(holder, &status, 0);
	ok(exited_with(reap(child), 0), "the holder's death ends the break");
	close(p[0]);
	close(p[1]);
}

static int write_proc(const char *file, const char *value)
{
	int fd = open(file, O_WRONLY), n;

	if (fd < 0)
		return -1;
	n = write(fd, value, strlen(value));
	close(fd);
	return n == (int)strlen(value) ? 0 : -1;
}

/* fdkernel only (the host's settings are shared): a holder that never
 * answers loses its lease after lease-break-time; leases-enable 0. */
static void test_sysctls(void)
{
	char old[32] = "45\n";
	int fd;
	pid_t child;

	if (!on_fdkernel()) {
		for (int i = 0; i < 7; i++)
			skip("the host's /proc/sys/fs is shared", "lease sysctls");
		return;
	}
	read_text("/proc/sys/fs/lease-break-time", old, sizeof(old));
	is_int(write_proc("/proc/sys/fs/lease-break-time", "1"), 0, "lease-break-time 1");
	fd = leased(O_RDONLY, F_RDLCK);
	child = breaker(O_WRONLY);
	ok(break_signal(fd), "a break the holder ignores");
	ok(exited_with(reap(child), 0), "the breaker proceeds after the break time");
	is_int(fcntl(fd, F_GETLEASE), F_UNLCK, "the lease was broken");
	is_errno(fcntl(fd, F_SETLEASE, F_UNLCK), EAGAIN, "nothing is left to remove");
	close(fd);
	write_proc("/proc/sys/fs/lease-break-time", old);

	write_proc("/proc/sys/fs/leases-enable", "0");
	fd = open(path, O_RDONLY);
	is_errno(fcntl(fd, F_SETLEASE, F_RDLCK), EINVAL, "leases-enable 0: no new lease");
	write_proc("/proc/sys/fs/leases-enable", "1");
	is_int(fcntl(fd, F_SETLEASE, F_RDLCK), 0, "leases-enable 1: granted");
	fcntl(fd, F_SETLEASE, F_UNLCK);
	close(fd);
}

int main(void)
{
	sigset_t s;

	plan(80);
	snprintf(path, sizeof path, "/tmp/leases.%d", getpid());
	close(open(path, O_RDWR | O_CREAT | O_TRUNC, 0600));
	sigemptyset(&s);
	sigaddset(&s, RTSIG);
	sigaddset(&s, SIGIO);
	sigprocmask(SIG_BLOCK, &s, NULL); /* taken with sigtimedwait */
	test_rules();
	test_description();
	test_breaks();
	test_nonblock();
	test_eintr();
	test_teardown();
	test_sysctls();
	unlink(path);
	return done();
}
