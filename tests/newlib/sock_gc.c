/*
 * AF_UNIX sockets in flight inside each other: cycles nobody can receive
 * any more (a socket sent over itself, a listener sent into its own
 * unaccepted connection) are collected, thousands of times over, and the
 * kernel's counters return to where they were; what is still reachable
 * is kept.  In-flight fds are limited by RLIMIT_NOFILE (ETOOMANYREFS).
 */
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "robust.h"
#include "sock_util.h"

/* Sends one byte with fd attached: sendmsg's result. */
static ssize_t send_fd(int sock, int fd)
{
	return send_fds(sock, "F", 1, &fd, 1);
}

#define ROUNDS 1000

/* Receives one byte and the fd it carries: the new fd, or -1. */
static int recv_fd(int sock)
{
	char buf[CMSG_SPACE(sizeof(int))] __attribute__((aligned(8))), byte;
	struct iovec v = {&byte, 1};
	struct msghdr m = {
	    .msg_iov = &v, .msg_iovlen = 1, .msg_control = buf, .msg_controllen = sizeof(buf)};
	struct cmsghdr *h;
	int fd;

	if (recvmsg(sock, &m, 0) != 1 || !(h = CMSG_FIRSTHDR(&m)) || h->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(h), sizeof(int));
	return fd;
}

/* The collector runs when an AF_UNIX socket is released (as on Linux). */
static void trigger_gc(void)
{
	close(socket(AF_UNIX, SOCK_DGRAM, 0));
}

/* Collects, then sleeps: the kernel frees a released file's memory only at
 * a quiescent point (a context switch), after lock-free fd lookups. */
static void settle(void)
{
	trigger_gc();
	sleep_ms(20);
}

/* Each end of a pair sent over itself (into the other end's queue). */
static bool pair_cycle(int type)
{
	int sv[2];

	if (socketpair(AF_UNIX, type, 0, sv) < 0)
		return false;
	bool sent = send_fd(sv[0], sv[0]) == 1 && send_fd(sv[1], sv[1]) == 1;
	close(sv[0]);
	close(sv[1]);
	return sent;
}

/* A listener sent into its own unaccepted connection. */
static bool listener_cycle(void)
{
	struct saddr a;
	int l = sock_server(AF_UNIX, SOCK_STREAM, "gc", &a);
	int c = l < 0 ? -1 : sock_client(AF_UNIX, SOCK_STREAM, &a);
	bool sent = c >= 0 && send_fd(c, l) == 1;

	saddr_drop(&a);
	if (c >= 0)
		close(c);
	if (l >= 0)
		close(l);
	return sent;
}

static void test_cycles(void)
{
	struct kstat before;
	bool have = kstat_read(&before);
	int good[3] = {0};

	for (int i = 0; i < ROUNDS; i++) {
		good[0] += pair_cycle(SOCK_STREAM);
		good[1] += pair_cycle(SOCK_DGRAM);
		good[2] += listener_cycle();
	}
	is_int(good[0], ROUNDS, "stream pairs sent over themselves, %d times", ROUNDS);
	is_int(good[1], ROUNDS, "datagram pairs sent over themselves, %d times", ROUNDS);
	is_int(good[2], ROUNDS, "listeners sent into their own connection, %d times", ROUNDS);
	settle();
	kstat_unchanged(&before, have, "every cycle collected: files, sockets, inodes, heap");
}

/* A pipe's write end inside a cycle is closed with it: its reader sees EOF. */
static void test_cycle_closes_files(void)
{
	int sv[2], pp[2];
	char b;

	require(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0 && pipe(pp) == 0, "set-up");
	send_fd(sv[0], pp[1]);
	send_fd(sv[0], sv[1]); /* sv[1]'s queue holds the pipe end and itself */
	close(pp[1]);
	close(sv[1]);
	close(sv[0]);
	trigger_gc();
	is_int(read(pp[0], &b, 1), 0, "a pipe end queued in a collected cycle is closed (EOF)");
	close(pp[0]);
}

