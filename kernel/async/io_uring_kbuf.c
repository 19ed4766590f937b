/*
 * io_uring's provided buffers (Linux's "legacy" provided-buffer groups,
 * io_uring/kbuf.c's ABI): PROVIDE_BUFFERS gives a ring nbufs buffers of
 * len bytes each from addr, ids bid, bid + 1, ... in group bgid;
 * REMOVE_BUFFERS takes up to nbufs back.  A RECV with IOSQE_BUFFER_SELECT
 * takes its group's first buffer when it receives (not at submission: a
 * waiting request holds none), and its CQE names it: IORING_CQE_F_BUFFER
 * and the id in flags >> 16.  A buffer the call did not fill (nothing
 * received, an error, a wait) goes back at the group's head, as Linux's
 * recycle.  docs/async.md.
 */
#include "arch/x86_64/uaccess.h"
#include "async/io_uring_int.h"
#include "mm/heap.h"
#include <uapi/errno.h>

/* Ids are 16 bits in a CQE: a group's ids, one PROVIDE's count. */
#define MAX_BIDS (1U << 16)
/* Per ring: buffer records (provided, or spare once consumed) and
 * groups (ENOMEM beyond; Linux charges the memory to its owner). */
#define IORING_MAX_PBUFS   (1U << 16)
#define IORING_MAX_BGROUPS 1024U
/* Linux's MAX_RW_COUNT: a buffer's length is clamped to it. */
#define MAX_RW_COUNT 0x7ffff000U

struct io_bgroup {
	struct list_head link; /* on ring->bgroups (pbuf_lock) */
	struct list_head bufs; /* struct io_pbuf, the next one taken first */
	uint16_t bgid;
};

struct io_pbuf {
	struct list_head link;	 /* on its group's bufs while provided */
	struct io_bgroup *group; /* lives until the ring is freed */
	uint64_t addr;
	uint32_t len;
	uint16_t bid;
};

/* The group bgid of ring (pbuf_lock held), or NULL. */
static struct io_bgroup *group_find_locked(struct io_ring *ring, uint16_t bgid)
{
	struct io_bgroup *g;

	list_for_each_entry(g, &ring->bgroups, link) if (g->bgid == bgid) return g;
	return NULL;
}

int io_prep_provide_buffers(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;
	uint64_t nbufs = (uint64_t)(int64_t)s->fd, size;

	if (s->rw_flags || s->splice_fd_in)
		return -EINVAL;
	if (!nbufs || nbufs > MAX_BIDS)
		return -E2BIG;
	if (!s->len)
		return -EINVAL;
	size = (uint64_t)s->len * nbufs;
	if (s->addr + size < s->addr)
		return -EOVERFLOW;
	if (!user_range_ok(s->addr, size))
		return -EFAULT;
	if (s->off > 0xffff)
		return -E2BIG;
	if (s->off + nbufs > MAX_BIDS)
		return -EINVAL;
	return 0;
}

/* Up to n buffer records onto made: the ring's spare ones (the records
 * of buffers consumed), then new ones; never more than IORING_MAX_PBUFS
 * records per ring.  No allocation under the lock. */
static void records_get(struct io_ring *ring, struct list_head *made, uint32_t n)
{
	struct io_pbuf *b;
	uint32_t got = 0, more;

	spin_lock(&ring->pbuf_lock);
	for (; got < n && !list_empty(&ring->pbuf_spare); got++) {
		b = list_first_entry(&ring->pbuf_spare, struct io_pbuf, link);
		list_del(&b->link);
		list_add_tail(&b->link, made);
	}
	more = n - got;
	if (more > IORING_MAX_PBUFS - ring->nrecords)
		more = IORING_MAX_PBUFS - ring->nrecords;
	ring->nrecords += more;
	spin_unlock(&ring->pbuf_lock);
	for (; more && (b = kmalloc(sizeof(*b))); more--)
		list_add_tail(&b->link, made);
	if (more) { /* out of memory: give the unused count back */
		spin_lock(&ring->pbuf_lock);
		ring->nrecords -= more;
		spin_unlock(&ring->pbuf_lock);
	}
}

/* The records taken first, then given to the group (made if new): 0,
 * or -ENOMEM with none added (Linux: 0 once any was). */
