/* Buffer rings on Debian's liburing, as Linux: REGISTER_PBUF_RING
 * checks its struct io_uring_buf_reg (EINVAL, EFAULT, EEXIST), a RECV
 * with IOSQE_BUFFER_SELECT takes the entry at the kernel's head (the
 * user's buffer, the user's id in the CQE), a RECV that waits holds none
 * (the head stays), an empty ring is ENOBUFS; a multishot RECV posts one
 * CQE per receive, entries added past the ring's end wrap; PBUF_STATUS
 * reports the head; PROVIDE/REMOVE_BUFFERS refuse a ring's group;
 * UNREGISTER_PBUF_RING ends it; a ring closed with a multishot RECV
 * armed on a buffer ring leaves nothing; a stream RECV or RECVMSG that
 * leaves bytes to read has IORING_CQE_F_SOCK_NONEMPTY. */
#define _GNU_SOURCE
#include <liburing.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "robust.h"
#include "testutil.h"
#include "uring_child.h"
#include "uring_run1.h"
#include "uring_select.h"

#define BLEN		16
#define NENT		4
#define PAGE		4096
#define REG_PBUF_STATUS 26 /* IORING_REGISTER_PBUF_STATUS, after liburing 2.3 */

struct buf_status { /* struct io_uring_buf_status */
	uint32_t buf_group, head, resv[8];
};

static struct io_uring r;
static char bufs[8][BLEN];

static int reg(struct io_uring *ring, unsigned int op, void *arg, unsigned int nr)
{
	long n = syscall(__NR_io_uring_register, ring->ring_fd, op, arg, nr);

	return n < 0 ? -errno : (int)n;
}

static int reg_ring(struct io_uring_buf_ring *br, unsigned int entries, int bgid)
{
	struct io_uring_buf_reg rg = {
	    .ring_addr = (uintptr_t)br, .ring_entries = entries, .bgid = (uint16_t)bgid};

	return reg(&r, IORING_REGISTER_PBUF_RING, &rg, 1);
}

static int unreg_ring(struct io_uring *ring, int bgid)
{
	struct io_uring_buf_reg rg = {.bgid = (uint16_t)bgid};

	return reg(ring, IORING_UNREGISTER_PBUF_RING, &rg, 1);
}

/* The kernel's head of group bgid, or -errno. */
static int head_of(int bgid)
{
	struct buf_status st = {.buf_group = (uint32_t)bgid};
	int err = reg(&r, REG_PBUF_STATUS, &st, 1);

	return err ? err : (int)st.head;
}

/* Buffers first..first+n-1 of bufs[] onto the ring, ids 100 + i. */
static void add(struct io_uring_buf_ring *br, int first, int n)
{
	for (int i = 0; i < n; i++)
		io_uring_buf_ring_add(br, bufs[(first + i) % 8], BLEN, (uint16_t)(100 + first + i),
				      io_uring_buf_ring_mask(NENT), i);
	io_uring_buf_ring_advance(br, n);
}

