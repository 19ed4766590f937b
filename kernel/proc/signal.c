/*
 * Signal sending, default actions and delivery (see signal.h).  Senders
 * only set a pending bit and wake a target thread; everything else happens
 * in the thread itself on its way back to user mode.  A thread's own set
 * needs only atomic updates; a process's set, its info and the choice of
 * a thread are under proc_lock (the thread list); actions under their
 * sighand's lock.
 */
#include "proc/signal.h"
#include "proc/coredump.h"
#include "proc/cred.h"
#include "fs/proc/proc_sys.h"
#include "arch/x86_64/sigframe.h"
#include "arch/x86_64/uaccess.h"
#include "async/async.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "proc/exit.h"
#include "proc/fault_report.h"
#include "proc/group.h"
#include "proc/pid_ns.h"
#include "proc/user_namespace.h"
#include "proc/jobctl.h"
#include "mm/heap.h"
#include "mm/layout.h"
#include "proc/proc.h"
#include "proc/rlimit.h"
#include "sched/sched.h"
#include "proc/task.h"
#include <uapi/errno.h>

/* /proc/sys/kernel/core_pattern: where a core-dumping signal's core goes
 * (Linux's default, "core" in the cwd).  proc_sys_lock's. */
char core_pattern[CORENAME_MAX_SIZE] = "core";
PROC_SYS_ROW(core_pattern_row, .path = "kernel/core_pattern", .mode = 0644, .text = true,
	     .show = proc_sys_string_show, .store = proc_sys_string_store, .data = core_pattern,
	     .max = CORENAME_MAX_SIZE);

#define DEFAULT_IGNORE (SIGBIT(SIGCHLD) | SIGBIT(SIGURG) | SIGBIT(SIGWINCH) | SIGBIT(SIGCONT))

bool signal_default_kills(int sig)
{
	return !(SIGBIT(sig) & (DEFAULT_IGNORE | SIG_STOPS));
}

static uint64_t handler_of(const struct task *t, int sig)
{
	return __atomic_load_n(&t->sighand->action[sig - 1].handler, __ATOMIC_RELAXED);
}

struct uapi_sigaction signal_action(struct task *t, int sig)
{
	struct uapi_sigaction a;

	spin_lock(&t->sighand->lock);
	a = t->sighand->action[sig - 1];
	spin_unlock(&t->sighand->lock);
	return a;
}

/* t's handlers say sig is ignored (t: any thread of the receiving group). */
static bool ignored(const struct task *t, int sig)
{
	uint64_t h = handler_of(t, sig);

	if (sig == SIGKILL)
		return false;
	return h == UAPI_SIG_IGN || (h == UAPI_SIG_DFL && (SIGBIT(sig) & DEFAULT_IGNORE));
}

/* A signal with its default action for an init (Linux's
 * SIGNAL_UNKILLABLE): the global one ignores them all; a pid namespace's
 * all but SIGKILL and SIGSTOP sent from outside its namespace (an
 * ancestor's process, or the kernel), which end it. */
static bool init_ignores(const struct task *t, int sig)
{
	const struct thread_group *from = current()->group;

	if (t->group->tgid == 1)
		return true;
	if (!pid_ns_is_reaper(t->group))
		return false;
	return (sig != SIGKILL && sig != SIGSTOP) ||
	       (from && pid_nr_ns(from->tgid, task_pid_ns(t)));
}

/*
 * Init gets only the signals it has handlers for, as on Linux: a stray
 * kill must not end the system.  Its own faults still reach it.  A signal
 * t blocks is never dropped (Linux's sig_ignored): the handler may change
 * before it is unblocked, and a signalfd or sigwaitinfo may take it (a
 * blocked SIGCHLD, or an ignored signal a sigwaitinfo waits for).
 */