/* In flight but reachable: a chain held by an open socket survives. */
static void test_reachable_kept(void)
{
	int hold[2], mid[2], end[2];
	char b = 0;

	require(socketpair(AF_UNIX, SOCK_STREAM, 0, hold) == 0 &&
		    socketpair(AF_UNIX, SOCK_STREAM, 0, mid) == 0 &&
		    socketpair(AF_UNIX, SOCK_DGRAM, 0, end) == 0,
		"socketpairs");
	send_fd(end[0], end[0]); /* end[0] waits in its own peer's queue */
	send_fd(mid[0], end[1]); /* end[1] in mid[1]'s queue */
	send_fd(mid[0], mid[0]);
	send_fd(hold[0], mid[1]); /* mid[1] in hold[1]'s queue, which is open */
	close(end[0]);
	close(end[1]);
	close(mid[0]);
	close(mid[1]);
	trigger_gc();
	int m1 = recv_fd(hold[1]);
	int e1 = m1 < 0 ? -1 : recv_fd(m1);
	int m0 = m1 < 0 ? -1 : recv_fd(m1);
	int e0 = e1 < 0 ? -1 : recv_fd(e1);
	ok(m1 >= 0 && e1 >= 0 && m0 >= 0 && e0 >= 0, "a reachable chain in flight survives");
	ok(e0 >= 0 && send(e0, "x", 1, 0) == 1 && recv(e1, &b, 1, 0) == 1 && b == 'x' &&
	       send(m0, "y", 1, 0) == 1 && recv(m1, &b, 1, 0) == 1 && b == 'y',
	   "... and its sockets still carry data");
	close(e0), close(e1), close(m0), close(m1), close(hold[0]), close(hold[1]);
}

#define CHAIN 400

/* Each pair's ends queued in the previous pair's receiver, then closed:
 * closing the head drops the whole chain, one release inside the next. */
static void test_chain(int type)
{
	int head[2], prev[2], sv[2], pp[2], good = 1;
	char b;

	require(socketpair(AF_UNIX, type, 0, head) == 0 && pipe(pp) == 0, "set-up");
	prev[0] = head[0], prev[1] = head[1];
	for (int i = 0; i < CHAIN; i++) {
		require(socketpair(AF_UNIX, type, 0, sv) == 0, "socketpair");
		good &= send_fd(prev[0], sv[0]) == 1 && send_fd(prev[0], sv[1]) == 1;
		if (prev[0] != head[0])
			close(prev[0]), close(prev[1]);
		prev[0] = sv[0], prev[1] = sv[1];
	}
	good &= send_fd(prev[0], pp[1]) == 1; /* the pipe end at the far end */
	close(prev[0]), close(prev[1]), close(pp[1]);
	ok(good, "%s: a chain of %d pairs, each in the previous one's queue", type_name(type),
	   CHAIN);
	close(head[0]);
	close(head[1]);
	is_int(read(pp[0], &b, 1), 0, "%s: closing its head drops the whole chain (EOF at the end)",
	       type_name(type));
	close(pp[0]);
}

/* Sends /dev/null over a fresh pair until sendmsg fails: how many went. */
static int send_until_refused(int *err)
{
	int sv[2], null = open("/dev/null", O_RDONLY), n = 0;

	require(null >= 0 && socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "set-up");
	while (n < 4096 && send_fd(sv[0], null) == 1)
		n++;
	*err = errno;
	return n;
}

#define LIMIT 32

/* Children at RLIMIT_NOFILE = LIMIT: fds in flight stop at the limit, and
 * garbage counted against it is collected rather than refusing a send. */
static void child_limit(void)
{
	struct rlimit rl = {LIMIT, LIMIT};
	int err;

	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		_exit(10);
	int n = send_until_refused(&err);
	if (err != ETOOMANYREFS || n < LIMIT - 1 || n > LIMIT + 1)
		_exit(11);
	_exit(0);
}

static void child_gc_at_limit(void)
{
	struct rlimit rl = {LIMIT, LIMIT};

	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		_exit(10);
	for (int i = 0; i < 10 * LIMIT; i++)
		if (!pair_cycle(SOCK_DGRAM))
			_exit(11);
	_exit(0);
}

/* geteuid(2), which the libc does not wrap (only asked on the host). */
static long host_euid(void)
{
	long r;

	asm volatile("syscall" : "=a"(r) : "a"(107L) : "rcx", "r11", "memory");
	return r;
}

static void test_limit(void)
{
	if (on_fdkernel() || host_euid() != 0)
		ok(exited_with(child_status(child_limit), 0),
		   "RLIMIT_NOFILE %d: sendmsg of fds past it fails with ETOOMANYREFS", LIMIT);
	else
		skip("root is exempt on Linux", "sendmsg of fds past RLIMIT_NOFILE: ETOOMANYREFS");
	if (on_fdkernel())
		ok(exited_with(child_status(child_gc_at_limit), 0),
		   "cycles past RLIMIT_NOFILE: collected at the limit, no send refused");
	else
		skip("fdkernel-only (when Linux collects differs)",
		     "cycles collected at the limit");
	trigger_gc();
}

int main(void)
{
	struct kstat start;
	bool have = kstat_read(&start);

	plan(4 + 1 + 2 + 4 + 2 + 1);
	test_cycles();
	test_cycle_closes_files();
	test_reachable_kept();
	test_chain(SOCK_STREAM);
	test_chain(SOCK_DGRAM);
	test_limit();
	settle();
	kstat_unchanged(&start, have, "nothing left behind at the end");
	return done();
}