static struct io_uring_buf_ring *ring_mem(void)
{
	void *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void check_register(struct io_uring_buf_ring *br)
{
	struct io_uring_buf_reg rg = {.ring_addr = (uintptr_t)br, .ring_entries = NENT, .bgid = 1};
	void *gone = ring_mem();

	is_int(reg(&r, IORING_REGISTER_PBUF_RING, &rg, 2), -EINVAL,
	       "REGISTER_PBUF_RING, nr 2: EINVAL");
	is_int(reg(&r, IORING_REGISTER_PBUF_RING, NULL, 1), -EINVAL, "no argument: EINVAL");
	rg.resv[1] = 1;
	is_int(reg(&r, IORING_REGISTER_PBUF_RING, &rg, 1), -EINVAL, "a reserved field set: EINVAL");
	rg.resv[1] = 0;
	rg.pad = 4; /* flags: not MMAP nor INC */
	is_int(reg(&r, IORING_REGISTER_PBUF_RING, &rg, 1), -EINVAL, "an unknown flag: EINVAL");
	rg.pad = 0;
	is_int(reg_ring((void *)((char *)br + 64), NENT, 1), -EINVAL,
	       "memory not page-aligned: EINVAL");
	is_int(reg_ring(br, 3, 1), -EINVAL, "3 entries (not a power of two): EINVAL");
	is_int(reg_ring(br, 0, 1), -EINVAL, "0 entries: EINVAL");
	is_int(reg_ring(br, 65536, 1), -EINVAL, "65536 entries: EINVAL");
	is_int(reg_ring(NULL, NENT, 1), -EFAULT, "no memory: EFAULT");
	munmap(gone, PAGE);
	is_int(reg_ring(gone, NENT, 1), -EFAULT, "memory unmapped: EFAULT");
	is_int(reg_ring(br, NENT, 1), 0, "a ring of 4 entries, group 1");
	is_int(reg_ring(br, NENT, 1), -EEXIST, "group 1 again: EEXIST");
	io_uring_prep_provide_buffers(io_uring_get_sqe(&r), bufs, BLEN, 1, 2, 0);
	is_int(run1(&r), 0, "PROVIDE_BUFFERS into group 2");
	is_int(reg_ring(br, NENT, 2), -EEXIST, "a ring for group 2, which has buffers: EEXIST");
	io_uring_prep_provide_buffers(io_uring_get_sqe(&r), bufs, BLEN, 1, 1, 0);
	is_int(run1(&r), -EINVAL, "PROVIDE_BUFFERS into the ring's group: EINVAL");
	io_uring_prep_remove_buffers(io_uring_get_sqe(&r), 1, 1);
	is_int(run1(&r), -EINVAL, "REMOVE_BUFFERS from the ring's group: EINVAL");
	is_int(head_of(1), 0, "PBUF_STATUS: head 0");
	is_int(head_of(2), -EINVAL, "PBUF_STATUS of a group of provided buffers: EINVAL");
	is_int(head_of(3), -ENOENT, "PBUF_STATUS of no group: ENOENT");
	is_int(head_of(70000), -ENOENT, "PBUF_STATUS of group 70000: ENOENT");
	is_int(unreg_ring(&r, 2), -EINVAL, "UNREGISTER_PBUF_RING of provided buffers: EINVAL");
	is_int(unreg_ring(&r, 3), -ENOENT, "UNREGISTER_PBUF_RING of no group: ENOENT");
}

static void check_oneshot(int sv[2], struct io_uring_buf_ring *br)
{
	struct io_uring_cqe c = {0}, *cp;

	recv_select_on(&r, sv[0], 1, false, 1);
	is_int(run1(&r), -ENOBUFS, "a RECV from the empty ring: ENOBUFS");
	add(br, 0, NENT);
	is_int(write(sv[1], "hello", 5), 5,
	       "4 buffers added (ids 100-103); the peer sends 5 bytes");
	recv_select_on(&r, sv[0], 1, false, 2);
	io_uring_submit(&r);
	next_cqe(&r, &c);
	ok(c.res == 5 && fl(&c) == IORING_CQE_F_BUFFER && bid_of(&c) == 100 &&
	       !memcmp(bufs[0], "hello", 5),
	   "a RECV: 5 bytes in the first entry's buffer, F_BUFFER, id 100 (%d %x)", c.res, c.flags);
	is_int(head_of(1), 1, "the head moved to 1");
	recv_select_on(&r, sv[0], 1, false, 3);
	io_uring_submit(&r);
	ok(io_uring_peek_cqe(&r, &cp) == -EAGAIN, "a RECV with nothing to receive waits");
	is_int(head_of(1), 1, "holding no buffer: the head is still 1");
	is_int(write(sv[1], "xy", 2), 2, "the peer sends 2 bytes");
	next_cqe(&r, &c);
	ok(c.res == 2 && bid_of(&c) == 101 && !memcmp(bufs[1], "xy", 2),
	   "it completes in the next entry, id 101 (%d %u)", c.res, bid_of(&c));
	is_int(head_of(1), 2, "the head moved to 2");
}

/* A multishot RECV: a CQE per send, each in the ring's next entry; the
 * ring empty, the next send ends it with ENOBUFS; entries added past
 * the ring's end wrap round. */
static void check_multishot(int sv[2], struct io_uring_buf_ring *br)
{
	static const char *msg[4] = {"a", "bb", "ccc", "dddd"};
	struct io_uring_cqe c = {0};
	int good = 0;

	recv_select_on(&r, sv[0], 1, true, 5);
	io_uring_submit(&r);
	for (int i = 0; i < 2; i++) {
		int n = (int)strlen(msg[i]);

		if (write(sv[1], msg[i], (size_t)n) != n || next_cqe(&r, &c))
			break;
		good += c.user_data == 5 && c.res == n &&
			fl(&c) == (IORING_CQE_F_BUFFER | IORING_CQE_F_MORE) &&
			bid_of(&c) == 102U + i && !memcmp(bufs[2 + i], msg[i], (size_t)n);
	}
	is_int(good, 2, "two sends: two CQEs with F_MORE and F_BUFFER, ids 102, 103");
	is_int(write(sv[1], "e", 1), 1, "a third send, the ring empty");
	next_cqe(&r, &c);
	ok(c.user_data == 5 && c.res == -ENOBUFS && !fl(&c), "ENOBUFS ends it, no F_MORE (%d %x)",
	   c.res, c.flags);
	add(br, 4, NENT); /* entries 4-7: slots 0-3 again */
	recv_select_on(&r, sv[0], 1, true, 6);
	io_uring_submit(&r);
	good = 0;
	next_cqe(&r, &c);
	good += c.res == 1 && bid_of(&c) == 104 && bufs[4][0] == 'e';
	for (int i = 2; i < 4; i++) {
		int n = (int)strlen(msg[i]);

		if (write(sv[1], msg[i], (size_t)n) != n || next_cqe(&r, &c))
			break;
		good += c.res == n && bid_of(&c) == 105U + (i - 2) &&
			!memcmp(bufs[5 + i - 2], msg[i], (size_t)n);
	}
	is_int(good, 3,
	       "4 entries more, wrapped round: the waiting byte and two sends, ids 104-106");
	is_int(head_of(1), 7, "the head is 7");
	is_int(unreg_ring(&r, 1), 0, "UNREGISTER_PBUF_RING with a multishot RECV armed on it");
	is_int(write(sv[1], "f", 1), 1, "a send");
	next_cqe(&r, &c);
	ok(c.user_data == 6 && c.res == -ENOBUFS && !fl(&c),
	   "the ring gone: ENOBUFS ends the RECV (%d %x)", c.res, c.flags);
	is_int(head_of(1), -ENOENT, "PBUF_STATUS of the group: ENOENT");
	is_int(unreg_ring(&r, 1), -ENOENT, "UNREGISTER_PBUF_RING again: ENOENT");
	io_uring_buf_ring_init(br);
	is_int(reg_ring(br, NENT, 1), 0, "group 1 registered again, the same memory");
	is_int(head_of(1), 0, "its head starts at 0");
}

/* IORING_CQE_F_SOCK_NONEMPTY: a stream RECV or RECVMSG that left bytes to
 * read says so (a plain buffer's and a ring's); the one that took the
 * rest, and a datagram's, do not. */
static void check_nonempty(struct io_uring_buf_ring *br)
{
	struct io_uring_cqe c = {0};
	char buf[8];
	struct iovec v = {buf, 1};
	struct msghdr h = {.msg_iov = &v, .msg_iovlen = 1};
	int sv[2], dg[2];

	require(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv) && !socketpair(AF_UNIX, SOCK_DGRAM, 0, dg),
		"two socket pairs");
	is_int(write(sv[1], "abcdefgh", 8), 8, "8 bytes on a stream");
	io_uring_prep_recv(io_uring_get_sqe(&r), sv[0], buf, 3, 0);
	io_uring_submit(&r);
	next_cqe(&r, &c);
	ok(c.res == 3 && c.flags == IORING_CQE_F_SOCK_NONEMPTY,
	   "a RECV of 3: SOCK_NONEMPTY (%d %x)", c.res, c.flags);
	add(br, 0, 1);
	recv_select_on(&r, sv[0], 1, false, 9)->len = 3;
	io_uring_submit(&r);
	next_cqe(&r, &c);
	ok(c.res == 3 &&
	       c.flags == (IORING_CQE_F_SOCK_NONEMPTY | IORING_CQE_F_BUFFER | (100U << 16)),
	   "one into the ring's buffer: SOCK_NONEMPTY, F_BUFFER, id 100 (%d %x)", c.res, c.flags);
	io_uring_prep_recvmsg(io_uring_get_sqe(&r), sv[0], &h, 0);
	io_uring_submit(&r);
	next_cqe(&r, &c);
	ok(c.res == 1 && c.flags == IORING_CQE_F_SOCK_NONEMPTY,
	   "a RECVMSG of 1: SOCK_NONEMPTY (%d %x)", c.res, c.flags);
	io_uring_prep_recv(io_uring_get_sqe(&r), sv[0], buf, 8, 0);
	io_uring_submit(&r);
	next_cqe(&r, &c);
	ok(c.res == 1 && !c.flags, "the RECV that took the rest: no flag (%d %x)", c.res, c.flags);
	is_int(write(dg[1], "ab", 2) + write(dg[1], "cd", 2), 4, "two datagrams");
	io_uring_prep_recv(io_uring_get_sqe(&r), dg[0], buf, 8, 0);
	io_uring_submit(&r);
	next_cqe(&r, &c);
	ok(c.res == 2 && !c.flags, "a datagram's RECV: no flag, as Linux (%d %x)", c.res, c.flags);
	close(sv[0]), close(sv[1]), close(dg[0]), close(dg[1]);
}

