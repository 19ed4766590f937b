/*
 * What orders io_uring requests beyond IO_LINK: LINK_TIMEOUT, a deadline
 * for the request before it in a chain, and IOSQE_IO_DRAIN, a request
 * that starts only once every earlier one has completed and before which
 * no later one starts.  docs/async.md.
 */
#include "arch/x86_64/timer.h"
#include "arch/x86_64/uaccess.h"
#include "async/io_uring_int.h"
#include "proc/signal.h"
#include "sched/sched.h"
#include <uapi/errno.h>

/* ---- LINK_TIMEOUT ---- */

/* The timer went off (from the tick: no sleep, and not the ring's lock,
 * which leaves interrupts on): the request it times is marked removed,
 * which its run reads before it starts, and interrupted if a worker runs
 * it.  Both flags only ever become true, so a store each does what the
 * lock did (struct io_req).  prev is alive: its completion disarms the
 * timer, waiting for this callback, before it is freed. */
static void ltimeout_fired(struct ktimer *t)
{
	struct io_req *lt = container_of(t, struct io_req, timer), *prev = lt->prev;

	__atomic_store_n(&lt->fired, true, __ATOMIC_RELEASE);
	__atomic_store_n(&prev->removed, true, __ATOMIC_RELEASE);
	async_interrupt(&prev->ar); /* an armed prev's owner is woken to end it */
}

/* Linux's checks: len 1, no count, a timespec (EFAULT, EINVAL), and a
 * request before it in the chain that is not a LINK_TIMEOUT itself. */
int io_prep_link_timeout(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;
	struct timespec_k ts;
	int64_t ns;

	ktimer_init(&req->timer, ltimeout_fired);
	if (s->buf_index || s->len != 1 || s->file_index || s->off)
		return -EINVAL;
	if (s->timeout_flags & ~IORING_TIMEOUT_ABS)
		return -EINVAL; /* the other clocks: docs/async.md */
	if (copy_from_user(&ts, (const void *)s->addr, sizeof(ts)))
		return -EFAULT;
	if ((ns = timespec_to_ns(&ts)) < 0)
		return -EINVAL;
	if (!req->prev || req->prev->sqe.opcode == IORING_OP_LINK_TIMEOUT)
		return -EINVAL;
	req->deadline = (uint64_t)ns; /* from the start of prev's wait unless ABS */
	return 0;
}

static struct io_req *ltimeout_of(struct io_req *req)
{
	struct io_req *lt = req->next;

	return lt && lt->sqe.opcode == IORING_OP_LINK_TIMEOUT ? lt : NULL;
}

/* A deadline of ns: from now, or on the monotonic clock with ABS. */
static uint64_t ltimeout_deadline(uint32_t flags, uint64_t ns)
{
	return flags & IORING_TIMEOUT_ABS ? ns : clock_monotonic_ns() + ns;
}

void io_ltimeout_arm(struct io_req *req)
{
	struct io_req *lt = ltimeout_of(req);

	if (!lt)
		return;
	spin_lock_task(&req->ring->lock);
	ktimer_arm(&lt->timer, ltimeout_deadline(lt->sqe.timeout_flags, lt->deadline));
	lt->started = true;
	spin_unlock_task(&req->ring->lock);
}

/*
 * TIMEOUT_REMOVE with LINK_TIMEOUT_UPDATE: the started link timeout keyed
 * by req's addr goes off at the new time instead.  It hangs off the
 * request it times, which is in flight; under ring->lock it stays there
 * (io_ltimeout_done detaches it under the lock before it disarms it).
 * 0; -ENOENT if none is started and pending (Linux's: one that went off
 * is on no list); -EALREADY if it is going off right now.
 */
long io_ltimeout_update(struct io_req *req)
{
	struct io_ring *ring = req->ring;
	uint64_t at = ltimeout_deadline(req->sqe.timeout_flags, req->period);
	struct io_req *r, *lt;
	long res = -ENOENT;

	spin_lock_task(&ring->lock);
	list_for_each_entry(r, &ring->inflight, link)
	{
		lt = ltimeout_of(r);
		if (!lt || lt->sqe.user_data != req->sqe.addr || !lt->started ||
		    __atomic_load_n(&lt->fired, __ATOMIC_ACQUIRE))
			continue;
		res = -EALREADY;
		if (ktimer_cancel(&lt->timer)) {
			ktimer_arm(&lt->timer, at);
			res = 0;
		}
		break;
	}
	spin_unlock_task(&ring->lock);
	return res;
}

