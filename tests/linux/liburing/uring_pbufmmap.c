/* io_uring buffer rings in the kernel's memory (IOU_PBUF_RING_MMAP,
 * Linux 6.4; through the raw register call and mmap, as liburing 2.3
 * predates it): registered with no address, mapped at
 * IORING_OFF_PBUF_RING | bgid << IORING_OFF_PBUF_SHIFT, filled and
 * published there by user space; a READ with IOSQE_BUFFER_SELECT takes
 * its entries in order (F_BUFFER, the ids), PBUF_STATUS reports the
 * head; unregistered, registered again (a fresh, empty ring); Linux's
 * errnos: an unknown flag, a mmap of a group with no such ring (EINVAL
 * as Linux 6.4, where 6.18 says ENOMEM). */
#define _GNU_SOURCE
#include <liburing.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "testutil.h"
#include "uring_run1.h"

#define BGID	    7
#define ENTRIES	    8
#define PBUF_MMAP   1U /* IOU_PBUF_RING_MMAP */
#define OFF_PBUF    0x80000000ULL
#define PBUF_SHIFT  16
#define PBUF_STATUS 26 /* IORING_REGISTER_PBUF_STATUS */

static char bufs[ENTRIES][16];

static int reg(int fd, unsigned op, void *arg, unsigned nr)
{
	long r = syscall(__NR_io_uring_register, fd, op, arg, nr);

	return r < 0 ? -errno : (int)r;
}

static int pbuf_reg(struct io_uring *r, unsigned op, uint64_t addr, unsigned entries,
		    unsigned flags)
{
	struct io_uring_buf_reg br = {.ring_addr = addr, .ring_entries = entries, .bgid = BGID};

	br.pad = (uint16_t)flags; /* flags, since Linux 6.4 */
	return reg(r->ring_fd, op, &br, 1);
}

static void *map(struct io_uring *r, uint16_t bgid, size_t len)
{
	return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, r->ring_fd,
		    (off_t)(OFF_PBUF | (uint64_t)bgid << PBUF_SHIFT));
}

/* A one-byte-or-more READ of the pipe into the group's next buffer:
 * its res, and its CQE's flags in *flags. */
static int read_sel(struct io_uring *r, int fd, unsigned *flags)
{
	struct io_uring_sqe *s = io_uring_get_sqe(r);
	struct io_uring_cqe c = {0};

	io_uring_prep_read(s, fd, NULL, 16, -1);
	s->flags |= IOSQE_BUFFER_SELECT;
	s->buf_group = BGID;
	io_uring_submit(r);
	if (next_cqe(r, &c))
		return -9999;
	*flags = c.flags;
	return c.res;
}

/* Entries 0..n-1 of the mapped ring: bufs[i], id 10 + i, published. */
static void fill(struct io_uring_buf_ring *br, int n)
{
	for (int i = 0; i < n; i++)
		io_uring_buf_ring_add(br, bufs[i], sizeof(bufs[i]), (unsigned short)(10 + i),
				      io_uring_buf_ring_mask(ENTRIES), i);
	io_uring_buf_ring_advance(br, n);
}

int main(void)
{
	struct io_uring r;
	struct io_uring_buf_ring *br;
	struct {
		uint32_t buf_group, head, resv[8];
	} st = {.buf_group = BGID};
	unsigned flags = 0;
	int p[2];

	plan(15);
	require(!pipe(p) && !io_uring_queue_init(4, &r, 0), "a pipe and a ring");
	is_int(pbuf_reg(&r, IORING_REGISTER_PBUF_RING, 0, ENTRIES, 4), -EINVAL,
	       "an unknown flag: EINVAL");
	ok(map(&r, BGID, 4096) == MAP_FAILED && (errno == EINVAL || errno == ENOMEM),
	   "mmap of no such ring: EINVAL (Linux 6.4; 6.18 says ENOMEM)");
	is_int(pbuf_reg(&r, IORING_REGISTER_PBUF_RING, 0, ENTRIES, PBUF_MMAP), 0,
	       "REGISTER_PBUF_RING with IOU_PBUF_RING_MMAP: 0");
	ok(map(&r, BGID + 1, 4096) == MAP_FAILED && (errno == EINVAL || errno == ENOMEM),
	   "mmap of another bgid: EINVAL (or ENOMEM)");
	br = map(&r, BGID, 4096);
	require(br != MAP_FAILED, "mapped at IORING_OFF_PBUF_RING | bgid << 16");
	ok(br->tail == 0, "a fresh ring: its tail 0");
	is_int(read_sel(&r, p[0], &flags) == -ENOBUFS ? 0 : -1, 0, "an empty ring: ENOBUFS");
	fill(br, 2);
	write(p[1], "abc", 3);
	is_int(read_sel(&r, p[0], &flags), 3, "a READ into its first entry: 3 bytes");
	ok((flags & IORING_CQE_F_BUFFER) && flags >> 16 == 10 && !memcmp(bufs[0], "abc", 3),
	   "F_BUFFER, id 10, the bytes in that buffer");
	write(p[1], "de", 2);
	is_int(read_sel(&r, p[0], &flags), 2, "the next: 2 bytes");
	ok(flags >> 16 == 11 && !memcmp(bufs[1], "de", 2), "id 11");
	is_int(reg(r.ring_fd, PBUF_STATUS, &st, 1), 0, "PBUF_STATUS: 0");
	is_int(st.head, 2, "its head: 2");
	is_int(pbuf_reg(&r, IORING_UNREGISTER_PBUF_RING, 0, 0, 0), 0, "unregistered");
	munmap(br, 4096);
	is_int(pbuf_reg(&r, IORING_REGISTER_PBUF_RING, 0, ENTRIES, PBUF_MMAP), 0,
	       "registered again");
	br = map(&r, BGID, 4096);
	ok(br != MAP_FAILED && br->tail == 0, "mapped again: a fresh ring, its tail 0");
	io_uring_queue_exit(&r);
	return done();
}
