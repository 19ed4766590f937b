/*
 * The engine's workers (async_int.h): kernel tasks that borrow their
 * owner's address space, files, fs context, namespaces and signal
 * handlers (async_borrower_alloc, which the SQ thread uses too), and
 * their loop: take a queued request, run it, complete it, until the
 * engine ends.  docs/async.md.
 */
#include "async/async_int.h"
#include "fd/fdtable.h"
#include "fs/root_cwd.h"
#include "lib/ktest.h"
#include "lib/printk.h"
#include "mm/uvm.h"
#include "proc/exit.h"
#include "proc/group.h"
#include "proc/nsproxy.h"
#include "proc/proc.h"
#include "proc/signal.h"
#include "proc/task.h"
#include "sched/sched.h"
#include "selftest.h"
#include <uapi/errno.h>

static unsigned long nworkers_live; /* atomic: the leak check's count */

unsigned long async_worker_count(void)
{
	return __atomic_load_n(&nworkers_live, __ATOMIC_RELAXED);
}

bool async_in_worker(void)
{
	return current()->async_serve != NULL;
}

struct task *async_borrower_alloc(const char *name, struct task *owner)
{
	struct task *w;

	if (!(w = task_alloc(name)))
		return NULL;
	task_swap_uvm(w, uvm_share(owner->uvm));
	w->files = files_share(owner->files);
	w->fs = fs_share(owner->fs);
	w->nsproxy = nsproxy_share(owner->nsproxy);
	if (!w->uvm || !w->files || !w->fs || signal_clone(w, owner, true)) {
		task_release_resources(w);
		task_free(w);
		return NULL;
	}
	/* Only SIGKILL reaches it: a cancel, or its owner's end. */
	w->sig.blocked = ~SIGBIT(SIGKILL);
	w->cpus_allowed = sched_affinity(owner);
	spin_lock(&proc_lock);
	w->group = owner->group; /* referenced until task_put (group_put_locked) */
	owner->group->refs++;
	spin_unlock(&proc_lock);
	return w;
}

void async_borrower_die(void)
{
	struct task *self = current();

	spin_lock(&proc_lock);
	/* As task_exit: once freed, no timer of the scheduler's refers to
	 * it.  A worker's nanosleep or poll that its SIGKILL ended disarmed
	 * its sleep timer without waiting for a callback the tick had taken,
	 * which then ran on the freed worker (a jump to the poison). */
	sched_exit(self);
	sched_set_state(self, TASK_DEAD);
	spin_unlock(&proc_lock);
	schedule();
	panic("kernel task %s (%d) ran again", self->name, self->pid);
}

/*
 * A slot given back takes the last one's entry, so the reserved slot is
 * not always the last: a worker exiting meanwhile (the engine dying
 * under a SIGKILL from another thread) moves it.  Filling the last slot
 * instead lost a live worker's entry and left the NULL, which
 * async_task_exit signalled (a fault at 0x380, 2026-12-07).  Only the
 * owner spawns: one NULL at most.
 */
void slot_reserve_locked(struct async_ctx *ctx)
{
	ctx->workers[ctx->nworkers++] = NULL;
}

/* w's slot, or the reserved one for NULL. */
static int slot_of_locked(struct async_ctx *ctx, struct task *w)
{
	int i = 0;

	while (i < ctx->nworkers && ctx->workers[i] != w)
		i++;
	kassert(i < ctx->nworkers);
	return i;
}

void slot_put_locked(struct async_ctx *ctx, struct task *w)
{
	int i = slot_of_locked(ctx, w); /* before the count drops */

	ctx->workers[i] = ctx->workers[--ctx->nworkers];
}

/* A new worker for ctx, borrowing owner's resources, running: false if
 * none could be made (TASK_MAX tasks, or no memory). */
bool worker_spawn(struct async_ctx *ctx, struct task *owner)
{
	char name[TASK_NAME_MAX];
	struct task *w;

	snprintk(name, sizeof(name), "iou-wrk-%d", owner->pid);
	if (!(w = async_borrower_alloc(name, owner)))
		return false;
	w->async_serve = ctx; /* ctx outlives it: the owner waits for it */
	spin_lock(&ctx->lock);
	ctx->workers[slot_of_locked(ctx, NULL)] = w;
	if (ctx->dying)
		signal_kill_thread(w); /* a SIGKILL came meanwhile: it has it too */
	spin_unlock(&ctx->lock);
	__atomic_add_fetch(&nworkers_live, 1, __ATOMIC_RELAXED);
	sched_make_runnable(w);
	return true;
}

