/* Pending signals with their information (see sigqueue.h).  Every
 * function but the count runs under the owning group's siglock. */
#include "proc/sigqueue.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "proc/posix_timer.h"
#include <uapi/errno.h>

#define SIGBIT_Q(sig) (1UL << ((sig)-1))

/* Instances allocated, and timers' own entries (charged at
 * timer_create): all processes'. */
static unsigned long queued;

unsigned long sigqueue_count(void)
{
	return __atomic_load_n(&queued, __ATOMIC_RELAXED);
}

enum sig_layout siginfo_layout(int sig, int code)
{
	if (code > SI_USER && code < SI_KERNEL) { /* the kernel's own codes */
		if (sig == 17 /* SIGCHLD */)
			return SIL_CHLD;
		if (sig == 4 || sig == 5 || sig == 7 || sig == 8 || sig == 11)
			return SIL_FAULT; /* SIGILL, SIGTRAP, SIGBUS, SIGFPE, SIGSEGV */
		return SIL_POLL;
	}
	if (code == SI_TIMER)
		return SIL_TIMER;
	if (code == SI_SIGIO)
		return SIL_POLL;
	return code < 0 ? SIL_RT : SIL_KILL;
}

void sigpending_init(struct sigpending *p)
{
	p->set = 0;
	list_init(&p->queue);
}

/* A new instance if the count stays within limit, or with override;
 * NULL if not (or no memory).  Linux's __sigqueue_alloc. */
static struct sigqueue *instance_alloc(uint64_t limit, bool override)
{
	unsigned long n = __atomic_add_fetch(&queued, 1, __ATOMIC_RELAXED);
	struct sigqueue *q = NULL;

	if (override || n <= limit)
		q = kmalloc(sizeof(*q));
	if (!q)
		__atomic_sub_fetch(&queued, 1, __ATOMIC_RELAXED);
	return q;
}

int sigqueue_charge(uint64_t limit)
{
	unsigned long n = __atomic_add_fetch(&queued, 1, __ATOMIC_RELAXED);

	if (n <= limit)
		return 0;
	__atomic_sub_fetch(&queued, 1, __ATOMIC_RELAXED);
	return -EAGAIN;
}

void sigqueue_uncharge(void)
{
	__atomic_sub_fetch(&queued, 1, __ATOMIC_RELAXED);
}

static void instance_free(struct sigqueue *q)
{
	kfree(q);
	__atomic_sub_fetch(&queued, 1, __ATOMIC_RELAXED);
}

static void mark_pending(struct sigpending *p, int sig)
{
	__atomic_or_fetch(&p->set, SIGBIT_Q(sig), __ATOMIC_RELEASE);
}

int sigpending_queue_locked(struct sigpending *p, int sig, const struct sig_info *info,
			    uint64_t limit)
{
	struct sigqueue *q;

	/* A standard signal already pending: this send merges into it. */
	if (sig < SIGRTMIN_K && (p->set & SIGBIT_Q(sig)))
		return 0;
	/* The kernel's and kill()'s standard signals may exceed the limit:
	 * each is pending at most once per set, so they stay bounded. */
	q = instance_alloc(limit, sig < SIGRTMIN_K && info->code >= 0);
	if (q) {
		*q = (struct sigqueue){.sig = sig, .info = *info};
		list_add_tail(&q->link, &p->queue);
	} else if (sig >= SIGRTMIN_K && info->code != SI_USER) {
		return -EAGAIN;
	}
	mark_pending(p, sig); /* without an instance: its information is lost */
	return 0;
}

/* a + b, saturated at INT_MAX (Linux's DELAYTIMER_MAX). */
static int32_t overrun_add(int32_t a, int64_t b)
{
	int64_t sum = (int64_t)a + b;

	return sum > INT32_MAX ? INT32_MAX : (int32_t)sum;
}

bool sigpending_queue_timer_locked(struct sigpending *p, struct sigqueue *q, int missed)
{
	if (q->flags & SIGQ_QUEUED) {
		/* The last expiry's signal is still waiting: this one, and the
		 * periods missed, are its overruns (Linux's si_overrun). */
		q->info.timer.overrun = overrun_add(q->info.timer.overrun, 1 + (int64_t)missed);
		return false;
	}
	q->info.timer.overrun = missed;
	q->flags |= SIGQ_QUEUED;
	q->on = p;
	list_add_tail(&q->link, &p->queue);
	mark_pending(p, q->sig);
	return true;
}

/* Whether p holds another instance of q's signal than q. */
static bool others_queued(const struct sigpending *p, const struct sigqueue *q)
{
	const struct sigqueue *o;

	list_for_each_entry(o, &p->queue, link) if (o != q && o->sig == q->sig) return true;
	return false;
}

/* Takes q off its queue: the list holds no other reference. */
static void take_off(struct sigqueue *q)
{
	list_del(&q->link);
	if (q->flags & SIGQ_TIMER)
		q->flags &= ~SIGQ_QUEUED;
	else
		instance_free(q);
}

int sigpending_take_locked(struct sigpending *p, uint64_t mask, struct sig_info *info)
{
	uint64_t ready = __atomic_load_n(&p->set, __ATOMIC_ACQUIRE) & mask;
	struct sigqueue *q, *first = NULL;
	bool more = false;
	int sig;

	if (!ready)
		return 0;
	sig = __builtin_ctzl(ready) + 1;
	list_for_each_entry(q, &p->queue, link) if (q->sig == sig)
	{
		if (first) {
			more = true;
			break;
		}
		first = q;
	}
	if (!more)
		__atomic_and_fetch(&p->set, ~SIGBIT_Q(sig), __ATOMIC_RELEASE);
	if (!first) {
		/* Pending without an instance (no room when it was sent): Linux
		 * reports SI_USER from nobody. */
		*info = (struct sig_info){.code = SI_USER};
		return sig;
	}
	*info = first->info;
	if (first->flags & SIGQ_TIMER)
		posix_timer_dequeued_locked(first, info);
	take_off(first);
	return sig;
}

void sigpending_discard_locked(struct sigpending *p, uint64_t set)
{
	struct sigqueue *q, *n;

	__atomic_and_fetch(&p->set, ~set, __ATOMIC_RELEASE);
	list_for_each_entry_safe(q, n, &p->queue, link) if (SIGBIT_Q(q->sig) & set) take_off(q);
}

void sigqueue_unqueue_locked(struct sigqueue *q)
{
	if (!(q->flags & SIGQ_QUEUED))
		return;
	if (!others_queued(q->on, q))
		__atomic_and_fetch(&q->on->set, ~SIGBIT_Q(q->sig), __ATOMIC_RELEASE);
	take_off(q);
}
