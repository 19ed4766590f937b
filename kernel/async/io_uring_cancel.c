/*
 * io_uring's cancels: finding a ring's waiting requests by user_data, by
 * descriptor or any (ASYNC_CANCEL's flags, Linux's io_cancel_data) and
 * cancelling them, for ASYNC_CANCEL, the remove ops and
 * IORING_REGISTER_SYNC_CANCEL, which waits for a running match to end.
 * A request is found while it is on its ring's in-flight list (it
 * waits: armed, queued or running on a worker; docs/async.md).
 */
#include "arch/x86_64/timer.h"
#include "arch/x86_64/uaccess.h"
#include "async/io_uring_rsrc.h"
#include "fd/fdtable.h"
#include "fs/file.h"
#include "proc/task.h"
#include "sched/ktimer.h"
#include "sched/sched.h"
#include <uapi/errno.h>

#define CANCEL_FLAGS                                                                               \
	(IORING_ASYNC_CANCEL_ALL | IORING_ASYNC_CANCEL_FD | IORING_ASYNC_CANCEL_ANY |              \
	 IORING_ASYNC_CANCEL_FD_FIXED)
#define CANCEL_MANY (IORING_ASYNC_CANCEL_ALL | IORING_ASYNC_CANCEL_ANY)

/* What a cancel matches. */
struct io_cancel_data {
	uint64_t data;	   /* the user_data, unless FD or ANY */
	uint32_t flags;	   /* IORING_ASYNC_CANCEL_* */
	int32_t fd;	   /* FD: the descriptor (FD_FIXED: a direct one) */
	struct file *file; /* FD: its file, referenced for the cancel (cancel_file_get) */
	int op;		   /* only requests of this opcode; -1: any */
	uint32_t seq;	   /* CANCEL_MANY: each request matched once (its cancel_seq) */
	bool ended;	   /* a match already cancelled still counts (sync: until it ends) */
};

/*
 * By descriptor, a request matches if the file it uses is cd's, as
 * Linux's: its direct descriptor's (taken at its issue), or the one it
 * is armed on.  One running on a worker on a plain fd has no file of
 * its own (its call looks the fd up): it matches by the fd's number
 * (FD without FD_FIXED), as does one not yet issued.  Only the pointers
 * are compared (cd holds a reference on its file).
 */
static bool cancel_fd_match(const struct io_req *r, const struct io_cancel_data *cd)
{
	const struct file *f = r->file ? r->file : __atomic_load_n(&r->poll.file, __ATOMIC_RELAXED);

	if (!io_ops[r->sqe.opcode].uses_fd)
		return false;
	if (f)
		return f == cd->file;
	return !r->fixed && !(cd->flags & IORING_ASYNC_CANCEL_FD_FIXED) && r->sqe.fd == cd->fd;
}

static bool cancel_match(const struct io_req *r, const struct io_cancel_data *cd)
{
	if (cd->op >= 0 && r->sqe.opcode != cd->op)
		return false;
	if (cd->flags & IORING_ASYNC_CANCEL_ANY)
		return true;
	if (cd->flags & IORING_ASYNC_CANCEL_FD)
		return cancel_fd_match(r, cd);
	return r->sqe.user_data == cd->data;
}

/* The first request of ring cd matches, other than self (lock held). */
static struct io_req *cancel_find_locked(struct io_ring *ring, struct io_cancel_data *cd,
					 struct io_req *self)
{
	struct io_req *r;

	list_for_each_entry(r, &ring->inflight, link)
	{
		if (r == self || (r->removed && !cd->ended) || !cancel_match(r, cd))
			continue;
		if (cd->flags & CANCEL_MANY) {
			if (r->cancel_seq == cd->seq)
				continue;
			r->cancel_seq = cd->seq;
		}
		return r;
	}
	return NULL;
}

struct io_req *io_find_locked(struct io_ring *ring, uint64_t key, int op, struct io_req *self)
{
	struct io_cancel_data cd = {.data = key, .op = op};

	return cancel_find_locked(ring, &cd, self);
}

/* Cancels the first request cd matches: 0 (it completes with
 * -ECANCELED), -EALREADY (it runs: interrupted; or, cd->ended, it was
 * cancelled and has not ended yet), -ENOENT. */
static long cancel_one(struct io_ring *ring, struct io_cancel_data *cd, struct io_req *self)
{
	struct io_req *t;
	long ret = -ENOENT;
	bool ends = cd->op >= 0;

	spin_lock_task(&ring->lock);
	if ((t = cancel_find_locked(ring, cd, self)) && t->ar.ctx && !t->removed) {
		t->removed = true;
		ends |= t->multishot;
		ret = async_cancel(&t->ar);
	} else if (t) {
		ret = -EALREADY; /* running inline in another submitter, or ending */
	}
	spin_unlock_task(&ring->lock);
	if (ret == 0)
		io_req_finish(t, -ECANCELED);
	/* A running poll, timeout or multishot request is as good as
	 * removed: it ends -ECANCELED once its wait is interrupted. */
	return ret == -EALREADY && ends && !cd->ended ? 0 : ret;
}

/* Cancels what cd matches: the first's answer, or with ALL or ANY how
 * many were found (the running ones, interrupted, too: Linux's). */
static long cancel_matching(struct io_ring *ring, struct io_cancel_data *cd, struct io_req *self)
{
	long n = 0;

	if (!(cd->flags & CANCEL_MANY))
		return cancel_one(ring, cd, self);
	spin_lock_task(&ring->lock);
	cd->seq = ++ring->cancel_seq;
	spin_unlock_task(&ring->lock);
	while (cancel_one(ring, cd, self) != -ENOENT)
		n++;
	return n;
}

