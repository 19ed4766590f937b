/*
 * Process groups and sessions: setpgid, getpgid, getpgrp, setsid, getsid,
 * and getppid.  A task's pgid, sid and parent are read and written under
 * proc_lock (task.h), and so is every lookup by pid here: the task found
 * cannot be reaped while it is held.
 */
#include "proc/proc.h"
#include "sys/syscall.h"
#include <uapi/errno.h>

/* The task pid names, 0 being the caller; NULL if none (proc_lock held). */
static struct task *target_locked(int pid)
{
	return pid ? task_find_locked(pid) : current();
}

int current_pgid(void)
{
	int pgid;

	spin_lock(&proc_lock);
	pgid = current()->pgid;
	spin_unlock(&proc_lock);
	return pgid;
}

struct group_probe {
	int pgid, sid;
	bool found;
};

static bool probe_group(struct task *t, void *arg)
{
	struct group_probe *g = arg;

	g->found = t->pgid == g->pgid && t->sid == g->sid; /* zombies count, as on Linux */
	return !g->found;
}

/* Moves t (the caller or its child) to group pgid (proc_lock held): a new
 * group named after t, or one that exists in t's session.  0 or -errno. */
static int setpgid_locked(struct task *t, int pgid)
{
	struct group_probe g = {pgid, t->sid, false};

	if (t != current() && t->parent != current())
		return -ESRCH;
	if (t->sid == t->pid)
		return -EPERM; /* a session leader keeps its group */
	if (pgid != t->pid) {
		task_for_each_locked(probe_group, &g);
		if (!g.found)
			return -EPERM;
	}
	t->pgid = pgid;
	return 0;
}

SYSCALL_DEFINE2(setpgid, int, pid, int, pgid)
{
	struct task *t;
	int ret;

	if (pgid < 0)
		return -EINVAL;
	spin_lock(&proc_lock);
	t = target_locked(pid);
	ret = t ? setpgid_locked(t, pgid ? pgid : t->pid) : -ESRCH;
	spin_unlock(&proc_lock);
	return ret;
}

SYSCALL_DEFINE1(getpgid, int, pid)
{
	struct task *t;
	int ret;

	spin_lock(&proc_lock);
	t = target_locked(pid);
	ret = t ? t->pgid : -ESRCH;
	spin_unlock(&proc_lock);
	return ret;
}

SYSCALL_DEFINE0(getpgrp)
{
	return current_pgid();
}

SYSCALL_DEFINE0(setsid)
{
	struct task *t = current();
	int ret;

	spin_lock(&proc_lock);
	if (t->pgid == t->pid) {
		ret = -EPERM; /* a group leader cannot leave its group */
	} else {
		t->pgid = t->sid = t->pid;
		ret = t->sid;
	}
	spin_unlock(&proc_lock);
	return ret;
}

SYSCALL_DEFINE1(getsid, int, pid)
{
	struct task *t;
	int ret;

	spin_lock(&proc_lock);
	t = target_locked(pid);
	ret = t ? t->sid : -ESRCH;
	spin_unlock(&proc_lock);
	return ret;
}

SYSCALL_DEFINE0(getppid)
{
	struct task *p;
	int ret;

	spin_lock(&proc_lock);
	p = current()->parent;
	ret = p ? p->pid : 0;
	spin_unlock(&proc_lock);
	return ret;
}
