/*
 * Signals: actions shared by CLONE_SIGHAND (struct sighand), per-thread
 * blocked masks and pending sets, a process-wide pending set in the
 * thread group (proc/group.h), each with the sender's details, delivery on the way back to user
 * mode (default actions or a handler frame, arch/x86_64/sigframe.c), and system-call restart. Linux
 * x86_64 semantics and layouts.
 */
#ifndef PROC_SIGNAL_H
#define PROC_SIGNAL_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86_64/trapframe.h"
#include "lib/spinlock.h"
#include "proc/sigaltstack.h"
#include "proc/sigqueue.h"
#include <uapi/signal.h>

struct task;
struct thread_group;

/* ERESTARTSYS, ERESTARTNOHAND: what a wait cut short returns. */
#include "sched/wait.h"

#define SIGBIT(sig)	(1UL << ((sig)-1))
#define SIG_UNBLOCKABLE (SIGBIT(SIGKILL) | SIGBIT(SIGSTOP))

/*
 * Signal dispositions, shared by the tasks cloned with CLONE_SIGHAND (all
 * threads of a group).  Lifetime: one reference (refs, atomic) per task,
 * dropped by task_free.  action[] is written under lock; a lone handler
 * word may be read without it.
 */
struct sighand {
	int refs;
	struct spinlock lock;
	struct uapi_sigaction action[UAPI_NSIG];
};

/* A thread's signal state: own, but for pending, which senders fill
 * under the group's siglock (proc/sigqueue.h). */
struct signal_state {
	uint64_t blocked;
	struct sigpending pending;
	uint64_t saved_blocked; /* mask to restore after sigsuspend/ppoll/... */
	/* While rt_sigtimedwait sleeps with its set unblocked, the mask it
	 * had (Linux's real_blocked; 0 otherwise): a signal blocked there is
	 * still queued if ignored, for the wait to take.  Written by the
	 * thread, read by senders under proc_lock or the thread's own. */
	uint64_t real_blocked;
	bool restore_blocked; /* saved_blocked is waiting to be restored */
	/* Another thread stopped the process: this one must stop too on its
	 * way back to user mode (atomic; set and cleared under proc_lock by
	 * proc/jobctl.c, cleared by the thread itself). */
	bool stop_pending;
	struct sig_altstack altstack; /* its rules are in proc/sigaltstack.h */
};

/* Thread-directed: marks sig pending on thread t (from pid `from`, 0 for
 * the kernel) and wakes t if it can take it.  Ignored signals are dropped. */
void signal_send_from(struct task *t, int sig, int from);
void signal_send(struct task *t, int sig);
/*
 * sig with info to thread t (thread true) or to its process: 0, or
 * -EAGAIN when a real-time signal finds no room under the receiver's
 * RLIMIT_SIGPENDING (proc/sigqueue.h).  Ignored signals are dropped (0).
 * tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo.  Process-directed: the
 * caller holds proc_lock.
 */
int signal_send_info(struct task *t, int sig, const struct sig_info *info);
int signal_send_process_info_locked(struct thread_group *g, int sig, const struct sig_info *info);
/* The si_uid a signal from the caller carries: its real uid as its own
 * user namespace names it (the send translates it for the receiver). */
uint32_t signal_sender_uid(void);
/*
 * A POSIX timer's signal, its own entry q, for thread t of g or (t NULL)
 * for g (proc_lock and g's siglock held), `missed` periods after its
 * expiry: true if newly queued, and then the caller tells the receiver
 * with signal_timer_notify_locked once it dropped siglock; false if
 * ignored, or still queued (counted as overruns in q).
 */
bool signal_timer_queue_locked(struct thread_group *g, struct task *t, struct sigqueue *q,
			       int missed);
void signal_timer_notify_locked(struct thread_group *g, struct task *t, int sig);
/* Drops the signals of set pending for t's process and every thread of
 * it (proc_lock held). */
void signal_discard_locked(struct thread_group *g, uint64_t set);
/* Frees what is still queued for t (the last reference to it is gone). */
void signal_flush_thread(struct task *t);
/* SIGKILL to thread t, whatever its process (exit_group, de_thread). */
void signal_kill_thread(struct task *t);
/* Process-directed: sig pending on group g, one thread not blocking it is
 * woken to take it.  _locked: the caller holds proc_lock. */
void signal_send_process_locked(struct thread_group *g, int sig, int from);
void signal_send_process(struct thread_group *g, int sig);
/* SIGCHLD to child's parent, with its CLD_* code, pid and status
 * (proc_lock held). */
void signal_child_exited(struct thread_group *child, int wait_status);
/* The same for a stop or continue (W_STOPPED, W_CONTINUED): always
 * SIGCHLD, not sent if the parent's action has SA_NOCLDSTOP; a waiting
 * parent is woken (proc_lock held). */
