/*
 * Controlling terminals (see ctty.h).  A terminal's sid and fg_pgrp are
 * under proc_lock, like the pgid and sid they name; a signal key reads
 * fg_pgrp alone, atomically.  Finding a session's terminal walks
 * tty_list under tty_list_lock (after proc_lock: tty.h's order); a
 * terminal found is used only while that lock is held, or with a
 * reference its driver gives.
 */
#include "tty/ctty.h"
#include "tty/tty.h"
#include "arch/x86_64/uaccess.h"
#include "proc/cred.h"
#include "proc/group.h"
#include "proc/jobctl.h"
#include "proc/proc.h"
#include "proc/pid_ns.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/ioctl.h>

/* t is the caller's controlling terminal (proc_lock held). */
static bool mine_locked(struct tty *t)
{
	return t->sid && current()->group->sid == t->sid;
}

static bool leader(const struct thread_group *g)
{
	return g->sid == g->tgid;
}

static bool hung_up(struct tty *t)
{
	return __atomic_load_n(&t->hung_up, __ATOMIC_RELAXED);
}

/* The terminal session sid has, or NULL (tty_list_lock held). */
static struct tty *session_tty_locked(int sid)
{
	struct tty *t;

	list_for_each_entry(t, &tty_list, link) if (t->sid == sid) return t;
	return NULL;
}

static bool session_has_tty_locked(int sid)
{
	bool has;

	spin_lock(&tty_list_lock);
	has = session_tty_locked(sid) != NULL;
	spin_unlock(&tty_list_lock);
	return has;
}

static void acquire_locked(struct tty *t, struct thread_group *leader)
{
	t->sid = leader->sid;
	__atomic_store_n(&t->fg_pgrp, leader->pgid, __ATOMIC_RELAXED);
}

/* proc_lock held: t controls no session any more; its foreground group. */
static int release_locked(struct tty *t)
{
	int fg = t->fg_pgrp;

	t->sid = 0;
	__atomic_store_n(&t->fg_pgrp, 0, __ATOMIC_RELAXED);
	return fg;
}

void ctty_open(struct tty *t, unsigned flags)
{
	struct thread_group *g = current()->group;

	if (!g || (flags & O_NOCTTY)) /* !g: the kernel opening init's console */
		return;
	spin_lock(&proc_lock);
	if (leader(g) && !t->sid && !hung_up(t) && !session_has_tty_locked(g->sid))
		acquire_locked(t, g);
	spin_unlock(&proc_lock);
}

struct tty *ctty_get_current(void)
{
	struct thread_group *g = current()->group;
	struct tty *t = NULL;

	if (!g)
		return NULL;
	spin_lock(&proc_lock);
	spin_lock(&tty_list_lock);
	if ((t = session_tty_locked(g->sid)) && t->drv->get)
		t->drv->get(t);
	spin_unlock(&tty_list_lock);
	spin_unlock(&proc_lock);
	return t;
}

long ctty_set(struct tty *t, unsigned long arg, bool readable)
{
	struct thread_group *g = current()->group;
	long ret = 0;

	spin_lock(&proc_lock);
	if (mine_locked(t) && leader(g))
		ret = 0; /* already ours */
	else if (!leader(g) || session_has_tty_locked(g->sid))
		ret = -EPERM;
	else if (t->sid && (arg != 1 || !capable(CAP_SYS_ADMIN)))
		ret = -EPERM;
	else if (!readable && !capable(CAP_SYS_ADMIN))
		ret = -EPERM;
	else if (hung_up(t))
		ret = -EIO;
	else
		acquire_locked(t, g);
	spin_unlock(&proc_lock);
	return ret;
}

/* TIOCNOTTY by the session leader: the session loses t, and its
 * foreground group gets SIGHUP and SIGCONT (Linux's disassociate_ctty).
 * Another member gets 0 and keeps seeing t: terminals belong to
 * sessions here, not to each process (docs/tty.md). */
static long drop_ctty(struct tty *t)
{
	int fg = 0;
	long ret = 0;

	spin_lock(&proc_lock);
	if (!mine_locked(t))
		ret = -ENOTTY;
	else if (leader(current()->group))
		fg = release_locked(t);
	if (fg) {
		signal_send_group_locked(fg, SIGHUP, 0);
		signal_send_group_locked(fg, SIGCONT, 0);
	}
	spin_unlock(&proc_lock);
	return ret;
}

struct pgrp_probe {
	int pgid;
	int sid; /* of a live member, or 0 */
};

