/*
 * clone, fork and vfork.  A clone shares with its parent what the flags
 * say (memory, files table, fs context, handlers, thread group) and copies
 * the rest: a copy-on-write address space, the files table without its
 * close-on-fork fds, the working directory, the handlers.  The child
 * starts from the calling thread's user registers with rax = 0.
 */
#include "arch/x86_64/uaccess.h"
#include "fd/fdtable.h"
#include "fs/mount.h"
#include "fs/root_cwd.h"
#include "ipc/ipc.h"
#include "mm/paging.h"
#include "proc/cred.h"
#include "proc/clone.h"
#include "proc/exit.h"
#include "proc/group.h"
#include "proc/nproc.h"
#include "proc/nsproxy.h"
#include "proc/pidfd.h"
#include "proc/pid_ns.h"
#include "proc/proc.h"
#include "proc/user_namespace.h"
#include "mm/uvm.h"
#include "sched/sched.h"
#include "sys/strace.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/sched.h>

/* Flags fdkernel acts on, or accepts as Linux ignores them
 * (CLONE_DETACHED; CLONE_UNTRACED, CLONE_IO: no tracing, one I/O
 * context). */
#define CLONE_KNOWN                                                                                \
	(CSIGNAL | CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_VFORK |               \
	 CLONE_PARENT | CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS | CLONE_PARENT_SETTID |        \
	 CLONE_CHILD_CLEARTID | CLONE_DETACHED | CLONE_UNTRACED | CLONE_CHILD_SETTID | CLONE_IO |  \
	 CLONE_PIDFD | CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWPID | CLONE_NEWUSER)
#define CLONE_NAMESPACES                                                                           \
	(CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER |             \
	 CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWTIME)

/* Linux's kernel_clone and copy_process checks, in its order: 0 or -EINVAL. */
static int clone_check(const struct clone_req *r)
{
	unsigned long flags = r->flags;

	if ((flags & (CLONE_NEWNS | CLONE_FS)) == (CLONE_NEWNS | CLONE_FS) ||
	    (flags & (CLONE_NEWUSER | CLONE_FS)) == (CLONE_NEWUSER | CLONE_FS))
		return -EINVAL;
	if ((flags & CLONE_THREAD) && !(flags & CLONE_SIGHAND))
		return -EINVAL;
	/* A thread group lives in one user namespace. */
	if ((flags & CLONE_THREAD) && (flags & CLONE_NEWUSER))
		return -EINVAL;
	if ((flags & CLONE_SIGHAND) && !(flags & CLONE_VM))
		return -EINVAL;
	if ((flags & CLONE_PARENT) &&
	    (current()->group->tgid == 1 || pid_ns_is_reaper(current()->group)))
		return -EINVAL; /* an init has no parent to share (Linux's SIGNAL_UNKILLABLE) */
	/* A thread is in its process's pid namespace: not a new one, nor
	 * where the caller's children go after setns or unshare. */
	if ((flags & CLONE_THREAD) &&
	    ((flags & CLONE_NEWPID) || current_nsproxy()->pid_ns_for_children != current_pid_ns()))
		return -EINVAL;
	/* clone() returns the pidfd where CLONE_PARENT_SETTID writes the tid:
	 * both at one address is EINVAL, as for clone3. */
	if ((flags & CLONE_PIDFD) && (flags & CLONE_PARENT_SETTID) && r->pidfd == r->parent_tid)
		return -EINVAL;
	if ((flags & CLONE_PIDFD) && (flags & (CLONE_DETACHED | CLONE_THREAD)))
		return -EINVAL; /* no thread pidfds (Linux 6.9 has them) */
	/* A new ipc namespace cannot share the old one's undo list. */
	if ((flags & (CLONE_NEWIPC | CLONE_SYSVSEM)) == (CLONE_NEWIPC | CLONE_SYSVSEM))
		return -EINVAL;
	/* A new namespace of any kind but user needs CAP_SYS_ADMIN over the
	 * caller's user namespace, asked first (Linux's copy_namespaces);
	 * with a new user namespace, over that one, which the child has.
	 * Then mount, uts, ipc, pid and user ones only: Linux built without
	 * the others answers EINVAL. */
	if (((flags & CLONE_NAMESPACES & ~(CLONE_NEWUSER | CLONE_NEWTIME)) || r->newtime) &&
	    !(flags & CLONE_NEWUSER) && !ns_capable(current_user_ns(), CAP_SYS_ADMIN))
		return -EPERM; /* CLONE_NEWTIME is clone3's (clone's CSIGNAL bits) */
	if (flags & ~CLONE_KNOWN)
		return -EINVAL;
	if ((flags & CLONE_SETTLS) && r->tls >= USER_END)
		return -EPERM; /* as ARCH_SET_FS */
	return nsproxy_check(flags);
}

