/*
 * The console as a controlling terminal (see ctty.h).  A session has the
 * console as its controlling terminal when ctty.sid names it: with one
 * terminal, that is all Linux's per-process signal->tty can say here.
 * Both fields are under proc_lock, like the pgid and sid they name; the
 * console's interrupt reads fg_pgrp alone, atomically.
 */
#include "tty/ctty.h"
#include "arch/x86_64/uaccess.h"
#include "proc/group.h"
#include "proc/jobctl.h"
#include "proc/proc.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/ioctl.h>

static struct {
	int sid;     /* the session it controls, 0: none */
	int fg_pgrp; /* that session's foreground group, 0: none */
} ctty;

/* The console is the caller's controlling terminal (proc_lock held). */
static bool mine_locked(void)
{
	return ctty.sid && current()->group->sid == ctty.sid;
}

static void acquire_locked(struct thread_group *leader)
{
	ctty.sid = leader->sid;
	__atomic_store_n(&ctty.fg_pgrp, leader->pgid, __ATOMIC_RELAXED);
}

int ctty_open(bool dev_tty, unsigned flags)
{
	struct thread_group *g = current()->group;
	int ret = 0;

	spin_lock(&proc_lock);
	if (!g) /* the kernel opening init's console: no process yet */
		ret = dev_tty ? -ENXIO : 0;
	else if (dev_tty && !mine_locked())
		ret = -ENXIO;
	else if (!dev_tty && !(flags & O_NOCTTY) && g->sid == g->tgid && !ctty.sid)
		acquire_locked(g);
	spin_unlock(&proc_lock);
	return ret;
}

/* TIOCSCTTY: a session leader without a terminal takes it; one another
 * session has is stolen only with arg 1 (everyone is root here). */
static long set_ctty(unsigned long arg)
{
	struct thread_group *g = current()->group;
	long ret = 0;

	spin_lock(&proc_lock);
	if (mine_locked() && g->sid == g->tgid)
		ret = 0; /* already ours */
	else if (g->sid != g->tgid)
		ret = -EPERM;
	else if (ctty.sid && arg != 1)
		ret = -EPERM;
	else
		acquire_locked(g);
	spin_unlock(&proc_lock);
	return ret;
}

struct pgrp_probe {
	int pgid;
	int sid; /* of a live member, or 0 */
};

static bool probe_pgrp(struct task *t, void *arg)
{
	struct pgrp_probe *p = arg;

	if (t->group->pgid == p->pgid && t->group->state == GROUP_LIVE)
		p->sid = t->group->sid;
	return !p->sid;
}

/* TIOCSPGRP: a group of the caller's session becomes the foreground. */
static long set_fg(const int *upgrp)
{
	struct pgrp_probe p = {0, 0};
	long ret = ctty_check(SIGTTOU);

	if (ret)
		return ret == -EIO ? -ENOTTY : ret;
	if (copy_from_user(&p.pgid, upgrp, sizeof(p.pgid)))
		return -EFAULT;
	spin_lock(&proc_lock);
	if (!mine_locked()) {
		ret = -ENOTTY;
	} else if (p.pgid < 0) {
		ret = -EINVAL;
	} else {
		task_for_each_locked(probe_pgrp, &p);
		ret = !p.sid ? -ESRCH : p.sid != ctty.sid ? -EPERM : 0;
		if (!ret)
			__atomic_store_n(&ctty.fg_pgrp, p.pgid, __ATOMIC_RELAXED);
	}
	spin_unlock(&proc_lock);
	return ret;
}

/* TIOCGPGRP (fg_pgrp) and TIOCGSID (sid): one of ours, if it is ours. */
static long get_id(const int *field, int *uval)
{
	int val;

	spin_lock(&proc_lock);
	val = mine_locked() ? *field : -1;
	spin_unlock(&proc_lock);
	if (val < 0)
		return -ENOTTY;
	return copy_to_user(uval, &val, sizeof(val)) ? -EFAULT : 0;
}

long ctty_ioctl(unsigned long cmd, unsigned long arg)
{
	switch (cmd) {
	case TIOCGPGRP:
		return get_id(&ctty.fg_pgrp, (int *)arg);
	case TIOCGSID:
		return get_id(&ctty.sid, (int *)arg);
	case TIOCSPGRP:
		return set_fg((const int *)arg);
	case TIOCSCTTY:
		return set_ctty(arg);
	}
	return -ENOTTY;
}

int ctty_check(int sig)
{
	struct task *t = current();
	bool ignored =
	    (t->sig.blocked & SIGBIT(sig)) || signal_action(t, sig).handler == UAPI_SIG_IGN;
	int ret = 0;

	spin_lock(&proc_lock);
	if (!mine_locked() || !ctty.fg_pgrp || t->group->pgid == ctty.fg_pgrp)
		ret = 0;
	else if (ignored)
		ret = sig == SIGTTIN ? -EIO : 0;
	else if (jobctl_pgrp_orphaned_locked(t->group->pgid))
		ret = -EIO;
	else
		ret = signal_send_group_locked(t->group->pgid, sig, 0) ? 0 : -ERESTARTSYS;
	spin_unlock(&proc_lock);
	return ret;
}

void ctty_signal_foreground(int sig)
{
	int pgrp = __atomic_load_n(&ctty.fg_pgrp, __ATOMIC_RELAXED);

	if (pgrp)
		signal_send_group(pgrp, sig, 0);
}

void ctty_session_ended_locked(struct thread_group *g)
{
	int fg = ctty.fg_pgrp;

	if (g->tgid != g->sid || ctty.sid != g->sid)
		return;
	ctty.sid = 0;
	__atomic_store_n(&ctty.fg_pgrp, 0, __ATOMIC_RELAXED);
	if (fg) {
		signal_send_group_locked(fg, SIGHUP, 0);
		signal_send_group_locked(fg, SIGCONT, 0);
	}
}
