/*
 * Tasks' namespaces (nsproxy.h): sharing them at clone, new ones at clone
 * and unshare, entering one with setns, and what /proc/<pid>/ns reads.
 */
#include "proc/nsproxy.h"
#include "ipc/ipc.h"
#include "fd/fdtable.h"
#include "fs/file.h"
#include "fs/nsfs.h"
#include "mm/heap.h"
#include "proc/group.h"
#include "proc/pid_info.h"
#include "proc/pidfd.h"
#include "proc/pid_ns.h"
#include "proc/proc.h"
#include "proc/task.h"
#include "time/timens.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/sched.h>

/* The kinds an nsproxy holds. */
#define NSPROXY_FLAGS (CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWTIME | CLONE_NEWPID)

/* init's, and the kernel threads': holds the initial namespaces' own
 * references. */
struct nsproxy init_nsproxy = {.refs = 1,
			       .uts = &init_uts_ns,
			       .ipc = &init_ipc_ns,
			       .time = &init_time_ns,
			       .time_for_children = &init_time_ns,
			       .pid_ns_for_children = &init_pid_ns};

struct nsproxy *current_nsproxy(void)
{
	struct nsproxy *n = current()->nsproxy;

	return n ? n : &init_nsproxy;
}

struct nsproxy *nsproxy_share(struct nsproxy *n)
{
	__atomic_add_fetch(&n->refs, 1, __ATOMIC_RELAXED);
	return n;
}

void nsproxy_put(struct nsproxy *n)
{
	if (!n || __atomic_sub_fetch(&n->refs, 1, __ATOMIC_ACQ_REL))
		return;
	uts_ns_put(n->uts);
	ipc_ns_put(n->ipc);
	timens_put(n->time);
	timens_put(n->time_for_children);
	pid_ns_put(n->pid_ns_for_children);
	kfree(n);
}

/* A new nsproxy with old's namespaces, but new ones for flags: NULL
 * when memory runs out (Linux's create_new_namespaces). */
static struct nsproxy *nsproxy_new(struct nsproxy *old, unsigned long flags,
				   struct user_namespace *owner)
{
	struct nsproxy *n = kzalloc(sizeof(*n));
	int err;

	if (!n)
		return NULL;
	n->refs = 1;
	if (!(flags & CLONE_NEWUTS))
		uts_ns_get(n->uts = old->uts);
	else if (!(n->uts = uts_ns_copy(old->uts, owner))) {
		kfree(n);
		return NULL;
	}
	if (!(flags & CLONE_NEWIPC))
		ipc_ns_get(n->ipc = old->ipc);
	else if (!(n->ipc = ipc_ns_new(owner))) {
		uts_ns_put(n->uts);
		kfree(n);
		return NULL;
	}
	if (!(flags & CLONE_NEWPID))
		pid_ns_get(n->pid_ns_for_children = old->pid_ns_for_children);
	else if (!(n->pid_ns_for_children = pid_ns_create(old->pid_ns_for_children, owner, &err))) {
		uts_ns_put(n->uts);
		ipc_ns_put(n->ipc);
		kfree(n);
		return NULL;
	}
	timens_get(n->time = old->time);
	if (!(flags & CLONE_NEWTIME))
		timens_get(n->time_for_children = old->time_for_children);
	else if (!(n->time_for_children = timens_copy(old->time_for_children, owner))) {
		n->time_for_children = old->time; /* referenced for nsproxy_put */
		timens_get(n->time);
		nsproxy_put(n);
		return NULL;
	}
	return n;
}

int nsproxy_check(unsigned long flags)
{
	if (!(flags & CLONE_NEWPID))
		return 0;
	return current_nsproxy()->pid_ns_for_children->level >= MAX_PID_NS_LEVEL ? -ENOSPC : 0;
}

/* n's task enters the time namespace of its children (n is private). */
static void time_enter_children(struct nsproxy *n)
{
	timens_get(n->time_for_children);
	timens_put(n->time);
	n->time = n->time_for_children;
}

/* A child with memory of its own enters the time namespace its parent's
 * children go to (Linux's timens_on_fork); a CLONE_VM child stays in its
 * parent's, as its address space's [vvar] does. */
int nsproxy_clone(struct task *child, const struct task *parent, unsigned long flags,
		  struct user_namespace *owner)
{
	struct nsproxy *from = parent->nsproxy ? parent->nsproxy : &init_nsproxy, *n;
	bool enter = !(flags & CLONE_VM) &&
		     ((flags & CLONE_NEWTIME) || from->time != from->time_for_children);