/* The child's shares and copies of the parent's resources, its new
 * namespaces owned by owner: 0, -ENOMEM or -EMFILE (files_fork; the
 * caller releases what was taken). */
static int clone_resources(struct task *child, struct task *parent, const struct clone_req *r,
			   struct user_namespace *owner)
{
	unsigned long flags = r->flags;
	int err;

	struct uvm *u = flags & CLONE_VM ? uvm_share(parent->uvm) : uvm_fork(parent->uvm);

	task_swap_uvm(child, u);
	if (!u)
		return -ENOMEM;
	child->files =
	    flags & CLONE_FILES ? files_share(parent->files) : files_fork(parent->files, &err);
	if (!child->files)
		return flags & CLONE_FILES ? -ENOMEM : err;
	child->fs = flags & CLONE_FS ? fs_share(parent->fs) : fs_copy(parent->fs);
	if (!child->fs || ((flags & CLONE_NEWNS) && mnt_ns_copy(child->fs, owner)) ||
	    nsproxy_clone(child, parent, (flags & ~CSIGNAL) | (r->newtime ? CLONE_NEWTIME : 0),
			  owner))
		return -ENOMEM;
	/* A thread's pid is in its process's namespace; a process's where
	 * the parent's children go (a new one with CLONE_NEWPID). */
	if ((err = pid_numbers_attach(child,
				      flags & CLONE_THREAD ? task_pid_ns(parent)
							   : child->nsproxy->pid_ns_for_children,
				      r->set_tid, r->set_tid_size)))
		return err;
	if ((err = sem_undo_fork(child, parent, flags & CLONE_SYSVSEM)))
		return err;
	err = signal_clone(child, parent, flags & CLONE_SIGHAND);
	/* A thread would share the alternate stack: it starts without one; a
	 * fork or vfork child keeps it (Linux). */
	if ((flags & (CLONE_VM | CLONE_VFORK)) != CLONE_VM)
		child->sig.altstack = parent->sig.altstack;
	if (!err && r->clear_sighand)
		signal_exec(child); /* what exec does: all but SIG_IGN to default */
	return err;
}

/* The caller's user registers, but rax = 0, and the new stack and TLS. */
static void clone_registers(struct task *child, struct task *parent, const struct clone_req *r)
{
	*child->tf = *parent->tf;
	fpu_save(&child->fpu); /* the parent's live registers */
	child->tf->rax = 0;
	if (r->stack)
		child->tf->rsp = r->stack;
	child->fsbase = r->flags & CLONE_SETTLS ? r->tls : parent->fsbase;
	child->gsbase = parent->gsbase;
	if (r->flags & CLONE_CHILD_CLEARTID)
		child->clear_child_tid = r->child_tid;
	if (r->flags & CLONE_CHILD_SETTID)
		child->set_child_tid = r->child_tid;
}

/* A new process for child: parent process, groups, exit signal (proc_lock held). */
static void join_new_process_locked(struct thread_group *g, struct task *child,
				    const struct clone_req *r)
{
	struct thread_group *self = current()->group;

	group_add_thread_locked(g, child);
	g->parent = r->flags & CLONE_PARENT ? self->parent : self;
	g->parent_tid = r->flags & CLONE_PARENT ? self->parent_tid : current()->pid;
	g->exit_signal = r->flags & CLONE_PARENT ? self->exit_signal : (int)(r->flags & CSIGNAL);
	g->pgid = self->pgid;
	g->sid = self->sid;
	list_add_tail(&g->sibling, &g->parent->children);
}

