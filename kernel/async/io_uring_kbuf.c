/*
 * io_uring's provided buffers (io_uring/kbuf.c's ABI), in two kinds of
 * group, one kind per bgid.  Linux's "legacy" groups: PROVIDE_BUFFERS
 * gives a ring nbufs buffers of len bytes each from addr, ids bid,
 * bid + 1, ... in group bgid; REMOVE_BUFFERS takes up to nbufs back.
 * Buffer rings (REGISTER_PBUF_RING): user memory of ring_entries struct
 * io_uring_buf, which user space fills and publishes by its tail; the
 * kernel takes them at its head (PBUF_STATUS reports it).  A request
 * with IOSQE_BUFFER_SELECT takes its group's next buffer when it
 * transfers (not at submission: a waiting request holds none), and its
 * CQE names it: IORING_CQE_F_BUFFER and the id in flags >> 16.  A buffer
 * the call did not fill (nothing received, an error, a wait) goes back,
 * as Linux's recycle: at a legacy group's head; to a ring by moving its
 * head back (or, if another request took a later entry meanwhile, kept
 * in the group's list, taken before the ring's next).  A ring may be
 * in the kernel's memory instead (IOU_PBUF_RING_MMAP), which user space
 * maps (io_pbuf_mmap).  docs/async.md.
 */
#include "arch/x86_64/uaccess.h"
#include "async/io_uring_rsrc.h"
#include "mm/heap.h"
#include "mm/layout.h"
#include "lib/string.h"
#include <uapi/errno.h>

/* Ids are 16 bits in a CQE: a group's ids, one PROVIDE's count. */
#define MAX_BIDS (1U << 16)
/* Per ring: buffer records (provided, or spare once consumed) and
 * groups (ENOMEM beyond; Linux charges the memory to its owner). */
#define IORING_MAX_PBUFS   (1U << 16)
#define IORING_MAX_BGROUPS 1024U
/* Linux's MAX_RW_COUNT: a buffer's length is clamped to it. */
#define MAX_RW_COUNT 0x7ffff000U

/* Buffer ring entries at most: a 16-bit head and tail cannot tell a
 * full ring of 65536 from an empty one (Linux's limit). */
#define PBUF_RING_MAX 32768U

/*
 * IOU_PBUF_RING_MMAP's memory: pinned pages of an internal inode, as the
 * rings', which user space maps at IORING_OFF_PBUF_RING | bgid <<
 * IORING_OFF_PBUF_SHIFT and the kernel reads through its own map.  Kept
 * on ring->pbuf_regions until the ring is freed, whatever unregisters
 * its ring (a mmap may be taking its inode meanwhile, with no lock that
 * an unregister takes: Linux too keeps them to its ring's exit), and
 * used again by its bgid's next such ring that fits; a power of two of
 * pages, so a group grows through few of them.
 */
struct io_kregion {
	struct list_head link; /* on ring->pbuf_regions */
	struct inode *ip;
	uint64_t *pa;
	uint32_t npages;
};

/* A group lives until the ring is freed (a ring group unregistered is
 * kept, empty, for its bgid's next use), so a request may hold one
 * without a reference.  Under pbuf_lock but for the user memory. */
struct io_bgroup {
	struct list_head link; /* on ring->bgroups */
	/* struct io_pbuf, the next one taken first: a legacy group's
	 * buffers; a ring's given back after its head moved on. */
	struct list_head bufs;
	uint16_t bgid;
	/*
	 * A buffer ring (ring_mask + 1 entries, a power of two), else 0.
	 * ring_addr is a user address of the process that registered it,
	 * never a kernel pointer: its entries and tail are read, never
	 * written, with copy_from_user by the task that takes a buffer (the
	 * owner, or a worker sharing its memory), so a ring unmapped or
	 * remapped under a running request makes that request fail with
	 * EFAULT and nothing else (Linux pins the pages instead).  gen
	 * changes at each register and unregister: a buffer taken before
	 * goes back only to the ring it came from.
	 */
	uint64_t ring_addr;
	uint32_t ring_mask, gen;
	uint16_t head; /* the next entry to take */
	bool is_ring;
	/* The ring is kr's memory (IOU_PBUF_RING_MMAP), read under
	 * pbuf_lock through the kernel's map; kr, once made, stays the
	 * group's until the ring is freed. */
	bool kmem;
	struct io_kregion *kr;
	bool gone; /* a ring unregistered: no group for the register ops */
};

