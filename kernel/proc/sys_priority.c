/*
 * getpriority/setpriority: the nice value of threads, chosen by thread id,
 * process group or user (real uid; 0: the caller's).  Linux's rules: a
 * thread id names one thread; the raw getpriority returns 20 - nice of
 * the highest-priority match (1..40, never negative, so never taken for
 * an error); setpriority clamps to -20..19; no match is ESRCH; a thread
 * whose real or effective uid is not the caller's effective uid is EPERM
 * without CAP_SYS_NICE, a nice value lower than the thread's and beyond
 * its RLIMIT_NICE EACCES (Linux's set_one_prio).  The value weighs in
 * the fair class of the scheduler (sched/fair.c).
 */
#include "proc/cred.h"
#include "proc/group.h"
#include "proc/proc.h"
#include "proc/task.h"
#include "sched/sched.h"
#include "sys/syscall.h"
#include "proc/pid_ns.h"
#include <uapi/errno.h>
#include "proc/rlimit.h"
#include <uapi/resource.h>

struct prio_walk {
	int which, who;
	bool set;
	int nice;  /* set: the new value; get: the lowest found */
	int found; /* tasks matched */
	int err;   /* set: the last refusal (EPERM, EACCES), or 0 */
};

static bool prio_match(const struct task *t, const struct prio_walk *w)
{
	if (task_exited(t))
		return false;
	if (w->which == PRIO_PGRP)
		return t->group->pgid == w->who;
	return task_cred(t)->uid == (uint32_t)w->who; /* PRIO_USER */
}

bool nice_within_rlimit(const struct task *t, int nice)
{
	/* RLIMIT_NICE r allows nice values down to 20 - r. */
	return (uint64_t)(20 - nice) <= rlimit_soft(t->group, RLIMIT_NICE);
}

/* Linux's set_one_prio_perm and can_nice: 0, -EPERM or -EACCES. */
static int prio_permission(const struct task *t, int nice)
{
	const struct cred *c = cred_current(), *tc = task_cred(t);

	if (tc->uid != c->euid && tc->euid != c->euid && !capable(CAP_SYS_NICE))
		return -EPERM;
	if (nice < t->nice && !nice_within_rlimit(t, nice) && !capable(CAP_SYS_NICE))
		return -EACCES;
	return 0;
}

/* proc_lock held: sets or reads t's nice value. */
static void prio_apply(struct task *t, struct prio_walk *w)
{
	int err;

	w->found++;
	if (!w->set) {
		if (w->found == 1 || t->nice < w->nice)
			w->nice = t->nice;
	} else if ((err = prio_permission(t, w->nice))) {
		w->err = err;
	} else {
		t->nice = w->nice;
		sched_set_fair(t, t->policy, t->nice);
	}
}

static bool prio_visit(struct task *t, void *arg)
{
	struct prio_walk *w = arg;

	if (prio_match(t, w))
		prio_apply(t, w);
	return true;
}

/* Runs w over the tasks it names: -ESRCH if none, else 0. */
static int prio_run(struct prio_walk *w)
{
	/* Referenced: t stays until task_put, exited or not (as Linux, a
	 * zombie still answers). */
	struct task *t = w->which == PRIO_PROCESS ? task_find_or_self(w->who) : NULL;

	spin_lock(&proc_lock);
	if (w->which == PRIO_PROCESS) {
		if (t)
			prio_apply(t, w);
	} else {
		if (w->which == PRIO_PGRP) /* the caller's number of the group */
			w->who = w->who ? pid_from_vnr(w->who) : current()->group->pgid;
		if (w->which == PRIO_USER && !w->who)
			w->who = (int)cred_current()->uid;
		task_for_each_locked(prio_visit, w);
	}
	spin_unlock(&proc_lock);
	task_put(t);
	return w->found ? w->err : -ESRCH;
}

static bool valid_which(int which)
{
	return which == PRIO_PROCESS || which == PRIO_PGRP || which == PRIO_USER;
}

SYSCALL_DEFINE2(getpriority, int, which, int, who)
{
	struct prio_walk w = {.which = which, .who = who};
	int err;

	if (!valid_which(which))
		return -EINVAL;
	if ((err = prio_run(&w)))
		return err;
	return 20 - w.nice;
}

SYSCALL_DEFINE3(setpriority, int, which, int, who, int, nice)
{
	struct prio_walk w = {.which = which, .who = who, .set = true};

	if (!valid_which(which))
		return -EINVAL;
	w.nice = nice < NICE_MIN ? NICE_MIN : nice > NICE_MAX ? NICE_MAX : nice;
	return prio_run(&w);
}