/*
 * Makes child visible in its thread group: a new one, with creds cred
 * when not NULL (taken over), or the caller's with CLONE_THREAD.  0,
 * -ENOMEM, or -EINTR if the caller's process is dying (exit_group or
 * exec in progress: the caller is being killed too).
 */
static int clone_join(struct task *child, const struct clone_req *r, struct cred **cred)
{
	struct thread_group *self = current()->group, *g = NULL;
	bool exempt = capable(CAP_SYS_RESOURCE) || capable(CAP_SYS_ADMIN);
	int err = 0;

	if (!(r->flags & CLONE_THREAD) && !(g = group_create(child)))
		return -ENOMEM;
	if (g && *cred) {
		cred_group_set(g, *cred); /* g unseen yet */
		*cred = NULL;
	}
	child->cpus_allowed = sched_affinity(current()); /* child unseen yet */
	spin_lock(&proc_lock);
	prctl_clone(child, current());
	if (self->exiting)
		err = -EINTR;
	else if (nproc_fork_refused_locked(self, exempt))
		err = -EAGAIN; /* RLIMIT_NPROC */
	else if (!(err = sched_policy_clone_locked(child, current()))) { /* EAGAIN: deadline */
		if (g) {
			join_new_process_locked(g, child, r);
			pid_ns_new_process_locked(child);
		} else {
			group_add_thread_locked(self, child);
		}
	}
	spin_unlock(&proc_lock);
	if (err && g)
		group_free_unused(g);
	return err;
}

/* The parent stops waiting for child (proc_lock held): the child's pointer
 * to it goes, so the parent may exit and be freed before the child. */
static void vfork_detach_locked(struct task *parent, struct task *child)
{
	child->vfork_parent = NULL;
	__atomic_store_n(&parent->vfork_pending, false, __ATOMIC_RELEASE);
}

/* vfork: the parent sleeps until the child execs or exits; only SIGKILL
 * ends the wait early (Linux's killable wait), other signals wait for
 * it.  child stays allocated while vfork_pending: its exit clears it. */
static void vfork_wait(struct task *parent, struct task *child)
{
	DEFINE_WAIT(we);

	for (;;) {
		prepare_to_wait(&parent->vfork_wait, &we);
		if (!__atomic_load_n(&parent->vfork_pending, __ATOMIC_ACQUIRE))
			break;
		if (signal_pending_set(parent) & SIGBIT(SIGKILL)) {
			spin_lock(&proc_lock);
			if (parent->vfork_pending)
				vfork_detach_locked(parent, child);
			spin_unlock(&proc_lock);
			break;
		}
		schedule();
	}
	finish_wait(&parent->vfork_wait, &we);
}

void vfork_done(struct task *child)
{
	struct task *p;

	spin_lock(&proc_lock);
	if ((p = child->vfork_parent)) {
		vfork_detach_locked(p, child);
		wake_up(&p->vfork_wait);
	}
	spin_unlock(&proc_lock);
}

void clone_child_start(struct task *t)
{
	int tid = task_nr(t);

	/* Linux ignores a fault here, as for CLONE_PARENT_SETTID. */
	(void)copy_to_user((void *)t->set_child_tid, &tid, sizeof(tid));
	t->set_child_tid = 0;
}

/* CLONE_PIDFD: a pidfd reserved for the child and written to the
 * caller's memory first (EFAULT ends the clone, as Linux): the fd, or
 * -errno; *pf holds its file until pidfd_clone_install. */
static int clone_pidfd(const struct clone_req *r, struct file **pf)
{
	int fd = pidfd_clone_reserve(pf);

	if (fd >= 0 && copy_to_user((void *)r->pidfd, &fd, sizeof(fd))) {
		pidfd_clone_cancel(fd, *pf);
		return -EFAULT;
	}
	return fd;
}

/* CLONE_NEWUSER: the child's creds, in a new user namespace (*cred,
 * else NULL): 0 or -errno (user_ns_create's). */
