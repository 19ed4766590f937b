/* Signal-driven I/O as Linux does it: F_SETOWN/F_GETOWN (a process, a
 * process group), F_SETOWN_EX/F_GETOWN_EX (a thread too), F_SETSIG and
 * F_GETSIG with their errnos, and O_ASYNC set by F_SETFL sending SIGIO
 * (or the F_SETSIG signal with si_code POLL_*, si_band and si_fd) when a
 * pipe or a socket (AF_UNIX, AF_INET) becomes readable or writable or its
 * peer goes; none once O_ASYNC is cleared; open's O_ASYNC arms nothing. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "inet_pair.h"
#include "tap.h"
#include "testutil.h"

#define RTSIG (SIGRTMIN + 1)

static void block(int sig)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, sig);
	sigprocmask(SIG_BLOCK, &s, NULL);
}

/* sig if it is pending (taken, its information in *si), else -1.  wait:
 * up to 10 s for an event another CPU or the network delivers (a safety
 * net for a hang, never a measure); otherwise it must be there now. */
static int take(int sig, siginfo_t *si, bool wait)
{
	sigset_t s;
	struct timespec t = {wait ? 10 : 0, 0};

	sigemptyset(&s);
	sigaddset(&s, sig);
	memset(si, 0, sizeof(*si));
	return sigtimedwait(&s, si, &t);
}

/* Drops what is pending of sig, and the plain SIGIO a full queue falls
 * back to. */
static void flush(int sig)
{
	siginfo_t si;

	while (take(sig, &si, false) == sig)
		;
	take(SIGIO, &si, false);
}

/* f's owner is the caller, its signal sig, O_ASYNC on. */
static void arm(int fd, int sig)
{
	require(fcntl(fd, F_SETOWN, getpid()) == 0 && fcntl(fd, F_SETSIG, sig) == 0 &&
		    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC) == 0,
		"arm O_ASYNC");
}

static bool poll_info(const siginfo_t *si, int code, long band, int fd)
{
	return si->si_code == code && si->si_band == band && si->si_fd == fd;
}

