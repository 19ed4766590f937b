/* sendmmsg and recvmmsg (LTP sendmmsg01/02, recvmmsg01): batches of
 * messages with their lengths in msg_len, the count of what was done
 * before an error, UIO_MAXIOV, MSG_WAITFORONE, the timeout checked after
 * each message and written back, the error a batch leaves pending, and the
 * argument errors in Linux's order.  Raw system calls: musl emulates
 * sendmmsg with sendmsg on x86_64 and writes into the vector for recvmmsg. */
#define _GNU_SOURCE
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "inet_pair.h"
#include "testutil.h"

#define CMSG_COMPAT 0x80000000u

static long do_sendmmsg(int fd, struct mmsghdr *v, unsigned int n, unsigned int flags)
{
	return syscall(SYS_sendmmsg, fd, v, n, flags);
}

static long do_recvmmsg(int fd, struct mmsghdr *v, unsigned int n, unsigned int flags, void *ts)
{
	return syscall(SYS_recvmmsg, fd, v, n, flags, ts);
}

/* A UDP receiver bound on loopback (its address in *sin) and a sender
 * connected to it. */
static void udp_pair(int *snd, int *rcv, struct sockaddr_in *sin)
{
	socklen_t len = sizeof *sin;

	*sin =
	    (struct sockaddr_in){.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	*rcv = socket(AF_INET, SOCK_DGRAM, 0);
	require(*rcv >= 0 && bind(*rcv, (struct sockaddr *)sin, sizeof *sin) == 0 &&
		    getsockname(*rcv, (struct sockaddr *)sin, &len) == 0,
		"receiver");
	*snd = socket(AF_INET, SOCK_DGRAM, 0);
	require(*snd >= 0 && connect(*snd, (struct sockaddr *)sin, sizeof *sin) == 0, "sender");
}

/* Entry i of v reads or writes buf[i] (size each) through one iovec. */
static void mmsg_setup(struct mmsghdr *v, struct iovec *iov, int n, char (*buf)[16], size_t size)
{
	for (int i = 0; i < n; i++) {
		iov[i] = (struct iovec){buf[i], size};
		v[i] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov[i], .msg_iovlen = 1}};
	}
}

static int pending_error(int s)
{
	int e = -1;
	socklen_t len = sizeof e;

	require(getsockopt(s, SOL_SOCKET, SO_ERROR, &e, &len) == 0, "SO_ERROR");
	return e;
}

static void test_batch(void)
{
	struct mmsghdr sv[3], rv[4];
	struct iovec siov[4], riov[4];
	char sbuf[4][16] = {"one", "two", "three"}, rbuf[4][16] = {{0}};
	struct sockaddr_in sin, from[4];
	int s, r;

	udp_pair(&s, &r, &sin);
	mmsg_setup(sv, siov, 3, sbuf, 0);
	for (int i = 0; i < 3; i++)
		siov[i].iov_len = strlen(sbuf[i]);
	/* The first message gathers two iovecs: "on" + "e". */
	struct iovec two[2] = {{sbuf[0], 2}, {sbuf[0] + 2, 1}};
	sv[0].msg_hdr.msg_iov = two;
	sv[0].msg_hdr.msg_iovlen = 2;
	is_int(do_sendmmsg(s, sv, 3, 0), 3, "sendmmsg sends three datagrams");
	ok(sv[0].msg_len == 3 && sv[1].msg_len == 3 && sv[2].msg_len == 5,
	   "each msg_len is its message's length");

	mmsg_setup(rv, riov, 4, rbuf, sizeof rbuf[0]);
	for (int i = 0; i < 4; i++) {
		rv[i].msg_hdr.msg_name = &from[i];
		rv[i].msg_hdr.msg_namelen = sizeof from[i];
	}
	is_int(do_recvmmsg(r, rv, 4, MSG_DONTWAIT, NULL), 3,
	       "recvmmsg MSG_DONTWAIT takes the three there are (EAGAIN after them is no error)");
	ok(rv[0].msg_len == 3 && rv[1].msg_len == 3 && rv[2].msg_len == 5 &&
	       !strcmp(rbuf[0], "one") && !strcmp(rbuf[1], "two") && !strcmp(rbuf[2], "three"),
	   "each entry has its datagram and msg_len, in order");
	ok(rv[1].msg_hdr.msg_namelen == sizeof sin && from[1].sin_family == AF_INET &&
	       from[1].sin_addr.s_addr == htonl(INADDR_LOOPBACK),
	   "each entry gets the source address");
	is_int(pending_error(r), 0, "the EAGAIN that ended the batch is not left pending");
	is_errno(do_recvmmsg(r, rv, 4, MSG_DONTWAIT, NULL), EAGAIN, "nothing queued: EAGAIN");
	is_int(do_sendmmsg(s, sv, 0, 0), 0, "sendmmsg vlen 0: 0");
	is_int(do_recvmmsg(r, rv, 0, 0, NULL), 0, "recvmmsg vlen 0: 0, without waiting");
	close(s);
	close(r);
}