void async_adopt(struct async_req *r)
{
	struct task *self = current();
	struct async_ctx *ctx = self->async_serve;

	spin_lock(&ctx->lock);
	req_bind(r, ctx);
	r->worker = self;
	r->cancelled = false;
	spin_unlock(&ctx->lock);
}

static long user_result(long res);

long async_unadopt(struct async_req *r, long res)
{
	struct async_ctx *ctx = r->ctx;

	spin_lock(&ctx->lock);
	r->worker = NULL;
	/* A cancel's SIGKILL is spent; an ending engine's stays, so that
	 * whatever runs next on this worker does not block. */
	if (!ctx->dying)
		signal_flush_thread(current());
	spin_unlock(&ctx->lock);
	return user_result(res);
}

/* The next request for worker self, NULL once its engine is dying with
 * nothing queued.  Sleeps while there is nothing to do. */
static struct async_req *worker_next(struct async_ctx *ctx, struct task *self)
{
	struct async_req *r = NULL;
	DEFINE_WAIT(we);

	for (;;) {
		prepare_to_wait(&ctx->work_wq, &we); /* before the test: no lost wake-up */
		spin_lock(&ctx->lock);
		if (!list_empty(&ctx->queue)) {
			r = list_first_entry(&ctx->queue, struct async_req, link);
			list_del(&r->link);
			ctx->nqueued--;
			r->worker = self;
		}
		if (r || ctx->dying) {
			spin_unlock(&ctx->lock);
			break;
		}
		ctx->idle++;
		spin_unlock(&ctx->lock);
		schedule();
		spin_lock(&ctx->lock);
		ctx->idle--;
		spin_unlock(&ctx->lock);
	}
	finish_wait(&ctx->work_wq, &we);
	return r;
}

/* A result as user space may see it: a call a signal cut short never
 * restarts here, it failed with EINTR (io_uring's rule too). */
static long user_result(long res)
{
	if (res == -ERESTARTSYS || res == -ERESTARTNOINTR || res == -ERESTARTNOHAND)
		return -EINTR;
	return res;
}

/* Runs r on worker self, then completes it. */
static void worker_run(struct task *self, struct async_req *r)
{
	(void)self;
	r->done(r, async_unadopt(r, r->run(r)));
}

/* The worker's end: its borrowed references go, its slot is cleared and
 * the owner told; the scheduler frees the task (free_dead). */
static __attribute__((noreturn)) void worker_exit(struct async_ctx *ctx, struct task *self)
{
	task_release_resources(self);
	__atomic_sub_fetch(&nworkers_live, 1, __ATOMIC_RELAXED);
	spin_lock(&ctx->lock);
	slot_put_locked(ctx, self);
	/* Under the lock: the owner frees ctx only after taking it. */
	wake_up(&ctx->exit_wq);
	spin_unlock(&ctx->lock);
	async_borrower_die();
}

void async_worker_main(void)
{
	struct task *self = current();
	struct async_ctx *ctx = self->async_serve;
	struct async_req *r;

	while ((r = worker_next(ctx, self)))
		worker_run(self, r);
	worker_exit(ctx, self);
}

/* Waits until ctx has no worker left (uninterruptible: they are being
 * killed and end quickly). */
void wait_workers_gone(struct async_ctx *ctx)
{
	DEFINE_WAIT(we);
	int n;

	for (;;) {
		prepare_to_wait(&ctx->exit_wq, &we);
		spin_lock(&ctx->lock);
		n = ctx->nworkers;
		spin_unlock(&ctx->lock);
		if (!n)
			break;
		schedule();
	}
	finish_wait(&ctx->exit_wq, &we);
}

/* A worker exits while the owner spawns another (its slot reserved):
 * every live worker keeps a slot, and the new one takes the reserved
 * slot wherever the exit moved it. */
void async_slots_selftest(void)
{
	static struct async_ctx ctx;
	static struct task a, b, w;
	bool kept;

	ctx.workers[0] = &a, ctx.workers[1] = &b;
	ctx.nworkers = 2;
	slot_reserve_locked(&ctx);
	slot_put_locked(&ctx, &a); /* the reserved slot moves to a's */
	ctx.workers[slot_of_locked(&ctx, NULL)] = &w;
	kept = ctx.nworkers == 2 && ((ctx.workers[0] == &b && ctx.workers[1] == &w) ||
				     (ctx.workers[0] == &w && ctx.workers[1] == &b));
	KTEST_OK(kept, "async: a worker's exit during a spawn leaves every live worker its slot");
}
