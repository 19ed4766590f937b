/*
 * An io_uring request's life: where it lives (on the submitter's stack
 * while it may complete inline, a request of the ring's once it must
 * wait), its preparation's common checks, its issue inline (or a
 * non-blocking attempt: file_nonblock) or its wait (armed on its file,
 * or punted to the engine's workers), its completion with a CQE, and
 * its chain: linked requests (IO_LINK, IO_HARDLINK) follow one another
 * in the context that completed the previous one.  The common checks
 * are io_uring_req_prep.c's, the CQE and the chain's end
 * io_uring_complete.c's, the ops themselves io_uring_op.c's table.
 * docs/async.md, "Requests".
 */
#include "async/io_uring_rsrc.h"
#include "fd/fd_install.h"
#include "fd/fdtable.h"
#include "fs/file.h"
#include "fs/inode.h"
#include "lib/string.h"
#include "proc/cred.h"
#include "proc/task.h"
#include "sched/sched.h"
#include "sys/dispatch.h"
#include <uapi/errno.h>

static void req_wait_start(struct io_req *req);
static void req_done_async(struct async_req *ar, long res);

static const struct io_op *op_of(const struct io_req *req)
{
	return &io_ops[req->sqe.opcode];
}

static struct io_req *req_of(struct async_req *ar)
{
	return container_of(ar, struct io_req, ar);
}

/* A FIXED_FILE request's file, taken from its slot when it is issued
 * (a request linked after a direct OPENAT finds what the open made, as
 * on Linux): 0, or -EBADF for an empty slot or no table. */
static inline int req_fixed_file(struct io_req *req)
{
	if (!req->fixed || req->file)
		return 0;
	req->file = io_fixed_get(req->ring, req->fixed_index);
	return req->file ? 0 : -EBADF;
}

/* A READ or WRITE on an IOPOLL ring: its file's, EBADF for none (a
 * direct descriptor's was taken before), else EOPNOTSUPP, Linux's answer
 * for a file without polled I/O (no O_DIRECT file has it here). */
static __attribute__((noinline)) long op_iopoll_unsupported(struct io_req *req)
{
	struct file *f;

	if (!req->fixed) {
		if (!(f = files_lookup(current()->files, req->sqe.fd)))
			return -EBADF;
		file_put(f);
	}
	return -EOPNOTSUPP;
}

/* The op's call; without extra, for a request whose issue_extra is 0. */
static inline __attribute__((always_inline)) long op_call_how(struct io_req *req, bool extra)
{
	const struct io_op *op = op_of(req);

	if (extra && req->multishot)
		return IO_REARM; /* on a worker: its owner arms it (req_done_async) */
	if (extra && req->iopoll_rw)
		return op_iopoll_unsupported(req);
	if (op->run)
		return op->run(req);
	return syscall_call((uint64_t)req->nr, req->args);
}

static inline __attribute__((always_inline)) long op_call(struct io_req *req)
{
	return op_call_how(req, true);
}

/* op_run_with on direct descriptors: redirected (fd/fd_install.h), its
 * FD_LENT the request's file, the file it creates for a file_index put
 * in the ring's table rather than the process's. */
static __attribute__((noinline)) long op_run_redirected(struct io_req *req,
							long (*call)(struct io_req *))
{
	struct fd_redirect r = {.capture = req->file_slot != 0};
	long res;

	if ((res = req_fixed_file(req)))
		return res;
	r.lent = req->file;
	current()->fd_redirect = &r;
	res = call(req);
	current()->fd_redirect = NULL;
	if (r.made && res >= 0)
		return io_fixed_install(req->ring, req->file_slot, r.made);
	if (r.made)
		file_put(r.made);
	return res;
}

/* An op that uses the request's file itself (own_file) needs no
 * redirect, only its direct descriptor's file taken. */
static inline long op_run_files(struct io_req *req, long (*call)(struct io_req *))
{
	long res;

	if (req->file_slot || (req->fixed && !op_of(req)->own_file))
		return op_run_redirected(req, call);
	if ((res = req_fixed_file(req)))
		return res;
	return call(req);
}

/* A request with a personality runs with its creds: the task's
 * override while it runs (the request's reference keeps them). */