static bool dropped(const struct task *t, int sig)
{
	/* rt_sigtimedwait stores real_blocked, then the unblocked mask; at
	 * the end the old mask, then real_blocked 0 (both releases).  Read
	 * in the other order, and the mask once more: a wait ending between
	 * the reads still shows the signal blocked in one of them. */
	uint64_t blocked = __atomic_load_n(&t->sig.blocked, __ATOMIC_ACQUIRE);

	blocked |= __atomic_load_n(&t->sig.real_blocked, __ATOMIC_ACQUIRE);
	blocked |= __atomic_load_n(&t->sig.blocked, __ATOMIC_RELAXED);
	if (blocked & SIGBIT(sig))
		return false;
	return ignored(t, sig) || (handler_of(t, sig) == UAPI_SIG_DFL && init_ignores(t, sig));
}

/* t's process runs a handler for sig (neither default nor ignored). */
static bool handled(const struct task *t, int sig)
{
	uint64_t h = handler_of(t, sig);

	return h != UAPI_SIG_DFL && h != UAPI_SIG_IGN;
}

/* A signal was queued for g: signalfd readers and pollers look again. */
static void wake_signalfds(struct thread_group *g)
{
	if (g)
		wake_up(&g->signalfd_wq);
}

uint64_t signal_pending_set(struct task *t)
{
	return __atomic_load_n(&t->sig.pending.set, __ATOMIC_ACQUIRE) |
	       __atomic_load_n(&t->group->shared.set, __ATOMIC_ACQUIRE);
}

bool signal_is_pending(struct task *t)
{
	return t->group && ((signal_pending_set(t) & ~t->sig.blocked) ||
			    __atomic_load_n(&t->sig.stop_pending, __ATOMIC_ACQUIRE));
}

/* The receiving process's RLIMIT_SIGPENDING (see proc/sigqueue.h). */
static uint64_t sigpending_limit(const struct thread_group *g)
{
	return rlimit_soft(g, RLIMIT_SIGPENDING);
}

/* sig is now pending for t: it and its process's signalfds hear of it.
 * Not for an async worker's (its engine's SIGKILL): no signalfd reads a
 * worker's signals, and whoever interrupts a worker holds its engine's
 * lock, which an io_uring poll armed on a signalfd takes in its wake-up
 * (a panic: test uring_sigfd). */
static void thread_notify(struct task *t, int sig)
{
	task_work_set(t, TASK_WORK_SIGNAL);
	if (signal_is_pending(t))
		sched_wake_signal(t);
	if (t->async_serve)
		return;
	wake_signalfds(t->group);
	if (handled(t, sig))
		async_signal_sent(t->group, t, sig);
}

/* info as receiver t sees it: Linux's send_signal shows a sender (the
 * caller) that t's pid namespace cannot name, one in an ancestor
 * namespace, as pid 0 wherever the layout has a pid (kill, queue,
 * SIGCHLD).  A sender from user space gave its uid as its own user
 * namespace names it (signal_sender_uid, or its own siginfo): t's
 * namespace names it anew if it is another (userns_fixup_signal_uid);
 * a SIGCHLD holds the child's kernel uid, named for t
 * (do_notify_parent).  t's creds: the caller keeps t alive. */
static struct sig_info seen_by(const struct sig_info *info, int sig, const struct task *t)
{
	struct sig_info seen = *info;
	enum sig_layout l = siginfo_layout(sig, info->code);
	const struct pid_namespace *ns = task_pid_ns(t);

	if ((l == SIL_KILL || l == SIL_RT || l == SIL_CHLD) && info->kill.pid &&
	    ns != current_pid_ns() && !pid_nr_ns(current()->group->tgid, ns))
		seen.kill.pid = 0; /* chld.pid is at the same place */
	if (l == SIL_CHLD)
		seen.chld.uid = from_kuid_munged(task_cred(t)->user_ns, info->chld.uid);
	else if ((l == SIL_KILL || l == SIL_RT) && info->code <= 0 &&
		 task_cred(t)->user_ns != current_user_ns())
		seen.kill.uid = from_kuid_munged(task_cred(t)->user_ns,
						 make_kuid(current_user_ns(), info->kill.uid));
	return seen;
}

