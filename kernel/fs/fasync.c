/*
 * Signal-driven I/O (see fasync.h): the owner and signal of an open file,
 * the lists of O_ASYNC files, and the signal sent when their object
 * becomes ready.  The fcntl commands only validate and store; the work is
 * fasync_notify's.
 */
#include "fs/fasync.h"
#include "arch/x86_64/uaccess.h"
#include "fs/file.h"
#include "mm/heap.h"
#include "proc/cred.h"
#include "proc/group.h"
#include "proc/jobctl.h"
#include "proc/proc.h"
#include "proc/signal.h"
#include "proc/pid_ns.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/poll.h>

/*
 * A file's signal-driven I/O state (Linux's fown_struct and its
 * fasync_struct in one).  Owned by its file: allocated once (fown_of) and
 * freed by fasync_release when the file's last reference goes.
 */
struct fown {
	/* On *list while the file has O_ASYNC and its type has a list.
	 * The list's object outlives the entry: the file holds the object
	 * and fasync_release unlists the entry before the file's release
	 * drops it. */
	struct list_head link;
	struct fasync_list *list; /* NULL: on none */
	struct file *file;	  /* whose state this is: constant */
	/*
	 * The owner, as a number looked up under proc_lock at each use, so
	 * it cannot dangle: a process that exits leaves a number that names
	 * no one (F_GETOWN says 0, no signal goes).  Unlike Linux's
	 * reference to a struct pid, a number the pid allocator later gives
	 * to a new process names that process (docs/fds.md).
	 */
	int type; /* F_OWNER_TID, F_OWNER_PID, F_OWNER_PGRP */
	int id;	  /* its tid, pid or process-group id; 0: no owner */
	/* The real and effective uid of whoever last named an owner
	 * (F_SETOWN, F_SETOWN_EX, O_ASYNC's default): a signal goes only to
	 * a process it would have been allowed to signal (sigio_perm). */
	uint32_t uid, euid;
	int sig; /* F_SETSIG: 0 sends SIGIO without information */
	int fd;	 /* si_fd: the fd F_SETFL set O_ASYNC through */
};

/*
 * Protects every struct fown's fields and list membership and every
 * fasync_list.  Taken before proc_lock (a send holds both), never under
 * it; a spinlock, so an interrupt handler (the console's) may notify.
 */
static struct spinlock fasync_lock = SPINLOCK_INIT("fasync");
static unsigned long live_fowns; /* atomic */

unsigned long fasync_count(void)
{
	return __atomic_load_n(&live_fowns, __ATOMIC_RELAXED);
}

/* f's state, allocated by the first caller (set once: racing callers
 * agree on one); NULL when memory runs out. */
static struct fown *fown_of(struct file *f)
{
	struct fown *o = __atomic_load_n(&f->fown, __ATOMIC_ACQUIRE), *n;

