/*
 * The engine's fallback (async_int.h): the kernel thread iou-fallback,
 * which retries the woken requests of engines whose owner exited.
 * docs/async.md.
 */
#include "async/async_int.h"
#include "lib/printk.h"
#include "proc/kthread.h"
#include "proc/task.h"
#include "sched/sched.h"

/*
 * The fallback: a kernel thread that retries the woken requests of
 * engines whose owner exited (Linux's ctx->fallback_work).  It has no
 * user context: its retries complete what they would run with
 * -ECANCELED (async_in_fallback) and its punts are refused (async_gone).
 * fb_list holds the engines with requests ready for it (fb_lock,
 * innermost but fb_wq's).
 */
static struct task *fallback_task; /* set once at boot */
static struct spinlock fb_lock = SPINLOCK_INIT("async_fallback");
static struct list_head fb_list = LIST_HEAD_INIT(fb_list);
static struct wait_queue fb_wq = {SPINLOCK_INIT("async_fallback_wq"),
				  LIST_HEAD_INIT(fb_wq.sleepers)};

bool async_in_fallback(void)
{
	return current() == fallback_task;
}

/* ctx, whose owner exited, has requests ready (lock held): queued for
 * the fallback, which holds it meanwhile. */
void fallback_kick_locked(struct async_ctx *ctx)
{
	if (ctx->fb_queued)
		return;
	ctx->fb_queued = true;
	ctx_hold(ctx);
	spin_lock(&fb_lock);
	list_add_tail(&ctx->fb_link, &fb_list);
	spin_unlock(&fb_lock);
	wake_up(&fb_wq);
}

/* The fallback's loop: each engine queued for it, its ready requests
 * retried as if it were their owner (task->async), then let go. */
static __attribute__((noreturn)) void fallback_main(void)
{
	struct task *self = current();
	struct async_ctx *ctx;
	DEFINE_WAIT(we);

	self->async_gone = true; /* no engine, no worker: punts refused */
	for (;;) {
		prepare_to_wait(&fb_wq, &we); /* before the test: no lost wake-up */
		spin_lock(&fb_lock);
		ctx = list_empty(&fb_list) ? NULL
					   : list_first_entry(&fb_list, struct async_ctx, fb_link);
		if (ctx)
			list_del(&ctx->fb_link);
		spin_unlock(&fb_lock);
		if (!ctx) {
			schedule();
			continue;
		}
		finish_wait(&fb_wq, &we);
		spin_lock(&ctx->lock);
		ctx->fb_queued = false; /* a wake-up from now on queues it again */
		spin_unlock(&ctx->lock);
		self->async = ctx;
		async_run_ready();
		self->async = NULL;
		ctx_put(ctx);
	}
}

void async_fallback_start(void)
{
	if (!(fallback_task = kthread_start("iou-fallback", fallback_main)))
		panic("async: cannot start the fallback");
}