uint32_t signal_sender_uid(void)
{
	return from_kuid_munged(current_user_ns(), cred_current()->uid);
}

/* Queues sig with info for thread t: 0 or -EAGAIN (sigqueue.h). */
static int enqueue_signal(struct task *t, int sig, const struct sig_info *info)
{
	struct thread_group *g = t->group;
	struct sig_info seen = seen_by(info, sig, t);
	int err;

	spin_lock(&g->siglock);
	err = sigpending_queue_locked(&t->sig.pending, sig, &seen, sigpending_limit(g));
	spin_unlock(&g->siglock);
	if (!err)
		thread_notify(t, sig);
	return err;
}

/* A signal from process from (the caller, with its real uid; si_pid its
 * own number, Linux's task_tgid_vnr) or, from 0, from the kernel: SI_USER
 * or SI_TKILL, else SI_KERNEL. */
static struct sig_info kill_info(int code, int from)
{
	struct sig_info info = {.code = from ? code : SI_KERNEL};

	info.kill.pid = from ? pid_vnr(from) : 0;
	info.kill.uid = from ? signal_sender_uid() : 0;
	return info;
}

void signal_send_from(struct task *t, int sig, int from)
{
	struct sig_info info = kill_info(SI_TKILL, from);

	if (!dropped(t, sig))
		enqueue_signal(t, sig, &info);
}

void signal_send(struct task *t, int sig)
{
	signal_send_from(t, sig, 0);
}

int signal_send_info(struct task *t, int sig, const struct sig_info *info)
{
	return dropped(t, sig) ? 0 : enqueue_signal(t, sig, info);
}

void signal_kill_thread(struct task *t)
{
	struct sig_info info = kill_info(SI_USER, 0);

	enqueue_signal(t, SIGKILL, &info);
}

void signal_flush_thread(struct task *t)
{
	struct thread_group *g = t->group;

	if (!g)
		return; /* never joined a process: nothing was queued */
	spin_lock(&g->siglock);
	sigpending_discard_locked(&t->sig.pending, ~0UL);
	spin_unlock(&g->siglock);
}

void signal_discard_locked(struct thread_group *g, uint64_t set)
{
	struct task *t;

	spin_lock(&g->siglock);
	sigpending_discard_locked(&g->shared, set);
	list_for_each_entry(t, &g->threads, group_link)
	    sigpending_discard_locked(&t->sig.pending, set);
	spin_unlock(&g->siglock);
}

/*
 * A thread of g to take sig (proc_lock held): the first that does not
 * block it, as Linux's complete_signal starts with the leader; NULL if
 * all block it (the first to unblock it takes it).  A fatal signal needs
 * no choice: whoever takes it kills the group.
 */
static struct task *pick_thread_locked(struct thread_group *g, int sig)
{
	struct task *t;

	list_for_each_entry(t, &g->threads,
			    group_link) if (!(t->sig.blocked & SIGBIT(sig))) return t;
	return NULL;
}

/* Every thread of g may take a process-directed signal on its way out;
 * one that does not block sig is woken for it (proc_lock held). */
static void process_notify_locked(struct thread_group *g, int sig)
{
	struct task *t;

	list_for_each_entry(t, &g->threads, group_link) task_work_set(t, TASK_WORK_SIGNAL);
	if ((t = pick_thread_locked(g, sig)))
		sched_wake_signal(t);
	wake_signalfds(g);
	if (handled(g->leader, sig))
		async_signal_sent(g, NULL, sig);
	if (sig == SIGKILL)
		group_kill_io_locked(g);
}