	if (o)
		return o;
	if (!(n = kzalloc(sizeof(*n))))
		return NULL;
	list_init(&n->link);
	n->file = f;
	if (!__atomic_compare_exchange_n(&f->fown, &o, n, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		kfree(n);
		return o;
	}
	__atomic_add_fetch(&live_fowns, 1, __ATOMIC_RELAXED);
	return n;
}

void fasync_release(struct file *f)
{
	struct fown *o = f->fown; /* no one else holds f now */

	if (!o)
		return;
	spin_lock(&fasync_lock);
	if (o->list)
		list_del(&o->link);
	spin_unlock(&fasync_lock);
	kfree(o);
	__atomic_sub_fetch(&live_fowns, 1, __ATOMIC_RELAXED);
}

/* ---- owners: numbers looked up under proc_lock ---- */

struct pgrp_walk {
	int pgid;
	bool hit;
	int sig;		     /* 0: only look */
	const struct sig_info *info; /* what goes with sig */
	const struct fown *from;     /* whose signal (sigio_perm) */
};

static void send_process_locked(const struct fown *o, struct thread_group *g, int sig,
				const struct sig_info *info);

/* Each process of the group: its leader stands for it (proc_lock held). */
static bool pgrp_one(struct task *t, void *arg)
{
	struct pgrp_walk *w = arg;
	struct thread_group *g = t->group;

	if (!task_is_leader(t) || g->pgid != w->pgid || g->state == GROUP_DEAD)
		return true;
	w->hit = true;
	if (w->sig)
		send_process_locked(w->from, g, w->sig, w->info);
	return w->sig != 0; /* looking: the first member answers */
}

/* Linux's find_vpid: n is some task's id, or a live group's or session's
 * (proc_lock held). */
static bool id_in_use_locked(int n)
{
	struct pgrp_walk w = {.pgid = n};

	if (task_find_locked(n))
		return true;
	task_for_each_locked(pgrp_one, &w);
	return w.hit;
}

/* Linux's pid_task: whether the owner still names a task (proc_lock held).
 * A process is there until reaped; a thread until it exits. */
static bool owner_alive_locked(int type, int id)
{
	struct task *t = id ? task_find_locked(id) : NULL;
	struct pgrp_walk w = {.pgid = id};

	switch (type) {
	case F_OWNER_TID:
		return t && (!task_exited(t) || task_is_leader(t));
	case F_OWNER_PID:
		return t && task_is_leader(t) && t->group->state != GROUP_DEAD;
	}
	if (id)
		task_for_each_locked(pgrp_one, &w);
	return w.hit;
}

/* The owner's (type, id) as F_GETOWN_EX reports it: id 0 once gone. */
static void owner_read(struct file *f, int *type, int *id)
{
	struct fown *o = __atomic_load_n(&f->fown, __ATOMIC_ACQUIRE);

	*type = F_OWNER_TID; /* Linux's default: PIDTYPE_PID, pid none */
	*id = 0;
	if (!o)
		return;
	spin_lock(&fasync_lock);
	*type = o->type;
	spin_lock(&proc_lock);
	if (owner_alive_locked(o->type, o->id))
		*id = pid_vnr(o->id); /* as the caller numbers it (0: not at all) */
	spin_unlock(&proc_lock);
	spin_unlock(&fasync_lock);
}

/* o's sender ids become the caller's (fasync_lock held). */
static void owner_creds(struct fown *o)
{
	const struct cred *c = cred_current();

	o->uid = c->uid;
	o->euid = c->euid;
}

/* Makes (type, id) f's owner; id 0 clears it.  -ESRCH if id names no one. */
static long owner_set(struct file *f, int type, int id)
{
	struct fown *o;
	bool known;

	if (id > 0 && !(id = pid_from_vnr(id)))
		return -ESRCH; /* named in the caller's pid namespace; kept global */
	spin_lock(&proc_lock);
	known = !id || (id > 0 && id_in_use_locked(id));
	spin_unlock(&proc_lock);
	if (!known)
		return -ESRCH;
	if (!(o = fown_of(f)))
		return -ENOMEM;
	spin_lock(&fasync_lock);
	o->type = type;
	o->id = id;
	if (id) /* Linux's f_modown: the ids of whoever names an owner */
		owner_creds(o);
	spin_unlock(&fasync_lock);
	return 0;
}

int fasync_own_default(struct file *f)
{
	struct fown *o = fown_of(f);

	if (!o)
		return -ENOMEM;
	spin_lock(&fasync_lock);
	if (!o->id) { /* an owner that exited still counts, as Linux's pid */
		o->type = F_OWNER_PID;
		o->id = current()->group->tgid;
		owner_creds(o);
	}
	spin_unlock(&fasync_lock);
	return 0;
}

int fasync_prepare(struct file *f)
{
	return fown_of(f) ? 0 : -ENOMEM;
}

void fasync_disown(struct file *f)
{
	struct fown *o = __atomic_load_n(&f->fown, __ATOMIC_ACQUIRE);

	if (!o)
		return;
	spin_lock(&fasync_lock);
	o->type = F_OWNER_PID; /* Linux's PIDTYPE_TGID, pid none */
	o->id = 0;
	__atomic_store_n(&o->sig, 0, __ATOMIC_RELAXED);
	spin_unlock(&fasync_lock);
}

/* F_SETOWN: a process, or (negative) a process group. */
static long setown(struct file *f, int who)
{
	if (who == INT32_MIN)
		return -EINVAL; /* its negation overflows */
	return who < 0 ? owner_set(f, F_OWNER_PGRP, -who) : owner_set(f, F_OWNER_PID, who);
}

static long getown(struct file *f)
{
	int type, id;

	owner_read(f, &type, &id);
	return type == F_OWNER_PGRP ? -id : id;
}

static long setown_ex(struct file *f, const struct f_owner_ex *uown)
{
	struct f_owner_ex own;

	if (copy_from_user(&own, uown, sizeof(own)))
		return -EFAULT;
	if (own.type != F_OWNER_TID && own.type != F_OWNER_PID && own.type != F_OWNER_PGRP)
		return -EINVAL;
	return owner_set(f, own.type, own.pid); /* a negative pid names no one */
}

static long getown_ex(struct file *f, struct f_owner_ex *uown)
{
	struct f_owner_ex own;

	owner_read(f, &own.type, &own.pid);
	return copy_to_user(uown, &own, sizeof(own)) ? -EFAULT : 0;
}

/* F_SETSIG: 0 (plain SIGIO) to 64; Linux's valid_signal reads it unsigned. */
static long setsig(struct file *f, unsigned long arg)
{
	unsigned int sig = (unsigned int)arg; /* Linux reads an int */
	struct fown *o;

	if (sig > UAPI_NSIG)
		return -EINVAL;
	if (!(o = fown_of(f)))
		return -ENOMEM;
	__atomic_store_n(&o->sig, (int)sig, __ATOMIC_RELAXED);
	return 0;
}

long fasync_fcntl(struct file *f, unsigned int cmd, unsigned long arg)
{
	struct fown *o;

	switch (cmd) {
	case F_SETOWN:
		return setown(f, (int)arg);
	case F_GETOWN:
		return getown(f);
	case F_SETOWN_EX:
		return setown_ex(f, (const struct f_owner_ex *)arg);
	case F_GETOWN_EX:
		return getown_ex(f, (struct f_owner_ex *)arg);
	case F_SETSIG:
		return setsig(f, arg);
	case F_GETSIG:
		o = __atomic_load_n(&f->fown, __ATOMIC_ACQUIRE);
		return o ? __atomic_load_n(&o->sig, __ATOMIC_RELAXED) : 0;
	}
	return -EINVAL;
}

int fasync_setfl(struct file *f, int fd, unsigned int set, unsigned int mask)
{
	struct fasync_list *l = f->ops && f->ops->fasync ? f->ops->fasync(f) : NULL;
	struct fown *o = NULL;
	unsigned int old;

	if (l && (set & O_ASYNC) && !(o = fown_of(f)))
		return -ENOMEM;
	spin_lock(&fasync_lock);
	old = __atomic_load_n(&f->flags, __ATOMIC_RELAXED);
	if (l && ((old ^ set) & mask & O_ASYNC)) {
		o = f->fown; /* allocated above when turning on */
		if (set & O_ASYNC) {
			o->fd = fd;
			o->list = l;
			list_add_tail(&o->link, &l->head);
		} else if (o && o->list) {
			list_del(&o->link);
			o->list = NULL;
		}
	}
	/* A CAS: ioctl's FIONBIO changes O_NONBLOCK without this lock. */
	while (!__atomic_compare_exchange_n(&f->flags, &old, (old & ~mask) | set, true,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	spin_unlock(&fasync_lock);
	return 0;
}

/* ---- sending ---- */

/* si_band for each POLL_* code (Linux's band_table). */
static const long band_of[] = {
    [POLL_IN] = POLLIN | POLLRDNORM,
    [POLL_OUT] = POLLOUT | POLLWRNORM | POLLWRBAND,
    [POLL_MSG] = POLLIN | POLLRDNORM | POLLMSG,
    [POLL_ERR] = POLLERR,
    [POLL_PRI] = POLLPRI | POLLRDBAND,
    [POLL_HUP] = POLLHUP | POLLERR,
};

/* Plain SIGIO: what F_SETSIG 0 sends, and the fallback when a queued
 * signal finds no room (Linux's SEND_SIG_PRIV). */
static const struct sig_info sigio_plain = {.code = SI_KERNEL};

/* Signals whose own si_codes would clash with POLL_* (Linux's
 * sig_specific_sicodes, but SIGPOLL itself). */
static bool has_own_codes(int sig)
{
	return sig == SIGILL || sig == SIGTRAP || sig == SIGBUS || sig == SIGFPE ||
	       sig == SIGSEGV || sig == SIGCHLD || sig == SIGSYS;
}

/*
 * Linux's sigio_perm: whoever named the owner had effective uid 0 (the
 * id, not a capability, as Linux), or its real or effective uid is the
 * receiver's real or saved uid.  Otherwise the signal is dropped
 * silently.  proc_lock held.
 */
static bool sigio_perm(const struct fown *o, const struct thread_group *g)
{
	const struct cred *c = group_cred(g);

	return o->euid == 0 || o->euid == c->suid || o->euid == c->uid || o->uid == c->suid ||
	       o->uid == c->uid;
}

static void send_process_locked(const struct fown *o, struct thread_group *g, int sig,
				const struct sig_info *info)
{
	if (g->state != GROUP_LIVE || !sigio_perm(o, g))
		return;
	if (signal_send_process_info_locked(g, sig, info) && sig != SIGIO)
		signal_send_process_info_locked(g, SIGIO, &sigio_plain);
}

static void send_thread_locked(const struct fown *o, struct task *t, int sig,
			       const struct sig_info *info)
{
	if (task_exited(t) || !sigio_perm(o, t->group))
		return;
	jobctl_signal_sent(t->group, sig); /* a stop or SIGCONT acts on the process */
	if (signal_send_info(t, sig, info) && sig != SIGIO)
		signal_send_info(t, SIGIO, &sigio_plain);
}

/* o's owner gets o's signal for reason, with si_fd fd (fasync_lock and
 * proc_lock held): Linux's send_sigio. */
static void fown_signal_locked(struct fown *o, int reason, int fd)
{
	struct sig_info info = sigio_plain;
	int sig = o->sig ? o->sig : SIGIO;
	struct task *t;

	if (o->sig) {
		info.code = has_own_codes(sig) ? SI_SIGIO : reason;
		info.poll.band = band_of[reason];
		info.poll.fd = fd;
	}
	if (o->type == F_OWNER_PGRP) {
		struct pgrp_walk w = {.pgid = o->id, .sig = sig, .info = &info, .from = o};
		task_for_each_locked(pgrp_one, &w);
	} else if ((t = task_find_locked(o->id))) {
		if (o->type == F_OWNER_TID)
			send_thread_locked(o, t, sig, &info);
		else if (task_is_leader(t))
			send_process_locked(o, t->group, sig, &info);
	}
}

/* Whether f hears of reason on l: a pipe's readers of POLL_IN, its
 * writers of POLL_OUT. */
static bool hears(const struct fasync_list *l, const struct file *f, int reason)
{
	if (!l->by_mode)
		return true;
	return reason == POLL_IN ? file_can_read(f) : reason == POLL_OUT ? file_can_write(f) : true;
}

void fasync_notify(struct fasync_list *l, int reason)
{
	struct fown *o;

	/* The common case, no O_ASYNC file, costs one load; a file joining
	 * meanwhile hears of the next change. */
	if (__atomic_load_n(&l->head.next, __ATOMIC_RELAXED) == &l->head)
		return;
	spin_lock(&fasync_lock);
	list_for_each_entry(o, &l->head, link)
	{
		if (!o->id || !hears(l, o->file, reason))
			continue;
		spin_lock(&proc_lock);
		fown_signal_locked(o, reason, o->fd);
		spin_unlock(&proc_lock);
	}
	spin_unlock(&fasync_lock);
}

void fasync_signal(struct file *f, int fd, int reason)
{
	struct fown *o = __atomic_load_n(&f->fown, __ATOMIC_ACQUIRE);

	if (!o)
		return;
	spin_lock(&fasync_lock);
	if (o->id) {
		spin_lock(&proc_lock);
		fown_signal_locked(o, reason, fd);
		spin_unlock(&proc_lock);
	}
	spin_unlock(&fasync_lock);
}
