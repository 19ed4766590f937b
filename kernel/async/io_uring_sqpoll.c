/*
 * io_uring's SQ thread (IORING_SETUP_SQPOLL): a kernel task that submits
 * what user space puts in the SQ rings it serves, with no io_uring_enter,
 * as their creator would (a borrower of the first ring's creator's
 * memory, files table, fs context and signal handlers,
 * async_borrower_alloc; each ring's SQEs submitted with the credentials
 * of its own setup, as Linux's sq_creds), and goes to sleep after
 * sq_thread_idle ms without work (the longest of its rings'), telling
 * user space so with IORING_SQ_NEED_WAKEUP; io_uring_enter's
 * IORING_ENTER_SQ_WAKEUP wakes it.  A ring set up with ATTACH_WQ naming
 * an SQPOLL ring of the same process shares that ring's thread, as
 * Linux's io_sq_data: the thread serves its rings in turn.  The requests
 * it issues that must wait are its own, as any submitter's: armed on
 * their files (their wake-ups come to it, and its loop retries them) or
 * punted to its own engine's workers, which its end cancels and waits
 * for.  It ends when the last ring it serves has its file released, and
 * when its process ends or execs (Linux's SQ thread is a thread of the
 * process, which outlives the thread that made it).  docs/async.md,
 * "SQPOLL".
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
 * An SQ thread and the rings it serves.  Lifetime: referenced by each
 * ring that points at it (until the ring's free, io_sq_free) and by the
 * thread (from its spawn to its last step); freed at the last.
 */
struct io_sq {
	int refs; /* atomic */
	/* The thread while it submits, NULL from when it has stopped
	 * (sq_lock): io_uring_enter then answers EOWNERDEAD, as Linux's. */
	struct task *thread;
	/* Its process, whose end or exec ends it: compared only (its last
	 * thread waits for the SQ thread's end before it goes). */
	struct thread_group *group;
	/* The first ring's creator's at setup, the thread's own (its
	 * retries run with them): referenced until the free. */
	const struct cred *creds;
	/* The rings it serves, by sq_link (sq_lock; only the thread takes
	 * one off, so the one it works on stays there meanwhile). */
	struct list_head rings;
	uint64_t idle_ns;	 /* the longest of its rings' sq_thread_idle (atomic) */
	bool stop;		 /* its process ends or execs, or no ring is left (sq_lock) */
	bool let_go;		 /* a ring's file was released: it lets the ring go (sq_lock) */
	struct wait_queue wait;	 /* it sleeps here when idle; SQ_WAKEUP and stop wake it */
	struct wait_queue space; /* IORING_ENTER_SQ_WAIT's waiters: it consumed SQEs */
	struct list_head link;	 /* on sq_threads from its spawn until its end (sq_lock) */
};

/* Every live SQ thread, by link; sq_lock also protects each one's thread,
 * stop, let_go and rings.  sq_gone_wq: the ring releases and process
 * ends waiting for a thread to let a ring go or to end (woken at both). */
static struct spinlock sq_lock = SPINLOCK_INIT("io_sq");
static struct list_head sq_threads = LIST_HEAD_INIT(sq_threads);
static struct wait_queue sq_gone_wq = {SPINLOCK_INIT("io_sq_gone"),
				       LIST_HEAD_INIT(sq_gone_wq.sleepers)};
static unsigned long nsq; /* atomic: live SQ threads (a process's end tests it first) */

static void sq_put(struct io_sq *sq)
{
	if (__atomic_sub_fetch(&sq->refs, 1, __ATOMIC_ACQ_REL))
		return;
	cred_put(sq->creds);
	kfree(sq);
}

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

/* The ring after ring (NULL: the first) that the thread serves, or NULL. */
static struct io_ring *sq_next(struct io_sq *sq, struct io_ring *ring)
{
	struct list_head *n;

