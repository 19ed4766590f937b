/*
 * Signal sending, default actions and delivery (see signal.h).  Senders
 * only set a pending bit and wake the target; everything else happens in
 * the target itself on its way back to user mode, so no lock is needed
 * beyond atomic updates of the pending set.
 */
#include "proc/signal.h"
#include "arch/x86_64/sigframe.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "proc/exit.h"
#include "proc/fault_report.h"
#include "proc/proc.h"
#include "sched/sched.h"
#include "proc/task.h"
#include <uapi/errno.h>

#define DEFAULT_IGNORE (SIGBIT(SIGCHLD) | SIGBIT(SIGURG) | SIGBIT(SIGWINCH) | SIGBIT(SIGCONT))
/* No job control: stop signals are accepted and have no effect. */
#define DEFAULT_STOP (SIGBIT(SIGSTOP) | SIGBIT(SIGTSTP) | SIGBIT(SIGTTIN) | SIGBIT(SIGTTOU))

static bool ignored(const struct task *t, int sig)
{
	uint64_t h = t->sig.action[sig - 1].handler;

	if (sig == SIGKILL)
		return false;
	return h == UAPI_SIG_IGN ||
	       (h == UAPI_SIG_DFL && (SIGBIT(sig) & (DEFAULT_IGNORE | DEFAULT_STOP)));
}

/* Init gets only the signals it has handlers for, as on Linux: a stray
 * kill must not end the system.  Its own faults still reach it. */
static bool dropped(const struct task *t, int sig)
{
	return ignored(t, sig) || (t->pid == 1 && t->sig.action[sig - 1].handler == UAPI_SIG_DFL);
}

static void enqueue_signal(struct task *t, int sig, const struct sig_info *info)
{
	t->sig.info[sig - 1] = *info;
	__atomic_or_fetch(&t->sig.pending, SIGBIT(sig), __ATOMIC_RELEASE);
	if (signal_is_pending(t))
		sched_wake(t);
}

static void post(struct task *t, int sig, const struct sig_info *info)
{
	if (dropped(t, sig))
		return;
	enqueue_signal(t, sig, info);
}

void signal_send_from(struct task *t, int sig, int from)
{
	struct sig_info info = {from ? SI_USER : SI_KERNEL, from, 0, 0};

	post(t, sig, &info);
}

void signal_send(struct task *t, int sig)
{
	signal_send_from(t, sig, 0);
}

void signal_child_exited(struct task *child, int wait_status)
{
	struct sig_info info = {wait_status_code(wait_status), child->pid,
				wait_status_value(wait_status), 0};

	post(child->parent, SIGCHLD, &info);
}

bool signal_is_pending(struct task *t)
{
	return __atomic_load_n(&t->sig.pending, __ATOMIC_ACQUIRE) & ~t->sig.blocked;
}

void signal_force_fault(struct trapframe *tf, int sig, uint64_t addr)
{
	struct task *t = current();
	struct sig_info info = {sig == SIGSEGV ? SEGV_MAPERR : SI_KERNEL, 0, 0, addr};

	/* A fault cannot be blocked or ignored away: the program would just
	 * fault again.  Linux resets the action to default in that case. */
	if ((t->sig.blocked & SIGBIT(sig)) || t->sig.action[sig - 1].handler == UAPI_SIG_IGN) {
		t->sig.blocked &= ~SIGBIT(sig);
		t->sig.action[sig - 1].handler = UAPI_SIG_DFL;
	}
	/* Every fault signal's default action kills. */
	fault_report(t, sig, tf->rip, addr, t->sig.action[sig - 1].handler == UAPI_SIG_DFL);
	/* Not even init may ignore its own fault: it would loop on it forever. */
	enqueue_signal(t, sig, &info);
}

void signal_set_temporary_mask(uint64_t mask)
{
	struct task *t = current();

	if (!t->sig.restore_blocked) {
		t->sig.saved_blocked = t->sig.blocked;
		t->sig.restore_blocked = true;
	}
	t->sig.blocked = mask & ~SIG_UNBLOCKABLE;
}