void signal_child_stopped(struct thread_group *child, int wait_status);
/* True if t has a pending signal it does not block (its own or its group's). */
bool signal_is_pending(struct task *t);
/* Runs before every return to user mode: reschedule, then pending
 * signals (proc/sched_hooks.c). */
void return_to_user_work(struct trapframe *tf);
/* t's pending set: its own and its group's. */
uint64_t signal_pending_set(struct task *t);
/*
 * Takes the lowest signal of mask pending for t (t is current): its own
 * set first, then its group's, as Linux's dequeue_signal; *info gets what
 * the sender left.  0 if none.  signalfd and rt_sigtimedwait read through
 * it.
 */
int signal_dequeue(struct task *t, uint64_t mask, struct sig_info *info);
/*
 * Linux's check_kill_permission: whether the caller may send sig (0: the
 * probe) to process g -- its own, a real or effective uid equal to g's
 * real or saved uid, CAP_KILL, or SIGCONT within its session.  0 or
 * -EPERM; proc_lock held.
 */
int signal_permission_locked(const struct thread_group *g, int sig);
/* kill(-1, sig): every process but init and the caller it may signal;
 * -ESRCH if there is none at all. */
int signal_broadcast(int sig);
/* Every process in group pgid (from: sender pid, its permission checked
 * per process; 0 for the kernel): -ESRCH if there is none, -EPERM if it
 * may signal none.  _locked: the caller holds proc_lock. */
int signal_send_group(int pgid, int sig, int from);
int signal_send_group_locked(int pgid, int sig, int from);
/* On the way back to user mode: act on pending signals (may not return). */
void signal_deliver(struct trapframe *tf);

/*
 * Whether signal_deliver() has anything to do for a thread with signal
 * state s, in a process whose shared pending set is *shared, returning
 * through tf: a signal it does not block (its own or the process's), a
 * temporary mask to restore, or a result that may ask for a restart.
 * Tested inline on every return to user mode, so the common case costs no
 * call.
 */
static inline bool signal_work(const struct signal_state *s, const uint64_t *shared,
			       const struct trapframe *tf)
{
	long ret = (long)tf->rax; /* only a system call's result matters */
	uint64_t pending = __atomic_load_n(&s->pending.set, __ATOMIC_ACQUIRE) |
			   __atomic_load_n(shared, __ATOMIC_ACQUIRE);

	return (pending & ~s->blocked) || s->restore_blocked ||
	       __atomic_load_n(&s->stop_pending, __ATOMIC_ACQUIRE) ||
	       (ret >= -ERESTARTNOHAND && ret <= -ERESTARTSYS);
}
/* A user-mode fault: the current task gets sig with its si_code and
 * si_addr (Linux's force_sig_fault). */
void signal_force_fault(struct trapframe *tf, int sig, int code, uint64_t addr);
/* sig kills t's process whatever its action and mask (Linux's
 * force_fatal_sig): an execve that failed past its point of no return. */
void signal_force_fatal(struct task *t, int sig);

/*
 * Temporarily replaces the blocked mask (sigsuspend, ppoll, pselect,
 * syscall_indirect); the old one comes back when the current system call
 * returns to user mode, or when the handler of a signal delivered then
 * returns.
 */
void signal_set_temporary_mask(uint64_t mask);
/* The same from a user mask of size bytes (must be 8), NULL keeping the
 * mask: 0, -EINVAL, -EFAULT (ppoll, pselect6, epoll_pwait, epoll_pwait2). */
long signal_set_user_mask(const uint64_t *umask, uint64_t size);

/* clone: the child's mask (the parent thread's) and handlers (shared
 * with CLONE_SIGHAND, else copied): 0 or -ENOMEM. */
int signal_clone(struct task *child, struct task *parent, bool share);
/* execve, before its point of no return: t gets handlers of its own (a
 * copy if shared): 0 or -ENOMEM.  After it: handlers back to default. */
int signal_unshare(struct task *t);
void signal_exec(struct task *t);
/* The first task's handlers, every action default: 0 or -ENOMEM. */
int signal_create(struct task *t);
/* Drops t's handlers (task_free). */
void signal_release(struct task *t);
/* The action of sig as t's group sees it (a copy taken under the lock). */
struct uapi_sigaction signal_action(struct task *t, int sig);
#define SIG_STOPS (SIGBIT(SIGSTOP) | SIGBIT(SIGTSTP) | SIGBIT(SIGTTIN) | SIGBIT(SIGTTOU))
/* The default action of sig kills (not ignored, not a stop signal). */
bool signal_default_kills(int sig);

/* The core file's name pattern (/proc/sys/kernel/core_pattern, Linux's
 * size); read it under proc_sys_lock (fs/proc/proc_sys.h). */
#define CORENAME_MAX_SIZE 128
extern char core_pattern[CORENAME_MAX_SIZE];

#endif