static int clone_user_ns(const struct clone_req *r, struct cred **cred)
{
	int err;

	*cred = NULL;
	if (!(r->flags & CLONE_NEWUSER))
		return 0;
	if (!(*cred = cred_dup_current()))
		return -ENOMEM;
	if ((err = user_ns_create(*cred))) {
		cred_put(*cred);
		*cred = NULL;
	}
	return err;
}

long do_clone(const struct clone_req *r)
{
	struct task *parent = current(), *child;
	int err = clone_check(r), tid, pidfd = -1;
	struct file *pf = NULL;
	struct cred *cred;

	if (err || (err = clone_user_ns(r, &cred)))
		return err;
	if ((r->flags & CLONE_PIDFD) && (pidfd = clone_pidfd(r, &pf)) < 0) {
		cred_put(cred);
		return pidfd;
	}
	if (!(child = task_alloc(parent->name))) {
		err = -EAGAIN; /* TASK_MAX tasks, threads included */
		goto fail_pidfd;
	}
	/* The owner of the child's new namespaces: its user namespace (cred
	 * holds it), else the caller's (its process holds it). */
	if ((err = clone_resources(child, parent, r, cred ? cred->user_ns : current_user_ns())))
		goto fail;
	clone_registers(child, parent, r);
	if ((err = clone_join(child, r, &cred)))
		goto fail;
	tid = pid_nr_ns(child->pid, task_pid_ns(parent)); /* as the parent numbers it */
	if (pf) /* before the child can run, and so exit */
		pidfd_clone_install(pidfd, pf, child->group);
	strace_fork(child, parent);
	if (r->flags & CLONE_PARENT_SETTID)
		(void)copy_to_user((void *)r->parent_tid, &tid, sizeof(tid)); /* faults ignored */
	if (r->flags & CLONE_VFORK) {
		parent->vfork_pending = true;
		child->vfork_parent = parent;
	}
	sched_make_runnable(child); /* from here on the child may exit and be freed */
	if (r->flags & CLONE_VFORK)
		vfork_wait(parent, child);
	return tid;

fail:
	task_release_resources(child);
	task_free(child);
fail_pidfd:
	if (pf)
		pidfd_clone_cancel(pidfd, pf);
	cred_put(cred);
	return err;
}

SYSCALL_DEFINE5(clone, unsigned long, flags, uint64_t, stack, uint64_t, parent_tid, uint64_t,
		child_tid, uint64_t, tls)
{
	struct clone_req r = {.flags = flags,
			      .stack = stack,
			      .parent_tid = parent_tid,
			      .child_tid = child_tid,
			      .tls = tls,
			      .pidfd = parent_tid};

	return do_clone(&r);
}

/* Flags unshare takes (Linux's list); the namespaces among them but mount,
 * uts, ipc, pid, time and user ones give EINVAL below, as in a Linux
 * built without them. */
#define UNSHARE_NAMESPACES                                                                         \
	(CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWPID | CLONE_NEWTIME | CLONE_NEWUSER)
#define UNSHARE_KNOWN                                                                              \
	(CLONE_THREAD | CLONE_FS | CLONE_SIGHAND | CLONE_VM | CLONE_FILES | CLONE_SYSVSEM |        \
	 CLONE_NAMESPACES)

/* unshare's flags that ask to leave something the caller cannot leave
 * alone: the thread group, or handlers or memory shared with others
 * (Linux: CLONE_VM implies CLONE_SIGHAND, which implies CLONE_THREAD). */
static bool unshare_refused(struct task *t, unsigned long flags)
{
	if ((flags & (CLONE_THREAD | CLONE_SIGHAND | CLONE_VM)) &&
	    __atomic_load_n(&t->group->live, __ATOMIC_ACQUIRE) > 1)
		return true;
	if ((flags & (CLONE_SIGHAND | CLONE_VM)) &&
	    __atomic_load_n(&t->sighand->refs, __ATOMIC_ACQUIRE) > 1)
		return true;
	return (flags & CLONE_VM) && __atomic_load_n(&t->uvm->users, __ATOMIC_ACQUIRE) > 1;
}

