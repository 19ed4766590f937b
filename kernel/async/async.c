/*
 * The asynchronous-call engine (async.h): per owner task, a queue of
 * requests and up to ASYNC_MAX_WORKERS kernel workers that take them.  A
 * worker is a task that never enters user mode: it borrows its owner's
 * address space, files table, fs context and signal handlers (one
 * reference to each, held for its whole life and dropped at its end) and
 * names the owner's thread group (a reference too, so getpid, the
 * credentials and the limits are the owner's), but it is not one of the
 * group's threads: no process-directed signal, exit_group or exec picks
 * it; its owner ends it (async_task_exit).  The workers' code is
 * async_worker.c's, the fallback's async_fallback.c's.  docs/async.md.
 */
#include "async/async_int.h"
#include "mm/heap.h"
#include "proc/group.h"
#include "proc/proc.h"
#include "proc/rlimit.h"
#include "proc/signal.h"
#include "proc/task.h"
#include "sched/sched.h"
#include <uapi/errno.h>
#include <uapi/resource.h>

static unsigned long nctx; /* atomic: the leak check's count */

void ctx_hold(struct async_ctx *ctx)
{
	__atomic_add_fetch(&ctx->refs, 1, __ATOMIC_RELAXED);
}

void ctx_put(struct async_ctx *ctx)
{
	if (__atomic_sub_fetch(&ctx->refs, 1, __ATOMIC_ACQ_REL))
		return;
	kfree(ctx);
	__atomic_sub_fetch(&nctx, 1, __ATOMIC_RELAXED);
}

/* r's engine is ctx from now on (ctx->lock held), referenced by r until
 * async_req_release.  A request keeps the engine of the task that
 * submitted it, so r->ctx never changes once set, but from NULL. */
void req_bind(struct async_req *r, struct async_ctx *ctx)
{
	struct async_ctx *old = r->ctx;

	if (old == ctx)
		return;
	ctx_hold(ctx);
	__atomic_store_n(&r->ctx, ctx, __ATOMIC_RELEASE); /* read by async_interrupt */
	if (old)
		ctx_put(old);
}

void async_req_release(struct async_req *r)
{
	if (r->ctx)
		ctx_put(r->ctx);
}

unsigned long async_ctx_count(void)
{
	return __atomic_load_n(&nctx, __ATOMIC_RELAXED);
}

/* Whether g dies (proc_lock held): SIGKILL was sent to it, or its exit
 * began (a fatal signal taken, exit_group); group_kill_others_locked
 * comes then, with async_task_killed_locked for each of its tasks. */
static bool group_dying_locked(const struct thread_group *g)
{
	return g->exiting || (__atomic_load_n(&g->shared.set, __ATOMIC_RELAXED) & SIGBIT(SIGKILL));
}

/* The current task's engine, made on first use: NULL on ENOMEM. */
static struct async_ctx *ctx_get(struct task *t)
{
	struct async_ctx *ctx = t->async;
	uint64_t nproc;

	if (ctx)
		return ctx;
	if (!(ctx = kzalloc(sizeof(*ctx))))
		return NULL;
	ctx->refs = 1; /* the owner's */
	spin_init(&ctx->lock, "async");
	list_init(&ctx->queue);
	list_init(&ctx->parked);
	list_init(&ctx->ready);
	ctx->owner = t;
	wait_queue_init(&ctx->work_wq, "async_work");
	wait_queue_init(&ctx->exit_wq, "async_exit");
	nproc = rlimit_soft(t->group, RLIMIT_NPROC);
	ctx->max = nproc < ASYNC_MAX_WORKERS ? (int)(nproc ? nproc : 1) : ASYNC_MAX_WORKERS;
	__atomic_add_fetch(&nctx, 1, __ATOMIC_RELAXED);
	/* Only the task itself sets and clears it; another reads it under
	 * proc_lock (async_task_killed_locked), which its setting and
	 * clearing take: an engine made after its process was killed starts
	 * dying, as one made before is made so by the kill. */
	spin_lock(&proc_lock);
	ctx->dying = t->group && group_dying_locked(t->group);
	__atomic_store_n(&t->async, ctx, __ATOMIC_RELEASE);
	spin_unlock(&proc_lock);
	return ctx;
}