struct io_pbuf {
	struct list_head link;	 /* on its group's bufs while provided */
	struct io_bgroup *group; /* lives until the ring is freed */
	uint64_t addr;
	uint32_t len;
	uint16_t bid;
	uint16_t pos; /* from a ring: the head it was taken at */
	uint32_t gen; /* from a ring: its group's gen then */
	bool from_ring;
};

/* The group bgid of ring (pbuf_lock held), or NULL. */
static struct io_bgroup *group_find_locked(struct io_ring *ring, uint16_t bgid)
{
	struct io_bgroup *g;

	list_for_each_entry(g, &ring->bgroups, link) if (g->bgid == bgid) return g;
	return NULL;
}

/* The group bgid as the register ops and REMOVE see it: not one gone. */
static struct io_bgroup *group_live_locked(struct io_ring *ring, uint16_t bgid)
{
	struct io_bgroup *g = group_find_locked(ring, bgid);

	return g && !g->gone ? g : NULL;
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

	spin_lock_task(&ring->pbuf_lock);
	for (; got < n && !list_empty(&ring->pbuf_spare); got++) {
		b = list_first_entry(&ring->pbuf_spare, struct io_pbuf, link);
		list_del(&b->link);
		list_add_tail(&b->link, made);
	}
	more = n - got;
	if (more > IORING_MAX_PBUFS - ring->nrecords)
		more = IORING_MAX_PBUFS - ring->nrecords;
	ring->nrecords += more;
	spin_unlock_task(&ring->pbuf_lock);
	for (; more && (b = kmalloc(sizeof(*b))); more--)
		list_add_tail(&b->link, made);
	if (more) { /* out of memory: give the unused count back */
		spin_lock_task(&ring->pbuf_lock);
		ring->nrecords -= more;
		spin_unlock_task(&ring->pbuf_lock);
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

	spin_lock_task(&ring->pbuf_lock);
	g = group_find_locked(ring, s->buf_group);
	spin_unlock_task(&ring->pbuf_lock);
	if (g && g->is_ring)
		return -EINVAL; /* a ring's buffers come from its ring (Linux's) */
	if (!g)
		fresh = kzalloc(sizeof(*fresh));
	records_get(ring, &made, (uint32_t)s->fd);
	list_for_each_entry(b, &made, link)
	{
		b->addr = s->addr + (uint64_t)i * s->len;
		b->len = s->len < MAX_RW_COUNT ? s->len : MAX_RW_COUNT;
		b->bid = (uint16_t)(s->off + i++);
		b->from_ring = false; /* a record may have been a ring's */
	}
	spin_lock_task(&ring->pbuf_lock);
	if (!(g = group_find_locked(ring, s->buf_group)) && fresh &&
	    ring->nbgroups < IORING_MAX_BGROUPS) {
		g = fresh;
		fresh = NULL;
		g->bgid = s->buf_group;
		list_init(&g->bufs);
		list_add_tail(&g->link, &ring->bgroups);
		ring->nbgroups++;
	}
	if (g && g->is_ring)
		g = NULL; /* registered as a ring meanwhile */
	if (g)
		g->gone = false;
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
	spin_unlock_task(&ring->pbuf_lock);
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

	spin_lock_task(&ring->pbuf_lock);
	if ((g = group_live_locked(ring, req->sqe.buf_group)) && g->is_ring)
		res = -EINVAL; /* Linux's: not for a ring */
	else if (g) {
		for (res = 0; res < (uint32_t)req->sqe.fd && !list_empty(&g->bufs); res++) {
			b = list_first_entry(&g->bufs, struct io_pbuf, link);
			list_del(&b->link);
			list_add_tail(&b->link, &gone);
		}
		ring->nrecords -= (uint32_t)res;
	}
	spin_unlock_task(&ring->pbuf_lock);
	list_for_each_entry_safe(b, n, &gone, link) kfree(b);
	return res;
}

/* A ring's entry at head: false if the ring is empty (its tail, read
 * with acquire semantics as Linux's smp_load_acquire, is head) or its
 * memory cannot be read.  The tail is the top half of the first entry's
 * second word, read in one aligned 8-byte load: never torn. */
static bool ring_entry(uint64_t at, uint32_t mask, uint16_t head, struct io_uring_buf *e)
{
	uint64_t w;

	if (copy_from_user(&w, (const void *)(at + 8), sizeof(w)))
		return false;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if ((uint16_t)(w >> 48) == head)
		return false;
	return !copy_from_user(e, (const void *)(at + (uint64_t)(head & mask) * sizeof(*e)),
			       sizeof(*e));
}

/* The same for a ring in the kernel's memory (pbuf_lock held): its
 * 16-byte entries never straddle a page. */
static bool kring_entry(const struct io_bgroup *g, uint16_t head, struct io_uring_buf *e)
{
	const uint64_t *w = region_at(g->kr->pa, 8);

	if ((uint16_t)(__atomic_load_n(w, __ATOMIC_ACQUIRE) >> 48) == head)
		return false;
	memcpy(e, region_at(g->kr->pa, (uint64_t)(head & g->ring_mask) * sizeof(*e)), sizeof(*e));
	return true;
}

/* The record of g's next buffer (pbuf_lock held, dropped to read a
 * ring's user memory and taken again): a buffer given back first, else
 * a ring's entry at its head, which moves on; NULL if none. */
static struct io_pbuf *group_take_locked(struct io_ring *ring, struct io_bgroup *g)
{
	struct list_head rec = LIST_HEAD_INIT(rec);
	struct io_pbuf *b = NULL;
	struct io_uring_buf e;
	uint64_t at;
	uint32_t gen, mask;
	uint16_t head;
	bool got = false, kmem;