	spin_lock(&sq_lock);
	n = ring ? ring->sq_link.next : sq->rings.next;
	spin_unlock(&sq_lock);
	return n == &sq->rings ? NULL : list_entry(n, struct io_ring, sq_link);
}

#define sq_for_each(ring, sq) for (ring = sq_next(sq, NULL); ring; ring = sq_next(sq, ring))

/* The longest sq_thread_idle of the rings on the list (sq_lock held). */
static void sq_idle_update_locked(struct io_sq *sq)
{
	struct io_ring *ring;
	uint64_t idle = 0;

	list_for_each_entry(ring, &sq->rings, sq_link)
	{
		if (ring->sq_idle_ns > idle)
			idle = ring->sq_idle_ns;
	}
	__atomic_store_n(&sq->idle_ns, idle, __ATOMIC_RELAXED);
}

/* The thread lets go of the rings whose file was released (all: every
 * one), between its rounds, dropping its references on them; with none
 * left it stops.  Whether it goes on. */
static bool sq_let_go(struct io_sq *sq, bool all)
{
	struct list_head gone = LIST_HEAD_INIT(gone);
	struct io_ring *ring, *n;
	bool more;

	spin_lock(&sq_lock);
	if (all || sq->let_go) {
		list_for_each_entry_safe(ring, n, &sq->rings, sq_link) if (all || ring->sq_detach)
		{
			list_del(&ring->sq_link);
			list_add_tail(&ring->sq_link, &gone);
			ring->sq_served = false;
		}
		sq->let_go = false;
		sq_idle_update_locked(sq);
		wake_up(&sq_gone_wq);
	}
	if (list_empty(&sq->rings))
		__atomic_store_n(&sq->stop, true, __ATOMIC_RELEASE); /* no attach serves it now */
	more = !sq_stopping(sq);
	spin_unlock(&sq_lock);
	list_for_each_entry_safe(ring, n, &gone, sq_link) io_ring_put(ring);
	return more;
}

/* One ring's SQEs submitted with its creds; whether there were any. */
static bool sq_submit(struct io_sq *sq, struct io_ring *ring)
{
	struct task *self = current();
	uint32_t n = sq_pending(ring);
	int done;

	if (!n || __atomic_load_n(&ring->sq_detach, __ATOMIC_ACQUIRE))
		return false;
	self->cred_override = ring->sq_creds; /* the ring's until its free */
	/* Its submit_lock is uncontended but for io_uring_register. */
	done = io_submit_sqes(ring, n);
	self->cred_override = sq->creds;
	if (done <= 0)
		return false;
	wake_up(&sq->space);
	return true;
}

/* One round: the woken requests retried, then what each SQ ring holds
 * submitted.  Whether there was work. */
static bool sq_round(struct io_sq *sq)
{
	struct io_ring *ring;
	bool busy = false;

	if (async_ready_pending()) {
		io_run_ready();
		busy = true;
	}
	sq_for_each(ring, sq) busy |= sq_submit(sq, ring);
	return busy;
}

static bool sq_any_pending(struct io_sq *sq)
{
	struct io_ring *ring;

	sq_for_each(ring, sq) if (sq_pending(ring)) return true;
	return false;
}

static void sq_flag_all(struct io_sq *sq, bool need_wakeup)
{
	struct io_ring *ring;

	sq_for_each(ring, sq) sq_flag(ring, need_wakeup);
}

/* Sleeps until woken (SQ_WAKEUP, a woken request, a ring to let go or
 * attached, stop) unless work came after NEED_WAKEUP was set: Linux's
 * order, the flag before the last look at the SQ tails, which user
 * space writes before it reads the flag (both with full barriers). */
static void sq_sleep(struct io_sq *sq)
{
	DEFINE_WAIT(we);

	prepare_to_wait(&sq->wait, &we);
	sq_flag_all(sq, true);
	if (!sq_any_pending(sq) && !sq_stopping(sq) && !async_ready_pending() &&
	    !__atomic_load_n(&sq->let_go, __ATOMIC_ACQUIRE))
		schedule();
	sq_flag_all(sq, false);
	finish_wait(&sq->wait, &we);
}

