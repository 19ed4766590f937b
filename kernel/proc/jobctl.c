/*
 * Job control (see jobctl.h).  A process's stopped flag and report are
 * under proc_lock (group.h).  The thread that takes a stop signal stops
 * the process and asks the others to follow (their stop_pending, tested
 * on every return to user mode); each then sleeps on the group's stop_wq
 * until SIGCONT clears stopped or SIGKILL is pending for it.  The parent
 * is told when the first thread stops, not when the last one has, which
 * Linux waits for: the others are on their way and run no user code.
 * A SIGCONT sent between a thread's taking a stop signal and its
 * stopping does not cancel that stop (Linux decides both under one
 * lock); it resumes a process stopped before it only.
 */
#include "proc/jobctl.h"
#include "proc/exit.h"
#include "proc/group.h"
#include "proc/proc.h"
#include "sched/sched.h"

static void resume_locked(struct thread_group *g)
{
	struct task *t;

	signal_discard_locked(g, SIG_STOPS);
	list_for_each_entry(t, &g->threads, group_link)
	    __atomic_store_n(&t->sig.stop_pending, false, __ATOMIC_RELEASE);
	if (!g->stopped)
		return;
	g->stopped = false;
	g->report = W_CONTINUED;
	signal_child_stopped(g, W_CONTINUED);
	wake_up(&g->stop_wq);
}

void jobctl_signal_sent(struct thread_group *g, int sig)
{
	if (SIGBIT(sig) & SIG_STOPS)
		signal_discard_locked(g, SIGBIT(SIGCONT));
	else if (sig == SIGCONT)
		resume_locked(g);
	else if (sig == SIGKILL)
		g->report = 0; /* the process ends: a stop or continue not yet
				* reported is no more (Linux's group exit) */
}

struct orphan_probe {
	int pgid;
	const struct thread_group *gone; /* counts neither as member nor as parent */
	bool orphaned, stopped;
};

/* Linux's will_become_orphaned_pgrp: a live member whose parent is in
 * another group of the same session can still resume the group. */
static bool probe_member(struct task *t, void *arg)
{
	struct orphan_probe *o = arg;
	struct thread_group *g = t->group, *p = g->parent;

	if (!task_is_leader(t) || g->pgid != o->pgid || g->state != GROUP_LIVE || g == o->gone)
		return true;
	o->stopped |= g->stopped;
	if (p && p != o->gone && p->pgid != g->pgid && p->sid == g->sid)
		o->orphaned = false;
	return o->orphaned;
}

bool jobctl_pgrp_orphaned_locked(int pgid)
{
	struct orphan_probe o = {pgid, NULL, true, false};

	task_for_each_locked(probe_member, &o);
	return o.orphaned;
}

void jobctl_orphaned_locked(int pgid, const struct thread_group *gone)
{
	struct orphan_probe o = {pgid, gone, true, false};

	task_for_each_locked(probe_member, &o);
	if (!o.orphaned || !o.stopped)
		return;
	signal_send_group_locked(pgid, SIGHUP, 0);
	signal_send_group_locked(pgid, SIGCONT, 0);
}

/* Sleeps while t's process is stopped and no SIGKILL is pending for t:
 * other signals stay pending, as on Linux. */
void jobctl_join_stop(struct task *t)
{
	struct thread_group *g = t->group;
	DEFINE_WAIT(we);

	for (;;) {
		prepare_to_wait(&g->stop_wq, &we);
		if (!__atomic_load_n(&g->stopped, __ATOMIC_ACQUIRE) ||
		    (signal_pending_set(t) & SIGBIT(SIGKILL)))
			break;
		schedule();
	}
	finish_wait(&g->stop_wq, &we);
}

/* Asks every other thread of g to stop (proc_lock held). */
static void stop_others_locked(struct thread_group *g, struct task *self)
{
	struct task *t;

	list_for_each_entry(t, &g->threads, group_link)
	{
		if (t == self)
			continue;
		__atomic_store_n(&t->sig.stop_pending, true, __ATOMIC_RELEASE);
		task_work_set(t, TASK_WORK_SIGNAL);
		sched_wake_signal(t);
	}
}

void jobctl_stop(struct task *t, int sig)
{
	struct thread_group *g = t->group;

	spin_lock(&proc_lock);
	if (sig != SIGSTOP && jobctl_pgrp_orphaned_locked(g->pgid)) {
		spin_unlock(&proc_lock);
		return; /* nobody could resume it: ignored, as Linux */
	}
	if (!g->stopped && !g->exiting) {
		g->stopped = true;
		g->report = W_STOPPED(sig);
		stop_others_locked(g, t);
		signal_child_stopped(g, g->report);
	}
	spin_unlock(&proc_lock);
	jobctl_join_stop(t);
}