static void test_errors(void)
{
	int p[2];
	struct f_owner_ex o;

	require(pipe(p) == 0, "pipe");
	is_int(fcntl(p[0], F_GETSIG), 0, "F_GETSIG of a new file: 0 (SIGIO)");
	is_int(fcntl(p[0], F_GETOWN), 0, "F_GETOWN of a new file: 0");
	memset(&o, 0x55, sizeof(o));
	ok(fcntl(p[0], F_GETOWN_EX, &o) == 0 && o.type == F_OWNER_TID && o.pid == 0,
	   "F_GETOWN_EX of a new file: F_OWNER_TID, 0");
	ok(fcntl(p[0], F_SETSIG, 65) == -1 && errno == EINVAL, "F_SETSIG 65: EINVAL");
	ok(fcntl(p[0], F_SETSIG, -1) == -1 && errno == EINVAL, "F_SETSIG -1: EINVAL");
	ok(fcntl(p[0], F_SETSIG, 64) == 0 && fcntl(p[0], F_GETSIG) == 64, "F_SETSIG 64 reads back");
	ok(fcntl(p[0], F_SETOWN, 999999) == -1 && errno == ESRCH, "F_SETOWN of no process: ESRCH");
	ok(fcntl(p[0], F_SETOWN, -999999) == -1 && errno == ESRCH, "F_SETOWN of no group: ESRCH");
	ok(fcntl(p[0], F_SETOWN, INT_MIN) == -1 && errno == EINVAL, "F_SETOWN INT_MIN: EINVAL");
	o = (struct f_owner_ex){3, getpid()};
	ok(fcntl(p[0], F_SETOWN_EX, &o) == -1 && errno == EINVAL, "F_SETOWN_EX type 3: EINVAL");
	o = (struct f_owner_ex){F_OWNER_PID, -getpid()};
	ok(fcntl(p[0], F_SETOWN_EX, &o) == -1 && errno == ESRCH, "F_SETOWN_EX pid < 0: ESRCH");
	ok(fcntl(p[0], F_SETOWN_EX, (void *)8) == -1 && errno == EFAULT, "F_SETOWN_EX bad: EFAULT");
	ok(fcntl(p[0], F_GETOWN_EX, (void *)8) == -1 && errno == EFAULT, "F_GETOWN_EX bad: EFAULT");
	memset(&o, 0, sizeof(o));
	ok(fcntl(p[0], F_SETOWN, getpid()) == 0 && fcntl(p[0], F_GETOWN) == getpid() &&
	       fcntl(p[0], F_GETOWN_EX, &o) == 0 && o.type == F_OWNER_PID && o.pid == getpid(),
	   "F_SETOWN pid: F_GETOWN_EX says F_OWNER_PID");
	ok(fcntl(p[0], F_SETOWN, -getpgrp()) == 0 && fcntl(p[0], F_GETOWN) == -getpgrp() &&
	       fcntl(p[0], F_GETOWN_EX, &o) == 0 && o.type == F_OWNER_PGRP && o.pid == getpgrp(),
	   "F_SETOWN -pgrp: F_GETOWN negative, F_GETOWN_EX F_OWNER_PGRP");
	o = (struct f_owner_ex){F_OWNER_TID, gettid()};
	ok(fcntl(p[0], F_SETOWN_EX, &o) == 0 && fcntl(p[0], F_GETOWN) == gettid(),
	   "F_SETOWN_EX F_OWNER_TID: F_GETOWN gives the tid");
	ok(fcntl(p[0], F_SETFL, O_ASYNC) == 0 && (fcntl(p[0], F_GETFL) & O_ASYNC) &&
	       fcntl(p[0], F_SETFL, 0) == 0 && !(fcntl(p[0], F_GETFL) & O_ASYNC),
	   "F_SETFL sets and clears O_ASYNC");
	close(p[0]);
	close(p[1]);
}

static void test_pipe(void)
{
	int p[2], d;
	siginfo_t si;
	char c;

	require(pipe(p) == 0, "pipe");
	arm(p[0], 0);
	write(p[1], "x", 1);
	ok(take(SIGIO, &si, false) == SIGIO && si.si_code == SI_KERNEL,
	   "pipe write: plain SIGIO (SI_KERNEL) to the read end's owner");
	fcntl(p[0], F_SETSIG, SIGIO);
	write(p[1], "x", 1);
	ok(take(SIGIO, &si, false) == SIGIO && poll_info(&si, POLL_IN, POLLIN | POLLRDNORM, p[0]),
	   "F_SETSIG SIGIO: POLL_IN, si_band, si_fd");
	fcntl(p[0], F_SETSIG, RTSIG);
	write(p[1], "x", 1);
	write(p[1], "x", 1);
	ok(take(RTSIG, &si, false) == RTSIG && poll_info(&si, POLL_IN, POLLIN | POLLRDNORM, p[0]) &&
	       take(RTSIG, &si, false) == RTSIG,
	   "a real-time signal: queued once per write, with POLL_IN and si_fd");
	ok(take(SIGIO, &si, false) == -1, "and no SIGIO beside it");
	fcntl(p[0], F_SETSIG, SIGSYS);
	write(p[1], "x", 1);
	ok(take(SIGSYS, &si, false) == SIGSYS && si.si_code == SI_SIGIO && si.si_fd == p[0],
	   "a signal with codes of its own gets SI_SIGIO");
	fcntl(p[0], F_SETSIG, RTSIG);
	fcntl(p[0], F_SETFL, O_ASYNC | O_NONBLOCK);
	while (read(p[0], &c, 1) == 1) /* empty again */
		;
	fcntl(p[0], F_SETFL, O_ASYNC);
	arm(p[1], RTSIG);
	write(p[1], "x", 1);
	ok(take(RTSIG, &si, false) == RTSIG && si.si_fd == p[0] && take(RTSIG, &si, false) == -1,
	   "the write end's O_ASYNC does not hear writes");
	read(p[0], &c, 1);
	ok(take(RTSIG, &si, false) == RTSIG &&
	       poll_info(&si, POLL_OUT, POLLOUT | POLLWRNORM | POLLWRBAND, p[1]),
	   "a read: POLL_OUT to the write end's owner");
	d = dup(p[0]);
	close(p[0]);
	write(p[1], "x", 1);
	ok(take(RTSIG, &si, false) == RTSIG && si.si_fd == p[0],
	   "si_fd stays the fd that set O_ASYNC after it is closed (a dup keeps the file)");
	close(d);
	ok(take(RTSIG, &si, false) == RTSIG && si.si_code == POLL_OUT && si.si_fd == p[1],
	   "the last reader's close: POLL_OUT to the writer");
	fcntl(p[1], F_SETFL, 0);
	close(p[1]);
	flush(RTSIG);

	require(pipe(p) == 0, "pipe");
	arm(p[0], RTSIG);
	fcntl(p[0], F_SETFL, 0);
	write(p[1], "x", 1);
	ok(take(RTSIG, &si, false) == -1, "no signal once O_ASYNC is cleared");
	close(p[0]);
	close(p[1]);
}

