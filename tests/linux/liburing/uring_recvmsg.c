/* Multishot RECVMSG on Debian's liburing, as Linux's: each receive fills
 * a provided buffer with a struct io_uring_recvmsg_out, the sender's name
 * and the control messages in the room the header's msg_namelen and
 * msg_controllen reserve (even with no msg_name), then the payload (all
 * its length in payloadlen with MSG_TRUNC, MSG_TRUNC in its flags when
 * it did not fit), a CQE with F_MORE and F_BUFFER each; over UDP with
 * IP_RECVORIGDSTADDR (what liburing's recv-multishot checks), then a
 * cancel ends it; over a stream the peer's close ends it with a last
 * buffer holding no payload.  Bad uses: EINVAL without BUFFER_SELECT or
 * with MSG_WAITALL, EFAULT for buffers too small for the header. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <liburing.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "testutil.h"
#include "uring_run1.h"
#include "uring_select.h"

#ifndef IP_RECVORIGDSTADDR
#define IP_RECVORIGDSTADDR 20
#endif

#define BLEN	256
#define NBUF	8
#define NAMELEN ((int)sizeof(struct sockaddr_storage))
#define CTLLEN	((int)CMSG_SPACE(sizeof(struct sockaddr_in)))

static struct io_uring r;
static char bufs[NBUF][BLEN];
static struct msghdr msg;

static void provide(int nr)
{
	io_uring_prep_provide_buffers(io_uring_get_sqe(&r), bufs, BLEN, nr, 1, 0);
	require(run1(&r) == 0, "buffers provided");
}

static void recvmsg_multi(int fd, unsigned int flags, uint64_t data)
{
	struct io_uring_sqe *s = io_uring_get_sqe(&r);

	io_uring_prep_recvmsg_multishot(s, fd, &msg, flags);
	io_uring_sqe_set_flags(s, IOSQE_BUFFER_SELECT);
	s->buf_group = 1;
	io_uring_sqe_set_data64(s, data);
	io_uring_submit(&r);
}

/* The next CQE's buffer validated: its header, or NULL. */
static struct io_uring_recvmsg_out *out_of(const struct io_uring_cqe *c)
{
	if (!(c->flags & IORING_CQE_F_BUFFER))
		return NULL;
	return io_uring_recvmsg_validate(bufs[bid_of(c)], c->res, &msg);
}

static void check_udp(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct sockaddr_in from = a, *name, *dst;
	socklen_t alen = sizeof(a);
	int one = 1, rfd = socket(AF_INET, SOCK_DGRAM, 0), sfd = socket(AF_INET, SOCK_DGRAM, 0);
	struct io_uring_recvmsg_out *o;
	struct io_uring_cqe c = {0};
	char big[100];
	struct cmsghdr *h;

	require(rfd >= 0 && sfd >= 0 && !bind(rfd, (struct sockaddr *)&a, sizeof(a)) &&
		    !getsockname(rfd, (struct sockaddr *)&a, &alen) &&
		    !bind(sfd, (struct sockaddr *)&from, sizeof(from)) &&
		    !getsockname(sfd, (struct sockaddr *)&from, &alen) &&
		    !setsockopt(rfd, IPPROTO_IP, IP_RECVORIGDSTADDR, &one, sizeof(one)),
		"two UDP sockets, the receiver with IP_RECVORIGDSTADDR");
	msg = (struct msghdr){.msg_namelen = NAMELEN, .msg_controllen = CTLLEN};
	recvmsg_multi(rfd, MSG_TRUNC, 1);
	is_int(sendto(sfd, "abcd", 4, 0, (struct sockaddr *)&a, sizeof(a)), 4, "a datagram of 4");
	require(!next_cqe(&r, &c), "a CQE");
	o = out_of(&c);
	ok(c.user_data == 1 && fl(&c) == (IORING_CQE_F_MORE | IORING_CQE_F_BUFFER) &&
	       c.res == (int)sizeof(*o) + NAMELEN + CTLLEN + 4,
	   "its CQE: F_MORE, F_BUFFER, header + name + control room + 4 (%d %x)", c.res, c.flags);
	ok(o && o->namelen == sizeof(struct sockaddr_in) && o->payloadlen == 4 && !o->flags &&
	       !memcmp(io_uring_recvmsg_payload(o, &msg), "abcd", 4),
	   "the header: a sockaddr_in's name, the 4 bytes, no flags");
	name = o ? io_uring_recvmsg_name(o) : NULL;
	ok(name && name->sin_port == from.sin_port &&
	       name->sin_addr.s_addr == htonl(INADDR_LOOPBACK),
	   "the name: the sender's");
	h = o ? io_uring_recvmsg_cmsg_firsthdr(o, &msg) : NULL;
	dst = h ? (struct sockaddr_in *)CMSG_DATA(h) : NULL;
	ok(h && h->cmsg_level == IPPROTO_IP && h->cmsg_type == IP_RECVORIGDSTADDR &&
	       dst->sin_port == a.sin_port && !io_uring_recvmsg_cmsg_nexthdr(o, &msg, h),
	   "the control: IP_ORIGDSTADDR alone, the receiver's address");

	memset(big, 'z', sizeof(big));
	is_int(sendto(sfd, big, sizeof(big), 0, (struct sockaddr *)&a, sizeof(a)), 100,
	       "a datagram of 100, longer than a buffer's payload room");
	require(!next_cqe(&r, &c), "a CQE");
	o = out_of(&c);
	ok(o && c.res == BLEN && o->payloadlen == 100 && (o->flags & MSG_TRUNC) &&
	       (c.flags & IORING_CQE_F_MORE),
	   "the buffer full, payloadlen 100 (MSG_TRUNC), MSG_TRUNC in its flags");
	io_uring_prep_cancel64(io_uring_get_sqe(&r), 1, 0);
	io_uring_submit(&r);
	int32_t res[2] = {1, 1};
	for (int i = 0; i < 2 && !next_cqe(&r, &c); i++)
		res[c.user_data == 1 ? 0 : 1] = c.res;
	ok(res[0] == -ECANCELED && res[1] == 0, "ASYNC_CANCEL ends it: ECANCELED (%d)", res[0]);
	close(rfd);
	close(sfd);
}

