/* READ, READV and RECVMSG into provided buffers, and the RWF_* flags on READ and
 * WRITE, on Debian's liburing, as Linux: a READ with IOSQE_BUFFER_SELECT
 * fills its group's next buffer (a legacy group's or a buffer ring's),
 * len a cap, the CQE naming it; one of an empty pipe waits holding none;
 * a READV takes one iovec (its length the cap: EINVAL for two, EFAULT
 * for an iovec it cannot read); READ_FIXED takes none (EOPNOTSUPP); a
 * RECVMSG's header gives a cap (one iovec or none; EINVAL for two,
 * EFAULT unreadable) and gets recvmsg's results (MSG_TRUNC).
 * WRITE with RWF_APPEND goes to the end of the file, its offset and the
 * file position untouched; READ with RWF_NOWAIT of an empty pipe is
 * EAGAIN, not a wait; RWF_DSYNC and RWF_SYNC are taken, RWF_HIPRI is
 * EINVAL on a ring without IOPOLL, an unknown flag EOPNOTSUPP; pwritev2
 * and preadv2 take the same flags. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <liburing.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/uio.h>

#include "robust.h"
#include "testutil.h"
#include "uring_run1.h"

#define BLEN 16

static struct io_uring r;
static char bufs[4][BLEN], rbufs[2][BLEN];

static unsigned int bid_of(const struct io_uring_cqe *c)
{
	return c->flags >> IORING_CQE_BUFFER_SHIFT;
}

/* The next SQE, prepared by liburing's io_uring_prep_op. */
#define PREP(op, ...)                                                                              \
	({                                                                                         \
		struct io_uring_sqe *s_ = io_uring_get_sqe(&r);                                    \
		io_uring_prep_##op(s_, __VA_ARGS__);                                               \
		s_;                                                                                \
	})

static struct io_uring_sqe *selected(struct io_uring_sqe *s, int bgid)
{
	io_uring_sqe_set_flags(s, IOSQE_BUFFER_SELECT);
	s->buf_group = (uint16_t)bgid;
	return s;
}

static int run_cqe(struct io_uring_cqe *c)
{
	io_uring_submit(&r);
	return next_cqe(&r, c);
}

