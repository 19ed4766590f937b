/*
 * io_uring's completions: CQEs written to the CQ ring under the ring's
 * lock, a queue for those it has no room for (IORING_FEAT_NODROP), the
 * TIMEOUTs' count of completions, the eventfd's signal, and a
 * submission's CQEs batched on its stack.  docs/async.md, "Requests".
 */
#include "async/io_uring_int.h"
#include "fs/event/eventfd.h"
#include "fs/file.h"
#include "mm/heap.h"
#include "proc/task.h"
#include "sched/sched.h"

struct io_overflow {
	struct list_head link;
	struct io_uring_cqe cqe;
};

/* Writes the first of n CQEs the CQ ring has room for (ring->lock held),
 * its head read and its tail published once: how many.  Inline in
 * cq_post, every CQE's way. */
static inline __attribute__((always_inline)) uint32_t
cqes_write_locked(struct io_ring *ring, const struct io_uring_cqe *cqes, uint32_t n)
{
	uint32_t tail = ring->cq_tail, used = tail - ring_load(ring, R_CQ_HEAD);
	struct io_uring_cqe *dst = NULL;

	if (used >= ring->cq_entries)
		return 0;
	if (n > ring->cq_entries - used)
		n = ring->cq_entries - used;
	/* The slot's address once, then the next one's, anew only where the
	 * ring wraps or a page ends (no CQE straddles one: R_CQES). */
	for (uint32_t i = 0, mask = ring->cq_entries - 1; i < n; i++) {
		if (!i || !((tail + i) & mask) || !((uintptr_t)dst % PAGE_SIZE))
			dst =
			    region_at(ring->rings_pa, R_CQES + ((tail + i) & mask) * sizeof(*cqes));
		*dst++ = cqes[i];
	}
	__atomic_store_n(&ring->cq_tail, tail + n, __ATOMIC_RELEASE); /* io_cq_ready's */
	ring_store(ring, R_CQ_TAIL, tail + n);			      /* release: the CQEs first */
	return n;
}

static void overflow_free(struct io_overflow *o)
{
	kfree(o);
	io_mem_uncharge(sizeof(*o));
}

/* Moves queued overflow CQEs into the CQ ring while it has room (lock
 * held); clears IORING_SQ_CQ_OVERFLOW once none is left. */
static void overflow_flush_locked(struct io_ring *ring)
{
	struct io_overflow *o, *n;

	list_for_each_entry_safe(o, n, &ring->overflow, link)
	{
		if (!cqes_write_locked(ring, &o->cqe, 1))
			break;
		list_del(&o->link);
		ring->noverflow--;
		overflow_free(o);
	}
	if (!ring->noverflow)
		__atomic_and_fetch(ring_word(ring, R_SQ_FLAGS), ~IORING_SQ_CQ_OVERFLOW,
				   __ATOMIC_RELEASE);
}

/* Queues cqe for later (NODROP): true; or, past io_uring's memory
 * bound (or out of memory), drops it and counts the drop, as Linux when
 * its allocation fails: false. */
static bool overflow_add_locked(struct io_ring *ring, const struct io_uring_cqe *cqe)
{
	struct io_overflow *o = NULL;

	if (io_mem_charge(sizeof(*o)) && !(o = kmalloc(sizeof(*o))))
		io_mem_uncharge(sizeof(*o));
	if (!o) {
		__atomic_add_fetch(ring_word(ring, R_CQ_OVERFLOW), 1, __ATOMIC_RELEASE);
		return false;
	}
	o->cqe = *cqe;
	list_add_tail(&o->link, &ring->overflow);
	ring->noverflow++;
	__atomic_or_fetch(ring_word(ring, R_SQ_FLAGS), IORING_SQ_CQ_OVERFLOW, __ATOMIC_RELEASE);
	return true;
}

/* The TIMEOUTs whose count the n new CQEs met (lock held): each fires,
 * its sleep interrupted, or skipped if it has not begun. */
static void timeouts_count_locked(struct io_ring *ring, uint32_t n)
{
	struct io_req *t, *nt;

	ring->ncompleted += n;
	list_for_each_entry_safe(t, nt, &ring->timeouts, tlink)
	{
		if (ring->ncompleted < t->target)
			continue;
		list_del(&t->tlink);
		t->fired = true;
		async_interrupt(&t->ar);
	}
}

/* The registered eventfd to tell of a CQE (lock held), referenced, or
 * NULL: none, IORING_CQ_EVENTFD_DISABLED set by user space, or
 * EVENTFD_ASYNC and the CQE not posted by an async worker (Linux's
 * io_wq_current_is_worker). */
static struct file *eventfd_to_tell_locked(struct io_ring *ring)
{
	struct file *efd = ring->eventfd;

	if (!efd || (ring_load(ring, R_CQ_FLAGS) & IORING_CQ_EVENTFD_DISABLED))
		return NULL;
	if (ring->eventfd_async && !async_in_worker())
		return NULL;
	file_get(efd);
	return efd;
}

/* Posts n CQEs, counted of them counting for the TIMEOUTs (a TIMEOUT's
 * own CQE counts for none, as Linux), under one hold of the lock, with
 * one wake-up and one eventfd signal: false if one was dropped (past
 * io_uring's memory bound).  Without may_overflow (one CQE only: a multishot
 * request's F_MORE), a full CQ ring takes none: false. */