static __attribute__((noinline)) long op_run_as(struct io_req *req, long (*call)(struct io_req *))
{
	struct task *t = current();
	const struct cred *saved = t->cred_override;
	long res;

	t->cred_override = req->creds;
	res = op_run_files(req, call);
	t->cred_override = saved;
	return res;
}

/* Runs call (the op, or its inline attempt) for the request here. */
static inline long op_run_with(struct io_req *req, long (*call)(struct io_req *))
{
	if (req->creds)
		return op_run_as(req, call);
	return op_run_files(req, call);
}

/* Runs the request's op here (blocking allowed unless nowait is set). */
static inline __attribute__((always_inline)) long op_run(struct io_req *req)
{
	return op_run_with(req, op_call);
}

static bool req_armable(struct io_req *req);
/* req_run_async's answer for a request its submitter is to arm. */
#define IO_ARM (IO_PUNTED - 5)

/* On its worker: a deferred chain first waits for its turn; a request
 * its LINK_TIMEOUT cut short before it started does not start; one
 * Linux's io-wq would arm is tried without waiting (req_armable). */
static long req_run_async(struct async_req *ar)
{
	struct io_req *req = req_of(ar);
	long res = io_drain_wait(req);

	if (res)
		return res;
	if (req->punted)
		req_wait_start(req); /* its wait for the drain did not count */
	if (io_req_removed(req))
		return -ECANCELED;
	if (!req_armable(req))
		return op_run(req);
	if ((res = io_req_attempt(req)) != -EAGAIN)
		return res;
	req->handed = true;
	return IO_ARM;
}

/* How the file of an fd op may run inline: HOW_INLINE (never waits),
 * HOW_NOWAIT (an attempt with nowait, then armed on the file), HOW_PUNT
 * (waits no flag stops).  A file that can be tried without waiting
 * waits whatever its O_NONBLOCK, as Linux's (io_uring ignores the flag
 * on a file with REQ_F_SUPPORT_NOWAIT, and io_accept arms a poll; only
 * the SQE's own MSG_DONTWAIT or RWF_NOWAIT ends a
 * request with EAGAIN). */
static enum op_how file_kind(struct io_req *req)
{
	struct file *f = req->file ? req->file : files_lookup(current()->files, req->sqe.fd);
	enum op_how how = HOW_INLINE; /* a bad fd fails inline with EBADF */

	if (!f)
		return how;
	if (f->inode && (inode_is_reg(f->inode) || inode_is_dir(f->inode)))
		how = HOW_INLINE;
	else if (!f->ops->nowait && !f->ops->poll)
		how = HOW_INLINE; /* nothing to wait for (/dev/null, ...) */
	else if (!f->ops->nowait)
		how = HOW_PUNT;
	else
		how = HOW_NOWAIT;
	if (f != req->file)
		file_put(f);
	return how;
}

/* An IOSQE_ASYNC request that Linux's io-wq would arm on its file
 * (io_wq_submit_work: an op that polls, on a file that can be polled,
 * tried without waiting first): its worker tries it so, and if it would
 * wait, hands it to its submitter to arm (IO_ARM), once; a cancel then
 * ends it -ECANCELED, as Linux's, rather than interrupting a worker
 * blocked in it. */
static bool req_armable(struct io_req *req)
{
	const struct io_op *op = op_of(req);

	if (!(req->sqe.flags & IOSQE_ASYNC) || req->handed || op->how != HOW_NOWAIT || op->attempt)
		return false;
	return io_poll_events(req) && file_kind(req) == HOW_NOWAIT;
}

/* req is about to wait (punted, or run by a worker after another or
 * after its drain): a TIMEOUT's count starts with the CQEs posted from
 * now on, as Linux counts from its issue; its LINK_TIMEOUT is armed. */
static void req_wait_start(struct io_req *req)
{
	if (req->sqe.opcode == IORING_OP_TIMEOUT && req->sqe.off) {
		spin_lock_task(&req->ring->lock);
		req->target = req->ring->ncompleted + req->sqe.off;
		list_add_tail(&req->tlink, &req->ring->timeouts);
		spin_unlock_task(&req->ring->lock);
	}
	io_ltimeout_arm(req);
}

long io_req_attempt_with(struct io_req *req, long (*call)(struct io_req *))
{
	long res;

	task_sched(current())->nowait = true;
	res = op_run_with(req, call);
	task_sched(current())->nowait = false;
	return res;
}