/* open's O_ASYNC shows in F_GETFL but arms nothing, and F_SETFL then sees
 * no change (Linux's long-standing behaviour: open(2), BUGS). */
static void test_open_flag(void)
{
	char path[64];
	siginfo_t si;
	int r, w;

	snprintf(path, sizeof(path), "/tmp/sigio_fifo.%d", getpid());
	require(mkfifo(path, 0600) == 0, "mkfifo");
	r = open(path, O_RDONLY | O_NONBLOCK | O_ASYNC);
	w = open(path, O_WRONLY);
	ok(r >= 0 && (fcntl(r, F_GETFL) & O_ASYNC), "open(O_ASYNC) shows in F_GETFL");
	fcntl(r, F_SETOWN, getpid());
	fcntl(r, F_SETSIG, RTSIG);
	fcntl(r, F_SETFL, fcntl(r, F_GETFL));
	write(w, "x", 1);
	ok(take(RTSIG, &si, false) == -1, "but arms nothing, even after F_SETFL keeps it");
	close(r);
	r = open(path, O_RDONLY | O_NONBLOCK);
	arm(r, RTSIG);
	write(w, "x", 1);
	ok(take(RTSIG, &si, false) == RTSIG && si.si_fd == r && si.si_code == POLL_IN,
	   "a FIFO armed by F_SETFL: POLL_IN");
	close(r);
	close(w);
	unlink(path);
}

static void test_unix(void)
{
	int s[2], i = 0;
	siginfo_t si;
	char buf[4096];

	require(socketpair(AF_UNIX, SOCK_STREAM, 0, s) == 0, "socketpair");
	arm(s[0], RTSIG);
	write(s[1], "x", 1);
	ok(take(RTSIG, &si, true) == RTSIG && poll_info(&si, POLL_IN, POLLIN | POLLRDNORM, s[0]),
	   "AF_UNIX stream data: POLL_IN");
	read(s[0], buf, 1);
	fcntl(s[1], F_SETFL, O_NONBLOCK);
	arm(s[1], RTSIG);
	while (write(s[1], buf, sizeof(buf)) > 0 && ++i < 10000)
		;
	flush(RTSIG); /* the reader's POLL_INs */
	fcntl(s[0], F_SETFL, O_NONBLOCK | O_ASYNC);
	while (read(s[0], buf, sizeof(buf)) > 0)
		;
	ok(take(RTSIG, &si, true) == RTSIG &&
	       poll_info(&si, POLL_OUT, POLLOUT | POLLWRNORM | POLLWRBAND, s[1]),
	   "a writer that found no room: POLL_OUT once the reader drains");
	flush(RTSIG);
	fcntl(s[1], F_SETFL, O_NONBLOCK);
	close(s[1]);
	ok(take(RTSIG, &si, true) == RTSIG && poll_info(&si, POLL_HUP, POLLHUP | POLLERR, s[0]),
	   "the peer's close: POLL_HUP");
	close(s[0]);

	require(socketpair(AF_UNIX, SOCK_STREAM, 0, s) == 0, "socketpair");
	arm(s[0], RTSIG);
	shutdown(s[1], SHUT_WR);
	ok(take(RTSIG, &si, true) == RTSIG && si.si_code == POLL_IN && si.si_fd == s[0],
	   "the peer's SHUT_WR: POLL_IN");
	close(s[0]);
	close(s[1]);

	require(socketpair(AF_UNIX, SOCK_DGRAM, 0, s) == 0, "socketpair");
	arm(s[0], RTSIG);
	send(s[1], "x", 1, 0);
	ok(take(RTSIG, &si, true) == RTSIG && si.si_code == POLL_IN && si.si_fd == s[0],
	   "AF_UNIX datagram: POLL_IN");
	close(s[0]);
	close(s[1]);
}