static void check_select(int fd, int p[2])
{
	struct io_uring_buf_ring *br;
	struct io_uring_cqe c = {0}, *cp;
	struct iovec v = {NULL, 4};

	PREP(provide_buffers, bufs, BLEN, 4, 1, 10);
	is_int(run1(&r), 0, "PROVIDE_BUFFERS: 4 buffers, group 1, ids 10-13");
	selected(PREP(read, fd, NULL, 0, 0), 1);
	run_cqe(&c);
	ok(c.res == 10 && (c.flags & IORING_CQE_F_BUFFER) && bid_of(&c) == 10 &&
	       !memcmp(bufs[0], "0123456789", 10),
	   "a READ of a 10-byte file at 0: all of it in buffer 10 (%d %x)", c.res, c.flags);
	selected(PREP(read, fd, NULL, 3, 2), 1);
	run_cqe(&c);
	ok(c.res == 3 && bid_of(&c) == 11 && !memcmp(bufs[1], "234", 3),
	   "len 3 at 2: 3 bytes in buffer 11 (%d %u)", c.res, bid_of(&c));
	selected(PREP(readv, fd, &v, 1, 5), 1);
	run_cqe(&c);
	ok(c.res == 4 && bid_of(&c) == 12 && !memcmp(bufs[2], "5678", 4),
	   "a READV of one iovec of 4 at 5: 4 bytes in buffer 12 (%d %u)", c.res, bid_of(&c));
	selected(PREP(readv, fd, &v, 2, 0), 1);
	is_int(run1(&r), -EINVAL, "a READV of two iovecs: EINVAL");
	selected(PREP(readv, fd, (void *)8, 1, 0), 1);
	is_int(run1(&r), -EFAULT, "a READV whose iovec cannot be read: EFAULT");
	selected(PREP(read_fixed, fd, NULL, 4, 0, 0), 1);
	is_int(run1(&r), -EOPNOTSUPP, "a READ_FIXED with BUFFER_SELECT: EOPNOTSUPP");
	selected(PREP(read, fd, NULL, 0, 0), 2);
	is_int(run1(&r), -ENOBUFS, "a READ from a group never provided: ENOBUFS");

	br = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	require(br != MAP_FAILED, "a page for a buffer ring");
	struct io_uring_buf_reg rg = {.ring_addr = (uintptr_t)br, .ring_entries = 2, .bgid = 3};
	is_int(io_uring_register_buf_ring(&r, &rg, 0), 0, "a buffer ring of 2, group 3");
	for (int i = 0; i < 2; i++)
		io_uring_buf_ring_add(br, rbufs[i], BLEN, (uint16_t)(50 + i), 1, i);
	io_uring_buf_ring_advance(br, 2);
	selected(PREP(read, p[0], NULL, 0, 0), 3)->user_data = 7;
	io_uring_submit(&r);
	ok(io_uring_peek_cqe(&r, &cp) == -EAGAIN, "a READ of an empty pipe from the ring waits");
	is_int(write(p[1], "pipe", 4), 4, "a writer comes");
	next_cqe(&r, &c);
	ok(c.user_data == 7 && c.res == 4 && bid_of(&c) == 50 && !memcmp(rbufs[0], "pipe", 4),
	   "it reads 4 bytes into the ring's first buffer, id 50 (%d %u)", c.res, bid_of(&c));
	selected(PREP(readv, fd, &v, 1, 0), 3);
	run_cqe(&c);
	ok(c.res == 4 && bid_of(&c) == 51 && !memcmp(rbufs[1], "0123", 4),
	   "a READV from the ring: id 51 (%d %u)", c.res, bid_of(&c));
	selected(PREP(read, fd, NULL, 0, 0), 3);
	is_int(run1(&r), -ENOBUFS, "the ring empty: ENOBUFS");
}

/* RECVMSG into provided buffers: the header's one iovec only a cap (none:
 * the whole buffer), its name and flags filled as recvmsg's. */
static void check_recvmsg(void)
{
	struct io_uring_cqe c = {0};
	struct iovec v = {NULL, 3}, two[2] = {{NULL, 1}, {NULL, 1}};
	struct sockaddr_un from;
	struct msghdr h = {
	    .msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &v, .msg_iovlen = 1};
	int sv[2];

	require(!socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), "a datagram socket pair");
	PREP(provide_buffers, bufs, BLEN, 2, 4, 20);
	is_int(run1(&r), 0, "PROVIDE_BUFFERS: 2 buffers, group 4, ids 20-21");
	is_int(write(sv[1], "hello", 5), 5, "a datagram of 5 bytes");
	selected(PREP(recvmsg, sv[0], &h, 0), 4);
	run_cqe(&c);
	ok(c.res == 3 && bid_of(&c) == 20 && !memcmp(bufs[0], "hel", 3),
	   "a RECVMSG, its iovec of 3 a cap: 3 bytes in buffer 20 (%d %u)", c.res, bid_of(&c));
	ok(h.msg_flags == MSG_TRUNC, "the header's msg_flags: MSG_TRUNC (%x)", h.msg_flags);
	is_int(write(sv[1], "world!", 6), 6, "a datagram of 6 bytes");
	h.msg_iovlen = 0;
	selected(PREP(recvmsg, sv[0], &h, 0), 4);
	run_cqe(&c);
	ok(c.res == 6 && bid_of(&c) == 21 && !memcmp(bufs[1], "world!", 6) && !h.msg_flags,
	   "no iovec: the whole buffer, id 21 (%d %u)", c.res, bid_of(&c));
	h.msg_iov = two;
	h.msg_iovlen = 2;
	selected(PREP(recvmsg, sv[0], &h, 0), 4);
	is_int(run1(&r), -EINVAL, "a RECVMSG with two iovecs: EINVAL");
	selected(PREP(recvmsg, sv[0], (struct msghdr *)8, 0), 4);
	is_int(run1(&r), -EFAULT, "a header it cannot read: EFAULT");
	h.msg_iovlen = 1;
	selected(PREP(recvmsg, sv[0], &h, 0), 4);
	is_int(run1(&r), -ENOBUFS, "the group empty: ENOBUFS");
	close(sv[0]);
	close(sv[1]);
}