long io_req_attempt(struct io_req *req)
{
	const struct io_op *op = op_of(req);

	return io_req_attempt_with(req, op->attempt ? op->attempt : op_call);
}

/* req_try's answers for a request that must wait (a range, below
 * IO_REARM): its attempt would (armed on its file, or punted), it goes
 * to a worker at once, it is multishot (armed on its file, IOSQE_ASYNC
 * or not), or it waits for a time (armed on its timer). */
#define IO_WAIT_POLL  (IO_PUNTED - 2)
#define IO_WAIT_PUNT  (IO_PUNTED - 3)
#define IO_WAIT_MULTI (IO_PUNTED - 4)
#define IO_WAIT_TIMER (IO_PUNTED - 6) /* IO_ARM is - 5 */

/* Runs req here if it finishes without waiting: its result, or an
 * IO_WAIT_ answer (nothing done that its wait must undo).  alone: an
 * SQE alone (io_submit_alone), never IOSQE_ASYNC.  A request with no
 * issue_extra and no creds runs its op's call alone. */
static inline __attribute__((always_inline)) long req_try(struct io_req *req, bool alone)
{
	const struct io_op *op = op_of(req);
	enum op_how how = op->how;
	long res;
	int err;

	if (req->issue_extra) {
		if ((err = req_fixed_file(req)))
			return err;
		if (req->multishot)
			return IO_WAIT_MULTI;
	}
	if (!alone && (req->sqe.flags & IOSQE_ASYNC))
		return IO_WAIT_PUNT;
	if (how == HOW_NOWAIT && !op->attempt)
		how = file_kind(req);
	if (how == HOW_INLINE)
		return req->issue_extra || req->creds ? op_run(req) : op_call_how(req, false);
	if (how == HOW_PUNT)
		return IO_WAIT_PUNT;
	if (how == HOW_TIMER)
		return IO_WAIT_TIMER;
	res = io_req_attempt(req);
	return res == -EAGAIN ? IO_WAIT_POLL : res;
}

static struct io_req *req_persist(struct io_req *sreq);
static bool req_start(struct io_req *req);

/* req leaves its submitter (it waits, or its chain waits for a drain):
 * it and the rest of its chain, which may run after it elsewhere (a
 * worker, a retry), take the submitter's creds now (one that runs here
 * runs with them anyway). */
static void chain_take_creds(struct io_req *req)
{
	for (; req; req = req->next)
		io_personality_submitter(req);
}

/*
 * *reqp must wait (why: req_try's answer): a request on the submitter's
 * stack is moved to one of the ring's first (*reqp is then that one),
 * counted in flight, armed on its file or punted.  IO_PUNTED once a
 * worker or its file has it, else its result.
 */
static long req_wait(struct io_req **reqp, long why)
{
	struct io_req *req = *reqp;
	long res;
	int err;

	if (req->on_stack) {
		if (!(req = req_persist(req)))
			return -ENOMEM; /* *reqp, still the stack's, completes with it */
		*reqp = req;
	}
	chain_take_creds(req);
	if (!req_start(req))
		return -ECANCELED;
	req_wait_start(req); /* before the punt: its worker may finish it at once */
	if (why == IO_WAIT_MULTI)
		return io_multi_arm(req);
	if (why == IO_WAIT_TIMER)
		return io_timeout_arm(req);
	if (why == IO_WAIT_POLL && (res = io_poll_arm(req)) != -EAGAIN)
		return res; /* armed on its file (IO_PUNTED), or done */
	/* Linked from ring->lock's lists, so that a cancel finds it only
	 * once it is queued: async_punt takes the engine's lock itself. */
	io_cq_flush(req->ring);
	if ((err = async_punt(&req->ar))) {
		spin_lock_task(&req->ring->lock);
		list_del(&req->tlink);
		spin_unlock_task(&req->ring->lock);
		return err;
	}
	return IO_PUNTED;
}

/* What any request holds until its free: its direct descriptor's file,
 * its personality's creds and what its preparation copied. */
static inline void req_put_refs(struct io_req *req)
{
	if (req->file)
		file_put(req->file);
	if (req->creds)
		cred_put(req->creds);
	if (req->kdata)
		req->kdata_free(req->kdata);
}