static void test_waitforone_timeout(void)
{
	struct mmsghdr sv[3], rv[3];
	struct iovec siov[3], riov[3];
	char sbuf[3][16] = {"a", "b", "c"}, rbuf[3][16];
	struct sockaddr_in sin;
	struct timespec ts;
	int s, r;

	udp_pair(&s, &r, &sin);
	mmsg_setup(sv, siov, 3, sbuf, 1);
	mmsg_setup(rv, riov, 3, rbuf, sizeof rbuf[0]);

	require(do_sendmmsg(s, sv, 2, 0) == 2, "send two");
	is_int(do_recvmmsg(r, rv, 3, MSG_WAITFORONE, NULL), 2,
	       "MSG_WAITFORONE on a blocking socket: the two there are, no wait for a third");

	require(do_sendmmsg(s, sv, 3, 0) == 3, "send three");
	ts = (struct timespec){0, 0};
	is_int(do_recvmmsg(r, rv, 3, 0, &ts), 1, "a zero timeout: one message (checked after it)");
	ok(ts.tv_sec == 0 && ts.tv_nsec == 0, "and no time left is written back");
	ts = (struct timespec){100, 0};
	is_int(do_recvmmsg(r, rv, 3, MSG_WAITFORONE, &ts), 2, "a long timeout: the rest");
	ok(ts.tv_sec >= 0 && ts.tv_sec <= 100 && ts.tv_nsec >= 0 && ts.tv_nsec < 1000000000 &&
	       (ts.tv_sec < 100 || ts.tv_nsec == 0),
	   "the time left is written back (%lld.%09ld)", (long long)ts.tv_sec, ts.tv_nsec);
	ts = (struct timespec){7, 5};
	is_errno(do_recvmmsg(r, rv, 3, MSG_DONTWAIT, &ts), EAGAIN, "none there: EAGAIN");
	ok(ts.tv_sec == 7 && ts.tv_nsec == 5, "the timeout is left as it was when none came");

	ts = (struct timespec){-1, 0};
	is_errno(do_recvmmsg(r, rv, 1, 0, &ts), EINVAL, "negative seconds: EINVAL");
	ts = (struct timespec){1, 1000000000};
	is_errno(do_recvmmsg(r, rv, 1, 0, &ts), EINVAL, "tv_nsec 1e9: EINVAL");
	ts = (struct timespec){0, -1};
	is_errno(do_recvmmsg(r, rv, 1, 0, &ts), EINVAL, "negative tv_nsec: EINVAL");
	ts = (struct timespec){-1, 0};
	is_errno(do_recvmmsg(-1, rv, 1, 0, &ts), EINVAL, "the timeout is checked before the fd");
	is_errno(do_recvmmsg(-1, rv, 1, 0, (void *)8), EFAULT,
		 "an unreadable timeout: EFAULT, before the fd");
	close(s);
	close(r);
}

