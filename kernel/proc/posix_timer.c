/*
 * POSIX timers (see posix_timer.h): the system calls and the wall-clock
 * expiry.  Lock order: proc_lock, then the group's siglock; the ktimer
 * callback takes both, so the calls take siglock alone and wait for a
 * running callback (ktimer_cancel_sync) holding neither.
 */
#include "proc/posix_timer.h"
#include "arch/x86_64/timer.h"
#include "arch/x86_64/uaccess.h"
#include "lib/spinlock.h"
#include "mm/heap.h"
#include "proc/cpu_timer.h"
#include "proc/cpuclock.h"
#include "proc/group.h"
#include "proc/proc.h"
#include "proc/rlimit.h"
#include "proc/task.h"
#include "sys/syscall.h"
#include "proc/pid_ns.h"
#include <uapi/errno.h>

#define TIMER_ABSTIME 1
#define TIMER_ID_MAX  INT32_MAX

/* struct sigevent as x86_64 lays it out (64 bytes). */
struct sigevent_k {
	uint64_t value;
	int32_t signo, notify;
	int32_t tid; /* SIGEV_THREAD_ID */
	uint8_t pad[44];
};

struct itimerspec_k {
	struct timespec_k interval, value;
};

static unsigned long ntimers; /* allocated, every process (atomic) */

unsigned long posix_timer_count(void)
{
	return __atomic_load_n(&ntimers, __ATOMIC_RELAXED);
}

/* The first expiry after now on pt's period, and how many periods were
 * missed on the way (hrtimer_forward). */
static uint64_t forward(const struct posix_timer *pt, uint64_t now, int *missed)
{
	uint64_t late = now - pt->expires, n = late / pt->interval;

	*missed = n > INT32_MAX ? INT32_MAX : (int)n;
	return pt->expires + (n + 1) * pt->interval;
}

bool posix_timer_expire_locked(struct posix_timer *pt, uint64_t now)
{
	int missed = 0;

	if (!pt->interval)
		pt->expires = 0;
	else
		pt->expires = forward(pt, now, &missed);
	missed = pt->early > (uint64_t)(INT32_MAX - missed) ? INT32_MAX : missed + (int)pt->early;
	pt->early = 0;
	if (pt->cpu && !pt->expires)
		cpu_timer_armed_locked(pt, false);
	else if (!pt->cpu && pt->expires)
		ktimer_arm(&pt->ktimer, pt->expires);
	return signal_timer_queue_locked(pt->group, pt->target, &pt->q, missed);
}

void posix_timer_notify_locked(struct posix_timer *pt)
{
	signal_timer_notify_locked(pt->group, pt->target, pt->q.sig);
}

/* A wall-clock timer's ktimer, from the tick (the lifetime rule at
 * struct posix_timer). */
static void timer_fired(struct ktimer *k)
{
	struct posix_timer *pt = container_of(k, struct posix_timer, ktimer);
	struct thread_group *g = pt->group;
	bool notify = false;

	spin_lock(&proc_lock);
	spin_lock(&g->siglock);
	if (!pt->deleted && pt->expires)
		notify = posix_timer_expire_locked(pt, clock_monotonic_ns());
	spin_unlock(&g->siglock);
	if (notify)
		posix_timer_notify_locked(pt);
	spin_unlock(&proc_lock);
}

void posix_timer_dequeued_locked(struct sigqueue *q, struct sig_info *info)
{
	struct posix_timer *pt = container_of(q, struct posix_timer, q);

	pt->overrun_last = info->timer.overrun;
	q->info.timer.overrun = 0;
}

/* ---- Clocks ---- */

/* pt's clock now: monotonic ns for a wall clock, the CPU clock's ns. */
static uint64_t clock_now_locked(const struct posix_timer *pt)
{
	return pt->cpu ? cpu_timer_clock_locked(pt) : clock_monotonic_ns();
}

/* ---- Creation ---- */

/* The thread of the caller's process with id tid (> 0), referenced, or
 * NULL. */
static struct task *own_thread(int tid)
{
	struct task *t = tid > 0 ? task_find_vnr(tid) : NULL;

	if (t && (t->group != current()->group || task_exited(t))) {
		task_put(t);
		t = NULL;
	}
	return t;
}