	while (!b) {
		if (!list_empty(&g->bufs)) {
			b = list_first_entry(&g->bufs, struct io_pbuf, link);
			list_del(&b->link);
			break;
		}
		if (!g->is_ring)
			break;
		at = g->ring_addr, mask = g->ring_mask, gen = g->gen, head = g->head;
		if ((kmem = g->kmem))
			got = kring_entry(g, head, &e);
		spin_unlock_task(&ring->pbuf_lock);
		if (!kmem)
			got = ring_entry(at, mask, head, &e);
		if (got && list_empty(&rec))
			records_get(ring, &rec, 1);
		spin_lock_task(&ring->pbuf_lock);
		if (!got || list_empty(&rec))
			break;
		/* Another request took it meanwhile, or the ring changed:
		 * look again. */
		if (g->gen != gen || g->head != head || !list_empty(&g->bufs))
			continue;
		b = list_first_entry(&rec, struct io_pbuf, link);
		list_del(&b->link);
		*b = (struct io_pbuf){.group = g,
				      .addr = e.addr,
				      .len = e.len < MAX_RW_COUNT ? e.len : MAX_RW_COUNT,
				      .bid = e.bid,
				      .pos = head,
				      .gen = gen,
				      .from_ring = true};
		g->head = (uint16_t)(head + 1);
	}
	list_splice_init(&rec, &ring->pbuf_spare);
	return b;
}

struct io_pbuf *io_pbuf_take(struct io_ring *ring, uint16_t bgid, uint64_t *addr, uint32_t *len)
{
	struct io_bgroup *g;
	struct io_pbuf *b = NULL;