static bool probe_pgrp(struct task *task, void *arg)
{
	struct pgrp_probe *p = arg;

	if (task->group->pgid == p->pgid && task->group->state == GROUP_LIVE)
		p->sid = task->group->sid;
	return !p->sid;
}

/* TIOCSPGRP: a group of the caller's session becomes the foreground. */
static long set_fg(struct tty *t, const int *upgrp)
{
	struct pgrp_probe p = {0, 0};
	long ret = ctty_check(t, SIGTTOU);

	if (ret)
		return ret == -EIO ? -ENOTTY : ret;
	if (copy_from_user(&p.pgid, upgrp, sizeof(p.pgid)))
		return -EFAULT;
	spin_lock(&proc_lock);
	if (!mine_locked(t)) {
		ret = -ENOTTY;
	} else if (p.pgid < 0) {
		ret = -EINVAL;
	} else {
		/* The caller's number of it; one it cannot name is none. */
		if ((p.pgid = pid_from_vnr(p.pgid)))
			task_for_each_locked(probe_pgrp, &p);
		ret = !p.sid ? -ESRCH : p.sid != t->sid ? -EPERM : 0;
		if (!ret)
			__atomic_store_n(&t->fg_pgrp, p.pgid, __ATOMIC_RELAXED);
	}
	spin_unlock(&proc_lock);
	return ret;
}

/* TIOCGPGRP (fg_pgrp) and TIOCGSID (sid) of the caller's terminal; a pty
 * master asks without being it (a session it has not: TIOCGSID ENOTTY,
 * TIOCGPGRP 0, as Linux). */
static long get_id(struct tty *t, bool master, bool sid, int *uval)
{
	int val;

	spin_lock(&proc_lock);
	if (!master && !mine_locked(t))
		val = -1;
	else
		val = sid ? (t->sid ? pid_vnr(t->sid) : -1) : pid_vnr(t->fg_pgrp);
	spin_unlock(&proc_lock);
	if (val < 0)
		return -ENOTTY;
	return copy_to_user(uval, &val, sizeof(val));
}

long ctty_ioctl(struct tty *t, bool master, unsigned long cmd, unsigned long arg)
{
	switch (cmd) {
	case TIOCGPGRP:
		return get_id(t, master, false, (int *)arg);
	case TIOCGSID:
		return get_id(t, master, true, (int *)arg);
	case TIOCSPGRP:
		return set_fg(t, (const int *)arg);
	case TIOCNOTTY:
		return drop_ctty(t);
	}
	return -ENOIOCTLCMD;
}

int ctty_check(struct tty *t, int sig)
{
	struct task *task = current();
	bool ignored =
	    (task->sig.blocked & SIGBIT(sig)) || signal_action(task, sig).handler == UAPI_SIG_IGN;
	int ret = 0;

	spin_lock(&proc_lock);
	if (!mine_locked(t) || !t->fg_pgrp || task->group->pgid == t->fg_pgrp)
		ret = 0;
	else if (ignored)
		ret = sig == SIGTTIN ? -EIO : 0;
	else if (jobctl_pgrp_orphaned_locked(task->group->pgid))
		ret = -EIO;
	else
		ret = signal_send_group_locked(task->group->pgid, sig, 0) ? 0 : -ERESTARTSYS;
	spin_unlock(&proc_lock);
	return ret;
}

void ctty_signal_foreground(struct tty *t, int sig)
{
	int pgrp = __atomic_load_n(&t->fg_pgrp, __ATOMIC_RELAXED);

	if (pgrp)
		signal_send_group(pgrp, sig, 0);
}

void ctty_session_ended_locked(struct thread_group *g)
{
	struct tty *t;
	int fg = 0;

	if (!leader(g))
		return;
	spin_lock(&tty_list_lock);
	if ((t = session_tty_locked(g->sid)))
		fg = release_locked(t);
	spin_unlock(&tty_list_lock);
	if (fg) {
		signal_send_group_locked(fg, SIGHUP, 0);
		signal_send_group_locked(fg, SIGCONT, 0);
	}
}

void ctty_hangup(struct tty *t)
{
	struct task *lead;
	int sid;

	spin_lock(&proc_lock);
	sid = t->sid;
	release_locked(t);
	lead = sid ? task_find_locked(sid) : NULL;
	if (lead && lead->group->tgid == sid && lead->group->sid == sid &&
	    lead->group->state == GROUP_LIVE) {
		signal_send_process_locked(lead->group, SIGHUP, 0);
		signal_send_process_locked(lead->group, SIGCONT, 0);
	}
	spin_unlock(&proc_lock);
}
