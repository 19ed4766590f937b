/*
 * The asynchronous-call engine: kernel workers that run an ordinary system
 * call (or a kernel function) on behalf of a task, with that task's
 * memory, files table, fs context, credentials and signal handlers.
 * io_uring (async/io_uring*.c) submits through it.  docs/async.md.
 *
 * Each submitting task owns at most one engine context (task->async),
 * made at its first punt or arming and given up at its exit or exec:
 * every queued request then completes with -ECANCELED, every running one
 * is interrupted (-EINTR), and the task waits for its workers to go, as
 * Linux's io-wq is per task and ends with it; armed requests are
 * cancelled at exec, and at exit only those on an io_uring file, the
 * others keeping the engine without an owner (async_task_exit).
 */
#ifndef ASYNC_ASYNC_H
#define ASYNC_ASYNC_H

#include <stdbool.h>
#include <stdint.h>
#include "lib/list.h"
#include "lib/spinlock.h"
#include "sched/wait.h"

struct thread_group;

struct task;
struct async_ctx;

/* Workers per owner task: at most this many, and never more than the
 * owner's RLIMIT_NPROC soft limit (io-wq's bound is RLIMIT_NPROC too). */
#define ASYNC_MAX_WORKERS 8

/* Where a parked request is (async_req.park, ctx->lock). */
enum async_park {
	PARK_NONE,   /* not parked: queued, on a worker, or its user's */
	PARK_ARMING, /* its user hooks it on wait queues (async_arm_begin) */
	PARK_ARMED,  /* on ctx->parked: waits for a wake-up, no worker */
	PARK_READY,  /* woken, on ctx->ready: the owner retries it */
	PARK_RETRY,  /* the owner retries it now, or its exit completes it */
};

/*
 * A request: run() is called once, by a worker (blocking allowed) or by
 * the submitter inline; its result goes to done(), which may free the
 * request.  Embedded in its user's own request (container_of).
 *
 * Or a parked request (io_uring's armed polls, docs/async.md): hooked on
 * a file's wait queues with no worker; the hook's wake-up (async_wake)
 * hands it to its owner, which calls retry() from io_uring_enter or on
 * its way back to user mode; disarm() takes its hooks off (no lock held:
 * it takes the queues' locks).
 */
struct async_req {
	long (*run)(struct async_req *r);
	void (*done)(struct async_req *r, long result);
	void (*retry)(struct async_req *r);
	void (*disarm)(struct async_req *r);
	/* On ctx->queue while queued, ctx->parked while armed, ctx->ready
	 * while ready (ctx->lock). */
	struct list_head link;
	/* The engine it was queued or parked on (its submitter's), set by
	 * async_punt or the arming, and never changed after: referenced by
	 * the request from then until async_req_release, so it is there for
	 * a wake-up or a cancel whatever the owner did meanwhile. */
	struct async_ctx *ctx;
	/* The worker running it, NULL while queued or done (ctx->lock): a
	 * cancel interrupts that worker's blocking call with SIGKILL. */
	struct task *worker;
	bool cancelled; /* asked to stop (ctx->lock) */
	uint8_t park;	/* enum async_park (ctx->lock) */
	bool woken;	/* a wake-up came while PARK_ARMING (ctx->lock) */
	/* Armed on an io_uring file: its owner's exit cancels it (Linux's
	 * REQ_F_INFLIGHT), where other armed requests outlive the owner
	 * (async_task_exit).  Set by its user before arming. */
	bool exit_cancel;
};

/* The request's end (its user frees it): its reference on its engine
 * (async_ctx, taken when the engine was bound to it) dropped. */
void async_req_release(struct async_req *r);

/*
 * Hands r to one of the current task's workers (made on demand, up to the
 * bound; beyond it r waits in the queue for a free one).  r->done runs on
 * that worker.  -ENOMEM or -EAGAIN if the task has no engine and none can
 * be made (r untouched), else 0.
 */
int async_punt(struct async_req *r);
/*
 * Cancels r, which was punted or parked and whose done has not run (the
 * caller holds what keeps r alive: its own lock, which done takes).
 * Returns 0 if r was still queued, armed or ready: it is taken off (and
 * disarmed) and done(r, -ECANCELED) is the caller's to call; -EALREADY
 * if it runs: its worker is interrupted (or its owner's retry ends it)
 * and done follows there.
 */
int async_cancel(struct async_req *r);
/*
 * Parking, on the current task's engine (a worker's: its owner's).
 * async_arm_begin before hooking r on queues: 0, or -ECANCELED (the
 * engine ends, or r was cancelled while its owner retried it).
 * async_arm_end after: 0, r is armed; 1, a wake-up came or ready is set,
 * r stays the caller's (its hooks on: disarm, then attempt again);
 * -ECANCELED, r was cancelled meanwhile and is the caller's to disarm
 * and complete.
 */
int async_arm_begin(struct async_req *r);
int async_arm_end(struct async_req *r, bool ready);
/* As async_arm_end(r, false), for a request that stays armed across its
 * wake-ups (io_uring's multishot ones): a wake-up that came while it was
 * hooked puts it on the ready list, for its owner to retry later, rather
 * than back in the caller's hands (no retry loop here).  0 or
 * -ECANCELED.  Its owner's retry of r (async_run_ready) counts as
 * async_arm_begin: a wake-up since the retry began is not lost. */
int async_arm_keep(struct async_req *r);
/* On a worker, for a request it ran and gave up (r unadopted, no hooks):
 * parked on the ready list of the engine it serves, for the owner to
 * retry (and arm) on its way back to user mode.  0 or -ECANCELED. */