/* sig with info for process g (proc_lock held): 0 or -EAGAIN. */
static int post_process_locked(struct thread_group *g, int sig, const struct sig_info *info)
{
	struct sig_info seen;
	int err;

	if (g->state != GROUP_LIVE)
		return 0;
	jobctl_signal_sent(g, sig); /* even if blocked or ignored */
	if (dropped(g->leader, sig))
		return 0;
	seen = seen_by(info, sig, g->leader);
	spin_lock(&g->siglock);
	err = sigpending_queue_locked(&g->shared, sig, &seen, sigpending_limit(g));
	spin_unlock(&g->siglock);
	if (!err)
		process_notify_locked(g, sig);
	return err;
}

int signal_send_process_info_locked(struct thread_group *g, int sig, const struct sig_info *info)
{
	return post_process_locked(g, sig, info);
}

void signal_send_process_locked(struct thread_group *g, int sig, int from)
{
	struct sig_info info = kill_info(SI_USER, from);

	post_process_locked(g, sig, &info);
}

void signal_send_process(struct thread_group *g, int sig)
{
	spin_lock(&proc_lock);
	signal_send_process_locked(g, sig, 0);
	spin_unlock(&proc_lock);
}

bool signal_timer_queue_locked(struct thread_group *g, struct task *t, struct sigqueue *q,
			       int missed)
{
	if (t ? task_exited(t) || dropped(t, q->sig)
	      : g->state != GROUP_LIVE || dropped(g->leader, q->sig))
		return false;
	return sigpending_queue_timer_locked(t ? &t->sig.pending : &g->shared, q, missed);
}

void signal_timer_notify_locked(struct thread_group *g, struct task *t, int sig)
{
	if (t)
		thread_notify(t, sig);
	else
		process_notify_locked(g, sig);
}

/* SIGCHLD's information about child (Linux's do_notify_parent). */
static struct sig_info child_info(const struct thread_group *child, int wait_status)
{
	struct sig_info info = {.code = wait_status_code(wait_status)};

	info.chld.pid = pid_nr_ns(child->tgid, task_pid_ns(child->parent->leader));
	info.chld.uid = group_cred(child)->uid;
	info.chld.status = wait_status_value(wait_status);
	return info;
}

void signal_child_exited(struct thread_group *child, int wait_status)
{
	struct sig_info info = child_info(child, wait_status);

	if (child->exit_signal)
		post_process_locked(child->parent, child->exit_signal, &info);
}

void signal_child_stopped(struct thread_group *child, int wait_status)
{
	struct thread_group *parent = child->parent;
	struct sig_info info = child_info(child, wait_status);

	if (!parent)
		return;
	if (!(__atomic_load_n(&parent->leader->sighand->action[SIGCHLD - 1].flags,
			      __ATOMIC_RELAXED) &
	      UAPI_SA_NOCLDSTOP))
		post_process_locked(parent, SIGCHLD, &info);
	wake_up(&parent->child_exit);
}

void signal_force_fault(struct trapframe *tf, int sig, int code, uint64_t addr)
{
	struct task *t = current();
	struct sighand *sh = t->sighand;
	struct sig_info info = {.code = code};

	/* A fault cannot be blocked or ignored away: the program would just
	 * fault again.  Linux resets the action to default in that case. */
	spin_lock(&sh->lock);
	if ((t->sig.blocked & SIGBIT(sig)) || sh->action[sig - 1].handler == UAPI_SIG_IGN) {
		t->sig.blocked &= ~SIGBIT(sig);
		sh->action[sig - 1].handler = UAPI_SIG_DFL;
	}
	spin_unlock(&sh->lock);
	/* Every fault signal's default action kills. */
	fault_report(t, sig, tf->rip, addr, handler_of(t, sig) == UAPI_SIG_DFL);
	/* Not even init may ignore its own fault: it would loop on it forever. */
	info.fault.addr = addr;
	enqueue_signal(t, sig, &info);
}

void signal_force_fatal(struct task *t, int sig)
{
	struct sighand *sh = t->sighand;

	spin_lock(&sh->lock);
	t->sig.blocked &= ~SIGBIT(sig);
	sh->action[sig - 1].handler = UAPI_SIG_DFL;
	spin_unlock(&sh->lock);
	enqueue_signal(t, sig, &(struct sig_info){.code = SI_KERNEL});
}