	spin_lock_task(&ring->pbuf_lock);
	if ((g = group_find_locked(ring, bgid)))
		b = group_take_locked(ring, g);
	spin_unlock_task(&ring->pbuf_lock);
	if (b) {
		*addr = b->addr;
		if (!*len || *len > b->len)
			*len = b->len;
	}
	return b;
}

/* A buffer not filled goes back (pbuf_lock held): a legacy group's at
 * its head; a ring's entry by moving the head back if it is still the
 * last taken, else kept first in the group's list; the record alone if
 * its ring was unregistered since. */
static void give_back_locked(struct io_ring *ring, struct io_pbuf *b)
{
	struct io_bgroup *g = b->group;

	if (!b->from_ring) {
		list_add(&b->link, &g->bufs);
	} else if (!g->is_ring || g->gen != b->gen) {
		list_add(&b->link, &ring->pbuf_spare);
	} else if (g->head == (uint16_t)(b->pos + 1)) {
		g->head = b->pos;
		list_add(&b->link, &ring->pbuf_spare);
	} else {
		list_add(&b->link, &g->bufs);
	}
}

uint32_t io_pbuf_done(struct io_ring *ring, struct io_pbuf *b, long res)
{
	uint32_t cflags = IORING_CQE_F_BUFFER | ((uint32_t)b->bid << IORING_CQE_BUFFER_SHIFT);

	spin_lock_task(&ring->pbuf_lock);
	if (res > 0)
		list_add(&b->link, &ring->pbuf_spare); /* consumed: its record kept */
	else
		give_back_locked(ring, b);
	spin_unlock_task(&ring->pbuf_lock);
	return res > 0 ? cflags : 0;
}

/* ---- buffer rings: io_uring_register's PBUF_RING, PBUF_STATUS ---- */

/* Linux's checks of a struct io_uring_buf_reg, in its order. */
static int ring_reg_check(const struct io_uring_buf_reg *r)
{
	if (r->resv[0] || r->resv[1] || r->resv[2])
		return -EINVAL;
	if (r->flags & ~IOU_PBUF_RING_MMAP) /* IOU_PBUF_RING_INC: docs/async.md */
		return -EINVAL;
	if (r->flags & IOU_PBUF_RING_MMAP) {
		if (r->ring_addr)
			return -EINVAL;
	} else if (!r->ring_addr) {
		return -EFAULT;
	} else if (r->ring_addr & (PAGE_SIZE - 1)) {
		return -EINVAL;
	}
	if (!r->ring_entries || (r->ring_entries & (r->ring_entries - 1)) ||
	    r->ring_entries > PBUF_RING_MAX)
		return -EINVAL;
	return 0;
}

/* Each page of the ring's memory must be there to read (Linux pins
 * them: EFAULT); what later happens to it is ring_entry's. */
static int ring_mem_check(uint64_t at, uint32_t entries)
{
	uint64_t size = (uint64_t)entries * sizeof(struct io_uring_buf);
	uint8_t byte;

	if (!user_range_ok(at, size))
		return -EFAULT;
	for (uint64_t off = 0; off < size; off += PAGE_SIZE)
		if (copy_from_user(&byte, (const void *)(at + off), 1))
			return -EFAULT;
	return 0;
}

/* A region of at least entries for group g's next ring in the kernel's
 * memory (submit_lock held, g NULL if it is new): its own, zeroed, if it
 * fits, else a new one on ring->pbuf_regions; NULL on ENOMEM. */
static struct io_kregion *kregion_for(struct io_ring *ring, struct io_bgroup *g, uint32_t entries)
{
	uint64_t bytes = (uint64_t)entries * sizeof(struct io_uring_buf);
	uint32_t npages = 1;
	struct io_kregion *kr;

