/*
 * Regression (issue 13, item 7): with the ephemeral ports used up, bind to
 * port 0 tried every port against every bound socket under a spinlock with
 * interrupts off: ~14 s with the whole system stopped.  Here filler
 * processes (each under its fd limit) take every ephemeral port of a type;
 * then bind(0) must fail at once with EADDRINUSE while a process beside
 * keeps running, the automatic binds of connect, sendto and listen must
 * fail with Linux's errno, and the one port freed must be found again.
 * On the host it runs in a network namespace of its own (the ports of the
 * machine are not ours to exhaust) and is skipped if it cannot make one.
 */
#include <fcntl.h>
#include <sys/resource.h>

#include <fdkernel.h>

#include "robust.h"
#include "sock_util.h"

/* The ephemeral range: Linux's default (a namespace of our own has it) and fdkernel's. */
#define EPHEMERAL_FIRST 32768
#define EPHEMERAL_LAST	60999
#define FILLER_FDS	20000 /* sockets per filler at most (the host's hard limit) */
#define TIMED_BINDS	200   /* bind(0) calls timed for the figures */
#define WINDOW_MS	300   /* failing bind(0) calls, back to back, this long */
#define SLOW_BIND_MS	1000  /* one failing bind(0) taking longer is a failure */

/* Linux x86_64 values the host needs for a namespace of its own. */
#define NR_UNSHARE    272
#define CLONE_NEWUSER 0x10000000
#define CLONE_NEWNET  0x40000000
#define SIOCGIFFLAGS  0x8913
#define SIOCSIFFLAGS  0x8914
#define IFF_UP	      1

struct ifreq_flags {
	char name[16];
	short flags;
	char pad[22];
};

/* Host only: a network namespace of our own, with its loopback up. */
static bool private_net(void)
{
	struct ifreq_flags r = {.name = "lo"};
	int fd;
	bool up;

	if (syscall(NR_UNSHARE, CLONE_NEWNET) < 0 &&
	    syscall(NR_UNSHARE, CLONE_NEWUSER | CLONE_NEWNET) < 0)
		return false;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	up = fd >= 0 && syscall(__NR_ioctl, fd, SIOCGIFFLAGS, &r) == 0;
	r.flags |= IFF_UP;
	up = up && syscall(__NR_ioctl, fd, SIOCSIFFLAGS, &r) == 0;
	close(fd);
	return up;
}

/* 127.0.0.1:port into *a. */
static void loopback(struct saddr *a, int port)
{
	saddr_make(a, AF_INET, "");
	((struct sockaddr_in *)&a->ss)->sin_port = htons(port);
}

static int bind_port(int fd, int port)
{
	struct saddr a;

	loopback(&a, port);
	return bind(fd, (struct sockaddr *)&a.ss, a.len);
}

static int bind_any(int fd)
{
	return bind_port(fd, 0);
}

static int port_of(int fd)
{
	struct saddr a = {.len = sizeof(a.ss)};

	if (getsockname(fd, (struct sockaddr *)&a.ss, &a.len) < 0)
		return -1;
	return ntohs(((struct sockaddr_in *)&a.ss)->sin_port);
}

/* A socket of type bound to an ephemeral port (listening if a stream), or -1. */
static int bound_socket(int type)
{
	int fd = socket(AF_INET, type, 0);

	if (fd < 0 || bind_any(fd) < 0 || (type == SOCK_STREAM && listen(fd, 1) < 0))
		return -1;
	return fd;
}

/* What a filler says when it stops binding. */
struct verdict {
	char why;  /* 'f': it reached the range's end; 'm': its fds ran out first */
	int next;  /* the first port it did not take */
	int bound; /* sockets it holds */
};

/* Filler: binds a socket of type to each free port from first on (explicit
 * ports: bind(0) on Linux searches, which would make filling quadratic)
 * until the range or its fds end, says so on report, then holds the ports
 * until release reads EOF. */
