/*
 * The asynchronous-call engine's inside, shared by its pieces: async.c
 * (an owner's engine: its queue, parked requests and end),
 * async_worker.c (its workers, tasks that borrow their owner's
 * resources) and async_fallback.c (the retries for owners that exited).
 * Only kernel/async/async*.c include it.  docs/async.md.
 */
#ifndef ASYNC_ASYNC_INT_H
#define ASYNC_ASYNC_INT_H

#include <stdbool.h>
#include "async/async.h"
#include "lib/list.h"
#include "lib/spinlock.h"
#include "sched/wait.h"

/*
 * One owner's engine.  Lifetime: refs counts the owner (from its first
 * punt or arming, task->async, until its async_task_exit, which first
 * waits until no worker is left), each request whose ctx names it (from
 * the binding until async_req_release at the request's free) and the
 * fallback while it has the engine queued; the last put frees it.  So
 * a request armed by a task that exits keeps its engine, without an
 * owner, for the fallback to retry it (async_task_exit).
 */
struct async_ctx {
	int refs; /* atomic */
	/* Protects queue, nqueued, idle, nworkers, workers[], dying, the
	 * parked lists, and each request's worker, cancelled and park.
	 * Taken before work_wq's lock and a thread group's siglock (a
	 * cancel's SIGKILL), after a parked request's file queue's (its
	 * wake-up); no user copy and no sleep under it. */
	struct spinlock lock;
	struct list_head queue; /* struct async_req, by link */
	int nqueued, idle, nworkers, max;
	/* Parked requests: armed (waiting for a wake-up), and woken ones
	 * the owner retries (nready of them, read unlocked as a hint). */
	struct list_head parked, ready;
	int nready;
	/* Retries its woken requests; NULL once it exited (async_task_exit):
	 * the fallback retries them then. */
	struct task *owner;
	bool fb_queued;		  /* on fb_list, referenced by it (lock) */
	struct list_head fb_link; /* on fb_list (fb_lock) */
	/* The live workers (nworkers of them, in the first slots): each
	 * entry stays valid until the worker takes itself off, under lock,
	 * just before it exits. */
	struct task *workers[ASYNC_MAX_WORKERS];
	bool dying;		   /* the owner is ending it: no new work */
	struct wait_queue work_wq; /* idle workers sleep here */
	struct wait_queue exit_wq; /* the owner waits here for the workers to go */
};

/* async.c: an engine's references, and a request's binding to one. */
void ctx_hold(struct async_ctx *ctx);
void ctx_put(struct async_ctx *ctx);
void req_bind(struct async_req *r, struct async_ctx *ctx);

/* async_worker.c */
bool worker_spawn(struct async_ctx *ctx, struct task *owner);
/* The workers' slots (lock held): async_punt reserves one (NULL) for the
 * worker it is to spawn, which fills it, or gives it back (w NULL) if
 * none could be made; a worker that exits gives its own back. */
void slot_reserve_locked(struct async_ctx *ctx);
void slot_put_locked(struct async_ctx *ctx, struct task *w);
void wait_workers_gone(struct async_ctx *ctx);

/* async_fallback.c */
void fallback_kick_locked(struct async_ctx *ctx);

#endif