/* Queues r on ctx unless it is dying (lock held): 0 or -ECANCELED. */
static int queue_locked(struct async_ctx *ctx, struct async_req *r)
{
	if (ctx->dying)
		return -ECANCELED;
	req_bind(r, ctx);
	r->worker = NULL;
	r->cancelled = false;
	r->park = PARK_NONE; /* a retried request its user could not arm */
	list_add_tail(&r->link, &ctx->queue);
	ctx->nqueued++;
	wake_up(&ctx->work_wq);
	return 0;
}

/*
 * A worker's punt (a request its run issued: the next of a chain a
 * cancel or a drain released) goes to the engine it serves, never to an
 * engine of its own, which no exit would end.  It spawns no worker: the
 * punting one takes it when its own request is done, if no other does
 * first (workers are spawned by the owner alone, so their slots never
 * race).
 */
static int worker_punt(struct async_ctx *ctx, struct async_req *r)
{
	int err;

	spin_lock(&ctx->lock);
	err = queue_locked(ctx, r);
	spin_unlock(&ctx->lock);
	return err;
}

int async_punt(struct async_req *r)
{
	struct task *t = current();
	struct async_ctx *ctx;
	bool spawn = false, refused = false;
	int err;

	if (t->async_serve)
		return worker_punt(t->async_serve, r);
	if (t->async_gone)
		return -ECANCELED; /* an exiting task's files closing: see task.h */
	if (!(ctx = ctx_get(t)))
		return -ENOMEM;
	spin_lock(&ctx->lock);
	if ((err = queue_locked(ctx, r))) {
		spin_unlock(&ctx->lock);
		return err;
	}
	/* A worker per queued request while under the bound, so that a
	 * request never waits behind one that waits for it. */
	if (ctx->nqueued > ctx->idle && ctx->nworkers < ctx->max) {
		slot_reserve_locked(ctx); /* worker_spawn fills it */
		spawn = true;
	}
	spin_unlock(&ctx->lock);
	if (spawn && !worker_spawn(ctx, t)) {
		spin_lock(&ctx->lock);
		slot_put_locked(ctx, NULL);
		/* No worker at all would ever take it: give it back. */
		if (!ctx->nworkers && !list_empty(&r->link) && !r->worker) {
			list_del(&r->link);
			ctx->nqueued--;
			refused = true;
		}
		spin_unlock(&ctx->lock);
	}
	return refused ? -EAGAIN : 0;
}

/* Takes r off the parked or ready list (lock held). */
static void unpark_locked(struct async_ctx *ctx, struct async_req *r)
{
	if (r->park == PARK_READY)
		ctx->nready--;
	list_del(&r->link);
	r->park = PARK_NONE;
}

int async_cancel(struct async_req *r)
{
	struct async_ctx *ctx = r->ctx;
	int ret = -ENOENT;

	spin_lock(&ctx->lock);
	if (r->park == PARK_ARMED || r->park == PARK_READY) {
		unpark_locked(ctx, r);
		ret = 1; /* disarmed below, once the lock is dropped */
	} else if (r->park != PARK_NONE) {
		r->cancelled = true; /* its owner's retry ends it */
		ret = -EALREADY;
	} else if (r->worker) {
		r->cancelled = true;
		signal_kill_thread(r->worker); /* its blocking call returns -EINTR */
		ret = -EALREADY;
	} else if (!list_empty(&r->link)) {
		list_del(&r->link);
		ctx->nqueued--;
		ret = 0;
	}
	spin_unlock(&ctx->lock);
	if (ret == 1) {
		r->disarm(r);
		ret = 0;
	}
	return ret;
}

/* ---- parked requests ---- */

static void wake_locked(struct async_ctx *ctx, struct async_req *r);

int async_arm_begin(struct async_req *r)
{
	struct task *t = current();
	struct async_ctx *ctx = t->async_serve ? t->async_serve : ctx_get(t);
	int err = 0;

	if (!ctx)
		return -ENOMEM;
	spin_lock(&ctx->lock);
	if (ctx->dying || r->cancelled) {
		err = -ECANCELED;
	} else {
		req_bind(r, ctx);
		r->park = PARK_ARMING;
		r->woken = false;
	}
	spin_unlock(&ctx->lock);
	return err;
}