void signal_set_temporary_mask(uint64_t mask)
{
	struct task *t = current();

	if (!t->sig.restore_blocked) {
		t->sig.saved_blocked = t->sig.blocked;
		t->sig.restore_blocked = true;
	}
	t->sig.blocked = mask & ~SIG_UNBLOCKABLE;
	task_work_set(t, TASK_WORK_SIGNAL); /* the restore is work, and so may be the mask */
}

long signal_set_user_mask(const uint64_t *umask, uint64_t size)
{
	uint64_t mask;

	if (!umask)
		return 0;
	if (size != sizeof(mask))
		return -EINVAL;
	if (copy_from_user(&mask, umask, sizeof(mask)))
		return -EFAULT;
	signal_set_temporary_mask(mask);
	return 0;
}

int signal_dequeue(struct task *t, uint64_t mask, struct sig_info *info)
{
	struct thread_group *g = t->group;
	int sig = 0;

	if (!(signal_pending_set(t) & mask))
		return 0; /* the common case, without the lock */
	spin_lock(&g->siglock);
	if (!(sig = sigpending_take_locked(&t->sig.pending, mask, info)))
		sig = sigpending_take_locked(&g->shared, mask, info);
	spin_unlock(&g->siglock);
	return sig;
}

static bool is_restart(const struct trapframe *tf)
{
	long ret = (long)tf->rax;

	return tf->vector == SYSCALL_VECTOR && tf->error != (uint64_t)-1 &&
	       (ret == -ERESTARTSYS || ret == -ERESTARTNOINTR || ret == -ERESTARTNOHAND);
}

/* Re-executes the interrupted system call (syscall is 2 bytes long). */
static void restart_syscall(struct trapframe *tf)
{
	tf->rax = tf->error;
	tf->rip -= 2;
}

/* A handler is about to run: does the interrupted call restart after it? */
static void restart_or_eintr(struct trapframe *tf, const struct uapi_sigaction *act)
{
	if (!is_restart(tf))
		return;
	if (((long)tf->rax == -ERESTARTSYS && (act->flags & UAPI_SA_RESTART)) ||
	    (long)tf->rax == -ERESTARTNOINTR)
		restart_syscall(tf);
	else
		tf->rax = (uint64_t)-EINTR;
}

/* Runs the handler act for sig; false if its frame could not be written. */
static bool run_handler(struct task *t, struct trapframe *tf, int sig,
			const struct uapi_sigaction *act, const struct sig_info *info)
{
	uint64_t old_mask = t->sig.restore_blocked ? t->sig.saved_blocked : t->sig.blocked;

	restart_or_eintr(tf, act);
	if (sigframe_setup(tf, sig, act, info, old_mask))
		return false;
	t->sig.restore_blocked = false;
	t->sig.blocked |= act->mask | ((act->flags & UAPI_SA_NODEFER) ? 0 : SIGBIT(sig));
	t->sig.blocked &= ~SIG_UNBLOCKABLE;
	if (act->flags & UAPI_SA_RESETHAND) {
		spin_lock(&t->sighand->lock);
		t->sighand->action[sig - 1].handler = UAPI_SIG_DFL;
		spin_unlock(&t->sighand->lock);
	}
	return true;
}

/* Acts on one signal; true if a handler frame was set up.  A default
 * action kills the whole process, whichever thread took the signal.  A
 * frame that cannot be written (the stack, or the alternate one, is
 * unmapped or read-only) becomes a SIGSEGV, as Linux's force_sigsegv: its
 * handler, on a stack that still works, may survive it; only SIGSEGV's
 * own frame failing kills. */