/* A private fs context for t: 0 or -ENOMEM. */
static int fs_unshare(struct task *t)
{
	struct fs_struct *copy;

	if (__atomic_load_n(&t->fs->refs, __ATOMIC_ACQUIRE) == 1)
		return 0;
	if (!(copy = fs_copy(t->fs)))
		return -ENOMEM;
	fs_put(task_swap_fs(t, copy));
	return 0;
}

/* CLONE_NEWUSER: new creds in a new user namespace, cred_lock held until
 * unshare commits or drops them (*new, else NULL): 0 or -errno. */
static int unshare_user_ns(unsigned long flags, struct cred **new)
{
	int err;

	*new = NULL;
	if (!(flags & CLONE_NEWUSER))
		return 0;
	if (!(*new = cred_prepare()))
		return -ENOMEM;
	if ((err = user_ns_create(*new))) {
		cred_abort(*new);
		*new = NULL;
	}
	return err;
}

/* unshare's steps after the user namespace's: the rest owned by owner. */
static int unshare_rest(struct task *t, unsigned long flags, struct user_namespace *owner)
{
	int err = 0;

	if (flags & CLONE_NEWIPC)
		flags |= CLONE_SYSVSEM; /* the undo list is the old namespace's */
	if (flags & CLONE_NEWNS)
		flags |= CLONE_FS; /* a namespace of its own needs an fs_struct of its own */
	if (flags & CLONE_FS)
		err = fs_unshare(t);
	if (!err && (flags & CLONE_NEWNS))
		err = mnt_ns_copy(t->fs, owner);
	if (!err && (flags & CLONE_SYSVSEM))
		sem_undo_exit(t); /* as exit for its undo list (Linux) */
	if (!err)
		err = nsproxy_unshare(flags, owner);
	if (!err && (flags & CLONE_FILES))
		err = task_unshare_files(t);
	return err;
}

/* unshare(CLONE_FILES | CLONE_FS): the caller gets its own copies (of every
 * fd, flags included; of the working directory); CLONE_NEWNS and
 * CLONE_NEWUTS: new namespaces, copies of its own; CLONE_NEWIPC: a new
 * empty one (and CLONE_SYSVSEM with it); CLONE_NEWUSER: a new user
 * namespace, which then owns the others made with it.  Leaving a thread
 * group, shared handlers or shared memory is EINVAL, as Linux; alone in
 * them, the call succeeds and changes nothing. */
SYSCALL_DEFINE1(unshare, unsigned long, flags)
{
	struct task *t = current();
	struct cred *new;
	int err = 0;

	/* A process in a user namespace is one thread with an fs_struct of
	 * its own (Linux). */
	if (flags & CLONE_NEWUSER)
		flags |= CLONE_THREAD | CLONE_FS;
	if ((flags & ~UNSHARE_KNOWN) || (flags & CLONE_NAMESPACES & ~UNSHARE_NAMESPACES) ||
	    unshare_refused(t, flags))
		return -EINVAL;
	if ((flags & UNSHARE_NAMESPACES & ~CLONE_NEWUSER) && !(flags & CLONE_NEWUSER) &&
	    !ns_capable(current_user_ns(), CAP_SYS_ADMIN))
		return -EPERM;
	/* A second CLONE_NEWPID before a child entered the first: EINVAL
	 * (Linux's copy_pid_ns). */
	if ((flags & CLONE_NEWPID) && current_nsproxy()->pid_ns_for_children != current_pid_ns())
		return -EINVAL;
	if ((err = nsproxy_check(flags)))
		return err;
	if ((err = unshare_user_ns(flags, &new)))
		return err;
	err = unshare_rest(t, flags, new ? new->user_ns : current_user_ns());
	if (new && !err)
		cred_commit(new);
	else if (new)
		cred_abort(new);
	return err;
}

SYSCALL_DEFINE0(fork)
{
	struct clone_req r = {.flags = SIGCHLD};

	return do_clone(&r);
}

SYSCALL_DEFINE0(vfork)
{
	struct clone_req r = {.flags = CLONE_VFORK | CLONE_VM | SIGCHLD};

	return do_clone(&r);
}
