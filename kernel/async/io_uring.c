/*
 * io_uring: the ring file, its memory and io_uring_setup (Linux's ABI,
 * uapi/io_uring.h); io_uring_enter is io_uring_enter.c's, its
 * completions io_uring_cq.c's.
 * The rings live in pages the kernel pins and reaches through its direct
 * map; user space maps the same pages (mmap at IORING_OFF_*), so a
 * hostile unmap or mprotect of its view can never make the kernel
 * fault.  docs/async.md.
 */
#include "arch/x86_64/uaccess.h"
#include "async/io_uring_rsrc.h"
#include "fd/fd_install.h"
#include "fd/fdtable.h"
#include "fs/event/eventfd.h"
#include "fs/event/poll.h"
#include "fs/file.h"
#include "fs/inode.h"
#include "fs/super.h"
#include "lib/lockdep.h"
#include "lib/string.h"
#include "mm/budget.h"
#include "mm/frame.h"
#include "mm/heap.h"
#include "mm/layout.h"
#include "sched/sched.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/stat.h>

#define SETUP_KNOWN                                                                                \
	(IORING_SETUP_IOPOLL | IORING_SETUP_SQPOLL | IORING_SETUP_SQ_AFF | IORING_SETUP_CQSIZE |   \
	 IORING_SETUP_CLAMP | IORING_SETUP_ATTACH_WQ | IORING_SETUP_SUBMIT_ALL |                   \
	 IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER)
#define FEATURES                                                                                   \
	(IORING_FEAT_SINGLE_MMAP | IORING_FEAT_NODROP | IORING_FEAT_SUBMIT_STABLE |                \
	 IORING_FEAT_RW_CUR_POS | IORING_FEAT_EXT_ARG | IORING_FEAT_NATIVE_WORKERS |               \
	 IORING_FEAT_CQE_SKIP | IORING_FEAT_FAST_POLL | IORING_FEAT_CUR_PERSONALITY |              \
	 IORING_FEAT_SQPOLL_NONFIXED | IORING_FEAT_POLL_32BITS)

/*
 * Ring pages system-wide: a setup past the bound is ENOMEM (Linux charges
 * them to RLIMIT_MEMLOCK).  16384 pages, 64 MiB; the largest ring takes
 * 833.  Atomic.
 */
#define IORING_PAGES_MAX 16384
static unsigned long ring_pages;
static unsigned long nrings; /* atomic: the leak check's count */

/*
 * The kernel memory io_uring holds for user space besides ring pages:
 * requests of the rings' (waiting, or cached for reuse) and overflowed
 * CQEs, system-wide; an eighth of memory (64 MiB of 512).  Past it, a
 * submission that can have no request fails with EAGAIN and a CQE that
 * cannot be queued is counted in the CQ ring's overflow word, Linux's
 * answers when its (memcg-charged) allocations fail.
 */
static struct mem_budget io_budget = {.part = 8};

bool io_mem_charge(size_t bytes)
{
	return mem_budget_charge(&io_budget, bytes);
}

void io_mem_uncharge(size_t bytes)
{
	mem_budget_uncharge(&io_budget, bytes);
}

unsigned long io_ring_count(void)
{
	return __atomic_load_n(&nrings, __ATOMIC_RELAXED);
}

/* ---- ring memory ---- */

/* An unnamed regular inode of npages pages, each pinned into pa[]: 0 or
 * -ENOMEM (what was made is given back by region_free). */
static int region_alloc(struct inode **ipp, uint64_t **pap, uint32_t npages)
{
	if (!(*pap = kzalloc(npages * sizeof(uint64_t))))
		return -ENOMEM;
	*ipp = inode_alloc(internal_sb, S_IFREG | 0600, 0);
	if (!*ipp || inode_truncate(*ipp, (uint64_t)npages * PAGE_SIZE))
		return -ENOMEM;
	for (uint32_t i = 0; i < npages; i++)
		if (!((*pap)[i] = inode_page_fill_ref(*ipp, i)))
			return -ENOMEM;
	return 0;
}