/* Linux's good_sigevent: the notification and signal, and for
 * SIGEV_THREAD_ID a thread of the caller's process.  0 or -EINVAL. */
static int check_event(struct posix_timer *pt, const struct sigevent_k *ev)
{
	pt->notify = ev->notify == SIGEV_THREAD ? SIGEV_SIGNAL : ev->notify;
	if (pt->notify != SIGEV_NONE && pt->notify != SIGEV_SIGNAL && pt->notify != SIGEV_THREAD_ID)
		return -EINVAL;
	if (pt->notify != SIGEV_NONE && (ev->signo <= 0 || ev->signo > UAPI_NSIG))
		return -EINVAL;
	if (pt->notify == SIGEV_THREAD_ID && !(pt->target = own_thread(ev->tid)))
		return -EINVAL;
	pt->q.sig = pt->notify == SIGEV_NONE ? SIGALRM : ev->signo;
	pt->q.info.code = SI_TIMER;
	pt->q.info.timer.value = ev->value;
	return 0;
}

/* The clock: a wall clock, or a CPU clock of the caller's process or one
 * of its threads (another process's CPU clock: EINVAL here, which Linux
 * allows).  0 or -errno. */
static int check_clock(struct posix_timer *pt, int clk)
{
	int64_t off;
	uint64_t ns;

	if (!cpuclock_id(clk))
		return clock_wall_offset(clk, &off);
	if (cpuclock_read(clk, &ns))
		return -EINVAL;
	pt->cpu = true;
	pt->clock = cpuclock_normalise(clk);
	if (CPUCLOCK_PERTHREAD(pt->clock)) {
		int tid = CPUCLOCK_PID(pt->clock);
		pt->clock_thread = own_thread(tid ? tid : task_nr(current()));
		if (!pt->clock_thread)
			return -EINVAL;
	} else if (CPUCLOCK_PID(pt->clock) &&
		   CPUCLOCK_PID(pt->clock) != pid_vnr(current()->group->tgid)) {
		return -EINVAL;
	}
	return 0;
}

/* The first id from the group's cursor not in use (siglock held). */
static int next_id_locked(struct thread_group *g)
{
	struct posix_timer *o;

	for (;;) {
		int id = g->timer_next_id;
		bool used = false;
		g->timer_next_id = id == TIMER_ID_MAX ? 0 : id + 1;
		list_for_each_entry(o, &g->timers, link) used |= o->id == id;
		if (!used)
			return id;
	}
}

static void timer_free(struct posix_timer *pt)
{
	task_put(pt->target);
	task_put(pt->clock_thread);
	sigqueue_uncharge();
	__atomic_sub_fetch(&ntimers, 1, __ATOMIC_RELAXED);
	kfree(pt);
}

/* A new disarmed timer for clk and ev, counted against RLIMIT_SIGPENDING
 * (EAGAIN past it, as Linux's preallocated signal). */
static long timer_new(int clk, const struct sigevent_k *ev, struct posix_timer **out)
{
	struct thread_group *g = current()->group;
	struct posix_timer *pt;
	long err;

	if (sigqueue_charge(rlimit_soft(g, RLIMIT_SIGPENDING)))
		return -EAGAIN;
	if (!(pt = kzalloc(sizeof(*pt)))) {
		sigqueue_uncharge();
		return -EAGAIN;
	}
	__atomic_add_fetch(&ntimers, 1, __ATOMIC_RELAXED);
	pt->group = g;
	pt->clock = clk;
	pt->q.flags = SIGQ_TIMER;
	ktimer_init(&pt->ktimer, timer_fired);
	if ((err = check_clock(pt, clk)) || (err = check_event(pt, ev))) {
		timer_free(pt);
		return err;
	}
	*out = pt;
	return 0;
}

/* ---- Lookup and deletion ---- */

/* The caller's timer id (siglock held), or NULL. */
static struct posix_timer *find_locked(struct thread_group *g, int id)
{
	struct posix_timer *pt;

	list_for_each_entry(pt, &g->timers, link) if (pt->id == id && !pt->deleted) return pt;
	return NULL;
}