static bool handle_one(struct task *t, struct trapframe *tf, int sig, const struct sig_info *info)
{
	struct uapi_sigaction act = signal_action(t, sig);

	if (ignored(t, sig))
		return false;
	if (act.handler == UAPI_SIG_DFL && (SIGBIT(sig) & SIG_STOPS)) {
		jobctl_stop(t, sig);
		return false;
	}
	if (act.handler == UAPI_SIG_DFL)
		group_exit(sig_dumps_core(sig) ? coredump(sig, info, tf) : W_SIGNALED(sig));
	if (run_handler(t, tf, sig, &act, info))
		return true;
	if (sig == SIGSEGV) { /* as Linux's force_sigsegv: the default, with its core */
		struct sig_info kernel = {.code = SI_KERNEL};

		group_exit(coredump(SIGSEGV, &kernel, tf));
	}
	signal_force_fault(tf, SIGSEGV, SI_KERNEL, 0); /* taken by the caller's loop */
	return false;
}

void signal_deliver(struct trapframe *tf)
{
	struct task *t = current();
	struct sig_info info;
	int sig;

	for (;;) {
		if (__atomic_exchange_n(&t->sig.stop_pending, false, __ATOMIC_ACQ_REL))
			jobctl_join_stop(t);
		while ((sig = signal_dequeue(t, ~t->sig.blocked, &info)))
			if (handle_one(t, tf, sig, &info))
				return;
		if (is_restart(tf))
			restart_syscall(tf); /* no handler ran */
		if (!t->sig.restore_blocked)
			return;
		/* Back to the caller's mask; what it unblocks is delivered now. */
		t->sig.blocked = t->sig.saved_blocked;
		t->sig.restore_blocked = false;
	}
}

int signal_permission_locked(const struct thread_group *g, int sig)
{
	const struct thread_group *self = current()->group;
	const struct cred *c = cred_current(), *tc = group_cred(g);

	if (g == self || c->euid == tc->suid || c->euid == tc->uid || c->uid == tc->suid ||
	    c->uid == tc->uid || capable(CAP_KILL))
		return 0;
	return sig == SIGCONT && g->sid == self->sid ? 0 : -EPERM;
}

struct broadcast {
	int sig;
	int pgid; /* 0: every process but init and the sender's in its pid namespace */
	int from; /* the sender's pid (its permission checked), 0 for the kernel */
	int hit;  /* processes found */
	int sent; /* ... and signalled (or allowed to be, for sig 0) */
	int err;  /* the last refusal */
};

/* One process per group: its leader stands for it (proc_lock held). */
static bool broadcast_one(struct task *t, void *arg)
{
	struct broadcast *b = arg;
	struct thread_group *g = t->group;
	bool target = b->pgid ? g->pgid == b->pgid : pid_vnr(g->tgid) > 1 && g != current()->group;
	int err;

	if (!task_is_leader(t) || !target || g->state != GROUP_LIVE)
		return true;
	b->hit++;
	if (b->from && (err = signal_permission_locked(g, b->sig))) {
		b->err = err;
		return true;
	}
	b->sent++;
	if (b->sig)
		signal_send_process_locked(g, b->sig, b->from);
	return true;
}

/* Linux's kill(-1): refusals do not count, only finding no process does. */
int signal_broadcast(int sig)
{
	struct broadcast b = {sig, 0, current()->group->tgid, 0, 0, 0};

	task_for_each(broadcast_one, &b);
	return b.hit ? 0 : -ESRCH;
}

/* Linux's kill(-pgid): success if any member was signalled, else the
 * refusal (EPERM), or ESRCH when the group is empty. */
int signal_send_group_locked(int pgid, int sig, int from)
{
	struct broadcast b = {sig, pgid, from, 0, 0, 0};

	if (pgid <= 0)
		return -ESRCH;
	task_for_each_locked(broadcast_one, &b);
	return !b.hit ? -ESRCH : b.sent ? 0 : b.err;
}

int signal_send_group(int pgid, int sig, int from)
{
	int ret;

	spin_lock(&proc_lock);
	ret = signal_send_group_locked(pgid, sig, from);
	spin_unlock(&proc_lock);
	return ret;
}