static void region_free(struct inode *ip, uint64_t *pa, uint32_t npages)
{
	for (uint32_t i = 0; pa && i < npages && pa[i]; i++)
		frame_unref(pa[i]);
	kfree(pa);
	if (ip)
		inode_put(ip);
}

int io_kregion_alloc(struct inode **ipp, uint64_t **pap, uint32_t npages)
{
	*ipp = NULL;
	*pap = NULL;
	if (__atomic_add_fetch(&ring_pages, npages, __ATOMIC_RELAXED) > IORING_PAGES_MAX ||
	    region_alloc(ipp, pap, npages)) {
		io_kregion_free(*ipp, *pap, npages);
		return -ENOMEM;
	}
	return 0;
}

void io_kregion_free(struct inode *ip, uint64_t *pa, uint32_t npages)
{
	region_free(ip, pa, npages);
	__atomic_sub_fetch(&ring_pages, npages, __ATOMIC_RELAXED);
}

/* Frees a list of cached requests (by next). */
static void req_list_free(struct io_req *req)
{
	for (struct io_req *next; req; req = next) {
		next = req->next;
		kfree(req);
		io_mem_uncharge(sizeof(*req));
	}
}

static void ring_free(struct io_ring *ring)
{
	req_list_free(ring->req_cache);
	req_list_free(ring->req_free);
	io_unregister_all(ring);
	io_sq_free(ring);
	io_cq_release(ring);
	region_free(ring->rings_ip, ring->rings_pa, ring->rings_npages);
	region_free(ring->sqes_ip, ring->sqes_pa, ring->sqes_npages);
	__atomic_sub_fetch(&ring_pages, ring->rings_npages + ring->sqes_npages, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&nrings, 1, __ATOMIC_RELAXED);
	kfree(ring);
}

void io_ring_get(struct io_ring *ring)
{
	__atomic_add_fetch(&ring->refs, 1, __ATOMIC_RELAXED);
}

void io_ring_put(struct io_ring *ring)
{
	if (__atomic_sub_fetch(&ring->refs, 1, __ATOMIC_ACQ_REL) == 0)
		ring_free(ring);
}

struct io_req *io_req_cache_get(struct io_ring *ring)
{
	struct io_req *req = ring->req_cache;

	if (!req) /* one exchange takes every request freed since */
		req = __atomic_exchange_n(&ring->req_free, NULL, __ATOMIC_ACQUIRE);
	if (!req) {
		if (!io_mem_charge(sizeof(*req)))
			return NULL;
		if (!(req = kmalloc(sizeof(*req))))
			io_mem_uncharge(sizeof(*req));
		return req;
	}
	ring->req_cache = req->next;
	return req;
}

