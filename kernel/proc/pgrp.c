/*
 * Process groups and sessions: setpgid, getpgid, getpgrp, setsid, getsid,
 * and getppid.  A process's pgid, sid and parent are read and written
 * under proc_lock (group.h).  A lookup by pid takes a reference on the
 * task (task_find), so the task and its group stay until task_put; under
 * proc_lock the group is then checked to be still unreaped.  Pids and
 * groups are numbered in the caller's pid namespace (pid_ns.h).
 */
#include "proc/group.h"
#include "proc/pid_ns.h"
#include "proc/proc.h"
#include "sys/syscall.h"
#include <uapi/errno.h>

/* The process of t (task_find_or_self's), NULL if none or reaped
 * meanwhile (proc_lock held). */
static struct thread_group *target_locked(struct task *t)
{
	return t && t->group->state != GROUP_DEAD ? t->group : NULL;
}

int current_pgid(void)
{
	int pgid;

	spin_lock(&proc_lock);
	pgid = current()->group->pgid;
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

	g->found =
	    t->group->pgid == g->pgid && t->group->sid == g->sid; /* zombies count, as on Linux */
	return !g->found;
}

/* Moves p (the caller's process or its child) to group pgid (proc_lock
 * held): a new group named after p, or one that exists in p's session.
 * A child must be in the caller's session and not have exec'd yet.
 * 0 or -errno, in Linux's order. */
static int setpgid_locked(struct thread_group *p, int pgid)
{
	struct thread_group *self = current()->group;
	struct group_probe g = {pgid, p->sid, false};

	if (p != self && p->parent != self)
		return -ESRCH;
	if (p != self && p->sid != self->sid)
		return -EPERM;
	if (p != self && p->execed)
		return -EACCES;
	if (p->sid == p->tgid)
		return -EPERM; /* a session leader keeps its group */
	if (pgid != p->tgid) {
		task_for_each_locked(probe_group, &g);
		if (!g.found)
			return -EPERM;
	}
	p->pgid = pgid;
	return 0;
}

SYSCALL_DEFINE2(setpgid, int, pid, int, pgid)
{
	struct thread_group *p;
	struct task *t;
	int ret;

	if (pgid < 0)
		return -EINVAL;
	t = task_find_or_self(pid);
	spin_lock(&proc_lock);
	p = target_locked(t);
	if (!p)
		ret = -ESRCH;
	else if (!pgid)
		ret = setpgid_locked(p, p->tgid);
	else /* a group the caller cannot name is none (EPERM) */
		ret = (pgid = pid_from_vnr(pgid)) ? setpgid_locked(p, pgid) : -EPERM;
	spin_unlock(&proc_lock);
	task_put(t);
	return ret;
}

SYSCALL_DEFINE1(getpgid, int, pid)
{
	struct task *t = task_find_or_self(pid);
	struct thread_group *p;
	int ret;

	spin_lock(&proc_lock);
	p = target_locked(t);
	ret = p ? pid_vnr(p->pgid) : -ESRCH;
	spin_unlock(&proc_lock);
	task_put(t);
	return ret;
}

SYSCALL_DEFINE0(getpgrp)
{
	return pid_vnr(current_pgid());
}

SYSCALL_DEFINE0(setsid)
{
	struct thread_group *p = current()->group;
	int ret;

	spin_lock(&proc_lock);
	if (p->pgid == p->tgid) {
		ret = -EPERM; /* a group leader cannot leave its group */
	} else {
		p->pgid = p->sid = p->tgid;
		ret = pid_vnr(p->sid);
	}
	spin_unlock(&proc_lock);
	return ret;
}

SYSCALL_DEFINE1(getsid, int, pid)
{
	struct task *t = task_find_or_self(pid);
	struct thread_group *p;
	int ret;

	spin_lock(&proc_lock);
	p = target_locked(t);
	ret = p ? pid_vnr(p->sid) : -ESRCH;
	spin_unlock(&proc_lock);
	task_put(t);
	return ret;
}

SYSCALL_DEFINE0(getppid)
{
	struct thread_group *p;
	int ret;

	spin_lock(&proc_lock);
	p = current()->group->parent;
	ret = p ? pid_vnr(p->tgid) : 0; /* 0 for a parent outside our namespace */
	spin_unlock(&proc_lock);
	return ret;
}
