/*
 * io_uring's SQ thread (IORING_SETUP_SQPOLL): a kernel task per ring that
 * submits what user space puts in the SQ ring, with no io_uring_enter,
 * as the ring's creator would (a borrower of its memory, files table, fs
 * context and signal handlers, async_borrower_alloc, running with the
 * creator's credentials of the setup, as Linux's sq_creds), and goes to
 * sleep after sq_thread_idle ms without work, telling user space so with
 * IORING_SQ_NEED_WAKEUP; io_uring_enter's IORING_ENTER_SQ_WAKEUP wakes
 * it.  The requests it issues that must wait are its own, as any
 * submitter's: armed on their files (their wake-ups come to it, and its
 * loop retries them) or punted to its own engine's workers, which its
 * end cancels and waits for.  It ends when the ring's file is released,
 * and when its creator exits or execs (Linux's SQ thread is a thread of
 * the creator's process).  docs/async.md, "SQPOLL".
 */
#include "arch/x86_64/smp.h"
#include "arch/x86_64/timer.h"
#include "async/io_uring_int.h"
#include "fd/fdtable.h"
#include "fs/file.h"
#include "lib/printk.h"
#include "mm/heap.h"
#include "proc/cred.h"
#include "proc/exit.h"
#include "proc/group.h"
#include "proc/proc.h"
#include "proc/task.h"
#include "sched/sched.h"
#include <uapi/errno.h>

/*
 * A ring's SQ thread.  Lifetime: made at setup and freed with the ring
 * (io_sq_free); the thread holds a reference on the ring from its spawn
 * to its last step, so the ring and this outlive it.
 */
struct io_sq {
	/* The thread while it submits, NULL from when it has stopped
	 * (sq_lock): io_uring_enter then answers EOWNERDEAD, as Linux's. */
	struct task *thread;
	/* Its creator, whose exit or exec ends it: compared only (the
	 * creator waits for the thread's end before it goes). */
	struct task *owner;
	const struct cred *creds; /* the creator's at setup: referenced until io_sq_free */
	uint64_t idle_ns;
	bool stop;		 /* asked to stop: the ring's release, the owner's end (sq_lock) */
	struct wait_queue wait;	 /* it sleeps here when idle; SQ_WAKEUP and stop wake it */
	struct wait_queue space; /* IORING_ENTER_SQ_WAIT's waiters: it consumed SQEs */
	struct list_head link;	 /* on sq_threads from its spawn until its end (sq_lock) */
};

/* Every live SQ thread, by link; sq_lock also protects each one's thread
 * and stop.  sq_gone_wq: the ring releases and owner ends waiting for a
 * thread to stop or to end (woken at both). */
static struct spinlock sq_lock = SPINLOCK_INIT("io_sq");
static struct list_head sq_threads = LIST_HEAD_INIT(sq_threads);
static struct wait_queue sq_gone_wq = {SPINLOCK_INIT("io_sq_gone"),
				       LIST_HEAD_INIT(sq_gone_wq.sleepers)};
static unsigned long nsq; /* atomic: live SQ threads (a task's exit tests it first) */

static uint32_t sq_pending(struct io_ring *ring)
{
	return ring_load(ring, R_SQ_TAIL) - ring->sq_head;
}

static void sq_flag(struct io_ring *ring, bool need_wakeup)
{
	if (need_wakeup)
		__atomic_or_fetch(ring_word(ring, R_SQ_FLAGS), IORING_SQ_NEED_WAKEUP,
				  __ATOMIC_SEQ_CST);
	else
		__atomic_and_fetch(ring_word(ring, R_SQ_FLAGS), ~IORING_SQ_NEED_WAKEUP,
				   __ATOMIC_SEQ_CST);
}

static bool sq_stopping(struct io_sq *sq)
{
	return __atomic_load_n(&sq->stop, __ATOMIC_ACQUIRE);
}

/* One round: the woken requests retried, then what the SQ ring holds
 * submitted.  Whether there was work. */
static bool sq_round(struct io_ring *ring, struct io_sq *sq)
{
	bool busy = false;
	uint32_t n;

	if (async_ready_pending()) {
		io_run_ready();
		busy = true;
	}
	/* Its submit_lock is uncontended but for io_uring_register. */
	if ((n = sq_pending(ring)) && io_submit_sqes(ring, n) > 0) {
		wake_up(&sq->space);
		busy = true;
	}
	return busy;
}

/* Sleeps until woken (SQ_WAKEUP, a woken request, stop) unless work came
 * after NEED_WAKEUP was set: Linux's order, the flag before the last
 * look at the SQ tail, which user space writes before it reads the
 * flag (both with full barriers). */