void io_req_free(struct io_req *req)
{
	struct io_ring *ring = req->ring;

	req_put_refs(req);
	if (req->poll.file)
		file_put(req->poll.file);
	if (req->ar.ctx) /* never punted or armed: no engine's reference */
		async_req_release(&req->ar);
	io_drain_put(req);
	io_req_cache_put(req);
	io_ring_put(ring);
}

/* What every request starts with (struct io_req): a few stores, inline
 * (word by word: a memset of the part is a rep stos with its alignment
 * fix-ups, twice as many instructions). */
static void req_init(struct io_req *req, struct io_ring *ring)
{
	uint64_t *w = (uint64_t *)req;

	_Static_assert(offsetof(struct io_req, ar) % 8 == 0, "req_init clears words");
#pragma GCC unroll 16
	for (size_t i = 0; i < offsetof(struct io_req, ar) / 8; i++)
		__atomic_store_n(&w[i], 0, __ATOMIC_RELAXED); /* not a memset */
	req->ring = ring;
}

/* What a request of the ring's adds (struct io_req): reset, and a
 * reference on the ring, counted live (the drains' count) until its
 * free. */
static void req_init_ring(struct io_req *req)
{
	memset(&req->ar, 0, offsetof(struct io_req, sqe) - offsetof(struct io_req, ar));
	list_init(&req->link);
	list_init(&req->tlink);
	list_init(&req->ar.link);
	req->ar.run = req_run_async;
	req->ar.done = req_done_async;
	list_init(&req->dlink);
	req->poll.file = NULL;
	req->poll.nhooks = 0;
	io_ring_get(req->ring);
	__atomic_add_fetch(&req->ring->nlive, 1, __ATOMIC_ACQ_REL);
}

/* A new request of ring (submit_lock held), its sqe still to be filled:
 * NULL on ENOMEM. */
static struct io_req *req_alloc(struct io_ring *ring)
{
	struct io_req *req = io_req_cache_get(ring);

	if (!req)
		return NULL;
	req_init(req, ring);
	req_init_ring(req);
	return req;
}

struct io_req *io_req_for_sqe(struct io_ring *ring, const struct io_uring_sqe *sqe)
{
	struct io_req *req = req_alloc(ring);

	if (req)
		req->sqe = *sqe;
	return req;
}

/*
 * A stack request that must wait, moved to one of its ring's: what its
 * preparation and attempt set (its file's reference comes along; a
 * stack request's op never has its timer or poll armed) and the ring's
 * part anew.  NULL on ENOMEM.
 */
static struct io_req *req_persist(struct io_req *sreq)
{
	struct io_req *req = io_req_cache_get(sreq->ring);

	if (!req)
		return NULL;
	memcpy(req, sreq, offsetof(struct io_req, ar));
	memcpy(&req->sqe, &sreq->sqe,
	       offsetof(struct io_req, timer) - offsetof(struct io_req, sqe));
	req->on_stack = false;
	req_init_ring(req);
	return req;
}

/* Counts req in flight, as it is about to wait (cancels find it),
 * unless the ring is dead: false then, and it completes with
 * -ECANCELED.  A request that ends inline has nothing to cancel: never
 * counted (as Linux's). */
static bool req_start(struct io_req *req)
{
	struct io_ring *ring = req->ring;
	bool live;

	spin_lock_task(&ring->lock);
	live = !ring->dead;
	if (live) {
		list_add_tail(&req->link, &ring->inflight);
	}
	spin_unlock_task(&ring->lock);
	return live;
}

/* Issues *reqp here: its result, or IO_PUNTED once its worker or
 * wake-up has it (*reqp is then the ring's request it became, if it
 * started on the stack).  alone: req_try's. */
static inline __attribute__((always_inline)) long req_issue(struct io_req **reqp, bool alone)
{
	long res;

	/* A released ring issues nothing more (the rest of a chain its
	 * cancels complete: its owner may be exiting, its files gone), nor
	 * does a task that exited or the fallback (no user context: the
	 * rest of a chain a woken request of an exited owner ends; a
	 * submitter, in io_uring_enter or the SQ thread's loop, is neither);
	 * a waiting request checks again under the lock (req_start). */
	if (__atomic_load_n(&(*reqp)->ring->dead, __ATOMIC_RELAXED) ||
	    (!alone && current()->async_gone))
		return -ECANCELED;
	if ((res = req_try(*reqp, alone)) <= IO_WAIT_POLL && res >= IO_WAIT_TIMER)
		res = req_wait(reqp, res);
	return res;
}