static void test_inet(void)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof sin;
	int c, a, l = socket(AF_INET, SOCK_STREAM, 0);
	siginfo_t si;

	require(l >= 0 && bind(l, (struct sockaddr *)&sin, sizeof sin) == 0 && listen(l, 1) == 0 &&
		    getsockname(l, (struct sockaddr *)&sin, &len) == 0,
		"listener");
	arm(l, RTSIG);
	c = socket(AF_INET, SOCK_STREAM, 0);
	require(connect(c, (struct sockaddr *)&sin, sizeof sin) == 0, "connect");
	ok(take(RTSIG, &si, true) == RTSIG && si.si_code == POLL_IN && si.si_fd == l,
	   "a listener with a connection to accept: POLL_IN");
	a = accept(l, NULL, NULL);
	close(l);
	flush(RTSIG);
	arm(a, RTSIG);
	send(c, "x", 1, 0);
	ok(take(RTSIG, &si, true) == RTSIG && si.si_code == POLL_IN && si.si_fd == a,
	   "TCP data: POLL_IN");
	close(c);
	ok(take(RTSIG, &si, true) == RTSIG && si.si_code == POLL_IN && si.si_fd == a,
	   "the TCP peer's close (FIN): POLL_IN");
	close(a);
	flush(RTSIG);
}

/* Every process of the owner group gets it: a child leads a new group and
 * forks a member; both take the signal. */
static void pgrp_member(int fd)
{
	siginfo_t si;

	_exit(take(RTSIG, &si, true) == RTSIG && si.si_fd == fd ? 0 : 1);
}

static void pgrp_leader(void)
{
	int p[2], st;
	pid_t m;
	siginfo_t si;

	setpgid(0, 0);
	if (pipe(p) || fcntl(p[0], F_SETOWN, -getpid()) || fcntl(p[0], F_SETSIG, RTSIG) ||
	    fcntl(p[0], F_SETFL, O_ASYNC))
		_exit(2);
	if ((m = fork()) == 0)
		pgrp_member(p[0]);
	write(p[1], "x", 1);
	if (take(RTSIG, &si, false) != RTSIG || si.si_fd != p[0])
		_exit(3);
	waitpid(m, &st, 0);
	_exit(exited_with(st, 0) ? 0 : 4);
}

static void test_pgrp(void)
{
	int st = child_status(pgrp_leader);

	ok(exited_with(st, 0), "a process-group owner: every member gets it (%#x)", st);
}

static volatile pid_t thread_tid;
static volatile int thread_fd = -1;

static void *tid_owner(void *arg)
{
	siginfo_t si;

	(void)arg;
	thread_tid = gettid();
	if (take(RTSIG, &si, true) == RTSIG)
		thread_fd = si.si_fd;
	return NULL;
}