static void sq_sleep(struct io_ring *ring, struct io_sq *sq)
{
	DEFINE_WAIT(we);

	prepare_to_wait(&sq->wait, &we);
	sq_flag(ring, true);
	if (!sq_pending(ring) && !sq_stopping(sq) && !async_ready_pending())
		schedule();
	sq_flag(ring, false);
	finish_wait(&sq->wait, &we);
}

/* The thread stops submitting: EOWNERDEAD from now, NEED_WAKEUP left set
 * (as Linux), and whoever waits for it to stop is told. */
static void sq_stopped(struct io_ring *ring, struct io_sq *sq)
{
	spin_lock(&sq_lock);
	__atomic_store_n(&sq->thread, NULL, __ATOMIC_RELEASE);
	sq_flag(ring, true);
	wake_up(&sq_gone_wq);
	spin_unlock(&sq_lock);
	wake_up(&sq->space);
}

static __attribute__((noreturn)) void sq_thread_main(void)
{
	struct task *self = current();
	struct io_ring *ring = self->kthread_arg; /* referenced until the end below */
	struct io_sq *sq = ring->sq;
	uint64_t idle_end = 0; /* Linux's: no work at its first look, it sleeps */

	self->cred_override = sq->creds; /* the ring's until its free */
	while (!sq_stopping(sq)) {
		if (sq_round(ring, sq)) {
			idle_end = clock_monotonic_ns() + sq->idle_ns;
		} else if (clock_monotonic_ns() < idle_end) {
			sched_yield(); /* polls the SQ tail, as Linux's, giving way */
		} else {
			sq_sleep(ring, sq);
			idle_end = clock_monotonic_ns() + sq->idle_ns;
		}
	}
	sq_stopped(ring, sq);
	/* Its engine ends as any submitter's at its exit (Linux's
	 * io_uring_cancel_generic), its workers gone; then what it borrowed
	 * goes (the files table's last reference may release the ring's
	 * file here: io_sq_stop then finds it stopped). */
	async_task_exit(self, ASYNC_EXIT_ALL);
	self->cred_override = NULL;
	task_release_resources(self);
	spin_lock(&sq_lock);
	list_del(&sq->link);
	__atomic_sub_fetch(&nsq, 1, __ATOMIC_RELAXED);
	wake_up(&sq_gone_wq);
	spin_unlock(&sq_lock);
	io_ring_put(ring);
	async_borrower_die();
}

/* IORING_SETUP_ATTACH_WQ's checks, Linux's: wq_fd must be a ring
 * (ENXIO for no file, EINVAL for another); an SQPOLL ring attaching
 * must name one with an SQ thread (EINVAL), which Linux then shares if
 * it is of the same process and replaces with a thread of the new ring's
 * own if not.  Here every SQPOLL ring has its own thread. */
static int sq_attach_check(const struct io_uring_params *p)
{
	struct file *f = files_lookup(current()->files, (int)p->wq_fd);
	struct io_ring *other;
	int err = 0;

	if (!f)
		return -ENXIO;
	if (!(other = io_ring_of(f)))
		err = -EINVAL;
	else if ((p->flags & IORING_SETUP_SQPOLL) && !other->sq)
		err = -EINVAL;
	file_put(f);
	return err;
}

/* IORING_SETUP_SQ_AFF's CPU: online and one the creator may run on. */
static int sq_cpu_check(uint32_t cpu)
{
	if (cpu >= 64 || cpu >= (uint32_t)smp_cpus_online ||
	    !(sched_affinity(current()) & (1ULL << cpu)))
		return -EINVAL;
	return 0;
}

int io_sq_setup_check(const struct io_uring_params *p)
{
	int err;

	if ((p->flags & IORING_SETUP_ATTACH_WQ) && (err = sq_attach_check(p)))
		return err;
	if (!(p->flags & IORING_SETUP_SQPOLL))
		return p->flags & IORING_SETUP_SQ_AFF ? -EINVAL : 0;
	/* Linux: the task-work notification flags mean nothing here */
	if (p->flags & IORING_SETUP_COOP_TASKRUN)
		return -EINVAL;
	return p->flags & IORING_SETUP_SQ_AFF ? sq_cpu_check(p->sq_thread_cpu) : 0;
}

int io_sq_start(struct io_ring *ring, const struct io_uring_params *p)
{
	struct task *owner = current(), *t;
	char name[TASK_NAME_MAX];
	struct io_sq *sq;

	if (!(sq = kzalloc(sizeof(*sq))))
		return -ENOMEM;
	sq->owner = owner;
	sq->creds = cred_get_current();
	/* Linux: 0 is a second */
	sq->idle_ns = (uint64_t)(p->sq_thread_idle ? p->sq_thread_idle : 1000) * 1000000;
	wait_queue_init(&sq->wait, "io_sq");
	wait_queue_init(&sq->space, "io_sq_space");
	list_init(&sq->link);
	ring->sq = sq; /* freed with the ring from here */
	snprintk(name, sizeof(name), "iou-sqp-%d", owner->group->tgid);
	if (!(t = async_borrower_alloc(name, owner)))
		return -ENOMEM;
	if (p->flags & IORING_SETUP_SQ_AFF)
		t->cpus_allowed = 1ULL << p->sq_thread_cpu;
	t->kthread_fn = sq_thread_main;
	t->kthread_arg = ring;
	io_ring_get(ring); /* the thread's, dropped at its end */
	sq->thread = t;
	spin_lock(&sq_lock);
	list_add_tail(&sq->link, &sq_threads);
	__atomic_add_fetch(&nsq, 1, __ATOMIC_RELAXED);
	spin_unlock(&sq_lock);
	sched_make_runnable(t);
	return 0;
}

