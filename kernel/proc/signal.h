/*
 * Signals: per-process actions and blocked mask, pending set with the
 * sender's details, delivery on the way back to user mode (default
 * actions or a handler frame, arch/x86_64/sigframe.c), and system-call
 * restart.  Linux x86_64 semantics and layouts.
 */
#ifndef PROC_SIGNAL_H
#define PROC_SIGNAL_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86_64/trapframe.h"
#include <uapi/signal.h>

struct task;

/* ERESTARTSYS, ERESTARTNOHAND: what a wait cut short returns. */
#include "sched/wait.h"

#define SIGBIT(sig)	(1UL << ((sig)-1))
#define SIG_UNBLOCKABLE (SIGBIT(SIGKILL) | SIGBIT(SIGSTOP))

/* si_code values (Linux). */
#define SI_USER	    0
#define SI_KERNEL   0x80
#define SEGV_MAPERR 1
#define SEGV_ACCERR 2

/* What a task knows about one pending signal (for SA_SIGINFO). */
struct sig_info {
	int32_t code;
	int32_t pid;	/* sender (SI_USER) or the child (SIGCHLD) */
	int32_t status; /* SIGCHLD: exit code or terminating signal */
	uint64_t addr;	/* faulting address, for SIGSEGV/SIGBUS */
};

/* A task's signal state (one per process: fdkernel has no threads). */
struct signal_state {
	struct uapi_sigaction action[UAPI_NSIG];
	uint64_t blocked;
	uint64_t pending; /* atomic: senders set bits without a lock */
	struct sig_info info[UAPI_NSIG];
	uint64_t saved_blocked; /* mask to restore after sigsuspend/ppoll/... */
	bool restore_blocked;	/* saved_blocked is waiting to be restored */
};

/* Marks sig pending on t (from pid `from`, 0 for the kernel) and wakes t
 * if the signal can be delivered.  Ignored signals are dropped. */
void signal_send_from(struct task *t, int sig, int from);
void signal_send(struct task *t, int sig);
/* SIGCHLD to child's parent, with its CLD_* code, pid and status. */
void signal_child_exited(struct task *child, int wait_status);
/* True if t has a pending signal it does not block. */
bool signal_is_pending(struct task *t);
/* kill(-1, sig): every process but init and the caller; -ESRCH if none. */
int signal_broadcast(int sig);
/* Every process in group pgid (from: sender pid, 0 for the kernel). */
int signal_send_group(int pgid, int sig, int from);
/* On the way back to user mode: act on pending signals (may not return). */
void signal_deliver(struct trapframe *tf);

/*
 * Whether signal_deliver() has anything to do for a task with signal state
 * s returning through tf: a signal it does not block, a temporary mask to
 * restore, or a result that may ask for a restart.  Tested inline on every
 * return to user mode, so the common case costs no call.
 */
static inline bool signal_work(const struct signal_state *s, const struct trapframe *tf)
{
	long ret = (long)tf->rax; /* only a system call's result matters */

	return (__atomic_load_n(&s->pending, __ATOMIC_ACQUIRE) & ~s->blocked) ||
	       s->restore_blocked || (ret >= -ERESTARTNOHAND && ret <= -ERESTARTSYS);
}
/* A user-mode fault: the current task gets sig with the fault address. */
void signal_force_fault(struct trapframe *tf, int sig, uint64_t addr);

/*
 * Temporarily replaces the blocked mask (sigsuspend, ppoll, pselect,
 * syscall_indirect); the old one comes back when the current system call
 * returns to user mode, or when the handler of a signal delivered then
 * returns.
 */
void signal_set_temporary_mask(uint64_t mask);

/* fork: the child's copy; execve: handlers back to default. */
void signal_fork(struct task *child, const struct task *parent);
void signal_exec(struct task *t);

#endif