static void check_flags(int fd, int p[2])
{
	struct io_uring_sqe *s;
	char buf[16] = {0};
	struct iovec v = {buf, 2};

	s = PREP(write, fd, "ab", 2, 0);
	s->rw_flags = RWF_APPEND;
	is_int(run1(&r), 2, "a WRITE of 2 at 0 with RWF_APPEND");
	ok(pread(fd, buf, sizeof(buf), 0) == 12 && !memcmp(buf, "0123456789ab", 12),
	   "it went to the end: the file is 0123456789ab");
	is_int((int)lseek(fd, 0, SEEK_CUR), 0, "the file position is still 0");
	s = PREP(write, fd, "c", 1, 0);
	s->rw_flags = RWF_DSYNC;
	is_int(run1(&r), 1, "a WRITE with RWF_DSYNC at 0");
	s = PREP(write, fd, "d", 1, 1);
	s->rw_flags = RWF_SYNC;
	is_int(run1(&r), 1, "a WRITE with RWF_SYNC at 1");
	ok(pread(fd, buf, 2, 0) == 2 && !memcmp(buf, "cd", 2), "both at their offsets");
	s = PREP(read, p[0], buf, 4, -1);
	s->rw_flags = RWF_NOWAIT;
	is_int(run1(&r), -EAGAIN, "a READ with RWF_NOWAIT of an empty pipe: EAGAIN");
	s = PREP(read, fd, buf, 4, 0);
	s->rw_flags = RWF_NOWAIT;
	is_int(run1(&r), 4, "of a file: its 4 bytes");
	s = PREP(read, fd, buf, 4, 0);
	s->rw_flags = RWF_HIPRI;
	is_int(run1(&r), -EINVAL, "a READ with RWF_HIPRI, no IOPOLL: EINVAL");
	s = PREP(write, fd, "x", 1, 0);
	s->rw_flags = 0x10000;
	is_int(run1(&r), -EOPNOTSUPP, "a WRITE with an unknown flag: EOPNOTSUPP");
	s = PREP(readv, fd, &v, 1, 0);
	s->rw_flags = 0x10000;
	is_int(run1(&r), -EOPNOTSUPP, "a READV with it: EOPNOTSUPP");
	is_int(
	    (int)syscall(SYS_pwritev2, fd, &(struct iovec){"ef", 2}, 1L, 0L, 0L, (long)RWF_APPEND),
	    2, "pwritev2 with RWF_APPEND at 0: 2");
	ok(pread(fd, buf, sizeof(buf), 12) == 2 && !memcmp(buf, "ef", 2), "at the end");
	errno = 0;
	ok(syscall(SYS_preadv2, p[0], &v, 1L, -1L, -1L, (long)RWF_NOWAIT) == -1 && errno == EAGAIN,
	   "preadv2 with RWF_NOWAIT of an empty pipe: EAGAIN");
	errno = 0;
	ok(syscall(SYS_preadv2, fd, &v, 1L, 0L, 0L, 0x10000L) == -1 && errno == EOPNOTSUPP,
	   "preadv2 with an unknown flag: EOPNOTSUPP");
}

int main(void)
{
	char path[] = "/tmp/uring_rwsel.XXXXXX";
	int fd, p[2];

	plan(38);
	require(!io_uring_queue_init(8, &r, 0), "a ring");
	require((fd = mkstemp(path)) >= 0, "a file");
	unlink(path);
	require(write(fd, "0123456789", 10) == 10 && lseek(fd, 0, SEEK_SET) == 0, "10 bytes");
	require(!pipe(p), "a pipe");
	check_select(fd, p);
	check_recvmsg();
	check_flags(fd, p);
	io_uring_queue_exit(&r);
	return done();
}