/* Takes the lowest deliverable signal off the pending set, or returns 0. */
static int dequeue(struct task *t, struct sig_info *info)
{
	uint64_t ready = __atomic_load_n(&t->sig.pending, __ATOMIC_ACQUIRE) & ~t->sig.blocked;
	int sig;

	if (!ready)
		return 0;
	sig = __builtin_ctzl(ready) + 1;
	*info = t->sig.info[sig - 1];
	__atomic_and_fetch(&t->sig.pending, ~SIGBIT(sig), __ATOMIC_RELEASE);
	return sig;
}

static bool is_restart(const struct trapframe *tf)
{
	long ret = (long)tf->rax;

	return tf->vector == SYSCALL_VECTOR && tf->error != (uint64_t)-1 &&
	       (ret == -ERESTARTSYS || ret == -ERESTARTNOHAND);
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
	if ((long)tf->rax == -ERESTARTSYS && (act->flags & UAPI_SA_RESTART))
		restart_syscall(tf);
	else
		tf->rax = (uint64_t)-EINTR;
}

/* Runs the handler for sig; false if its frame could not be written. */
static bool run_handler(struct task *t, struct trapframe *tf, int sig, const struct sig_info *info)
{
	struct uapi_sigaction *act = &t->sig.action[sig - 1];
	uint64_t old_mask = t->sig.restore_blocked ? t->sig.saved_blocked : t->sig.blocked;

	restart_or_eintr(tf, act);
	if (sigframe_setup(tf, sig, act, info, old_mask))
		return false;
	t->sig.restore_blocked = false;
	t->sig.blocked |= act->mask | ((act->flags & UAPI_SA_NODEFER) ? 0 : SIGBIT(sig));
	t->sig.blocked &= ~SIG_UNBLOCKABLE;
	if (act->flags & UAPI_SA_RESETHAND)
		act->handler = UAPI_SIG_DFL;
	return true;
}

/* Acts on one signal; true if a handler frame was set up. */
static bool handle_one(struct task *t, struct trapframe *tf, int sig, const struct sig_info *info)
{
	uint64_t h = t->sig.action[sig - 1].handler;

	if (ignored(t, sig))
		return false;
	if (h == UAPI_SIG_DFL)
		task_exit(W_SIGNALED(sig));
	if (!run_handler(t, tf, sig, info))
		task_exit(W_SIGNALED(SIGSEGV)); /* unusable stack: as Linux */
	return true;
}

void signal_deliver(struct trapframe *tf)
{
	struct task *t = current();
	struct sig_info info;
	int sig;

	for (;;) {
		while ((sig = dequeue(t, &info)))
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

void signal_fork(struct task *child, const struct task *parent)
{
	memcpy(child->sig.action, parent->sig.action, sizeof(child->sig.action));
	child->sig.blocked =
	    parent->sig.restore_blocked ? parent->sig.saved_blocked : parent->sig.blocked;
	child->sig.pending = 0;
}

void signal_exec(struct task *t)
{
	for (int i = 0; i < UAPI_NSIG; i++) {
		struct uapi_sigaction *a = &t->sig.action[i];
		uint64_t keep = a->handler == UAPI_SIG_IGN ? UAPI_SIG_IGN : UAPI_SIG_DFL;
		memset(a, 0, sizeof(*a));
		a->handler = keep; /* ignored stays ignored across exec (POSIX) */
	}
}

struct broadcast {
	int sig;
	int pgid; /* 0: everyone but init and the sender */
	int from;
	int hit;
};

static bool broadcast_one(struct task *t, void *arg)
{
	struct broadcast *b = arg;
	bool target = b->pgid ? t->pgid == b->pgid : t->pid > 1 && t != current();

	if (target && !task_exited(t)) {
		b->hit++;
		if (b->sig)
			signal_send_from(t, b->sig, b->from);
	}
	return true;
}

int signal_broadcast(int sig)
{
	struct broadcast b = {sig, 0, current()->pid, 0};

	task_for_each(broadcast_one, &b);
	return b.hit ? 0 : -ESRCH;
}

int signal_send_group(int pgid, int sig, int from)
{
	struct broadcast b = {sig, pgid, from, 0};

	if (pgid <= 0)
		return -ESRCH;
	task_for_each(broadcast_one, &b);
	return b.hit ? 0 : -ESRCH;
}