int async_hand_owner(struct async_req *r);
/* From r's wake-up callback (any context, the queue's lock held): an
 * armed r goes to its owner's ready list, and the owner is woken (or
 * kicked) to retry it: its waits end or run it (proc/sched_hooks.c). */
void async_wake(struct async_req *r);
/* The current task's woken requests retried, in the order they woke. */
void async_run_ready(void);
/* Whether the current task has woken requests to retry (a hint). */
bool async_ready_pending(void);

/* Interrupts r's blocking call if a worker runs it now, or wakes it if
 * it is armed (as async_wake); nothing if it is queued or done (the
 * caller's flag tells its run what happened). */
void async_interrupt(struct async_req *r);
/*
 * On a worker, for a request it runs itself after another (io_uring's
 * links): adopt makes r cancellable as if it had been punted to this
 * worker; unadopt ends that after its run, and returns res as user space
 * may see it (a restart code becomes -EINTR).
 */
void async_adopt(struct async_req *r);
long async_unadopt(struct async_req *r, long res);
/* Whether the current task is one of the engine's workers. */
bool async_in_worker(void);
/*
 * The owner t is exiting or exec'ing, how says (t is current): every
 * request it punted completes or is interrupted and its workers are
 * gone on return (Linux's io-wq of the task ends with it); every request
 * it parked is disarmed and completes with -ECANCELED at exec, and at
 * exit only those armed on an io_uring file (exit_cancel), as Linux's
 * io_uring_cancel_generic: the others stay armed, their engine kept
 * without an owner, and the fallback retries them when they wake (the
 * SQ thread's end cancels them all).  After its exit's call, a punt of
 * t's is -ECANCELED.
 */
enum async_end {
	ASYNC_EXEC,	/* the task execs: every request ends */
	ASYNC_EXIT,	/* it exits: armed requests not on an io_uring file live on */
	ASYNC_EXIT_ALL, /* a kernel submitter ends (the SQ thread): every request
			 * ends, as Linux's io_uring_cancel_generic for sqd */
};
void async_task_exit(struct task *t, enum async_end how);
/*
 * g dies (SIGKILL sent to it, or its exit begun: group_kill_io_locked,
 * proc_lock held): the calls the engines of g's threads run are
 * interrupted and none starts any more, as Linux's io-wq workers,
 * threads of the process, take its SIGKILL and end.  A thread of g
 * waiting for what such a call holds (a pipe's lock under a SPLICE
 * waiting for its socket) then goes on to take its own SIGKILL, and its
 * exit ends the engine (test uring_kill).  An engine made from then on
 * starts dying.  async_task_killed_locked: the same for one task's
 * engine (an SQ thread's, io_sq_group_killed_locked).
 */
void async_group_killed_locked(struct thread_group *g);
void async_task_killed_locked(struct task *t);
/* Whether the current task is the fallback, which retries the woken
 * requests of owners that exited: no user context (no memory, no
 * files), so a request that would run completes with -ECANCELED there,
 * as Linux's task work run for a task that exited
 * (io_should_terminate_tw); one not ready is armed again. */
bool async_in_fallback(void);
/* Starts the fallback (proc/kthread.c, at boot). */
void async_fallback_start(void);
/*
 * A kernel task that borrows owner's address space, files table, fs
 * context, namespaces and signal handlers (a reference to each, dropped
 * by task_release_resources at its end) and names its thread group (a
 * reference, so the credentials, pid and limits are the owner's),
 * without being one of the group's threads; only SIGKILL is unblocked;
 * not yet runnable.  NULL if none could be made.  An engine worker is
 * one, and so is an io_uring SQ thread (async/io_uring_sqpoll.c).
 * async_borrower_die is its last step, once it has released what it
 * borrowed: the scheduler frees it.
 */
struct task *async_borrower_alloc(const char *name, struct task *owner);
__attribute__((noreturn)) void async_borrower_die(void);
/* A worker's first step (proc/sched_hooks.c): never returns. */
__attribute__((noreturn)) void async_worker_main(void);

/* Leak-check counters: live engines and their workers; SYSIND_ASYNC's
 * completion queues. */
unsigned long async_ctx_count(void);
unsigned long async_worker_count(void);
unsigned long sysind_queue_count(void);

/*
 * syscall_indirect(SYSIND_ASYNC | flags, sigmask, nr, uargs, queue)
 * (async/sysind_async.c): nr's arguments copied now, the call run on a
 * worker with the other flags in force (with SYSIND_SIGMASK, the
 * signals sigmask leaves unblocked interrupt it: async_signal_sent), its
 * (token, result) record sent to the sysind_queue fd queue.  The token
 * (> 0), or -EINVAL (a call that cannot run elsewhere, queue no queue),
 * -EBADF, -EFAULT, -EAGAIN (the queue is full, or no worker).  nr exists
 * (checked).
 */
long sysind_async_submit(unsigned long flags, uint64_t sigmask, int nr, const uint64_t *uargs,
			 int queue);

/*
 * sig was made pending for process g (t NULL) or for its thread t
 * (signal.c, after queueing it, siglock not held, proc_lock maybe): the
 * SYSIND_ASYNC calls with a mask that run now, submitted by t (or by any
 * thread of g) and whose mask leaves sig unblocked, are interrupted (the
 * caller sends only signals the process has a handler for) (their record: -EINTR), as the
 * synchronous call would be.
 */
void async_signal_sent(struct thread_group *g, struct task *t, int sig);

#endif
