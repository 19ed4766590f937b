/*
 * io_uring_enter (Linux's ABI, uapi/io_uring.h): the submission of the
 * SQ ring's entries, and the wait for CQEs with its arguments.  The
 * rings themselves and io_uring_setup are io_uring.c's.  docs/async.md.
 */
#include "arch/x86_64/timer.h"
#include "arch/x86_64/uaccess.h"
#include "async/io_uring_int.h"
#include "fd/fdtable.h"
#include "fs/event/poll.h"
#include "fs/file.h"
#include "proc/signal.h"
#include "proc/task.h"
#include "sched/ktimer.h"
#include "sched/sched.h"
#include "sys/syscall.h"
#include <uapi/errno.h>

#define ENTER_KNOWN                                                                                \
	(IORING_ENTER_GETEVENTS | IORING_ENTER_SQ_WAKEUP | IORING_ENTER_SQ_WAIT |                  \
	 IORING_ENTER_EXT_ARG | IORING_ENTER_REGISTERED_RING)

/* The SQE at index idx, copied. */
static void sqe_read(struct io_ring *ring, uint32_t idx, struct io_uring_sqe *sqe)
{
	*sqe = *(const struct io_uring_sqe *)region_at(ring->sqes_pa, (uint64_t)idx * sizeof(*sqe));
}

/* A submission's open link chain: its first and last requests, and
 * whether one of its SQEs failed its checks. */
struct sq_chain {
	struct io_req *head, *last;
	bool failed;
};

/* Ends the chain c: issued, or failed whole if one of its SQEs was. */
static void chain_end(struct sq_chain *c)
{
	if (c->failed)
		io_fail_chain(c->head);
	else
		io_queue_chain(c->head);
	c->head = c->last = NULL;
	c->failed = false;
}

/* No request could be had for an SQE (submit_linked): it stays in the
 * SQ ring. */
#define SQE_NO_REQ 1

/* The SQE read into sqe submitted as a request of the ring's, in chain
 * c: 0 while c stays open (a link flag), else c's end and the SQE's
 * preparation's -errno; SQE_NO_REQ if no request can be had.  Out of
 * io_uring_enter's loop, which SQEs alone (io_submit_alone) take. */
static __attribute__((noinline)) int submit_linked(struct io_ring *ring, struct sq_chain *c,
						   const struct io_uring_sqe *sqe)
{
	struct io_req *req = io_req_for_sqe(ring, sqe);
	int err;

	if (!req)
		return SQE_NO_REQ;
	req->prev = c->last; /* the request before it in its chain: LINK_TIMEOUT's */
	err = req->err = io_req_prep(req);
	c->failed |= err != 0;
	if (c->last)
		c->last->next = req; /* the chain owns it */
	else
		c->head = req;
	c->last = req;
	if (req->sqe.flags & (IOSQE_IO_LINK | IOSQE_IO_HARDLINK))
		return 0;
	chain_end(c);
	return err;
}

/*
 * Submits up to n SQEs (submit_lock held): how many were consumed, or
 * -EAGAIN when no request can be had (the io_uring memory bound,
 * io_uring_cq.c).  Any number may be in flight, whatever the CQ size
 * (IORING_FEAT_NODROP: CQEs without room wait on the overflow queue),
 * as Linux's.  As Linux: a bad SQ index is dropped (counted) and ends the batch; an
 * SQE that fails its checks gets its CQE and, unless IORING_SETUP_SUBMIT_ALL
 * or linked to the next, ends the batch after itself; a link chain with
 * a failed SQE fails whole.  The SQ head and tail are read once, the
 * head written back once.  Inline in io_uring_enter.
 */
static inline __attribute__((always_inline)) int submit_locked(struct io_ring *ring, uint32_t n)
{
	uint32_t head = ring->sq_head, avail = ring_load(ring, R_SQ_TAIL) - head, done = 0, idx;
	uint32_t array = sq_array_off(ring->cq_entries);
	struct sq_chain c = {.head = NULL};
	struct io_req sreq;
	int err = 0;

	n = n < avail ? n : avail;
	if (n > ring->sq_entries)
		n = ring->sq_entries;
	while (done < n) {
		idx = __atomic_load_n(
		    (uint32_t *)region_at(ring->rings_pa,
					  array + (head & (ring->sq_entries - 1)) * 4),
		    __ATOMIC_RELAXED);
		if (idx >= ring->sq_entries) {
			head++;
			__atomic_add_fetch(ring_word(ring, R_SQ_DROPPED), 1, __ATOMIC_RELEASE);
			break;
		}
		sqe_read(ring, idx, &sreq.sqe);
		if ((c.last || (err = io_submit_alone(ring, &sreq)) > 0) &&
		    (err = submit_linked(ring, &c, &sreq.sqe)) == SQE_NO_REQ) {
			err = -EAGAIN; /* Linux's, when no request can be had */
			break;
		}
		head++;
		done++;
		if (err && !(ring->flags & IORING_SETUP_SUBMIT_ALL))
			break;
	}
	if (c.head) /* a link flag on the last SQE: the chain ends there */
		chain_end(&c);
	ring->sq_head = head;
	ring_store(ring, R_SQ_HEAD, head);
	return done ? (int)done : err;
}