long io_ltimeout_done(struct io_req *req, long res)
{
	struct io_req *lt = ltimeout_of(req);
	long lt_res = -ECANCELED;
	bool fired;

	if (!lt)
		return res;
	spin_lock_task(&req->ring->lock); /* no update finds it (and re-arms it) after */
	req->next = lt->next;
	spin_unlock_task(&req->ring->lock);
	ktimer_cancel_sync(&lt->timer); /* the callback is done with req */
	fired = __atomic_load_n(&lt->fired, __ATOMIC_ACQUIRE);
	if (fired && (res == -EINTR || res == -ECANCELED)) {
		res = -ECANCELED; /* Linux: the timeout cancelled it */
		lt_res = -ETIME;
	} else if (fired) {
		lt_res = -EALREADY; /* too late to cancel: it completed */
	}
	lt->next = NULL;
	/* Its -ETIME, -ECANCELED or -EALREADY is no failure of its own
	 * (Linux sets no REQ_F_FAIL): CQE_SKIP_SUCCESS skips it. */
	if (!(lt->sqe.flags & IOSQE_CQE_SKIP_SUCCESS))
		io_post_cqe(lt->ring, lt->sqe.user_data, (int32_t)lt_res, 0, true);
	io_req_free(lt);
	return res;
}

/* ---- IOSQE_IO_DRAIN ---- */

/*
 * Lets the deferred chains whose turn has come go, in order (lock held):
 * a drained chain once no request outside the queue is live (every
 * earlier one has completed), any other once no drained chain released
 * before it is live.  Each released one is woken on its worker.
 */
static bool drain_turn_locked(struct io_ring *ring, const struct io_req *h)
{
	if (h->drain_head)
		return __atomic_load_n(&ring->nlive, __ATOMIC_ACQUIRE) == ring->ndeferred;
	return ring->ndrain_live == 0;
}

static void drain_release_locked(struct io_ring *ring)
{
	struct io_req *h, *r;
	bool woke = false;

	while (!list_empty(&ring->deferred)) {
		h = list_first_entry(&ring->deferred, struct io_req, dlink);
		if (!drain_turn_locked(ring, h))
			break;
		list_del(&h->dlink);
		h->deferred = false;
		ring->ndeferred -= h->nchain;
		if (h->drain_head) {
			for (r = h; r; r = r->next)
				r->drain = true;
			ring->ndrain_live += h->nchain;
		}
		woke = true;
	}
	if (woke)
		wake_up(&ring->drain_wq);
}

/* The chain of head waits in the queue if it drains or a drain was ever
 * used (io_drain_defer's slow half). */
static __attribute__((noinline)) bool drain_defer(struct io_req *head, bool drain, uint32_t n)
{
	struct io_ring *ring = head->ring;
	bool deferred;

	io_cq_flush(ring); /* what completed before the chain is posted */
	spin_lock_task(&ring->lock);
	__atomic_store_n(&ring->drain_used, true, __ATOMIC_RELEASE); /* io_drain_put reads it */
	head->nchain = n;
	head->drain_head = drain;
	head->deferred = true;
	list_add_tail(&head->dlink, &ring->deferred);
	ring->ndeferred += n;
	drain_release_locked(ring);
	deferred = head->deferred;
	head->punted = deferred;
	spin_unlock_task(&ring->lock);
	return deferred;
}

bool io_drain_defer(struct io_req *head)
{
	bool drain = false;
	uint32_t n = 0;

	for (struct io_req *r = head; r; r = r->next, n++)
		drain |= (r->sqe.flags & IOSQE_IO_DRAIN) != 0;
	if (!drain && !head->ring->drain_used) /* submit_lock: only submitters set it */
		return false;
	return drain_defer(head, drain, n);
}

/* A deferred head leaves the queue without its turn (lock held). */
static void drain_forget_locked(struct io_req *head)
{
	struct io_ring *ring = head->ring;

	if (!head->deferred)
		return;
	list_del(&head->dlink);
	head->deferred = false;
	ring->ndeferred -= head->nchain;
	drain_release_locked(ring);
}

long io_drain_wait(struct io_req *req)
{
	struct io_ring *ring = req->ring;
	long res = 0;
	DEFINE_WAIT(we);

	if (!req->punted)
		return 0;
	for (;;) {
		prepare_to_wait(&ring->drain_wq, &we); /* before the test: no lost wake-up */
		spin_lock_task(&ring->lock);
		if (req->deferred && signal_pending()) { /* a cancel, or the owner's end */
			drain_forget_locked(req);
			res = -ECANCELED;
		}
		if (!req->deferred) {
			spin_unlock_task(&ring->lock);
			break;
		}
		spin_unlock_task(&ring->lock);
		schedule();
	}
	finish_wait(&ring->drain_wq, &we);
	return res;
}

void io_drain_forget_punted(struct io_req *req)
{
	spin_lock_task(&req->ring->lock);
	drain_forget_locked(req);
	spin_unlock_task(&req->ring->lock);
}

void io_drain_put(struct io_req *req)
{
	struct io_ring *ring = req->ring;

	__atomic_sub_fetch(&ring->nlive, 1, __ATOMIC_ACQ_REL);
	if (!__atomic_load_n(&ring->drain_used, __ATOMIC_ACQUIRE))
		return;
	spin_lock_task(&ring->lock);
	if (req->drain)
		ring->ndrain_live--;
	drain_release_locked(ring);
	spin_unlock_task(&ring->lock);
}