static bool cq_post(struct io_ring *ring, const struct io_uring_cqe *cqes, uint32_t n,
		    uint32_t counted, bool may_overflow)
{
	struct file *efd = NULL;
	uint32_t i = 0;
	bool kept = true;

	spin_lock_task(&ring->lock);
	if (!ring->noverflow)
		i = cqes_write_locked(ring, cqes, n);
	if (__builtin_expect(i < n, 0)) {
		if (!may_overflow) {
			spin_unlock_task(&ring->lock);
			return false;
		}
		for (; i < n; i++) /* behind those already queued */
			kept &= overflow_add_locked(ring, &cqes[i]);
	}
	if (counted)
		timeouts_count_locked(ring, counted);
	if (ring->eventfd)
		efd = eventfd_to_tell_locked(ring);
	if (wait_queue_has_sleeper(&ring->cq_wait)) /* after the CQEs: see wait.h */
		wake_up(&ring->cq_wait);
	spin_unlock_task(&ring->lock);
	if (efd) {
		eventfd_signal(efd);
		file_put(efd);
	}
	return kept;
}

/* ---- a submission's CQEs ---- */

/*
 * While a task submits (io_uring_enter, submit_lock held), or retries
 * its woken requests in io_uring_enter's wait (as a submission), the
 * CQEs it posts wait in a batch and reach the CQ ring together, at its
 * end or when the batch is full: one lock hold, one wake-up and one
 * eventfd signal for them all (Linux's io_submit_flush_completions).
 * Every other task (a worker, another submitter's cancel) and the
 * retries on the way back to user mode post at once.  Not
 * once a DRAIN was used: a drained chain's turn depends on the CQEs
 * posted before it (io_drain_defer flushes first).
 */
static struct io_cq_batch *cq_batch_of(struct io_ring *ring)
{
	if (__atomic_load_n(&ring->batch_task, __ATOMIC_RELAXED) != current() || ring->drain_used)
		return NULL;
	return ring->batch;
}

static void cq_batch_flush(struct io_ring *ring, struct io_cq_batch *b)
{
	if (b->n)
		cq_post(ring, b->cqes, b->n, b->ncounted, true);
	b->n = b->ncounted = 0;
}

void io_cq_batch_begin(struct io_ring *ring, struct io_cq_batch *b)
{
	b->n = b->ncounted = 0;
	ring->batch = b;
	__atomic_store_n(&ring->batch_task, current(), __ATOMIC_RELAXED);
}

void io_cq_batch_end(struct io_ring *ring)
{
	cq_batch_flush(ring, ring->batch);
	__atomic_store_n(&ring->batch_task, NULL, __ATOMIC_RELAXED);
	ring->batch = NULL;
}

void io_cq_flush(struct io_ring *ring)
{
	if (__atomic_load_n(&ring->batch_task, __ATOMIC_RELAXED) == current())
		cq_batch_flush(ring, ring->batch);
}

void io_post_cqe_slow(struct io_ring *ring, uint64_t user_data, int32_t res, uint32_t flags,
		      bool counts)
{
	struct io_uring_cqe cqe = {.user_data = user_data, .res = res, .flags = flags};
	struct io_cq_batch *b = cq_batch_of(ring);

	if (!b) {
		cq_post(ring, &cqe, 1, counts, true);
		return;
	}
	cq_batch_flush(ring, b); /* full: io_post_cqe batches while it has room */
	b->cqes[b->n++] = cqe;
	b->ncounted += counts;
}

/* Posted now, after the current task's batch for ring (order kept). */
bool io_post_cqe_kept(struct io_ring *ring, uint64_t user_data, int32_t res)
{
	struct io_uring_cqe cqe = {.user_data = user_data, .res = res};

	io_cq_flush(ring);
	return cq_post(ring, &cqe, 1, 1, true);
}

/* Batched while the CQ ring has room for the batch and it (a hint: a
 * worker's CQE posted meanwhile may send it to the overflow queue, which
 * keeps it); else posted now, or refused. */
bool io_post_cqe_more(struct io_ring *ring, uint64_t user_data, int32_t res, uint32_t flags)
{
	struct io_uring_cqe cqe = {
	    .user_data = user_data, .res = res, .flags = flags | IORING_CQE_F_MORE};
	struct io_cq_batch *b = cq_batch_of(ring);
	uint32_t used;

	if (b && b->n < IO_CQ_BATCH && !__atomic_load_n(&ring->noverflow, __ATOMIC_ACQUIRE)) {
		used =
		    __atomic_load_n(&ring->cq_tail, __ATOMIC_ACQUIRE) - ring_load(ring, R_CQ_HEAD);
		if (used + b->n < ring->cq_entries) {
			b->cqes[b->n++] = cqe;
			b->ncounted++;
			return true;
		}
	}
	io_cq_flush(ring);
	return cq_post(ring, &cqe, 1, 1, false);
}

uint32_t io_cq_ready_flush(struct io_ring *ring)
{
	uint32_t n;

	spin_lock_task(&ring->lock);
	if (ring->noverflow)
		overflow_flush_locked(ring);
	n = ring->cq_tail - ring_load(ring, R_CQ_HEAD);
	spin_unlock_task(&ring->lock);
	return n;
}

void io_cq_release(struct io_ring *ring)
{
	struct io_overflow *o, *n;

	list_for_each_entry_safe(o, n, &ring->overflow, link) overflow_free(o);
}