/* Parks r armed (lock held), on the ready list at once if ready: 0, or
 * -ECANCELED if r was cancelled or the engine ends. */
static int park_locked(struct async_ctx *ctx, struct async_req *r, bool ready)
{
	if (r->cancelled || ctx->dying) {
		r->park = PARK_NONE;
		return -ECANCELED;
	}
	r->park = PARK_ARMED;
	list_add_tail(&r->link, &ctx->parked);
	if (ready)
		wake_locked(ctx, r);
	return 0;
}

int async_arm_keep(struct async_req *r)
{
	struct async_ctx *ctx = r->ctx;
	int ret;

	spin_lock(&ctx->lock);
	ret = park_locked(ctx, r, r->woken);
	spin_unlock(&ctx->lock);
	return ret;
}

int async_hand_owner(struct async_req *r)
{
	struct async_ctx *ctx = current()->async_serve;
	int ret;

	spin_lock(&ctx->lock);
	req_bind(r, ctx);
	r->woken = false;
	ret = park_locked(ctx, r, true);
	spin_unlock(&ctx->lock);
	return ret;
}

int async_arm_end(struct async_req *r, bool ready)
{
	struct async_ctx *ctx = r->ctx;
	int ret = 0;

	spin_lock(&ctx->lock);
	if (r->cancelled || ctx->dying) {
		r->park = PARK_NONE;
		ret = -ECANCELED;
	} else if (ready || r->woken) {
		r->park = PARK_RETRY;
		ret = 1;
	} else {
		park_locked(ctx, r, false);
	}
	spin_unlock(&ctx->lock);
	return ret;
}

/* An armed r goes to the ready list (lock held); one being armed or
 * retried is marked woken, which its arming reads at its end. */
static void wake_locked(struct async_ctx *ctx, struct async_req *r)
{
	if (r->park == PARK_ARMING || r->park == PARK_RETRY)
		r->woken = true;
	if (r->park != PARK_ARMED)
		return;
	list_del(&r->link);
	list_add_tail(&r->link, &ctx->ready);
	r->park = PARK_READY;
	ctx->nready++;
	/* Its way back to user mode runs it (return_to_user_work); a wait
	 * it sleeps in ends or runs it (proc/sched_hooks.c), as Linux's
	 * TWA_SIGNAL task work: woken, or its CPU kicked if it runs.  An
	 * owner that exited: the fallback. */
	if (!ctx->owner) {
		fallback_kick_locked(ctx);
		return;
	}
	task_work_set(ctx->owner, TASK_WORK_ASYNC);
	sched_wake_signal(ctx->owner);
}

void async_wake(struct async_req *r)
{
	struct async_ctx *ctx = r->ctx; /* alive while r is parked */

	spin_lock(&ctx->lock);
	wake_locked(ctx, r);
	spin_unlock(&ctx->lock);
}

bool async_ready_pending(void)
{
	struct async_ctx *ctx = current()->async;

	return ctx && __atomic_load_n(&ctx->nready, __ATOMIC_RELAXED);
}

/* The ready list is taken whole under one hold of the lock; each
 * request on the taken list is PARK_RETRY, touched by no one else (a
 * cancel marks it, a wake-up marks it woken) until its retry. */
void async_run_ready(void)
{
	struct async_ctx *ctx = current()->async;
	struct list_head taken = LIST_HEAD_INIT(taken);
	struct async_req *r;

	if (!ctx)
		return;
	for (;;) {
		spin_lock(&ctx->lock);
		list_for_each_entry(r, &ctx->ready, link)
		{
			r->park = PARK_RETRY; /* a cancel now ends its retry */
			r->woken = false;     /* a wake-up from now on is news */
		}
		list_splice_init(&ctx->ready, &taken);
		ctx->nready = 0;
		spin_unlock(&ctx->lock);
		if (list_empty(&taken))
			return;
		while (!list_empty(&taken)) {
			r = list_first_entry(&taken, struct async_req, link);
			list_del(&r->link);
			r->retry(r);
		}
	}
}

