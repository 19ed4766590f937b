/* io_uring over sockets: SOCKET, an ACCEPT that waits for its client
 * (on an O_NONBLOCK listener too, or until its LINK_TIMEOUT), CONNECT,
 * SEND/RECV and SENDMSG/RECVMSG echoes over TCP loopback and AF_UNIX, a
 * RECV that waits for its peer, CLOSE (and CLOSE of a ring fd: EBADF). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>

#include "testutil.h"
#include "uring_raw.h"

static struct uring r;

static void check_tcp(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t alen = sizeof(a);
	struct io_uring_cqe c;
	int lfd, cfd, sfd = -1;
	char buf[16] = {0};

	uring_prep(&r, IORING_OP_SOCKET, AF_INET, 0, 0, SOCK_STREAM, 0);
	lfd = uring_run1(&r);
	ok(lfd >= 0, "SOCKET: a TCP socket");
	require(!bind(lfd, (struct sockaddr *)&a, sizeof(a)) && !listen(lfd, 4) &&
		    !getsockname(lfd, (struct sockaddr *)&a, &alen),
		"a listener");
	uring_prep(&r, IORING_OP_ACCEPT, lfd, 0, 0, 0, 1);
	is_int(uring_submit_wait(&r, 0), 1, "ACCEPT submitted before any client");
	sleep_ms(20);
	ok(!uring_peek(&r, &c), "it waits");
	uring_prep(&r, IORING_OP_SOCKET, AF_INET, 0, 0, SOCK_STREAM, 2);
	uring_submit_wait(&r, 1);
	require(!uring_wait(&r, &c) && c.user_data == 2 && c.res >= 0, "a client socket");
	cfd = c.res;
	uring_prep(&r, IORING_OP_CONNECT, cfd, (uint64_t)&a, 0, sizeof(a), 3);
	uring_submit_wait(&r, 2);
	for (int i = 0; i < 2 && !uring_wait(&r, &c); i++) {
		if (c.user_data == 1)
			sfd = c.res;
		else
			is_int(c.res, 0, "CONNECT: 0");
	}
	ok(sfd >= 0, "the ACCEPT completes with the connection");
	uring_prep(&r, IORING_OP_SEND, cfd, (uint64_t) "ping", 4, 0, 0);
	is_int(uring_run1(&r), 4, "SEND 4 bytes");
	uring_prep(&r, IORING_OP_RECV, sfd, (uint64_t)buf, sizeof(buf), 0, 0);
	ok(uring_run1(&r) == 4 && !memcmp(buf, "ping", 4), "RECV them");

	struct iovec iov = {"pong!", 5};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
	uring_prep(&r, IORING_OP_SENDMSG, sfd, (uint64_t)&m, 1, 0, 0);
	is_int(uring_run1(&r), 5, "SENDMSG back");
	struct iovec in = {buf, sizeof(buf)};
	struct msghdr mi = {.msg_iov = &in, .msg_iovlen = 1};
	uring_prep(&r, IORING_OP_RECVMSG, cfd, (uint64_t)&mi, 1, 0, 0);
	ok(uring_run1(&r) == 5 && !memcmp(buf, "pong!", 5), "RECVMSG it");
	uring_prep(&r, IORING_OP_CLOSE, sfd, 0, 0, 0, 0);
	is_int(uring_run1(&r), 0, "CLOSE the connection");
	uring_prep(&r, IORING_OP_RECV, cfd, (uint64_t)buf, sizeof(buf), 0, 0);
	is_int(uring_run1(&r), 0, "the peer's RECV sees the end");
	uring_prep(&r, IORING_OP_CLOSE, sfd, 0, 0, 0, 0);
	is_int(uring_run1(&r), -EBADF, "CLOSE it again: EBADF");
	uring_prep(&r, IORING_OP_CLOSE, r.fd, 0, 0, 0, 0);
	is_int(uring_run1(&r), -EBADF, "CLOSE of the ring's own fd: EBADF");
	close(cfd);
	close(lfd);
}

/* A listener of its own: bound to loopback, its address in *a. */
static int listener(struct sockaddr_in *a, int flags)
{
	socklen_t alen = sizeof(*a);
	int lfd = socket(AF_INET, SOCK_STREAM | flags, 0);

	*a = (struct sockaddr_in){.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	require(lfd >= 0 && !bind(lfd, (struct sockaddr *)a, sizeof(*a)) && !listen(lfd, 4) &&
		    !getsockname(lfd, (struct sockaddr *)a, &alen),
		"a listener");
	return lfd;
}

/* An ACCEPT on an O_NONBLOCK listener waits for its client all the same
 * (Linux's io_uring tries it without waiting and arms a poll), and the
 * socket it makes is not O_NONBLOCK; a LINK_TIMEOUT that ends a waiting
 * ACCEPT: the ACCEPT ECANCELED, the timeout ETIME. */
static void check_accept_nonblock(void)
{
	struct timespec ts = {.tv_nsec = 20000000}; /* __kernel_timespec on x86_64 */
	struct sockaddr_in a;
	struct io_uring_cqe c;
	int32_t res[2] = {0, 0};
	int lfd = listener(&a, SOCK_NONBLOCK), cfd;

	ok(accept(lfd, NULL, NULL) < 0 && errno == EAGAIN, "O_NONBLOCK listener: accept EAGAIN");
	uring_prep(&r, IORING_OP_ACCEPT, lfd, 0, 0, 0, 1);
	uring_submit_wait(&r, 0);
	sleep_ms(20);
	ok(!uring_peek(&r, &c), "an ACCEPT on it waits");
	cfd = socket(AF_INET, SOCK_STREAM, 0);
	require(cfd >= 0 && !connect(cfd, (struct sockaddr *)&a, sizeof(a)), "a client");
	c.res = uring_wait(&r, &c) ? -1 : c.res;
	ok(c.user_data == 1 && c.res >= 0, "and completes with the connection (%d)", c.res);
	ok(c.res >= 0 && !(fcntl(c.res, F_GETFL) & O_NONBLOCK), "a socket without O_NONBLOCK");
	close(c.res);
	close(cfd);
	uring_prep(&r, IORING_OP_ACCEPT, lfd, 0, 0, 0, 0)->flags = IOSQE_IO_LINK;
	uring_prep(&r, IORING_OP_LINK_TIMEOUT, -1, (uint64_t)&ts, 1, 0, 1);
	uring_submit_wait(&r, 2);
	require(!uring_wait_n(&r, 2, res), "the two CQEs");
	ok(res[0] == -ECANCELED && res[1] == -ETIME,
	   "an ACCEPT timed out by its link: ECANCELED, the timeout ETIME (%d, %d)", res[0],
	   res[1]);
	close(lfd);
}

static void check_unix(void)
{
	int sv[2];
	char buf[8] = {0};
	struct io_uring_cqe c;

	require(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv), "a socket pair");
	uring_prep(&r, IORING_OP_RECV, sv[0], (uint64_t)buf, sizeof(buf), 0, 9);
	uring_submit_wait(&r, 0);
	sleep_ms(20);
	ok(!uring_peek(&r, &c), "AF_UNIX: a RECV waits for its peer");
	is_int(send(sv[1], "unix", 4, 0), 4, "the peer sends");
	ok(!uring_wait(&r, &c) && c.user_data == 9 && c.res == 4 && !memcmp(buf, "unix", 4),
	   "and the RECV has it");
	uring_prep(&r, IORING_OP_RECV, sv[0], (uint64_t)buf, sizeof(buf), 0, 0)->msg_flags =
	    MSG_DONTWAIT;
	is_int(uring_run1(&r), -EAGAIN, "RECV with MSG_DONTWAIT and nothing there: EAGAIN");
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	plan(22);
	require(!uring_init(&r, 8, 0), "a ring");
	check_tcp();
	check_accept_nonblock();
	check_unix();
	uring_exit(&r);
	return done();
}