static void check_stream(void)
{
	struct io_uring_recvmsg_out *o;
	struct io_uring_cqe c = {0};
	int sv[2];

	require(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv), "a stream pair");
	msg = (struct msghdr){0};
	recvmsg_multi(sv[0], 0, 2);
	is_int(write(sv[1], "hello", 5), 5, "5 bytes written");
	require(!next_cqe(&r, &c), "a CQE");
	o = out_of(&c);
	ok(o && c.res == (int)sizeof(*o) + 5 && o->payloadlen == 5 && !o->namelen &&
	       (c.flags & IORING_CQE_F_MORE) &&
	       !memcmp(io_uring_recvmsg_payload(o, &msg), "hello", 5),
	   "a stream: the header and the 5 bytes, no name (%d)", c.res);
	close(sv[1]);
	require(!next_cqe(&r, &c), "a CQE");
	o = out_of(&c);
	ok(o && c.res == (int)sizeof(*o) && o->payloadlen == 0 && !(c.flags & IORING_CQE_F_MORE),
	   "the peer's close: a last buffer with no payload, no F_MORE (%d %x)", c.res, c.flags);
	close(sv[0]);
}

static void check_bad(void)
{
	struct io_uring_sqe *s;
	struct io_uring_cqe c = {0};
	int sv[2];

	require(!socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), "a datagram pair");
	msg = (struct msghdr){0};
	io_uring_prep_recvmsg_multishot(io_uring_get_sqe(&r), sv[0], &msg, 0);
	is_int(run1(&r), -EINVAL, "multishot RECVMSG without BUFFER_SELECT: EINVAL");
	s = io_uring_get_sqe(&r);
	io_uring_prep_recvmsg_multishot(s, sv[0], &msg, MSG_WAITALL);
	io_uring_sqe_set_flags(s, IOSQE_BUFFER_SELECT);
	s->buf_group = 1;
	is_int(run1(&r), -EINVAL, "with MSG_WAITALL: EINVAL");
	msg = (struct msghdr){.msg_namelen = BLEN};
	recvmsg_multi(sv[0], 0, 3);
	is_int(send(sv[1], "x", 1, 0), 1, "a datagram");
	require(!next_cqe(&r, &c), "a CQE");
	ok(c.res == -EFAULT && !(c.flags & IORING_CQE_F_MORE),
	   "a buffer too small for the header and name room: EFAULT, the end (%d)", c.res);
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	plan(15);
	require(!io_uring_queue_init(16, &r, 0), "a ring");
	provide(NBUF);
	check_udp();
	check_stream();
	check_bad();
	io_uring_queue_exit(&r);
	return done();
}
