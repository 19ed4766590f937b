/*
 * The scheduling-policy calls: sched_setscheduler, sched_getscheduler,
 * sched_setparam, sched_getparam, sched_get_priority_max/min,
 * sched_rr_get_interval, sched_setattr, sched_getattr, with Linux's
 * argument checks and errno order.
 *
 * The scheduler honours SCHED_DEADLINE (earliest deadline first, with
 * Linux's admission control and CBS throttling), the real-time policies,
 * SCHED_FIFO and SCHED_RR with priorities 1..99 (sched/sched.h), and
 * the normal ones, SCHED_OTHER, SCHED_BATCH and SCHED_IDLE, in its fair
 * class, weighted by nice value (SCHED_IDLE: the least weight; BATCH
 * never preempts on waking; sched/fair.c).
 */
#include "arch/x86_64/timer.h"
#include "arch/x86_64/uaccess.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "proc/cred.h"
#include "mm/layout.h"
#include "sched/ktimer.h"
#include "sched/rt_tunables.h"
#include "proc/proc.h"
#include "proc/rlimit.h"
#include "proc/task.h"
#include "sched/sched.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/resource.h>
#include <uapi/sched.h>

#define RT_PRIO_MAX 99

/* sched_attr's flags (Linux's uapi/linux/sched.h). */
#define SCHED_FLAG_RESET_ON_FORK 0x01
#define SCHED_FLAG_RECLAIM	 0x02
#define SCHED_FLAG_DL_OVERRUN	 0x04
#define SCHED_FLAG_KEEP_POLICY	 0x08
#define SCHED_FLAG_KEEP_PARAMS	 0x10
#define SCHED_FLAG_ALL		 0x7f

#define SCHED_ATTR_SIZE_VER0 48 /* up to sched_period */
#define SCHED_ATTR_SIZE_VER1 56 /* with the utilisation clamps */

struct sched_attr_k {
	uint32_t size, sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
	uint32_t sched_util_min, sched_util_max;
};

static bool policy_valid(int policy)
{
	return policy == SCHED_OTHER || policy == SCHED_FIFO || policy == SCHED_RR ||
	       policy == SCHED_BATCH || policy == SCHED_IDLE || policy == SCHED_DEADLINE;
}