long io_cancel_key(struct io_req *self, int op)
{
	struct io_cancel_data cd = {.data = self->sqe.addr, .op = op};

	return cancel_matching(self->ring, &cd, self);
}

/* A cancel's descriptor's file into cd->file, referenced (cancel_file_put
 * drops it): -EBADF if it names none (FD_FIXED: an empty slot), else 0. */
static int cancel_file_get(struct io_ring *ring, struct io_cancel_data *cd)
{
	if (!(cd->flags & IORING_ASYNC_CANCEL_FD))
		return 0;
	if (cd->flags & IORING_ASYNC_CANCEL_FD_FIXED)
		cd->file = io_fixed_get(ring, (uint32_t)cd->fd);
	else
		cd->file = files_lookup(current()->files, cd->fd);
	return cd->file ? 0 : -EBADF;
}

static void cancel_file_put(struct io_cancel_data *cd)
{
	if (cd->file)
		file_put(cd->file);
}

int io_prep_cancel(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;

	if (s->off || s->len || s->buf_index || s->file_index)
		return -EINVAL;
	if (s->cancel_flags & ~CANCEL_FLAGS)
		return -EINVAL;
	if ((s->cancel_flags & IORING_ASYNC_CANCEL_FD) &&
	    (s->cancel_flags & IORING_ASYNC_CANCEL_ANY))
		return -EINVAL;
	return 0;
}

/* ASYNC_CANCEL: 0, -EALREADY, -ENOENT for one; how many with ALL or
 * ANY; -EBADF for a descriptor that names no file. */
long io_run_cancel(struct io_req *req)
{
	struct io_cancel_data cd = {
	    .data = req->sqe.addr, .flags = req->sqe.cancel_flags, .fd = req->sqe.fd, .op = -1};
	long res = cancel_file_get(req->ring, &cd);

	if (!res)
		res = cancel_matching(req->ring, &cd, req);
	cancel_file_put(&cd);
	return res;
}

/* SYNC_CANCEL's timeout as an absolute deadline: both -1, none;
 * otherwise relative, unchecked (Linux's timespec64_to_ktime). */
static uint64_t sync_deadline(int64_t sec, int64_t nsec)
{
	int64_t ns;

	if (sec == -1 && nsec == -1)
		return POLL_FOREVER;
	if (sec < 0 || __builtin_mul_overflow(sec, NSEC_PER_SEC, &ns) ||
	    __builtin_add_overflow(ns, nsec, &ns))
		return sec < 0 ? clock_monotonic_ns() : POLL_FOREVER;
	return ns < 0 ? clock_monotonic_ns() : clock_monotonic_ns() + (uint64_t)ns;
}

/* Whether a request cd matches is still in flight (sync_wait's test,
 * no side effect: cd is never CANCEL_MANY there). */
static bool cancel_pending(struct io_ring *ring, struct io_cancel_data *cd)
{
	bool found;

	spin_lock_task(&ring->lock);
	found = cancel_find_locked(ring, cd, NULL) != NULL;
	spin_unlock_task(&ring->lock);
	return found;
}

/* A running match cancelled, until it ends (or another match, which is
 * cancelled too): woken by each CQE (its own included), submit_lock
 * dropped while asleep (its chain may need it), checked again at least
 * every 10 ms (an end that posts no CQE, with CQE_SKIP_SUCCESS, wakes no
 * one).  0, -ETIME, -EINTR. */
static long sync_wait(struct io_ring *ring, struct io_cancel_data *cd, uint64_t deadline)
{
	DEFINE_WAIT(we);
	long ret = -EALREADY;

	cd->ended = true;
	while (ret == -EALREADY) {
		uint64_t now = clock_monotonic_ns(), until = now + 10000000;

		prepare_to_wait(&ring->cq_wait, &we);
		if (!cancel_pending(ring, cd))
			ret = 0;
		else if (signal_pending())
			ret = -EINTR;
		else if (now >= deadline)
			ret = -ETIME;
		if (ret == -EALREADY) {
			sched_arm_deadline(until < deadline ? until : deadline);
			mutex_unlock(&ring->submit_lock);
			schedule();
			sched_disarm_deadline();
		}
		finish_wait(&ring->cq_wait, &we);
		if (ret == -EALREADY) {
			mutex_lock(&ring->submit_lock);
			ret = cancel_matching(ring, cd, NULL); /* awake: it may complete one */
		}
	}
	return ret == -ENOENT ? 0 : ret;
}

int io_sync_cancel(struct io_ring *ring, const struct io_uring_sync_cancel_reg *ureg)
{
	struct io_uring_sync_cancel_reg sc;
	struct io_cancel_data cd;
	long ret;

	if (copy_from_user(&sc, ureg, sizeof(sc)))
		return -EFAULT;
	if (sc.flags & ~CANCEL_FLAGS)
		return -EINVAL;
	if (sc.pad[0] || sc.pad[1] || sc.pad[2] || sc.pad[3])
		return -EINVAL;
	cd = (struct io_cancel_data){.data = sc.addr, .flags = sc.flags, .fd = sc.fd, .op = -1};
	if ((ret = cancel_file_get(ring, &cd)))
		return (int)ret;
	/* Found, or nothing to find: done; one running: wait for its end. */
	if ((ret = cancel_matching(ring, &cd, NULL)) == -EALREADY)
		ret = sync_wait(ring, &cd, sync_deadline(sc.timeout.tv_sec, sc.timeout.tv_nsec));
	cancel_file_put(&cd);
	return (int)ret;
}
