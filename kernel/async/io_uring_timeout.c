/*
 * io_uring's timeouts: TIMEOUT (relative or absolute on its clock, counting
 * CQEs, repeating with MULTISHOT) and TIMEOUT_REMOVE with its update form.
 * A TIMEOUT is armed as a pollable file's request is (io_uring_poll.c),
 * with no worker: parked on its submitter's engine, with a kernel timer
 * (req->timer) whose expiry, like its CQE count being met, an update or a
 * remove, wakes it (async_wake); its submitter retries it, or the
 * fallback once the submitter exited: a timeout outlives it, as Linux's
 * hrtimer does.
 */
#include "arch/x86_64/timer.h"
#include "arch/x86_64/uaccess.h"
#include "async/io_uring_int.h"
#include "proc/proc.h"
#include "sched/sched.h"
#include <uapi/errno.h>

/* TIMEOUT: len 1, addr a timespec (relative, or absolute on its clock
 * with IORING_TIMEOUT_ABS), off the CQE count that also ends it (and with
 * MULTISHOT the firings, 0 for ever); ETIME_SUCCESS: its -ETIME does not
 * break a link.  Linux's checks. */
#define TIMEOUT_FLAGS                                                                              \
	(IORING_TIMEOUT_ABS | IORING_TIMEOUT_CLOCK_MASK | IORING_TIMEOUT_ETIME_SUCCESS |           \
	 IORING_TIMEOUT_MULTISHOT)

/* The timespec at uts in ns into *ns: 0, -EFAULT, -EINVAL. */
static int timeout_ns(uint64_t uts, uint64_t *ns)
{
	struct timespec_k ts;
	int64_t v;

	if (copy_from_user(&ts, (const void *)uts, sizeof(ts)))
		return -EFAULT;
	if ((v = timespec_to_ns(&ts)) < 0)
		return -EINVAL;
	*ns = (uint64_t)v;
	return 0;
}

/* A deadline on the monotonic clock: ns from now, or with ABS ns on the
 * clock flags name (CLOCK_REALTIME runs a fixed offset ahead of
 * CLOCK_MONOTONIC here; CLOCK_BOOTTIME is CLOCK_MONOTONIC: nothing
 * suspends). */
static uint64_t timeout_deadline(uint32_t flags, uint64_t ns)
{
	int64_t ahead = flags & IORING_TIMEOUT_REALTIME ? clock_realtime_offset_ns() : 0;

	if (!(flags & IORING_TIMEOUT_ABS))
		return clock_monotonic_ns() + ns;
	return (int64_t)ns > ahead ? ns - (uint64_t)ahead : 0;
}

int io_prep_timeout(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;
	uint32_t flags = s->timeout_flags;
	int err;

	if (s->buf_index || s->len != 1 || s->splice_fd_in || (flags & ~TIMEOUT_FLAGS) ||
	    (flags & IORING_TIMEOUT_CLOCK_MASK) == IORING_TIMEOUT_CLOCK_MASK)
		return -EINVAL;
	if ((flags & IORING_TIMEOUT_MULTISHOT) && (flags & IORING_TIMEOUT_ABS))
		return -EINVAL; /* Linux: a repeating timeout is relative */
	if ((err = timeout_ns(s->addr, &req->period)))
		return err;
	req->repeats = flags & IORING_TIMEOUT_MULTISHOT ? (uint32_t)s->off : 0;
	req->deadline = timeout_deadline(flags, req->period);
	return 0;
}

/* Whether a MULTISHOT timeout that went off fires again (ring->lock):
 * then its CQE has F_MORE and its next deadline is an interval on. */
static bool timeout_again_locked(struct io_req *req)
{
	if (!(req->sqe.timeout_flags & IORING_TIMEOUT_MULTISHOT) ||
	    (req->repeats && !--req->repeats))
		return false;
	req->deadline = clock_monotonic_ns() + req->period;
	return true;
}

/* The timer went off (from the tick, interrupts off): its request is
 * parked (the timer is stopped before it is unparked and freed), so its
 * engine is there; the retry reads the clock. */
static void timeout_fired(struct ktimer *t)
{
	async_wake(&container_of(t, struct io_req, timer)->ar);
}

static void timeout_disarm(struct async_req *ar)
{
	ktimer_cancel_sync(&container_of(ar, struct io_req, ar)->timer);
}

/* Where req stands: its result (0: its count was met, -ECANCELED:
 * removed, -ETIME: its deadline passed), or 1 and the deadline to wait
 * for in *deadline.  A MULTISHOT one whose deadline passed posts its
 * F_MORE CQE and waits for the next (a tick at least: an interval of 0
 * never spins). */