static void test_errors(void)
{
	struct mmsghdr v[1];
	struct iovec iov[1];
	char buf[1][16] = {"x"};
	struct timespec ts = {1, 0};
	int p[2], s = socket(AF_INET, SOCK_DGRAM, 0);

	mmsg_setup(v, iov, 1, buf, 1);
	require(s >= 0 && pipe(p) == 0, "socket, pipe");
	is_errno(do_sendmmsg(-1, v, 1, 0), EBADF, "sendmmsg bad fd: EBADF");
	is_errno(do_recvmmsg(-1, v, 1, 0, NULL), EBADF, "recvmmsg bad fd: EBADF");
	is_errno(do_sendmmsg(-1, v, 0, 0), EBADF, "sendmmsg bad fd, vlen 0: EBADF");
	is_errno(do_sendmmsg(p[1], v, 1, 0), ENOTSOCK, "sendmmsg on a pipe: ENOTSOCK");
	is_errno(do_recvmmsg(p[0], v, 1, 0, &ts), ENOTSOCK, "recvmmsg on a pipe: ENOTSOCK");
	is_errno(do_sendmmsg(s, (void *)8, 1, 0), EFAULT, "sendmmsg bad vector: EFAULT");
	is_errno(do_recvmmsg(s, (void *)8, 1, 0, &ts), EFAULT, "recvmmsg bad vector: EFAULT");
	is_errno(do_sendmmsg(-1, v, 1, CMSG_COMPAT), EINVAL,
		 "sendmmsg MSG_CMSG_COMPAT: EINVAL, before the fd");
	is_errno(do_recvmmsg(-1, v, 1, CMSG_COMPAT, (void *)8), EINVAL,
		 "recvmmsg MSG_CMSG_COMPAT: EINVAL, before everything");
	is_errno(syscall(SYS_sendmsg, -1, &v[0].msg_hdr, CMSG_COMPAT), EINVAL,
		 "sendmsg MSG_CMSG_COMPAT: EINVAL, before the fd");
	is_errno(syscall(SYS_recvmsg, -1, &v[0].msg_hdr, CMSG_COMPAT), EINVAL,
		 "recvmsg MSG_CMSG_COMPAT: EINVAL, before the fd");
	is_errno(syscall(SYS_sendmsg, -1, 8, 0), EBADF,
		 "sendmsg: the fd is checked before the header");
	is_errno(syscall(SYS_recvmsg, -1, 8, 0), EBADF,
		 "recvmsg: the fd is checked before the header");
	close(p[0]);
	close(p[1]);
	close(s);
}

/* The last mmsghdr of a writable page (*area, two pages mapped) that an
 * inaccessible page follows: entry 1 of a vector starting there faults. */
static struct mmsghdr *guarded_entry(char **area, long page)
{
	*area = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	require(*area != MAP_FAILED && mprotect(*area + page, page, PROT_NONE) == 0, "guard page");
	return (struct mmsghdr *)(*area + page) - 1;
}

/* A vector whose second entry is on an inaccessible page: the first
 * entry's message is done and counted, the second is an error. */
static void test_partial_fault(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *area;
	struct mmsghdr *v = guarded_entry(&area, page);
	struct iovec iov[1];
	char buf[1][16] = {"hello"}, got[16];
	struct sockaddr_in sin;
	int s, r;

	udp_pair(&s, &r, &sin);
	mmsg_setup(v, iov, 1, buf, 5);
	is_int(do_sendmmsg(s, v, 2, 0), 1, "sendmmsg: a bad second entry ends it after the first");
	is_int(v->msg_len, 5, "the first has its msg_len");
	is_int(pending_error(s), 0, "sendmmsg leaves no error pending");
	require(do_sendmmsg(s, v, 1, 0) == 1, "a second datagram");

	is_int(do_recvmmsg(r, v, 2, 0, NULL), 1,
	       "recvmmsg: a bad second entry ends it after the first");
	is_int(pending_error(r), EFAULT, "and leaves EFAULT pending on the socket (SO_ERROR)");
	is_int(pending_error(r), 0, "SO_ERROR clears it");

	is_int(do_recvmmsg(r, v, 2, 0, NULL), 1, "again, with the second datagram");
	is_errno(recv(r, got, sizeof got, MSG_DONTWAIT), EFAULT,
		 "the next receive reports the pending EFAULT");
	is_errno(recv(r, got, sizeof got, MSG_DONTWAIT), EAGAIN, "once");

	require(do_sendmmsg(s, v, 1, 0) == 1 && do_recvmmsg(r, v, 2, 0, NULL) == 1, "once more");
	is_errno(do_recvmmsg(r, v, 0, 0, NULL), EFAULT,
		 "recvmmsg reports a pending error first, even for vlen 0");

	/* A vector that can be read but not written: the message goes, its
	 * msg_len cannot be stored, and that is the call's error. */
	require(mprotect(area, page, PROT_READ) == 0, "read-only vector");
	is_errno(do_sendmmsg(s, v, 1, 0), EFAULT, "sendmmsg: an unwritable msg_len is EFAULT");
	is_int(recv(r, got, sizeof got, MSG_DONTWAIT), 5, "though the datagram was sent");
	munmap(area, 2 * page);
	close(s);
	close(r);
}

/* Where the error a batch left is reported when data is still queued:
 * a datagram receive reports it first (and poll POLLERR with POLLIN), a
 * unix stream only once its bytes are read, as Linux. */