void io_submit_chain(struct io_req *req)
{
	long res;

	/* IO_PUNTED: its worker or wake-up completes it, and the chain. */
	while (req && (res = req_issue(&req, false)) != IO_PUNTED)
		req = req_complete(req, res);
}

/* Whether sqe, with no chain open, may start on the submitter's stack
 * (its stable copy: the user may change the ring's meanwhile). */
static inline bool sqe_on_stack(const struct io_ring *ring, const struct io_uring_sqe *sqe)
{
	if (sqe->flags & (IOSQE_IO_LINK | IOSQE_IO_HARDLINK | IOSQE_IO_DRAIN | IOSQE_ASYNC))
		return false;
	return !ring->drain_used &&
	       (sqe->opcode >= IORING_OP_LAST || io_ops[sqe->opcode].how != HOW_PUNT);
}

/*
 * The path of every SQE alone, in one function: reset, preparation,
 * issue and CQE into the submission's batch, with the helpers inline.
 * A request that must wait leaves it as one of the ring's (req_wait),
 * and that one completes as every other.
 */
int io_submit_alone(struct io_ring *ring, struct io_req *req)
{
	long res;
	int err;

	if (!sqe_on_stack(ring, &req->sqe))
		return 1;
	req_init(req, ring);
	req->on_stack = true;
	if ((err = io_req_prep(req))) {
		io_post_cqe(ring, req->sqe.user_data, err, 0, true); /* io_fail_chain's */
		req_put_refs(req);
		return err;
	}
	if ((res = req_issue(&req, true)) == IO_PUNTED)
		return 0;
	if (!req->on_stack) { /* it became the ring's, then failed to wait */
		io_submit_chain(req_complete(req, res));
		return 0;
	}
	/* Into its submitter's batch: io_post_cqe's tests hold (no DRAIN
	 * was used: sqe_on_stack) */
	req_post_to(req, res, req_failed(req, res), ring->batch);
	req_put_refs(req); /* never armed, counted, or a reference on the ring */
	return 0;
}

/*
 * A punted request's end, on its worker: the rest of its chain runs here
 * too, each request in turn (blocking allowed), adopted by the worker
 * before it counts as in flight, so that a cancel finds it interruptible.
 * Completed by its owner's exit instead (never ran), the rest of the
 * chain is cancelled.
 */
static void req_done_async(struct async_req *ar, long res)
{
	struct io_req *req = req_of(ar);

	for (;;) {
		bool here;

		/* A poll whose events changed: queued again, to wait anew (its
		 * drain, if any, is behind it); a multishot request: to its
		 * owner, which arms it on its file, as a request its worker
		 * found would wait (IO_ARM); a TIMEOUT: armed on its timer
		 * here. */
		if (res == IO_REARM || res == IO_ARM) {
			req->punted = false;
			if (req->sqe.opcode == IORING_OP_TIMEOUT)
				res = io_timeout_arm(req);
			else if (req->multishot)
				res = io_multi_handoff(req) ? -ECANCELED : IO_PUNTED;
			else if (res == IO_ARM)
				res = io_poll_handoff(req) ? -ECANCELED : IO_PUNTED;
			else /* -ECANCELED: the engine is ending */
				res = async_punt(&req->ar) ? -ECANCELED : IO_PUNTED;
			if (res == IO_PUNTED)
				return;
		}
		if (!(req = req_complete(req, res)))
			return;
		if ((here = async_in_worker())) {
			async_adopt(&req->ar);
			req_wait_start(req);
		}
		res = here && req_start(req) && !io_req_removed(req) ? op_run(req) : -ECANCELED;
		if (here)
			res = async_unadopt(&req->ar, res);
	}
}

/* A new chain from io_uring_enter: issued, or held behind a drain on a
 * worker of the submitter's own (its context is the submitter's). */
void io_queue_chain(struct io_req *head)
{
	int err;

	if (!io_drain_defer(head)) {
		io_submit_chain(head);
		return;
	}
	chain_take_creds(head);
	if (!req_start(head))
		err = -ECANCELED;
	else if (!(err = async_punt(&head->ar)))
		return;
	io_submit_chain(req_complete(head, err));
}