/* Disarms pt (siglock held): no expiry, off the tick's CPU list; a
 * running ktimer callback finds it disarmed. */
static void disarm_locked(struct posix_timer *pt)
{
	if (pt->cpu && pt->expires && pt->notify != SIGEV_NONE)
		cpu_timer_armed_locked(pt, false);
	pt->expires = 0;
	if (!pt->cpu)
		ktimer_cancel(&pt->ktimer);
}

/* Marks pt as the caller's to delete (siglock held): false if another
 * caller has it already. */
static bool claim_locked(struct posix_timer *pt)
{
	bool mine = !pt->deleted;

	pt->deleted = true;
	return mine;
}

/* Unlists pt, which the caller claimed, takes its signal back and frees
 * it once its callback cannot be running (the lifetime rule at struct
 * posix_timer). */
static void timer_delete(struct posix_timer *pt)
{
	struct thread_group *g = pt->group;

	spin_lock(&g->siglock);
	disarm_locked(pt);
	sigqueue_unqueue_locked(&pt->q);
	list_del(&pt->link);
	spin_unlock(&g->siglock);
	if (!pt->cpu)
		ktimer_cancel_sync(&pt->ktimer);
	timer_free(pt);
}

SYSCALL_DEFINE1(timer_delete, int, id)
{
	struct thread_group *g = current()->group;
	struct posix_timer *pt;

	spin_lock(&g->siglock);
	if ((pt = find_locked(g, id)))
		claim_locked(pt); /* found, so not deleted: ours */
	spin_unlock(&g->siglock);
	if (!pt)
		return -EINVAL;
	timer_delete(pt);
	return 0;
}

void posix_timers_exit(struct thread_group *g)
{
	struct posix_timer *pt, *o;

	for (;;) {
		spin_lock(&g->siglock);
		pt = NULL;
		list_for_each_entry(o, &g->timers, link) if (!pt && claim_locked(o)) pt = o;
		spin_unlock(&g->siglock);
		if (!pt)
			return;
		timer_delete(pt);
	}
}

/* ---- Setting and reading ---- */

static struct timespec_k ns_to_ts(uint64_t ns)
{
	return (struct timespec_k){(int64_t)(ns / NSEC_PER_SEC), (int64_t)(ns % NSEC_PER_SEC)};
}

/* Time left and interval (siglock held).  An expired interval timer that
 * has not fired yet (SIGEV_NONE, or the tick is late) shows its next
 * period; a one-shot one due but not fired 1 ns, as Linux. */
static struct itimerspec_k read_locked(const struct posix_timer *pt, uint64_t now)
{
	struct itimerspec_k cur = {ns_to_ts(pt->interval), {0, 0}};
	int missed;

	if (!pt->expires)
		return cur;
	if (pt->expires > now)
		cur.value = ns_to_ts(pt->expires - now);
	else if (pt->interval)
		cur.value = ns_to_ts(forward(pt, now, &missed) - now);
	else if (pt->notify != SIGEV_NONE)
		cur.value = ns_to_ts(1);
	return cur;
}

/* The monotonic expiry of a wall-clock time mono (monotonic ns, maybe <= 0:
 * before boot).  A period ago is still that long ago, as in Linux, whose
 * clocks count from before boot: an interval timer's whole periods up to
 * the first after 0 go to pt->early, its first expiry's overruns. */
static uint64_t wall_expiry(struct posix_timer *pt, int64_t mono)
{
	uint64_t n;

	if (mono > 0)
		return (uint64_t)mono;
	if (!pt->interval)
		return 1;
	n = (uint64_t)(-mono) / pt->interval + 1;
	pt->early = n;
	return (uint64_t)mono + n * pt->interval;
}

/* Arms pt for value ns (absolute on its clock with TIMER_ABSTIME), then
 * every interval ns; value 0 disarms it (siglock held).  An absolute time
 * already past fires at the next tick. */