long io_run_provide_buffers(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;
	struct io_ring *ring = req->ring;
	struct io_bgroup *g, *fresh = NULL;
	struct list_head made = LIST_HEAD_INIT(made);
	struct io_pbuf *b, *n;
	uint32_t i = 0, added = 0;

	spin_lock(&ring->pbuf_lock);
	g = group_find_locked(ring, s->buf_group);
	spin_unlock(&ring->pbuf_lock);
	if (!g)
		fresh = kzalloc(sizeof(*fresh));
	records_get(ring, &made, (uint32_t)s->fd);
	list_for_each_entry(b, &made, link)
	{
		b->addr = s->addr + (uint64_t)i * s->len;
		b->len = s->len < MAX_RW_COUNT ? s->len : MAX_RW_COUNT;
		b->bid = (uint16_t)(s->off + i++);
	}
	spin_lock(&ring->pbuf_lock);
	if (!(g = group_find_locked(ring, s->buf_group)) && fresh &&
	    ring->nbgroups < IORING_MAX_BGROUPS) {
		g = fresh;
		fresh = NULL;
		g->bgid = s->buf_group;
		list_init(&g->bufs);
		list_add_tail(&g->link, &ring->bgroups);
		ring->nbgroups++;
	}
	list_for_each_entry_safe(b, n, &made, link)
	{
		if (!g)
			break;
		b->group = g;
		list_del(&b->link);
		list_add_tail(&b->link, &g->bufs);
		added++;
	}
	list_splice_init(&made, &ring->pbuf_spare); /* no group: kept spare */
	spin_unlock(&ring->pbuf_lock);
	kfree(fresh);
	return added ? 0 : -ENOMEM;
}

int io_prep_remove_buffers(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;
	uint64_t nbufs = (uint64_t)(int64_t)s->fd;

	if (s->rw_flags || s->addr || s->len || s->off || s->splice_fd_in)
		return -EINVAL;
	if (!nbufs || nbufs > MAX_BIDS)
		return -EINVAL;
	return 0;
}

/* How many were taken from the group's head, -ENOENT for no group. */
long io_run_remove_buffers(struct io_req *req)
{
	struct io_ring *ring = req->ring;
	struct list_head gone = LIST_HEAD_INIT(gone);
	struct io_bgroup *g;
	struct io_pbuf *b, *n;
	long res = -ENOENT;

	spin_lock(&ring->pbuf_lock);
	if ((g = group_find_locked(ring, req->sqe.buf_group))) {
		for (res = 0; res < (uint32_t)req->sqe.fd && !list_empty(&g->bufs); res++) {
			b = list_first_entry(&g->bufs, struct io_pbuf, link);
			list_del(&b->link);
			list_add_tail(&b->link, &gone);
		}
		ring->nrecords -= (uint32_t)res;
	}
	spin_unlock(&ring->pbuf_lock);
	list_for_each_entry_safe(b, n, &gone, link) kfree(b);
	return res;
}

struct io_pbuf *io_pbuf_take(struct io_ring *ring, uint16_t bgid, uint64_t *addr, uint32_t *len)
{
	struct io_bgroup *g;
	struct io_pbuf *b = NULL;

	spin_lock(&ring->pbuf_lock);
	if ((g = group_find_locked(ring, bgid)) && !list_empty(&g->bufs)) {
		b = list_first_entry(&g->bufs, struct io_pbuf, link);
		list_del(&b->link);
	}
	spin_unlock(&ring->pbuf_lock);
	if (b) {
		*addr = b->addr;
		if (!*len || *len > b->len)
			*len = b->len;
	}
	return b;
}

uint32_t io_pbuf_done(struct io_ring *ring, struct io_pbuf *b, long res)
{
	uint32_t cflags = IORING_CQE_F_BUFFER | ((uint32_t)b->bid << IORING_CQE_BUFFER_SHIFT);

	spin_lock(&ring->pbuf_lock);
	if (res > 0)
		list_add(&b->link, &ring->pbuf_spare); /* consumed: its record kept */
	else
		list_add(&b->link, &b->group->bufs); /* its group's next again */
	spin_unlock(&ring->pbuf_lock);
	return res > 0 ? cflags : 0;
}

void io_pbufs_release(struct io_ring *ring)
{
	struct io_bgroup *g, *gn;
	struct io_pbuf *b, *n;

	list_for_each_entry_safe(g, gn, &ring->bgroups, link)
	{
		list_for_each_entry_safe(b, n, &g->bufs, link) kfree(b);
		kfree(g);
	}
	list_for_each_entry_safe(b, n, &ring->pbuf_spare, link) kfree(b);
	list_init(&ring->bgroups);
	list_init(&ring->pbuf_spare);
	ring->nrecords = ring->nbgroups = 0;
}