static void test_error_order(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *area;
	struct mmsghdr *v = guarded_entry(&area, page);
	struct iovec iov = {area, 1};
	struct sockaddr_in sin;
	int s[3], r[3], st[2];
	char c = 0;

	v->msg_hdr = (struct msghdr){.msg_iov = &iov, .msg_iovlen = 1};
	udp_pair(&s[0], &r[0], &sin);
	require(socketpair(AF_UNIX, SOCK_DGRAM, 0, st) == 0, "unix datagram pair");
	s[1] = st[0];
	r[1] = st[1];
	require(socketpair(AF_UNIX, SOCK_STREAM, 0, st) == 0, "unix stream pair");
	s[2] = st[0];
	r[2] = st[1];
	for (int i = 0; i < 3; i++) {
		const char *kind = i == 0 ? "UDP" : i == 1 ? "unix datagram" : "unix stream";
		struct pollfd p = {r[i], POLLIN, 0};

		require(send(s[i], "a", 1, 0) == 1 && send(s[i], "b", 1, 0) == 1, "two sends");
		is_int(do_recvmmsg(r[i], v, 2, 0, NULL), 1, "%s: one received, EFAULT left", kind);
		is_int(poll(&p, 1, 0), 1, "%s: poll", kind);
		is_int(p.revents, POLLIN | POLLERR, "%s: POLLIN | POLLERR", kind);
		if (i < 2) {
			is_errno(recv(r[i], &c, 1, MSG_DONTWAIT), EFAULT, "%s: the error first",
				 kind);
			ok(recv(r[i], &c, 1, MSG_DONTWAIT) == 1 && c == 'b', "%s: then the data",
			   kind);
		} else {
			ok(recv(r[i], &c, 1, MSG_DONTWAIT) == 1 && c == 'b', "%s: the data first",
			   kind);
			is_errno(recv(r[i], &c, 1, MSG_DONTWAIT), EFAULT, "%s: then the error",
				 kind);
		}
		close(s[i]);
		close(r[i]);
	}
	munmap(area, 2 * page);
}

/* vlen is cut to UIO_MAXIOV (1024): datagrams to a port nobody has bound
 * are sent (and dropped), so the count is the cap. */
static void test_vlen_cap(void)
{
	enum { N = 2000 };
	static struct mmsghdr v[N];
	static struct iovec iov;
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof sin;
	int s = socket(AF_INET, SOCK_DGRAM, 0), t = socket(AF_INET, SOCK_DGRAM, 0);

	require(s >= 0 && t >= 0 && bind(t, (struct sockaddr *)&sin, sizeof sin) == 0 &&
		    getsockname(t, (struct sockaddr *)&sin, &len) == 0,
		"a free port");
	close(t);
	iov = (struct iovec){"z", 1};
	for (int i = 0; i < N; i++)
		v[i].msg_hdr = (struct msghdr){
		    .msg_name = &sin, .msg_namelen = sizeof sin, .msg_iov = &iov, .msg_iovlen = 1};
	is_int(do_sendmmsg(s, v, N, 0), 1024, "sendmmsg sends at most UIO_MAXIOV messages");
	ok(v[1023].msg_len == 1 && v[1024].msg_len == 0, "msg_len is set up to there only");
	close(s);
}

/* A stream that takes only part of a message ends the batch there. */
static void test_stream_partial(void)
{
	enum { BIG = 4 << 20 };
	char *big = calloc(1, BIG);
	struct mmsghdr v[2];
	struct iovec iov[2] = {{big, BIG}, {"tail", 4}};
	int sv[2];

	require(big && socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "stream pair");
	for (int i = 0; i < 2; i++)
		v[i] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov[i], .msg_iovlen = 1},
					.msg_len = 12345};
	is_int(do_sendmmsg(sv[0], v, 2, MSG_DONTWAIT), 1, "a partly sent message ends the batch");
	ok(v[0].msg_len > 0 && v[0].msg_len < BIG, "its msg_len is what went (%u)", v[0].msg_len);
	is_int(v[1].msg_len, 12345, "the next one was not tried");
	close(sv[0]);
	close(sv[1]);
	free(big);
}