/* Waits (uninterruptibly: it is a bounded wait) until done(arg). */
static void sq_wait_gone(bool (*done)(void *arg), void *arg)
{
	DEFINE_WAIT(we);
	bool ok;

	for (;;) {
		prepare_to_wait(&sq_gone_wq, &we);
		spin_lock(&sq_lock);
		ok = done(arg);
		spin_unlock(&sq_lock);
		if (ok)
			break;
		schedule();
	}
	finish_wait(&sq_gone_wq, &we);
}

static bool sq_has_stopped(void *arg)
{
	return !((struct io_sq *)arg)->thread;
}

/*
 * The ring's file is released: its thread stops submitting before the
 * ring's requests are cancelled and its tables go (it ends on its own
 * afterwards).  The thread itself (its end releasing the files table,
 * a request of its own dropping the file) only marks it.
 */
void io_sq_stop(struct io_ring *ring)
{
	struct io_sq *sq = ring->sq;
	bool wait;

	if (!sq)
		return;
	spin_lock(&sq_lock);
	__atomic_store_n(&sq->stop, true, __ATOMIC_RELEASE);
	wake_up(&sq->wait);
	wait = sq->thread && sq->thread != current();
	spin_unlock(&sq_lock);
	if (wait)
		sq_wait_gone(sq_has_stopped, sq);
}

static bool owner_has_none(void *arg)
{
	struct io_sq *sq;

	list_for_each_entry(sq, &sq_threads, link) if (sq->owner == arg) return false;
	return true;
}

void io_sq_task_exit(struct task *t)
{
	struct io_sq *sq;

	if (!__atomic_load_n(&nsq, __ATOMIC_RELAXED))
		return;
	spin_lock(&sq_lock);
	list_for_each_entry(sq, &sq_threads, link) if (sq->owner == t)
	{
		__atomic_store_n(&sq->stop, true, __ATOMIC_RELEASE);
		wake_up(&sq->wait);
	}
	spin_unlock(&sq_lock);
	sq_wait_gone(owner_has_none, t);
}

void io_sq_group_killed_locked(struct thread_group *g)
{
	struct io_sq *sq;

	if (!__atomic_load_n(&nsq, __ATOMIC_RELAXED))
		return;
	spin_lock(&sq_lock);
	/* A thread is alive while it is set: it clears it (sq_stopped)
	 * before its engine ends and it goes. */
	list_for_each_entry(sq, &sq_threads, link) if (sq->thread && sq->thread->group == g)
	{
		__atomic_store_n(&sq->stop, true, __ATOMIC_RELEASE);
		wake_up(&sq->wait);
		async_task_killed_locked(sq->thread);
	}
	spin_unlock(&sq_lock);
}

void io_sq_free(struct io_ring *ring)
{
	if (!ring->sq)
		return;
	cred_put(ring->sq->creds);
	kfree(ring->sq);
}

/* Waits until the SQ ring has room (interruptibly; no error either way),
 * as Linux's io_sqpoll_wait_sq. */
static void sq_wait_space(struct io_ring *ring, struct io_sq *sq)
{
	DEFINE_WAIT(we);

	for (;;) {
		prepare_to_wait(&sq->space, &we);
		if (ring_load(ring, R_SQ_TAIL) - ring_load(ring, R_SQ_HEAD) < ring->sq_entries ||
		    !__atomic_load_n(&sq->thread, __ATOMIC_ACQUIRE) || signal_pending())
			break;
		schedule();
	}
	finish_wait(&sq->space, &we);
}

long io_sq_enter(struct io_ring *ring, uint32_t to_submit, uint32_t flags)
{
	struct io_sq *sq = ring->sq;

	io_cq_ready(ring); /* a CQ overflow flushed first, as Linux */
	if (!__atomic_load_n(&sq->thread, __ATOMIC_ACQUIRE))
		return -EOWNERDEAD;
	if (flags & IORING_ENTER_SQ_WAKEUP)
		wake_up(&sq->wait);
	if (flags & IORING_ENTER_SQ_WAIT)
		sq_wait_space(ring, sq);
	return to_submit;
}