/* The teardown child's: a buffer ring with entries, a multishot RECV of
 * a socket pair of its own armed on it. */
static int arm_recv(struct io_uring *c, int unused)
{
	struct io_uring_buf_reg rg = {.ring_entries = NENT, .bgid = 3};
	struct io_uring_buf_ring *br = ring_mem();
	int sv[2];

	(void)unused;
	if (!br || socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return -1;
	rg.ring_addr = (uintptr_t)br;
	if (reg(c, IORING_REGISTER_PBUF_RING, &rg, 1))
		return -1;
	add(br, 0, NENT);
	recv_select_on(c, sv[0], 3, true, 1);
	return 1;
}

int main(void)
{
	struct io_uring_buf_ring *br;
	struct kstat before;
	int sv[2];
	bool have;

	plan(54);
	require(!io_uring_queue_init(16, &r, 0), "a ring");
	require((br = ring_mem()) != NULL, "a page for the buffer ring");
	require(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv), "a socket pair");
	check_register(br);
	check_oneshot(sv, br);
	check_multishot(sv, br);
	check_nonempty(br);
	io_uring_queue_exit(&r);
	uring_child_n(8, false, arm_recv, 0); /* warm-up: slab pages */
	have = kstat_read(&before);
	is_int(uring_child_n(8, true, arm_recv, 0), 0,
	       "a ring closed with a multishot RECV armed on a buffer ring");
	kstat_unchanged(&before, have, "and nothing of it is left");
	have = kstat_read(&before);
	is_int(uring_child_n(8, false, arm_recv, 0), 0,
	       "an exit with a multishot RECV armed on a buffer ring");
	kstat_unchanged(&before, have, "and nothing of it is left");
	return done();
}