static bool policy_rt(int policy)
{
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

/* The period a deadline task asked for: its deadline if it gave none. */
static uint64_t dl_period_of(const struct sched_attr_k *a)
{
	return a->sched_period ? a->sched_period : a->sched_deadline;
}

/*
 * Linux's __checkparam_dl: a deadline; a runtime of at least 1024 ns
 * (Linux's accounting drops the low 10 bits); bit 63 clear in the
 * deadline and period (kept for wrap-around); runtime <= deadline <=
 * period; a period within sched_deadline_period_min_us..max_us.  The
 * bandwidth reclaiming and overrun signal flags are not implemented:
 * refused rather than ignored.
 */
static bool dl_params_valid(const struct sched_attr_k *a)
{
	uint64_t period = dl_period_of(a);

	if (!a->sched_deadline || a->sched_runtime < 1024 || (a->sched_deadline >> 63) ||
	    (a->sched_period >> 63) || period < a->sched_deadline ||
	    a->sched_deadline < a->sched_runtime)
		return false;
	return dl_period_allowed(period) &&
	       !(a->sched_flags & (SCHED_FLAG_RECLAIM | SCHED_FLAG_DL_OVERRUN));
}

/* Linux's parameter checks: a priority 1..99 for the real-time policies
 * and 0 for the others; a deadline task's as above. */
static int check_params(int policy, const struct sched_attr_k *a)
{
	if (a->sched_priority > RT_PRIO_MAX || policy_rt(policy) != (a->sched_priority != 0))
		return -EINVAL;
	if (policy == SCHED_DEADLINE && !dl_params_valid(a))
		return -EINVAL;
	return 0;
}

/*
 * Linux's user_check_sched_setscheduler for the policies taken here:
 * what only CAP_SYS_NICE may do -- SCHED_DEADLINE at all (Linux lets no
 * one else in), a nice value beyond RLIMIT_NICE,
 * leaving SCHED_IDLE beyond it, a real-time policy the thread's
 * RLIMIT_RTPRIO does not allow (a new one with the limit 0, a priority
 * above both the limit and its own), another user's thread (neither its
 * real nor effective uid the caller's effective uid), clearing
 * SCHED_RESET_ON_FORK.  proc_lock held.
 */
static bool needs_privilege(struct task *t, int policy, const struct sched_attr_k *a, bool set_nice,
			    bool reset)
{
	if (policy == SCHED_DEADLINE)
		return true;
	if (policy_rt(policy)) {
		uint64_t rtprio = rlimit_soft(t->group, RLIMIT_RTPRIO);
		if ((policy != t->policy && !rtprio) ||
		    (a->sched_priority > (uint32_t)sched_rt_prio(t) && a->sched_priority > rtprio))
			return true;
	}
	if (set_nice && policy != SCHED_IDLE && a->sched_nice < t->nice &&
	    !nice_within_rlimit(t, a->sched_nice))
		return true;
	if (t->policy == SCHED_IDLE && policy != SCHED_IDLE && !nice_within_rlimit(t, t->nice))
		return true;
	return !cred_same_owner(t) || (t->reset_on_fork && !reset);
}

/* KEEP_PARAMS: a takes thread t's own parameters, as Linux's get_params
 * (proc_lock held). */
static void keep_params(struct task *t, struct sched_attr_k *a)
{
	a->sched_nice = t->nice;
	a->sched_priority = (uint32_t)sched_rt_prio(t);
	if (!sched_dl_params(t, &a->sched_runtime, &a->sched_deadline, &a->sched_period))
		a->sched_runtime = a->sched_deadline = a->sched_period = 0;
}

/* Puts t in the class of policy with a's parameters (checked; proc_lock
 * held): -EPERM, -EBUSY from the deadline class's admission. */
static int set_class(struct task *t, int policy, const struct sched_attr_k *a, bool set_nice)
{
	if (policy == SCHED_DEADLINE) {
		int err = sched_set_dl(t, a->sched_runtime, a->sched_deadline, dl_period_of(a));
		if (err)
			return err;
	} else {
		sched_set_rt(t, (int)a->sched_priority, policy == SCHED_RR);
	}
	if (set_nice && !policy_rt(policy) && policy != SCHED_DEADLINE)
		t->nice = a->sched_nice < NICE_MIN   ? NICE_MIN
			  : a->sched_nice > NICE_MAX ? NICE_MAX
						     : a->sched_nice;
	return 0;
}

/*
 * Applies a to thread pid (0: the caller): the policy a names (or the
 * thread's own with KEEP_POLICY or a negative policy), with a's
 * parameters or, with KEEP_PARAMS, the thread's own.  -ESRCH, -EINVAL,
 * -EPERM, -EBUSY (no room for a deadline task).
 */
static int set_policy(int pid, struct sched_attr_k *a, bool set_nice)
{
	struct task *t = task_find_or_self(pid); /* referenced: t stays until task_put */
	int policy = (int)a->sched_policy, err;
	bool keep = policy < 0 || (a->sched_flags & SCHED_FLAG_KEEP_POLICY), reset;

	if (!t)
		return -ESRCH;
	spin_lock(&proc_lock);
	if (keep) /* the policy and its SCHED_RESET_ON_FORK stay, as Linux */
		policy = t->policy;
	if (a->sched_flags & SCHED_FLAG_KEEP_PARAMS)
		keep_params(t, a);
	reset = keep ? t->reset_on_fork : !!(a->sched_flags & SCHED_FLAG_RESET_ON_FORK);
	err = !policy_valid(policy) ? -EINVAL : check_params(policy, a);
	if (!err && needs_privilege(t, policy, a, set_nice, reset) && !capable(CAP_SYS_NICE))
		err = -EPERM;
	if (!err && !(err = set_class(t, policy, a, set_nice))) {
		t->policy = policy;
		t->reset_on_fork = reset;
		sched_set_fair(t, policy, t->nice);
	}
	spin_unlock(&proc_lock);
	task_put(t);
	return err;
}

/* sched_setscheduler and sched_setparam (policy -1: keep the thread's). */
static long set_scheduler(int pid, int policy, const int *uparam)
{
	struct sched_attr_k a = {0};
	int prio;

	if (!uparam || pid < 0)
		return -EINVAL;
	if (copy_from_user(&prio, uparam, sizeof(prio)))
		return -EFAULT;
	a.sched_priority = (uint32_t)prio;
	a.sched_policy = (uint32_t)(policy < 0 ? -1 : policy & ~SCHED_RESET_ON_FORK);
	if (policy >= 0 && (policy & SCHED_RESET_ON_FORK))
		a.sched_flags = SCHED_FLAG_RESET_ON_FORK;
	else if (policy < 0)
		a.sched_flags = SCHED_FLAG_KEEP_POLICY;
	return set_policy(pid, &a, false);
}

SYSCALL_DEFINE3(sched_setscheduler, int, pid, int, policy, const int *, uparam)
{
	if (policy < 0)
		return -EINVAL;
	return set_scheduler(pid, policy, uparam);
}

SYSCALL_DEFINE2(sched_setparam, int, pid, const int *, uparam)
{
	return set_scheduler(pid, -1, uparam);
}

/* Thread pid's policy in a, SCHED_FLAG_RESET_ON_FORK in its flags, its
 * nice value, real-time priority and deadline parameters: -ESRCH. */
static int get_attr(int pid, struct sched_attr_k *a)
{
	struct task *t;

	if (pid < 0)
		return -EINVAL;
	if (!(t = task_find_or_self(pid))) /* referenced: t stays until task_put */
		return -ESRCH;
	memset(a, 0, sizeof(*a));
	spin_lock(&proc_lock);
	a->sched_policy = (uint32_t)t->policy;
	a->sched_flags = t->reset_on_fork ? SCHED_FLAG_RESET_ON_FORK : 0;
	keep_params(t, a);
	spin_unlock(&proc_lock);
	task_put(t);
	return 0;
}

SYSCALL_DEFINE1(sched_getscheduler, int, pid)
{
	struct sched_attr_k a;
	int err;

	if ((err = get_attr(pid, &a)))
		return err;
	return (int)a.sched_policy | (a.sched_flags ? SCHED_RESET_ON_FORK : 0);
}

SYSCALL_DEFINE2(sched_getparam, int, pid, int *, uparam)
{
	struct sched_attr_k a;
	int err;

	if (!uparam || pid < 0)
		return -EINVAL;
	if ((err = get_attr(pid, &a)))
		return err;
	return copy_to_user(uparam, &a.sched_priority, sizeof(int)) ? -EFAULT : 0;
}

SYSCALL_DEFINE1(sched_get_priority_max, int, policy)
{
	return !policy_valid(policy) ? -EINVAL : policy_rt(policy) ? RT_PRIO_MAX : 0;
}

SYSCALL_DEFINE1(sched_get_priority_min, int, policy)
{
	return !policy_valid(policy) ? -EINVAL : policy_rt(policy) ? 1 : 0;
}

/* SCHED_RR's quantum; 0 for SCHED_FIFO and SCHED_DEADLINE, which have
 * none; a normal task's slice: the tick, at which the fair class hands
 * the CPU on to a waiting task behind it in virtual runtime. */
SYSCALL_DEFINE2(sched_rr_get_interval, int, pid, struct timespec_k *, uts)
{
	struct timespec_k ts = {0, 0};
	struct sched_attr_k a;
	int err;

	if ((err = get_attr(pid, &a)))
		return err;
	int policy = (int)a.sched_policy;
	uint64_t ns = policy == SCHED_RR				 ? sched_rr_quantum_ns()
		      : policy == SCHED_FIFO || policy == SCHED_DEADLINE ? 0
									 : TICK_NS;
	ts.tv_sec = (int64_t)(ns / 1000000000), ts.tv_nsec = (int64_t)(ns % 1000000000);
	return copy_to_user(uts, &ts, sizeof(ts)) ? -EFAULT : 0;
}

/*
 * Reads a sched_attr of the size its first word gives (0: VER0), as
 * Linux's sched_copy_attr: shorter than VER0 or longer than a page, or
 * longer than ours with a non-zero byte past it, is E2BIG after writing
 * our size back.
 */
static int attr_from_user(struct sched_attr_k *ua, struct sched_attr_k *a)
{
	uint32_t size, kept = (uint32_t)sizeof(*a);
	uint8_t byte;

	if (copy_from_user(&size, ua, sizeof(size)))
		return -EFAULT;
	size = size ? size : SCHED_ATTR_SIZE_VER0;
	if (size < SCHED_ATTR_SIZE_VER0 || size > PAGE_SIZE)
		goto too_big;
	for (uint32_t off = kept; off < size; off++) {
		if (copy_from_user(&byte, (const uint8_t *)ua + off, 1))
			return -EFAULT;
		if (byte)
			goto too_big;
	}
	memset(a, 0, sizeof(*a));
	if (copy_from_user(a, ua, size < kept ? size : kept))
		return -EFAULT;
	a->size = size;
	return 0;
too_big:
	return copy_to_user(&ua->size, &kept, sizeof(kept)) ? -EFAULT : -E2BIG;
}

SYSCALL_DEFINE3(sched_setattr, int, pid, struct sched_attr_k *, uattr, unsigned int, flags)
{
	struct sched_attr_k a;
	int err;

	if (!uattr || pid < 0 || flags)
		return -EINVAL;
	if ((err = attr_from_user(uattr, &a)))
		return err;
	if (a.sched_flags & ~SCHED_FLAG_ALL)
		return -EINVAL;
	if ((int)a.sched_policy < 0)
		return -EINVAL;
	return set_policy(pid, &a, true);
}

SYSCALL_DEFINE4(sched_getattr, int, pid, struct sched_attr_k *, uattr, unsigned int, usize,
		unsigned int, flags)
{
	struct sched_attr_k a;
	int err;

	if (!uattr || pid < 0 || usize > PAGE_SIZE || usize < SCHED_ATTR_SIZE_VER0 || flags)
		return -EINVAL;
	if ((err = get_attr(pid, &a)))
		return err;
	a.sched_util_max = 1024; /* no clamp: the whole capacity, as Linux reports */
	a.size = usize < sizeof(a) ? usize : (uint32_t)sizeof(a);
	return copy_to_user(uattr, &a, a.size) ? -EFAULT : 0;
}

int sched_policy_clone_locked(struct task *child, struct task *parent)
{
	/* SCHED_RESET_ON_FORK: the child starts normal (SCHED_OTHER from a
	 * real-time or deadline policy, a negative nice back to 0) and
	 * without the flag, as Linux's sched_fork.  Without it a deadline
	 * task cannot fork: its bandwidth cannot be shared (EAGAIN). */
	bool rt = policy_rt(parent->policy) && !parent->reset_on_fork;
	bool special = policy_rt(parent->policy) || parent->policy == SCHED_DEADLINE;

	if (parent->policy == SCHED_DEADLINE && !parent->reset_on_fork)
		return -EAGAIN;
	child->policy = special && !rt ? SCHED_OTHER : parent->policy;
	child->nice = parent->nice;
	if (parent->reset_on_fork && child->nice < 0)
		child->nice = 0;
	child->reset_on_fork = false;
	sched_set_fair(child, child->policy, child->nice);
	sched_set_rt(child, rt ? sched_rt_prio(parent) : 0, rt && parent->policy == SCHED_RR);
	return 0;
}