/* The thread stops submitting: EOWNERDEAD from now, NEED_WAKEUP left set
 * (as Linux), and whoever waits for it to stop is told. */
static void sq_stopped(struct io_sq *sq)
{
	struct io_ring *ring;

	spin_lock(&sq_lock);
	__atomic_store_n(&sq->thread, NULL, __ATOMIC_RELEASE);
	list_for_each_entry(ring, &sq->rings, sq_link) sq_flag(ring, true);
	wake_up(&sq_gone_wq);
	spin_unlock(&sq_lock);
	wake_up(&sq->space);
}

static __attribute__((noreturn)) void sq_thread_main(void)
{
	struct task *self = current();
	struct io_sq *sq = self->kthread_arg; /* referenced until the end below */
	uint64_t idle_end = 0;		      /* Linux's: no work at its first look, it sleeps */

	self->cred_override = sq->creds; /* the thread's until its free */
	while (sq_let_go(sq, false)) {
		if (sq_round(sq)) {
			idle_end =
			    clock_monotonic_ns() + __atomic_load_n(&sq->idle_ns, __ATOMIC_RELAXED);
		} else if (clock_monotonic_ns() < idle_end) {
			sched_yield(); /* polls the SQ tails, as Linux's, giving way */
		} else {
			sq_sleep(sq);
			idle_end =
			    clock_monotonic_ns() + __atomic_load_n(&sq->idle_ns, __ATOMIC_RELAXED);
		}
	}
	sq_stopped(sq);
	/* Its engine ends as any submitter's at its exit (Linux's
	 * io_uring_cancel_generic), its workers gone; then what it borrowed
	 * goes (the files table's last reference may release a ring's file
	 * here: io_sq_stop then finds it stopped), then the rings left. */
	async_task_exit(self, ASYNC_EXIT_ALL);
	self->cred_override = NULL;
	task_release_resources(self);
	sq_let_go(sq, true);
	spin_lock(&sq_lock);
	list_del(&sq->link);
	__atomic_sub_fetch(&nsq, 1, __ATOMIC_RELAXED);
	wake_up(&sq_gone_wq);
	spin_unlock(&sq_lock);
	sq_put(sq);
	async_borrower_die();
}

/* IORING_SETUP_ATTACH_WQ's checks, Linux's: wq_fd must be a ring
 * (ENXIO for no file, EINVAL for another); an SQPOLL ring attaching
 * must name one with an SQ thread (EINVAL), which it then shares if it
 * is of the same process and replaces with a thread of its own if not
 * (io_sq_start). */
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

/* Ring served by sq (sq_lock held): the thread's reference on it. */
static void sq_serve_locked(struct io_sq *sq, struct io_ring *ring)
{
	io_ring_get(ring);
	list_add_tail(&ring->sq_link, &sq->rings);
	ring->sq_served = true;
	if (ring->sq_idle_ns > sq->idle_ns)
		__atomic_store_n(&sq->idle_ns, ring->sq_idle_ns, __ATOMIC_RELAXED);
}

/* ATTACH_WQ: ring shares the thread of the ring at wq_fd if that ring
 * is of the caller's process (Linux's io_attach_sq_data; its EPERM for
 * another process makes a thread of the ring's own).  1 if it does, 0
 * if not, -ENXIO for a thread that is stopping (Linux's answer to an
 * attach to a dying SQ thread). */
static int sq_attach(struct io_ring *ring, const struct io_uring_params *p)
{
	struct file *f = files_lookup(current()->files, (int)p->wq_fd);
	struct io_ring *other = f ? io_ring_of(f) : NULL;
	struct io_sq *sq = other ? other->sq : NULL; /* lives while other's file is held */
	int ret = sq && sq->group == current()->group;

	if (ret) {
		__atomic_add_fetch(&sq->refs, 1, __ATOMIC_RELAXED);
		ring->sq = sq; /* the ring's reference, dropped at its free */
		spin_lock(&sq_lock);
		if (sq->thread && !sq->stop)
			sq_serve_locked(sq, ring);
		else
			ret = -ENXIO;
		spin_unlock(&sq_lock);
		wake_up(&sq->wait); /* asleep, it would not see the new ring's SQEs */
	}
	if (f)
		file_put(f);
	return ret;
}