	n = (flags & NSPROXY_FLAGS) || enter ? nsproxy_new(from, flags, owner)
					     : nsproxy_share(from);
	if (!(child->nsproxy = n))
		return -ENOMEM;
	if (enter) {
		time_enter_children(n);
		timens_enter(n->time, child->uvm);
	}
	return 0;
}

int nsproxy_for_exec(struct nsproxy **out)
{
	struct nsproxy *from = current_nsproxy();

	*out = NULL;
	if (from->time == from->time_for_children)
		return 0;
	if (!(*out = nsproxy_new(from, 0, NULL)))
		return -ENOMEM;
	time_enter_children(*out);
	return 0;
}

struct nsproxy *nsproxy_copy_current(void)
{
	return nsproxy_new(current_nsproxy(), 0, NULL);
}

void nsproxy_switch(struct nsproxy *n)
{
	struct task *t = current();
	struct nsproxy *old;

	spin_lock(&proc_lock);
	old = t->nsproxy;
	t->nsproxy = n;
	spin_unlock(&proc_lock);
	nsproxy_put(old);
}

int nsproxy_unshare(unsigned long flags, struct user_namespace *owner)
{
	struct nsproxy *n;

	if (!(flags & NSPROXY_FLAGS))
		return 0;
	if (!(n = nsproxy_new(current_nsproxy(), flags, owner)))
		return -ENOMEM;
	nsproxy_switch(n);
	return 0;
}

void nsproxy_release(struct task *t)
{
	struct nsproxy *old;

	spin_lock(&proc_lock);
	old = t->nsproxy;
	t->nsproxy = NULL;
	spin_unlock(&proc_lock);
	nsproxy_put(old);
}

/* The kinds setns takes with a pidfd (Linux's check_setns_flags; cgroup
 * namespaces are a kind fdkernel lacks, EINVAL as in a Linux without). */
#define SETNS_PIDFD_FLAGS                                                                          \
	(CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWTIME |                \
	 CLONE_NEWUSER | CLONE_NEWPID)

/*
 * setns with a pidfd: the caller enters the namespaces of flags' kinds of
 * process pid, taken all first (ESRCH once it has exited, as Linux),
 * then entered in Linux's order.  The user namespace comes first, and
 * the others are then checked with the creds it gave; a failure after
 * it leaves it entered (Linux prepares all and commits them at once).
 * The mount namespace's failures (EPERM, EINVAL for a shared fs_struct)
 * come before it changes anything, and pid's EINVAL is checked first
 * too.
 */
static int setns_pidfd(struct file *f, unsigned long flags)
{
	static const enum ns_kind order[] = {NS_USER, NS_MNT, NS_UTS, NS_IPC,
					     NS_NET,  NS_PID, NS_TIME};
	struct ns_common *ns[NS_KINDS] = {0};
	int err = 0, pid;

	if (!flags || (flags & ~SETNS_PIDFD_FLAGS))
		return -EINVAL;
	if ((pid = pidfd_file_pid(f)) < 0)
		return pid;
	for (int k = 0; k < NS_KINDS && !err; k++)
		if ((flags & nsfs_clone_flag(k)) && !(ns[k] = proc_pid_ns(pid, k, &err)))
			err = -ESRCH;
	if (!err && pidfd_file_pid(f) != pid)
		err = -ESRCH; /* reaped meanwhile: pid may name another process */
	if (!err && ns[NS_PID])
		err = pid_ns_may_enter(ns[NS_PID]); /* its EINVAL before anything changes */
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]) && !err; i++)
		if (ns[order[i]])
			err = ns[order[i]]->ops->install(ns[order[i]]);
	for (int k = 0; k < NS_KINDS; k++)
		if (ns[k])
			ns[k]->ops->put(ns[k]);
	return err;
}

/* setns(fd, nstype): fd is a namespace file (nstype 0 or its kind's
 * CLONE_NEW*, else EINVAL) or a pidfd (nstype the kinds to enter). */
SYSCALL_DEFINE2(setns, int, fd, int, nstype)
{
	struct file *f = files_lookup(current()->files, fd);
	unsigned long flags = (unsigned int)nstype;
	struct ns_common *ns;
	int err;

	if (!f)
		return -EBADF;
	if ((ns = nsfs_of_file(f)))
		err = flags && flags != nsfs_clone_flag(ns->ops->kind) ? -EINVAL
								       : ns->ops->install(ns);
	else if (pidfd_file_pid(f) == -EBADF)
		err = -EINVAL;
	else
		err = setns_pidfd(f, flags);
	file_put(f);
	return err;
}