static void arm_locked(struct posix_timer *pt, int flags, uint64_t value, uint64_t interval,
		       uint64_t now)
{
	int64_t off;

	disarm_locked(pt);
	pt->interval = value ? interval : 0;
	pt->early = 0;
	if (!value)
		return;
	if (!(flags & TIMER_ABSTIME))
		pt->expires = now + value; /* both <= KTIME_MAX: no overflow */
	else if (pt->cpu)
		pt->expires = value;
	else if (!clock_wall_offset(pt->clock, &off)) /* checked at its creation */
		pt->expires = wall_expiry(pt, (int64_t)value - off);
	if (pt->notify == SIGEV_NONE)
		return; /* only read: nothing happens at its expiry */
	if (pt->cpu)
		cpu_timer_armed_locked(pt, true);
	else
		ktimer_arm(&pt->ktimer, pt->expires);
}

/* Reads a timespec: its ns, -EFAULT or -EINVAL. */
static int64_t ts_ns(const struct timespec_k *ts)
{
	return timespec_to_ns(ts);
}

SYSCALL_DEFINE4(timer_settime, int, id, int, flags, const struct itimerspec_k *, unew,
		struct itimerspec_k *, uold)
{
	struct thread_group *g = current()->group;
	struct itimerspec_k new, old;
	struct posix_timer *pt;
	int64_t value, interval;
	uint64_t now;

	if (!unew)
		return -EINVAL;
	if (copy_from_user(&new, unew, sizeof(new)))
		return -EFAULT;
	if ((value = ts_ns(&new.value)) < 0 || (interval = ts_ns(&new.interval)) < 0)
		return -EINVAL;
	spin_lock(&proc_lock); /* a CPU clock's sample */
	spin_lock(&g->siglock);
	if (!(pt = find_locked(g, id))) {
		spin_unlock(&g->siglock);
		spin_unlock(&proc_lock);
		return -EINVAL;
	}
	now = clock_now_locked(pt);
	old = read_locked(pt, now);
	arm_locked(pt, flags, (uint64_t)value, (uint64_t)interval, now);
	spin_unlock(&g->siglock);
	spin_unlock(&proc_lock);
	return uold && copy_to_user(uold, &old, sizeof(old)) ? -EFAULT : 0;
}

SYSCALL_DEFINE2(timer_gettime, int, id, struct itimerspec_k *, ucur)
{
	struct thread_group *g = current()->group;
	struct itimerspec_k cur;
	struct posix_timer *pt;

	spin_lock(&proc_lock);
	spin_lock(&g->siglock);
	if ((pt = find_locked(g, id)))
		cur = read_locked(pt, clock_now_locked(pt));
	spin_unlock(&g->siglock);
	spin_unlock(&proc_lock);
	if (!pt)
		return -EINVAL;
	return copy_to_user(ucur, &cur, sizeof(cur)) ? -EFAULT : 0;
}

SYSCALL_DEFINE1(timer_getoverrun, int, id)
{
	struct thread_group *g = current()->group;
	struct posix_timer *pt;
	int overrun = -EINVAL;

	spin_lock(&g->siglock);
	if ((pt = find_locked(g, id)))
		overrun = pt->overrun_last;
	spin_unlock(&g->siglock);
	return overrun;
}

SYSCALL_DEFINE3(timer_create, int, clk, const struct sigevent_k *, uev, int *, uid)
{
	struct thread_group *g = current()->group;
	struct sigevent_k ev = {.notify = SIGEV_SIGNAL, .signo = SIGALRM};
	struct posix_timer *pt;
	bool default_value = !uev;
	int64_t off;
	long err;

	if (uev && copy_from_user(&ev, uev, sizeof(ev)))
		return -EFAULT;
	if (!cpuclock_id(clk) && (err = clock_wall_offset(clk, &off)))
		return err;
	if ((err = timer_new(clk, &ev, &pt)))
		return err;
	spin_lock(&g->siglock);
	pt->id = next_id_locked(g);
	if (default_value)
		pt->q.info.timer.value = (uint64_t)pt->id; /* no sigevent: the id */
	pt->q.info.timer.tid = pt->id;
	list_add_tail(&pt->link, &g->timers);
	spin_unlock(&g->siglock);
	if (!copy_to_user(uid, &pt->id, sizeof(pt->id)))
		return 0;
	spin_lock(&g->siglock);
	bool mine = claim_locked(pt); /* another thread may have guessed the id */
	spin_unlock(&g->siglock);
	if (mine)
		timer_delete(pt);
	return -EFAULT;
}