static void test_thread(void)
{
	int p[2];
	pthread_t t;
	sigset_t pend;
	struct f_owner_ex o;

	require(pipe(p) == 0, "pipe");
	pthread_create(&t, NULL, tid_owner, NULL);
	while (!thread_tid)
		sched_yield();
	o = (struct f_owner_ex){F_OWNER_TID, thread_tid};
	fcntl(p[0], F_SETOWN_EX, &o);
	fcntl(p[0], F_SETSIG, RTSIG);
	fcntl(p[0], F_SETFL, O_ASYNC);
	write(p[1], "x", 1);
	sigpending(&pend);
	ok(!sigismember(&pend, RTSIG), "F_OWNER_TID: not pending for the process or this thread");
	pthread_join(t, NULL);
	ok(thread_fd == p[0], "the owner thread takes it");
	close(p[0]);
	close(p[1]);
}

/* The owner belongs to the open file: a fork shares it; an owner that
 * exits leaves F_GETOWN 0 and nothing to signal. */
static void test_lifetime(void)
{
	int p[2], st;
	pid_t child;
	siginfo_t si;

	require(pipe(p) == 0, "pipe");
	arm(p[0], RTSIG);
	if ((child = fork()) == 0)
		_exit(fcntl(p[0], F_GETOWN) == getppid() ? 0 : 1);
	waitpid(child, &st, 0);
	ok(exited_with(st, 0), "a forked child sees the parent as the owner (one description)");
	if ((child = fork()) == 0)
		_exit(fcntl(p[0], F_SETOWN, getpid()) ? 1 : 0);
	waitpid(child, &st, 0);
	ok(exited_with(st, 0) && fcntl(p[0], F_GETOWN) == 0,
	   "an owner that exited and was reaped: F_GETOWN 0");
	write(p[1], "x", 1);
	ok(take(RTSIG, &si, false) == -1, "and its signal goes to no one");
	close(p[0]); /* closed while armed: off the pipe's list (the leak check) */
	close(p[1]);
}

/* Hostile teardown: children share the pipe's read end, each arming its
 * own dup and the shared one, switching owners and closing while the
 * parent writes and reads; some exit armed.  Nothing may hang or crash,
 * and the guest's leak check finds nothing left. */
static void churn(int rd, int id)
{
	for (int i = 0; i < 200; i++) {
		int d = dup(rd);
		arm(d, i % 2 ? RTSIG : 0);
		fcntl(rd, F_SETOWN, i % 3 ? getpid() : -getpgrp());
		fcntl(rd, F_SETFL, i % 2 ? O_ASYNC | O_NONBLOCK : O_NONBLOCK);
		if (i % 4 != id % 4)
			close(d);
	}
	_exit(0);
}

/* In a process group of its own: the owners churn sets name it. */
static void teardown_leader(void)
{
	int p[2], st, good = 0;
	pid_t kids[4];
	char buf[64];

	setpgid(0, 0);
	require(pipe(p) == 0, "pipe");
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	for (int i = 0; i < 4; i++)
		if ((kids[i] = fork()) == 0)
			churn(p[0], i);
	for (int i = 0; i < 400; i++) {
		write(p[1], "x", 1);
		read(p[0], buf, sizeof(buf));
	}
	for (int i = 0; i < 4; i++)
		good += waitpid(kids[i], &st, 0) == kids[i] && exited_with(st, 0);
	_exit(good == 4 ? 0 : 1);
}

static void test_teardown(void)
{
	int st = child_status(teardown_leader);

	ok(exited_with(st, 0),
	   "four processes arming, re-owning and closing one pipe while it is used (%#x)", st);
}

int main(void)
{
	plan(45);
	block(SIGIO);
	block(RTSIG);
	block(SIGSYS);
	test_errors();
	test_pipe();
	test_open_flag();
	test_unix();
	test_inet();
	test_pgrp();
	test_thread();
	test_lifetime();
	test_teardown();
	return done();
}
