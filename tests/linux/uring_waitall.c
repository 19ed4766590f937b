/* io_uring's RECV and RECVMSG with MSG_WAITALL on stream sockets, as
 * Linux's: they wait for the whole length across the peer's sends (over
 * TCP loopback and AF_UNIX), and end with what they have when the peer
 * shuts down or closes; a datagram's never waits for more.  One that
 * ends short fails its link (the next ECANCELED), as Linux's io_recv
 * (ret < min_ret): a whole one does not. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "testutil.h"
#include "uring_raw.h"

static struct uring r;

/* A connected TCP loopback pair: sv[0] accepted, sv[1] the client. */
static void tcp_pair(int sv[2])
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t alen = sizeof(a);
	int lfd = socket(AF_INET, SOCK_STREAM, 0);

	require(lfd >= 0 && !bind(lfd, (struct sockaddr *)&a, sizeof(a)) && !listen(lfd, 1) &&
		    !getsockname(lfd, (struct sockaddr *)&a, &alen),
		"a listener");
	sv[1] = socket(AF_INET, SOCK_STREAM, 0);
	require(sv[1] >= 0 && !connect(sv[1], (struct sockaddr *)&a, sizeof(a)), "a client");
	sv[0] = accept(lfd, NULL, NULL);
	require(sv[0] >= 0, "its connection");
	close(lfd);
}

static char buf[16];
static struct iovec iov[2] = {{buf, 4}, {buf + 4, 4}};
static struct msghdr msg = {.msg_iov = iov, .msg_iovlen = 2};

/* A RECV (or RECVMSG into two iovecs of 4) of 8 bytes with MSG_WAITALL
 * on sv[0], submitted: it waits. */
static void recv_waitall(int fd, bool recvmsg, const char *what)
{
	struct io_uring_cqe c;

	memset(buf, 0, sizeof(buf));
	if (recvmsg)
		uring_prep(&r, IORING_OP_RECVMSG, fd, (uint64_t)&msg, 1, 0, 1)->msg_flags =
		    MSG_WAITALL;
	else
		uring_prep(&r, IORING_OP_RECV, fd, (uint64_t)buf, 8, 0, 1)->msg_flags = MSG_WAITALL;
	uring_submit_wait(&r, 0);
	sleep_ms(20);
	ok(!uring_peek(&r, &c), "%s: it waits", what);
}

/* How the CQE ends: its res, -9999 for none. */
static int32_t recv_end(void)
{
	struct io_uring_cqe c;

	return uring_wait(&r, &c) || c.user_data != 1 ? -9999 : c.res;
}

static void check_stream(const char *name, void (*pair)(int[2]))
{
	struct io_uring_cqe c;
	char what[64];
	int sv[2];

	for (int m = 0; m < 2; m++) {
		const char *op = m ? "RECVMSG" : "RECV";

		pair(sv);
		snprintf(what, sizeof(what), "%s %s of 8 with MSG_WAITALL", name, op);
		recv_waitall(sv[0], m, what);
		is_int(send(sv[1], "abc", 3, 0), 3, "%s: 3 bytes sent", what);
		sleep_ms(20);
		ok(!uring_peek(&r, &c), "%s: still waits after 3", what);
		is_int(send(sv[1], "defgh", 5, 0), 5, "%s: 5 more", what);
		is_int(recv_end(), 8, "%s: all 8", what);
		ok(!memcmp(buf, "abcdefgh", 8), "%s: in order '%.8s'", what, buf);

		recv_waitall(sv[0], m, what);
		send(sv[1], "xyz", 3, 0);
		sleep_ms(20);
		shutdown(sv[1], SHUT_WR);
		is_int(recv_end(), 3, "%s: the peer's shutdown after 3: 3", what);
		close(sv[0]);
		close(sv[1]);

		pair(sv);
		recv_waitall(sv[0], m, what);
		send(sv[1], "uv", 2, 0);
		sleep_ms(20);
		close(sv[1]);
		is_int(recv_end(), 2, "%s: the peer's close after 2: 2", what);
		ok(!memcmp(buf, "uv", 2), "%s: its bytes", what);
		close(sv[0]);
	}
}

static void unix_pair(int sv[2])
{
	require(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv), "a socket pair");
}

static void check_dgram(void)
{
	int sv[2];

	require(!socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), "a datagram pair");
	is_int(send(sv[1], "abc", 3, 0), 3, "a datagram of 3");
	uring_prep(&r, IORING_OP_RECV, sv[0], (uint64_t)buf, 8, 0, 1)->msg_flags = MSG_WAITALL;
	is_int(uring_run1(&r), 3, "a datagram RECV with MSG_WAITALL: 3, no wait for more");
	close(sv[0]);
	close(sv[1]);
}

/* A MSG_WAITALL receive of 8 linked to a NOP; the peer sends what, then
 * shuts down (stream) or not (a datagram, already there): the receive's
 * and the NOP's res. */
static void linked_recv(int type, bool recvmsg, const char *what, int32_t res[2])
{
	struct io_uring_sqe *sqe;
	int sv[2];

	res[0] = res[1] = -9999;
	require(!socketpair(AF_UNIX, type, 0, sv), "a socket pair");
	memset(buf, 0, sizeof(buf));
	if (recvmsg)
		sqe = uring_prep(&r, IORING_OP_RECVMSG, sv[0], (uint64_t)&msg, 1, 0, 0);
	else
		sqe = uring_prep(&r, IORING_OP_RECV, sv[0], (uint64_t)buf, 8, 0, 0);
	sqe->msg_flags = MSG_WAITALL;
	sqe->flags = IOSQE_IO_LINK;
	uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, 1);
	if (type == SOCK_DGRAM)
		send(sv[1], what, strlen(what), 0);
	uring_submit_wait(&r, 0);
	if (type == SOCK_STREAM) {
		send(sv[1], what, strlen(what), 0);
		shutdown(sv[1], SHUT_WR);
	}
	uring_wait_n(&r, 2, res);
	close(sv[0]);
	close(sv[1]);
}

static void check_link(void)
{
	int32_t res[2];

	for (int m = 0; m < 2; m++) {
		const char *op = m ? "RECVMSG" : "RECV";

		linked_recv(SOCK_STREAM, m, "abc", res);
		ok(res[0] == 3 && res[1] == -ECANCELED,
		   "a linked AF_UNIX %s of 8 with MSG_WAITALL ending with 3 at the peer's "
		   "shutdown: 3, the NOP after it ECANCELED (%d, %d)",
		   op, res[0], res[1]);
		linked_recv(SOCK_DGRAM, m, "abc", res);
		ok(res[0] == 3 && res[1] == -ECANCELED,
		   "a linked datagram %s of 8 with MSG_WAITALL getting 3: the NOP ECANCELED (%d, "
		   "%d)",
		   op, res[0], res[1]);
		linked_recv(SOCK_STREAM, m, "abcdefgh", res);
		ok(res[0] == 8 && res[1] == 0, "one that gets all 8: the NOP runs (%d, %d)", res[0],
		   res[1]);
	}
}

int main(void)
{
	plan(2 * 2 * 11 + 2 + 2 * 3);
	require(!uring_init(&r, 8, 0), "a ring");
	check_stream("TCP", tcp_pair);
	check_stream("AF_UNIX", unix_pair);
	check_dgram();
	check_link();
	uring_exit(&r);
	return done();
}