/* io_submit_sqes, inline in io_uring_enter. */
static inline __attribute__((always_inline)) int submit_sqes(struct io_ring *ring, uint32_t n)
{
	struct io_cq_batch batch;
	int ret;

	mutex_lock(&ring->submit_lock);
	io_cq_batch_begin(ring, &batch);
	ret = submit_locked(ring, n);
	io_cq_batch_end(ring);
	mutex_unlock(&ring->submit_lock);
	return ret;
}

int io_submit_sqes(struct io_ring *ring, uint32_t n)
{
	return submit_sqes(ring, n);
}

/* The ring's submission that tw holds, if any, ended. */
static void tw_unlock(struct io_tw *tw)
{
	if (!tw->ring)
		return;
	io_cq_batch_end(tw->ring);
	mutex_unlock(&tw->ring->submit_lock);
	io_ring_put(tw->ring);
	tw->ring = NULL;
}

void io_tw_lock(struct io_ring *ring)
{
	struct io_tw *tw = current()->uring_tw;

	if (!tw || tw->ring == ring)
		return;
	tw_unlock(tw);
	io_ring_get(ring);
	mutex_lock(&ring->submit_lock);
	io_cq_batch_begin(ring, &tw->batch);
	tw->ring = ring;
}

void io_run_ready(void)
{
	struct io_tw tw = {.ring = NULL};
	struct task *self = current();

	self->uring_tw = &tw;
	async_run_ready();
	self->uring_tw = NULL;
	tw_unlock(&tw);
}

/* cq_wait's sleep: until min CQEs, or a TIMEOUT goes off (nfired moves
 * from fired, read before the wait's first test), as Linux's
 * io_should_wake.  A wait its deadline or a signal ends with CQEs ready
 * returns 0, as Linux's io_cqring_wait (liburing then reaps them). */
static __attribute__((noinline)) long cq_sleep(struct io_ring *ring, uint32_t min,
					       uint64_t deadline, uint32_t fired)
{
	DEFINE_WAIT(we);
	long ret = 0;

	for (;;) {
		/* The woken requests' retries first (awake: they may sleep),
		 * then the test, queued: a wake-up after it is not lost. */
		if (async_ready_pending())
			io_run_ready();
		prepare_to_wait(&ring->cq_wait, &we);
		if (deadline != POLL_FOREVER && deadline)
			sched_arm_deadline(deadline);
		if (io_cq_ready(ring) >= min ||
		    __atomic_load_n(&ring->nfired, __ATOMIC_ACQUIRE) != fired)
			break;
		if (async_ready_pending()) {
			finish_wait(&ring->cq_wait, &we);
			continue;
		}
		/* A signal, not signal_pending(), which a request made ready
		 * since the test above also makes true: the loop retries
		 * that one (its wake-up ends the sleep), it is no EINTR. */
		if (signal_is_pending(current())) {
			ret = -EINTR;
			break;
		}
		if (deadline != POLL_FOREVER && clock_monotonic_ns() >= deadline) {
			ret = -ETIME;
			break;
		}
		schedule();
	}
	if (deadline != POLL_FOREVER && deadline)
		sched_disarm_deadline();
	finish_wait(&ring->cq_wait, &we);
	return ret && io_cq_ready(ring) ? 0 : ret;
}

/* Waits for min CQEs (clamped to the CQ size) until deadline
 * (POLL_FOREVER: none; 0: check once): 0, -ETIME, -EINTR.  The common
 * case, CQEs there already, neither queues nor sleeps (inline in
 * io_uring_enter). */
static inline __attribute__((always_inline)) long cq_wait(struct io_ring *ring, uint32_t min,
							  uint64_t deadline)
{
	uint32_t fired = __atomic_load_n(&ring->nfired, __ATOMIC_ACQUIRE);

	if (min > ring->cq_entries)
		min = ring->cq_entries;
	if (async_ready_pending())
		io_run_ready();
	if (io_cq_ready(ring) >= min)
		return 0;
	return cq_sleep(ring, min, deadline, fired);
}

/* EXT_ARG's timeout as Linux takes it (timespec64_to_ktime, unchecked):
 * tv_nsec past a second adds up, and a negative sum has passed (ETIME at
 * once).  0 or -EFAULT. */