static void filler(int type, int first, int report, int release)
{
	struct verdict v = {0};
	struct rlimit rl;
	int fd, port;
	char c;

	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = rl.rlim_max < FILLER_FDS ? rl.rlim_max : FILLER_FDS;
	setrlimit(RLIMIT_NOFILE, &rl);
	for (port = first; port <= EPHEMERAL_LAST; port++) {
		if ((fd = socket(AF_INET, type, 0)) < 0)
			break;
		if (bind_port(fd, port) == 0)
			v.bound++;
		else if (errno == EADDRINUSE)
			close(fd);
		else
			break;
	}
	v.why = port > EPHEMERAL_LAST ? 'f' : errno == EMFILE ? 'm' : '?';
	v.next = port;
	if (write(report, &v, sizeof v) != sizeof v)
		_exit(1);
	while (read(release, &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

/* Starts a filler from port first and waits for its verdict (why 0: it
 * failed).  The filler does not keep our socket mine (its port must free
 * when we close it). */
static struct verdict start_filler(int type, int first, int release[2], int mine)
{
	struct verdict v = {0};
	int report[2];
	pid_t pid;

	require(pipe(report) == 0, "pipe");
	fflush(stdout);
	pid = fork();
	require(pid >= 0, "fork");
	if (pid == 0) {
		close(release[1]);
		close(mine);
		filler(type, first, report[1], release[0]);
	}
	close(report[1]);
	if (read(report[0], &v, sizeof v) != sizeof v)
		v.why = 0;
	close(report[0]);
	return v;
}

static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* Nanoseconds per bind(0) of TIMED_BINDS fresh sockets of type. */
static long bind_cost_ns(int type)
{
	int fds[TIMED_BINDS];
	long t0, ns;

	for (int i = 0; i < TIMED_BINDS; i++)
		fds[i] = socket(AF_INET, type, 0);
	t0 = now_ns();
	for (int i = 0; i < TIMED_BINDS; i++)
		bind_any(fds[i]);
	ns = now_ns() - t0;
	for (int i = 0; i < TIMED_BINDS; i++)
		close(fds[i]);
	return ns / TIMED_BINDS;
}

/* Takes every ephemeral port of type but mine's (fillers hold them until
 * release[1] closes); shows bind(0)'s cost with none and with one filler's
 * sockets bound. */
static bool fill_ports(int type, int release[2], int mine, int *fillers)
{
	long empty = bind_cost_ns(type);
	struct verdict v = start_filler(type, EPHEMERAL_FIRST, release, mine);

	*fillers = 1;
	diag("%s bind(0): %ld ns with no other socket bound, %ld ns with %d bound", type_name(type),
	     empty, bind_cost_ns(type), v.bound);
	while (v.why == 'm' && (*fillers)++ < 4)
		v = start_filler(type, v.next, release, mine);
	return v.why == 'f';
}

/* A child that spins and writes a byte to the pipe *out now and then. */
static pid_t start_spinner(int *out)
{
	int p[2];
	pid_t pid;

	require(pipe(p) == 0 && fcntl(p[1], F_SETFL, O_NONBLOCK) == 0, "pipe");
	fflush(stdout);
	pid = fork();
	require(pid >= 0, "fork");
	if (pid == 0) {
		for (volatile unsigned long i = 0;; i++)
			if (i % 4096 == 0 && write(p[1], "x", 1) < 0 && errno != EAGAIN)
				_exit(1);
	}
	close(p[1]);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	*out = p[0];
	return pid;
}

static long drain(int fd)
{
	char buf[512];
	long n = 0, r;

	while ((r = read(fd, buf, sizeof buf)) > 0)
		n += r;
	return n;
}

/* Failing bind(0) calls for WINDOW_MS: all EADDRINUSE, none slow, and a
 * spinning process made progress meanwhile. */
static void check_exhausted(int type)
{
	int fd = socket(AF_INET, type, 0), spin, calls = 0, wrong = 0;
	long t0, t, slowest = 0, progress;
	pid_t pid = start_spinner(&spin);

	sleep_ms(20);
	drain(spin);
	for (t0 = t = now_ms(); t - t0 < WINDOW_MS; calls++) {
		long r = bind_any(fd), err = errno, t1 = now_ms();
		wrong += r != -1 || err != EADDRINUSE;
		slowest = t1 - t > slowest ? t1 - t : slowest;
		t = t1;
	}
	progress = drain(spin);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(spin);
	ok(wrong == 0, "%s: bind(0) with the range used up: EADDRINUSE (%d calls, %d not)",
	   type_name(type), calls, wrong);
	ok(slowest < SLOW_BIND_MS, "%s: each failing bind(0) returns at once (slowest %ld ms)",
	   type_name(type), slowest);
	ok(progress > 0, "%s: another process kept running meanwhile (%ld writes)", type_name(type),
	   progress);
	close(fd);
}

/* The automatic binds: Linux's errno for each way to reach one. */
static void check_autobind(int type, const struct saddr *to)
{
	int fd = socket(AF_INET, type, 0);

	if (type == SOCK_STREAM) {
		is_errno(connect(fd, (const struct sockaddr *)&to->ss, to->len), EADDRNOTAVAIL,
			 "stream: connect needing a port: EADDRNOTAVAIL");
		close(fd);
		fd = socket(AF_INET, type, 0);
		is_errno(listen(fd, 1), EADDRINUSE, "stream: listen needing a port: EADDRINUSE");
	} else {
		is_errno(sendto(fd, "x", 1, 0, (const struct sockaddr *)&to->ss, to->len), EAGAIN,
			 "dgram: sendto needing a port: EAGAIN");
		is_errno(connect(fd, (const struct sockaddr *)&to->ss, to->len), EAGAIN,
			 "dgram: connect needing a port: EAGAIN");
	}
	close(fd);
}

static void check_type(int type)
{
	int release[2], s = bound_socket(type), port = port_of(s), fd, fillers, got;
	struct saddr to;

	require(s >= 0 && pipe(release) == 0, "a bound socket and a pipe");
	loopback(&to, port);
	if (!ok(fill_ports(type, release, s, &fillers), "%s: fillers took every ephemeral port",
		type_name(type)))
		diag("(a filler failed, or 4 fillers' fds were not enough)");
	check_exhausted(type);
	check_autobind(type, &to);
	close(s);
	fd = socket(AF_INET, type, 0);
	got = bind_any(fd) == 0 ? port_of(fd) : -errno;
	ok(got == port, "%s: the one port freed is found again (%d, got %d)", type_name(type), port,
	   got);
	close(fd);
	close(release[0]);
	close(release[1]);
	is_int(reap_all(), fillers, "%s: the fillers exit cleanly, their ports with them",
	       type_name(type));
}

int main(int argc, char **argv)
{
	struct kstat before;
	bool have_before = kstat_read(&before);

	(void)argc;
	if (!on_fdkernel() && !private_net())
		skip_all("no network namespace of our own on the host");
	plan(2 * 8 + 3);
	check_type(SOCK_STREAM);
	check_type(SOCK_DGRAM);
	system_usable(argv[0], "using up the ephemeral ports");
	kstat_unchanged(&before, have_before, "nothing leaked");
	return done();
}