	while ((uint64_t)npages * PAGE_SIZE < bytes)
		npages *= 2;
	if (g && g->kr && g->kr->npages >= npages) { /* no ring of g's reads it now */
		for (uint32_t i = 0; i < g->kr->npages; i++)
			memset(P2V(g->kr->pa[i]), 0, PAGE_SIZE);
		return g->kr;
	}
	if (!(kr = kzalloc(sizeof(*kr))))
		return NULL;
	if (io_kregion_alloc(&kr->ip, &kr->pa, npages)) {
		kfree(kr);
		return NULL;
	}
	kr->npages = npages;
	spin_lock_task(&ring->pbuf_lock);
	list_add_tail(&kr->link, &ring->pbuf_regions);
	spin_unlock_task(&ring->pbuf_lock);
	return kr;
}

int io_pbuf_ring_register(struct io_ring *ring, const struct io_uring_buf_reg *ureg)
{
	struct io_uring_buf_reg r;
	struct io_bgroup *g, *fresh = NULL;
	struct io_kregion *kr = NULL;
	bool kmem;
	int err;

	if (copy_from_user(&r, ureg, sizeof(r)))
		return -EFAULT;
	if ((err = ring_reg_check(&r)))
		return err;
	spin_lock_task(&ring->pbuf_lock);
	g = group_live_locked(ring, r.bgid);
	err = g && (g->is_ring || !list_empty(&g->bufs)) ? -EEXIST : 0;
	g = group_find_locked(ring, r.bgid); /* one gone is used again */
	spin_unlock_task(&ring->pbuf_lock);
	if (err)
		return err;
	if ((kmem = r.flags & IOU_PBUF_RING_MMAP) && !(kr = kregion_for(ring, g, r.ring_entries)))
		return -ENOMEM;
	if (!kmem && (err = ring_mem_check(r.ring_addr, r.ring_entries)))
		return err;
	if (!g && !(fresh = kzalloc(sizeof(*fresh))))
		return -ENOMEM;
	spin_lock_task(&ring->pbuf_lock);
	/* submit_lock held: no other registration; a PROVIDE on a worker
	 * may have made the group or filled it meanwhile. */
	if (!g && !(g = group_find_locked(ring, r.bgid))) {
		if (ring->nbgroups >= IORING_MAX_BGROUPS) {
			spin_unlock_task(&ring->pbuf_lock);
			kfree(fresh);
			return -ENOMEM;
		}
		g = fresh;
		fresh = NULL;
		g->bgid = r.bgid;
		list_init(&g->bufs);
		list_add_tail(&g->link, &ring->bgroups);
		ring->nbgroups++;
	}
	if (!list_empty(&g->bufs)) {
		err = -EEXIST;
	} else {
		g->gone = false;
		g->is_ring = true;
		g->kmem = kmem;
		g->kr = kr ? kr : g->kr;
		g->ring_addr = r.ring_addr;
		g->ring_mask = r.ring_entries - 1;
		g->head = 0;
		g->gen++;
	}
	spin_unlock_task(&ring->pbuf_lock);
	kfree(fresh);
	return err;
}

int io_pbuf_ring_unregister(struct io_ring *ring, const struct io_uring_buf_reg *ureg)
{
	struct io_uring_buf_reg r;
	struct io_bgroup *g;
	int err = 0;

	if (copy_from_user(&r, ureg, sizeof(r)))
		return -EFAULT;
	if (r.resv[0] || r.resv[1] || r.resv[2] || r.flags)
		return -EINVAL;
	spin_lock_task(&ring->pbuf_lock);
	if (!(g = group_live_locked(ring, r.bgid))) {
		err = -ENOENT;
	} else if (!g->is_ring) {
		err = -EINVAL;
	} else { /* kept, empty, for the bgid's next use (struct io_bgroup) */
		g->is_ring = false;
		g->kmem = false;
		g->gone = true;
		g->ring_addr = 0;
		g->gen++;
		list_splice_init(&g->bufs, &ring->pbuf_spare);
	}
	spin_unlock_task(&ring->pbuf_lock);
	return err;
}

int io_pbuf_ring_status(struct io_ring *ring, struct io_uring_buf_status *ustatus)
{
	struct io_uring_buf_status st;
	struct io_bgroup *g;
	int err = 0;

	if (copy_from_user(&st, ustatus, sizeof(st)))
		return -EFAULT;
	for (unsigned int i = 0; i < sizeof(st.resv) / sizeof(st.resv[0]); i++)
		if (st.resv[i])
			return -EINVAL;
	spin_lock_task(&ring->pbuf_lock);
	if (st.buf_group > UINT16_MAX || !(g = group_live_locked(ring, (uint16_t)st.buf_group)))
		err = -ENOENT;
	else if (!g->is_ring)
		err = -EINVAL;
	else
		st.head = g->head;
	spin_unlock_task(&ring->pbuf_lock);
	if (!err && copy_to_user(ustatus, &st, sizeof(st)))
		err = -EFAULT;
	return err;
}

struct inode *io_pbuf_mmap(struct io_ring *ring, uint16_t bgid, uint32_t *npages)
{
	struct io_bgroup *g;
	struct inode *ip = NULL;

	spin_lock_task(&ring->pbuf_lock);
	if ((g = group_live_locked(ring, bgid)) && g->kmem) {
		ip = g->kr->ip; /* kept until the ring's free: the mmap's file holds the ring */
		*npages = g->kr->npages;
	}
	spin_unlock_task(&ring->pbuf_lock);
	return ip;
}

void io_pbufs_release(struct io_ring *ring)
{
	struct io_bgroup *g, *gn;
	struct io_pbuf *b, *n;
	struct io_kregion *kr, *kn;

	list_for_each_entry_safe(g, gn, &ring->bgroups, link)
	{
		list_for_each_entry_safe(b, n, &g->bufs, link) kfree(b);
		kfree(g);
	}
	list_for_each_entry_safe(b, n, &ring->pbuf_spare, link) kfree(b);
	list_for_each_entry_safe(kr, kn, &ring->pbuf_regions, link)
	{
		io_kregion_free(kr->ip, kr->pa, kr->npages);
		kfree(kr);
	}
	list_init(&ring->pbuf_regions);
	list_init(&ring->bgroups);
	list_init(&ring->pbuf_spare);
	ring->nrecords = ring->nbgroups = 0;
}