int io_sq_start(struct io_ring *ring, const struct io_uring_params *p)
{
	struct task *owner = current(), *t;
	char name[TASK_NAME_MAX];
	struct io_sq *sq;
	int err;

	ring->sq_creds = cred_get_current(); /* freed with the ring from here */
	/* Linux: 0 is a second */
	ring->sq_idle_ns = (uint64_t)(p->sq_thread_idle ? p->sq_thread_idle : 1000) * 1000000;

	if ((p->flags & IORING_SETUP_ATTACH_WQ) && (err = sq_attach(ring, p)))
		return err < 0 ? err : 0;
	if (!(sq = kzalloc(sizeof(*sq))))
		return -ENOMEM;
	sq->refs = 1; /* the ring's */
	sq->group = owner->group;
	sq->creds = cred_get_current();
	wait_queue_init(&sq->wait, "io_sq");
	wait_queue_init(&sq->space, "io_sq_space");
	list_init(&sq->link);
	list_init(&sq->rings);
	ring->sq = sq; /* freed with the ring from here */
	snprintk(name, sizeof(name), "iou-sqp-%d", owner->group->tgid);
	if (!(t = async_borrower_alloc(name, owner)))
		return -ENOMEM;
	if (p->flags & IORING_SETUP_SQ_AFF)
		t->cpus_allowed = 1ULL << p->sq_thread_cpu;
	t->kthread_fn = sq_thread_main;
	t->kthread_arg = sq;
	sq->refs++; /* the thread's, dropped at its end */
	sq->thread = t;
	spin_lock(&sq_lock);
	sq_serve_locked(sq, ring);
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

static bool sq_ring_let_go(void *arg)
{
	struct io_ring *ring = arg;

	return !ring->sq_served || !ring->sq->thread;
}

/*
 * The ring's file is released: its thread stops submitting for it before
 * the ring's requests are cancelled and its tables go (the thread lets it
 * go between two rounds, and ends if it was its last ring).  The thread
 * itself (its end releasing the files table, a request of its own
 * dropping the file) only marks it.
 */
void io_sq_stop(struct io_ring *ring)
{
	struct io_sq *sq = ring->sq;
	bool wait;

	if (!sq)
		return;
	spin_lock(&sq_lock);
	__atomic_store_n(&ring->sq_detach, true, __ATOMIC_RELEASE);
	__atomic_store_n(&sq->let_go, true, __ATOMIC_RELEASE);
	wake_up(&sq->wait);
	wait = ring->sq_served && sq->thread && sq->thread != current();
	spin_unlock(&sq_lock);
	if (wait)
		sq_wait_gone(sq_ring_let_go, ring);
}

static bool group_has_none(void *arg)
{
	struct io_sq *sq;

	list_for_each_entry(sq, &sq_threads, link) if (sq->group == arg) return false;
	return true;
}

void io_sq_group_exit(struct thread_group *g)
{
	struct io_sq *sq;

	if (!__atomic_load_n(&nsq, __ATOMIC_RELAXED))
		return;
	spin_lock(&sq_lock);
	list_for_each_entry(sq, &sq_threads, link) if (sq->group == g)
	{
		__atomic_store_n(&sq->stop, true, __ATOMIC_RELEASE);
		wake_up(&sq->wait);
	}
	spin_unlock(&sq_lock);
	sq_wait_gone(group_has_none, g);
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
	if (ring->sq_creds)
		cred_put(ring->sq_creds);
	if (ring->sq)
		sq_put(ring->sq);
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