/* SCM_RIGHTS per message: each entry's control buffer travels with it. */
static void test_fds(void)
{
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(sizeof(int))];
	} sc[2], rc[2];
	struct mmsghdr v[2];
	struct iovec iov[2];
	char buf[2][16] = {"p", "q"};
	int sv[2], fds[2] = {0, 1};

	require(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0, "datagram pair");
	mmsg_setup(v, iov, 2, buf, 1);
	for (int i = 0; i < 2; i++) {
		memset(&sc[i], 0, sizeof sc[i]);
		v[i].msg_hdr.msg_control = sc[i].space;
		v[i].msg_hdr.msg_controllen = sizeof sc[i].space;
		struct cmsghdr *h = CMSG_FIRSTHDR(&v[i].msg_hdr);
		h->cmsg_level = SOL_SOCKET;
		h->cmsg_type = SCM_RIGHTS;
		h->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(h), &fds[i], sizeof(int));
	}
	is_int(do_sendmmsg(sv[0], v, 2, 0), 2, "two messages, each with an fd");
	for (int i = 0; i < 2; i++) {
		v[i].msg_hdr.msg_control = rc[i].space;
		v[i].msg_hdr.msg_controllen = sizeof rc[i].space;
	}
	is_int(do_recvmmsg(sv[1], v, 2, MSG_CMSG_CLOEXEC, NULL), 2, "both received");
	int ok_fds = 1;
	for (int i = 0; i < 2; i++) {
		struct cmsghdr *h = CMSG_FIRSTHDR(&v[i].msg_hdr);
		int fd = -1;
		if (h && h->cmsg_type == SCM_RIGHTS)
			memcpy(&fd, CMSG_DATA(h), sizeof fd);
		ok_fds &= fd >= 0 && fcntl(fd, F_GETFD) == FD_CLOEXEC;
		if (fd >= 0)
			close(fd);
	}
	ok(ok_fds, "each entry has its own fd, with the call's MSG_CMSG_CLOEXEC");
	close(sv[0]);
	close(sv[1]);
}

static void on_signal(int sig)
{
	(void)sig;
}

/* The thread to interrupt once it sleeps (its state in /proc is S: in
 * recvmmsg's wait for the second message, the first being queued), so
 * that the signal comes during the wait whatever the machine's speed. */
static int sleeper_tid;

static void *interrupter(void *arg)
{
	char path[64], stat[256] = "", *p;

	(void)arg;
	snprintf(path, sizeof path, "/proc/self/task/%d/stat", sleeper_tid);
	while (!(read_text(path, stat, sizeof stat) > 0 && (p = strrchr(stat, ')')) && p[2] == 'S'))
		sched_yield();
	syscall(SYS_tgkill, getpid(), sleeper_tid, SIGUSR1);
	return NULL;
}

/* A signal while waiting for the second message: the first is returned,
 * and the interruption is left pending for the next call (EINTR here;
 * Linux leaves its internal restart code, errno 512). */
static void test_signal(void)
{
	struct sigaction sa = {.sa_handler = on_signal}; /* no SA_RESTART */
	struct mmsghdr v[2];
	struct iovec iov[2];
	char buf[2][16] = {"s"};
	struct sockaddr_in sin;
	pthread_t t;
	int s, r;
	char c;

	udp_pair(&s, &r, &sin);
	mmsg_setup(v, iov, 2, buf, 1);
	require(sigaction(SIGUSR1, &sa, NULL) == 0 && do_sendmmsg(s, v, 1, 0) == 1, "set-up");
	sleeper_tid = (int)gettid();
	require(pthread_create(&t, NULL, interrupter, NULL) == 0, "thread");
	is_int(do_recvmmsg(r, v, 2, 0, NULL), 1, "a signal during the second wait: the first");
	long n = recv(r, &c, 1, MSG_DONTWAIT);
	int e = errno;
	ok(n == -1 && e == (on_fdkernel() ? EINTR : 512),
	   "the next receive reports the interruption (errno %d)", e);
	pthread_join(t, NULL);
	close(s);
	close(r);
}

/* recvmmsg on a TCP stream: what is there, then EAGAIN ends the batch. */
static void test_stream_recv(void)
{
	struct mmsghdr v[2];
	struct iovec iov[2];
	char buf[2][16];
	int c, a;

	tcp_pair(&c, &a);
	mmsg_setup(v, iov, 2, buf, sizeof buf[0]);
	require(write(c, "stream", 6) == 6, "write");
	is_int(do_recvmmsg(a, v, 2, MSG_DONTWAIT, NULL), 1, "TCP: the bytes there, in one entry");
	ok(v[0].msg_len == 6 && !memcmp(buf[0], "stream", 6), "with their length");
	close(c);
	close(a);
}

int main(void)
{
	plan(73);
	test_batch();
	test_waitforone_timeout();
	test_errors();
	test_partial_fault();
	test_error_order();
	test_vlen_cap();
	test_stream_partial();
	test_fds();
	test_signal();
	test_stream_recv();
	return done();
}