static long timeout_state(struct io_req *req, uint64_t *deadline)
{
	struct io_ring *ring = req->ring;
	uint64_t data = req->sqe.user_data;
	bool again = false;
	long res = 1;

	spin_lock_task(&ring->lock);
	if (req->fired)
		res = 0;
	else if (io_req_removed(req))
		res = -ECANCELED;
	else if (clock_monotonic_ns() >= req->deadline)
		res = (again = timeout_again_locked(req)) ? 1 : -ETIME;
	if (res != 1)
		list_del(&req->tlink);
	*deadline = req->deadline;
	spin_unlock_task(&ring->lock);
	if (again || res == -ETIME || res == 0) /* before its CQE, which wakes the waiters */
		__atomic_add_fetch(&ring->nfired, 1, __ATOMIC_RELEASE);
	if (again) /* a TIMEOUT's own CQEs count for no TIMEOUT */
		io_post_cqe(ring, data, -ETIME, IORING_CQE_F_MORE, false);
	return res;
}

static void timeout_retry(struct async_req *ar);

long io_timeout_arm(struct io_req *req)
{
	uint64_t deadline;
	long res;
	int ret;

	req->ar.retry = timeout_retry;
	req->ar.disarm = timeout_disarm;
	ktimer_init(&req->timer, timeout_fired);
	while ((res = timeout_state(req, &deadline)) == 1) {
		if ((ret = async_arm_begin(&req->ar)))
			return ret;
		ktimer_arm(&req->timer, deadline);
		if (!(ret = async_arm_end(&req->ar, false)))
			return IO_PUNTED;
		ktimer_cancel_sync(&req->timer);
		if (ret < 0)
			return ret; /* cancelled while it was being armed */
	}
	return res;
}

/* Woken (its timer, its count, an update, a remove), in its submitter
 * or the fallback: ended, or armed again. */
static void timeout_retry(struct async_req *ar)
{
	struct io_req *req = container_of(ar, struct io_req, ar);
	long res;

	io_tw_lock(req->ring);
	timeout_disarm(ar);
	if ((res = io_timeout_arm(req)) != IO_PUNTED)
		io_req_finish(req, res);
}

/* On a worker (IOSQE_ASYNC, a chain, a drain): armed by req_done_async
 * (IO_REARM) on the engine the worker serves, its submitter's. */
long io_run_timeout(struct io_req *req)
{
	(void)req;
	return IO_REARM;
}

/* TIMEOUT_REMOVE, or with IORING_TIMEOUT_UPDATE a new timespec (addr2,
 * relative or ABS) for the timeout keyed by addr, counting no CQE any
 * more, as Linux's; with IORING_LINK_TIMEOUT_UPDATE, for a LINK_TIMEOUT. */
int io_prep_timeout_remove(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;
	uint32_t flags = s->timeout_flags;

	if (s->buf_index || s->len || s->splice_fd_in)
		return -EINVAL;
	if (!(flags & IORING_TIMEOUT_UPDATE_MASK))
		return flags ? -EINVAL : 0;
	if ((flags & IORING_TIMEOUT_CLOCK_MASK) == IORING_TIMEOUT_CLOCK_MASK ||
	    (flags & ~(IORING_TIMEOUT_UPDATE_MASK | IORING_TIMEOUT_ABS)))
		return -EINVAL;
	return timeout_ns(s->addr2, &req->period);
}

/* The timeout's new deadline is on its own clock; it is woken to take
 * it (timeout_state). */
static long timeout_update(struct io_req *req)
{
	struct io_ring *ring = req->ring;
	uint32_t abs = req->sqe.timeout_flags & IORING_TIMEOUT_ABS;
	struct io_req *t;

	spin_lock_task(&ring->lock);
	if ((t = io_find_locked(ring, req->sqe.addr, IORING_OP_TIMEOUT, req))) {
		t->deadline = timeout_deadline(
		    (t->sqe.timeout_flags & IORING_TIMEOUT_CLOCK_MASK) | abs, req->period);
		t->period = req->period;
		list_del(&t->tlink);
		async_interrupt(&t->ar); /* under the lock: t stays */
	}
	spin_unlock_task(&ring->lock);
	return t ? 0 : -ENOENT;
}

long io_run_timeout_remove(struct io_req *req)
{
	if (req->sqe.timeout_flags & IORING_LINK_TIMEOUT_UPDATE)
		return io_ltimeout_update(req);
	if (req->sqe.timeout_flags & IORING_TIMEOUT_UPDATE)
		return timeout_update(req);
	return io_cancel_key(req, IORING_OP_TIMEOUT);
}