void async_interrupt(struct async_req *r)
{
	struct async_ctx *ctx = __atomic_load_n(&r->ctx, __ATOMIC_ACQUIRE);

	if (!ctx)
		return; /* not punted yet: its run sees the caller's flag */
	spin_lock(&ctx->lock);
	if (r->worker)
		signal_kill_thread(r->worker);
	wake_locked(ctx, r); /* parked: its owner's retry reads the flag */
	spin_unlock(&ctx->lock);
}

/* Whether the owner's end cancels r: every request at exec (and at the
 * SQ thread's end); at exit
 * only one on an io_uring file (Linux's REQ_F_INFLIGHT: a ring kept
 * busy by its own file would never be released), the others armed on
 * without their owner (the fallback retries them). */
static bool exit_cancels(const struct async_req *r, enum async_end how)
{
	return how != ASYNC_EXIT || r->exit_cancel;
}

/* Moves the parked (armed and ready) requests the end cancels to out,
 * ours to complete (lock held). */
static void take_cancelled_locked(struct async_ctx *ctx, struct list_head *out, enum async_end how)
{
	struct async_req *r, *n;

	list_for_each_entry_safe(r, n, &ctx->ready, link)
	{
		if (!exit_cancels(r, how))
			continue;
		list_del(&r->link);
		list_add_tail(&r->link, out);
		ctx->nready--;
	}
	list_for_each_entry_safe(r, n, &ctx->parked, link)
	{
		if (!exit_cancels(r, how))
			continue;
		list_del(&r->link);
		list_add_tail(&r->link, out);
	}
}

void async_task_killed_locked(struct task *t)
{
	/* Alive while proc_lock is held: its owner clears t->async under
	 * it before dropping its reference. */
	struct async_ctx *ctx = __atomic_load_n(&t->async, __ATOMIC_ACQUIRE);

	if (!ctx)
		return;
	spin_lock(&ctx->lock);
	ctx->dying = true; /* no new work: the owner's exit comes */
	for (int i = 0; i < ctx->nworkers; i++)
		if (ctx->workers[i]) /* NULL: being spawned, killed then */
			signal_kill_thread(ctx->workers[i]);
	wake_up(&ctx->work_wq);
	spin_unlock(&ctx->lock);
}

void async_group_killed_locked(struct thread_group *g)
{
	struct task *t;

	list_for_each_entry(t, &g->threads, group_link) async_task_killed_locked(t);
}

void async_task_exit(struct task *t, enum async_end how)
{
	struct async_ctx *ctx = t->async;
	struct list_head queued = LIST_HEAD_INIT(queued), parked = LIST_HEAD_INIT(parked);
	struct async_req *r, *n;

	t->async_gone = how != ASYNC_EXEC;
	if (!ctx)
		return;
	spin_lock(&ctx->lock);
	ctx->dying = true;
	list_splice_init(&ctx->queue, &queued);
	ctx->nqueued = 0;
	take_cancelled_locked(ctx, &parked, how);
	/* Ours to complete from here: a cancel from another thread (or the
	 * ring's last close) now only marks them (async_cancel's -EALREADY),
	 * never takes them off our lists to complete them a second time. */
	list_for_each_entry(r, &queued, link) r->park = PARK_RETRY;
	list_for_each_entry(r, &parked, link) r->park = PARK_RETRY;
	for (int i = 0; i < ctx->nworkers; i++)
		signal_kill_thread(ctx->workers[i]);
	wake_up(&ctx->work_wq);
	spin_unlock(&ctx->lock);
	list_for_each_entry_safe(r, n, &queued, link)
	{
		list_del(&r->link);
		r->done(r, -ECANCELED);
	}
	list_for_each_entry_safe(r, n, &parked, link)
	{
		list_del(&r->link);
		r->disarm(r);
		r->done(r, -ECANCELED);
	}
	wait_workers_gone(ctx);
	spin_lock(&proc_lock); /* async_task_killed_locked reads it so */
	t->async = NULL;
	spin_unlock(&proc_lock);
	/* What stays armed is the fallback's to retry from now on. */
	spin_lock(&ctx->lock);
	ctx->owner = NULL;
	ctx->dying = how != ASYNC_EXIT; /* nothing left armed otherwise */
	if (ctx->nready)
		fallback_kick_locked(ctx);
	spin_unlock(&ctx->lock);
	ctx_put(ctx);
}