static long ext_arg_deadline(const struct timespec_k *uts, uint64_t *deadline)
{
	struct timespec_k ts;
	int64_t ns;

	if (copy_from_user(&ts, uts, sizeof(ts)))
		return -EFAULT;
	if (ts.tv_sec >= KTIME_MAX / NSEC_PER_SEC)
		ns = KTIME_MAX;
	else if (__builtin_mul_overflow(ts.tv_sec, NSEC_PER_SEC, &ns) ||
		 __builtin_add_overflow(ns, ts.tv_nsec, &ns))
		ns = ts.tv_sec < 0 ? 0 : KTIME_MAX;
	/* 0: checked once (cq_wait); now + KTIME_MAX cannot overflow */
	*deadline = ns <= 0 ? 0 : clock_monotonic_ns() + (uint64_t)ns;
	return 0;
}

/* GETEVENTS' argument: the signal mask set for the wait (restored on the
 * way out, as ppoll's) and the deadline.  0, -EINVAL, -EFAULT. */
static long wait_args(uint32_t flags, const void *argp, size_t argsz, uint64_t *deadline)
{
	struct io_uring_getevents_arg ea;

	*deadline = POLL_FOREVER;
	if (!(flags & IORING_ENTER_EXT_ARG))
		return argp ? signal_set_user_mask(argp, argsz) : 0;
	if (argsz != sizeof(ea))
		return -EINVAL;
	if (copy_from_user(&ea, argp, sizeof(ea)))
		return -EFAULT;
	if (ea.ts) {
		long err = ext_arg_deadline((const struct timespec_k *)ea.ts, deadline);
		if (err)
			return err;
	}
	return ea.sigmask ? signal_set_user_mask((const uint64_t *)ea.sigmask, ea.sigmask_sz) : 0;
}

/*
 * GETEVENTS on an IOPOLL ring (without SQPOLL), as Linux's
 * io_iopoll_check: no request here is ever polled for (a READ or WRITE
 * completes with EOPNOTSUPP, as on a file without polled I/O), so with
 * none on the polled list Linux runs the task's work and returns at once,
 * never sleeping; the signal mask is not used, EXT_ARG's argument only
 * checked.  0, -EINVAL, -EFAULT.
 */
static long iopoll_check(struct io_ring *ring, uint32_t flags, const void *argp, size_t argsz)
{
	struct io_uring_getevents_arg ea;

	if (flags & IORING_ENTER_EXT_ARG) {
		if (argsz != sizeof(ea))
			return -EINVAL;
		if (copy_from_user(&ea, argp, sizeof(ea)))
			return -EFAULT;
	}
	if (async_ready_pending())
		io_run_ready();
	io_cq_ready(ring); /* the overflow flushed */
	return 0;
}

SYSCALL_DEFINE6(io_uring_enter, unsigned int, fd, uint32_t, to_submit, uint32_t, min_complete,
		uint32_t, flags, const void *, argp, size_t, argsz)
{
	struct file *f;
	struct io_ring *ring;
	uint64_t deadline = POLL_FOREVER;
	long ret = 0, err;
	bool put;

	if (flags & ~ENTER_KNOWN)
		return -EINVAL;
	if (flags & IORING_ENTER_REGISTERED_RING) {
		/* Not referenced: no SQE changes the task's table. */
		if (!(f = io_ringfd_get(fd, &ret)))
			return ret;
		put = false;
	} else if (!(f = files_lookup_light(current()->files, (int)fd, &put))) {
		/* Not referenced when no other task shares the table (Linux's
		 * fdget): the fd, and so the ring, stay for the call. */
		return -EBADF;
	}
	if (f->ops != &io_uring_fops) {
		ret = -EOPNOTSUPP;
		goto out;
	}
	ring = f->priv;
	if (ring->sq) {
		/* Its thread submits: to_submit is the answer (Linux's) */
		if ((ret = io_sq_enter(ring, to_submit, flags)) < 0)
			goto out;
	} else if (to_submit) {
		/* Linux: a short submission (an SQE failed, fewer queued)
		 * returns at once, without GETEVENTS' wait */
		if ((ret = submit_sqes(ring, to_submit)) != (long)to_submit)
			goto out;
	}
	if (flags & IORING_ENTER_GETEVENTS) {
		if ((ring->flags & (IORING_SETUP_IOPOLL | IORING_SETUP_SQPOLL)) ==
		    IORING_SETUP_IOPOLL)
			err = iopoll_check(ring, flags, argp, argsz);
		else if (!(err = wait_args(flags, argp, argsz, &deadline)))
			err = cq_wait(ring, min_complete, deadline);
		if (!ret || ret < 0)
			ret = ret < 0 ? ret : err;
	}
out:
	if (put)
		file_put(f);
	return ret;
}