void io_req_cache_put(struct io_req *req)
{
	struct io_ring *ring = req->ring; /* referenced by req until the caller's put */

	req->next = __atomic_load_n(&ring->req_free, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&ring->req_free, &req->next, req, true,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
}

/* Fills the fixed words of the rings region. */
static void ring_init_words(struct io_ring *ring)
{
	ring_store(ring, R_SQ_MASK, ring->sq_entries - 1);
	ring_store(ring, R_CQ_MASK, ring->cq_entries - 1);
	ring_store(ring, R_SQ_ENTRIES, ring->sq_entries);
	ring_store(ring, R_CQ_ENTRIES, ring->cq_entries);
}

/* A ring of sq and cq entries: the ring, or NULL with *err (-ENOMEM). */
static struct io_ring *ring_create(uint32_t sq, uint32_t cq, uint32_t flags, int *err)
{
	struct io_ring *ring = kzalloc(sizeof(*ring));
	uint64_t rings_size = sq_array_off(cq) + (uint64_t)sq * sizeof(uint32_t);
	uint32_t np = (uint32_t)((rings_size + PAGE_SIZE - 1) / PAGE_SIZE);
	uint32_t ns =
	    (uint32_t)(((uint64_t)sq * sizeof(struct io_uring_sqe) + PAGE_SIZE - 1) / PAGE_SIZE);

	*err = -ENOMEM;
	if (!ring)
		return NULL;
	if (__atomic_add_fetch(&ring_pages, np + ns, __ATOMIC_RELAXED) > IORING_PAGES_MAX) {
		__atomic_sub_fetch(&ring_pages, np + ns, __ATOMIC_RELAXED);
		kfree(ring);
		return NULL;
	}
	__atomic_add_fetch(&nrings, 1, __ATOMIC_RELAXED);
	ring->refs = 1;
	ring->flags = flags;
	ring->sq_entries = sq;
	ring->cq_entries = cq;
	ring->rings_npages = np;
	ring->sqes_npages = ns;
	mutex_init(&ring->submit_lock, "io_uring_submit");
	lockdep_single("io_uring_submit"); /* no retry holds two (io_tw_lock) */
	spin_init(&ring->lock, "io_uring");
	spin_init(&ring->files_lock, "io_uring_files");
	spin_init(&ring->pbuf_lock, "io_uring_pbuf");
	list_init(&ring->bgroups);
	list_init(&ring->pbuf_spare);
	list_init(&ring->pbuf_regions);
	list_init(&ring->overflow);
	list_init(&ring->inflight);
	list_init(&ring->timeouts);
	list_init(&ring->deferred);
	wait_queue_init(&ring->cq_wait, "io_uring_cq");
	wait_queue_init(&ring->drain_wq, "io_uring_drain");
	if (region_alloc(&ring->rings_ip, &ring->rings_pa, np) ||
	    region_alloc(&ring->sqes_ip, &ring->sqes_pa, ns)) {
		ring_free(ring);
		return NULL;
	}
	ring->words = P2V(ring->rings_pa[0]);
	ring_init_words(ring);
	return ring;
}

/* ---- the file ---- */

static unsigned io_uring_poll(struct file *f, struct poll_table *pt)
{
	struct io_ring *ring = f->priv;
	unsigned mask = 0;

	poll_wait(f, &ring->cq_wait, pt);
	/* The poller's woken requests post their CQEs on its way back to
	 * user mode (return_to_user_work): readable for it. */
	if (io_cq_ready(ring) || async_ready_pending())
		mask |= POLLIN | POLLRDNORM;
	if (ring_load(ring, R_SQ_TAIL) - ring_load(ring, R_SQ_HEAD) < ring->sq_entries)
		mask |= POLLOUT | POLLWRNORM;
	return mask;
}

/* The last reference to the ring's file: its SQ thread stops submitting,
 * what is in flight is cancelled and the registered files go (a request
 * holds its own); the ring goes when its last request (and its SQ
 * thread) does. */
static void io_uring_release(struct file *f)
{
	struct io_ring *ring = f->priv;

	io_sq_stop(ring);
	io_cancel_all(ring);
	io_files_release(ring);
	io_ring_put(ring);
}

/* mmap: OFF_SQ_RING and OFF_CQ_RING both map the rings region
 * (IORING_FEAT_SINGLE_MMAP), OFF_SQES the entries, OFF_PBUF_RING with
 * a bgid a buffer ring in the kernel's memory (IOU_PBUF_RING_MMAP);
 * longer than the region is EINVAL, as Linux. */
static struct inode *io_uring_mmap_region(struct file *f, uint64_t *off, uint64_t len)
{
	struct io_ring *ring = f->priv;
	struct inode *ip;
	uint32_t npages;

	if (*off == IORING_OFF_SQ_RING || *off == IORING_OFF_CQ_RING) {
		ip = ring->rings_ip;
		npages = ring->rings_npages;
	} else if (*off == IORING_OFF_SQES) {
		ip = ring->sqes_ip;
		npages = ring->sqes_npages;
	} else if ((*off & IORING_OFF_MMAP_MASK) == IORING_OFF_PBUF_RING) {
		ip = io_pbuf_mmap(
		    ring, (uint16_t)((*off & ~IORING_OFF_MMAP_MASK) >> IORING_OFF_PBUF_SHIFT),
		    &npages);
		if (!ip)
			return NULL;
	} else {
		return NULL;
	}
	if (len > (uint64_t)npages * PAGE_SIZE)
		return NULL;
	*off = 0;
	return ip;
}

const struct file_ops io_uring_fops = {
    .anon_name = "anon_inode:[io_uring]",
    .poll = io_uring_poll,
    .release = io_uring_release,
    .mmap_region = io_uring_mmap_region,
};

/* ---- io_uring_setup ---- */

static uint32_t roundup_pow2(uint32_t v)
{
	uint32_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

/* Linux's checks and sizes: 0 or -EINVAL; sq and cq entries in *p. */
static int setup_sizes(uint32_t entries, struct io_uring_params *p)
{
	if (!entries)
		return -EINVAL;
	if (entries > IORING_MAX_ENTRIES) {
		if (!(p->flags & IORING_SETUP_CLAMP))
			return -EINVAL;
		entries = IORING_MAX_ENTRIES;
	}
	p->sq_entries = roundup_pow2(entries);
	if (!(p->flags & IORING_SETUP_CQSIZE)) {
		p->cq_entries = 2 * p->sq_entries;
		return 0;
	}
	if (!p->cq_entries)
		return -EINVAL;
	if (p->cq_entries > IORING_MAX_CQ_ENTRIES) {
		if (!(p->flags & IORING_SETUP_CLAMP))
			return -EINVAL;
		p->cq_entries = IORING_MAX_CQ_ENTRIES;
	}
	p->cq_entries = roundup_pow2(p->cq_entries);
	return p->cq_entries < p->sq_entries ? -EINVAL : 0;
}

/* The offsets user space maps by. */
static void setup_offsets(struct io_uring_params *p)
{
	p->features = FEATURES;
	p->sq_off = (struct io_sqring_offsets){.head = R_SQ_HEAD,
					       .tail = R_SQ_TAIL,
					       .ring_mask = R_SQ_MASK,
					       .ring_entries = R_SQ_ENTRIES,
					       .flags = R_SQ_FLAGS,
					       .dropped = R_SQ_DROPPED,
					       .array = sq_array_off(p->cq_entries)};
	p->cq_off = (struct io_cqring_offsets){.head = R_CQ_HEAD,
					       .tail = R_CQ_TAIL,
					       .ring_mask = R_CQ_MASK,
					       .ring_entries = R_CQ_ENTRIES,
					       .overflow = R_CQ_OVERFLOW,
					       .cqes = R_CQES,
					       .flags = R_CQ_FLAGS};
}

/*
 * Checks, then the ring, then the parameters written back, then the fd:
 * Linux's order, so a bad params pointer costs no fd.  The fd is
 * close-on-exec as Linux's, plus every syscall_indirect flag.
 */
SYSCALL_DEFINE2(io_uring_setup, uint32_t, entries, struct io_uring_params *, up)
{
	struct io_uring_params p;
	struct io_ring *ring;
	struct file *f;
	int err, fd;

	if (copy_from_user(&p, up, sizeof(p)))
		return -EFAULT;
	for (unsigned int i = 0; i < sizeof(p.resv) / sizeof(p.resv[0]); i++)
		if (p.resv[i])
			return -EINVAL;
	if (p.flags & ~SETUP_KNOWN)
		return -EINVAL; /* R_DISABLED, SQE128, ...: docs/async.md */
	if ((err = setup_sizes(entries, &p)) || (err = io_sq_setup_check(&p)))
		return err;
	if (!(ring = ring_create(p.sq_entries, p.cq_entries, p.flags, &err)))
		return err;
	setup_offsets(&p);
	if (copy_to_user(up, &p, sizeof(p))) {
		io_ring_put(ring);
		return -EFAULT;
	}
	if (!(f = file_alloc(&io_uring_fops, O_RDWR, ring))) {
		io_ring_put(ring);
		return -ENOMEM;
	}
	/* From here its file's release stops its SQ thread */
	if ((p.flags & IORING_SETUP_SQPOLL) && (err = io_sq_start(ring, &p))) {
		file_put(f);
		return err;
	}
	fd = fd_install_new(f, O_CLOEXEC);
	if (fd < 0)
		file_put(f); /* its release drops the ring */
	return fd;
}

struct io_ring *io_ring_of(struct file *f)
{
	return f->ops == &io_uring_fops ? f->priv : NULL;
}
