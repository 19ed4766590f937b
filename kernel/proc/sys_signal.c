/*
 * Signal system calls: argument checking and translation; the work is in
 * signal.c and arch/x86_64/sigframe.c.
 */
#include "arch/x86_64/sigframe.h"
#include "arch/x86_64/timer.h"
#include "arch/x86_64/uaccess.h"
#include "proc/cred.h"
#include "proc/exit.h"
#include "proc/group.h"
#include "proc/pid_ns.h"
#include "proc/jobctl.h"
#include "sched/ktimer.h"
#include "proc/proc.h"
#include "sched/sched.h"
#include "proc/signal.h"
#include "arch/x86_64/trapframe.h"
#include "sys/syscall.h"
#include <uapi/errno.h>

#define SIGSET_SIZE 8

static bool valid_signal(int sig)
{
	return sig >= 1 && sig <= UAPI_NSIG;
}

/* Installs act for every thread sharing t's handlers. */
static void set_action(struct task *t, int sig, struct uapi_sigaction *act)
{
	act->mask &= ~SIG_UNBLOCKABLE;
	spin_lock(&t->sighand->lock);
	t->sighand->action[sig - 1] = *act;
	spin_unlock(&t->sighand->lock);
	if (act->handler != UAPI_SIG_IGN)
		return;
	/* POSIX: setting SIG_IGN discards a pending instance, the process's
	 * and every thread's. */
	spin_lock(&proc_lock);
	signal_discard_locked(t->group, SIGBIT(sig));
	spin_unlock(&proc_lock);
}

SYSCALL_DEFINE4(rt_sigaction, int, sig, const struct uapi_sigaction *, uact,
		struct uapi_sigaction *, uoact, size_t, setsize)
{
	struct task *t = current();
	struct uapi_sigaction act, old;

	if (setsize != SIGSET_SIZE || !valid_signal(sig))
		return -EINVAL;
	if (uact && copy_from_user(&act, uact, sizeof(act)))
		return -EFAULT;
	if (uact && (sig == SIGKILL || sig == SIGSTOP))
		return -EINVAL;
	old = signal_action(t, sig);
	if (uoact && copy_to_user(uoact, &old, sizeof(old)))
		return -EFAULT;
	if (uact)
		set_action(t, sig, &act);
	return 0;
}

SYSCALL_DEFINE4(rt_sigprocmask, int, how, const uint64_t *, uset, uint64_t *, uold, size_t, setsize)
{
	struct task *t = current();
	uint64_t set, old = t->sig.blocked;

	if (setsize != SIGSET_SIZE)
		return -EINVAL;
	if (uset && copy_from_user(&set, uset, sizeof(set)))
		return -EFAULT;
	if (uset) {
		if (how == UAPI_SIG_BLOCK)
			set |= old;
		else if (how == UAPI_SIG_UNBLOCK)
			set = old & ~set;
		else if (how != UAPI_SIG_SETMASK)
			return -EINVAL;
	}
	if (uold && copy_to_user(uold, &old, sizeof(old)))
		return -EFAULT;
	if (uset) {
		t->sig.blocked = set & ~SIG_UNBLOCKABLE;
		if (old & ~t->sig.blocked) /* a pending signal may be deliverable now */
			task_work_set(t, TASK_WORK_SIGNAL);
	}
	return 0;
}

SYSCALL_DEFINE2(rt_sigpending, uint64_t *, uset, size_t, setsize)
{
	struct task *t = current();
	uint64_t pending = signal_pending_set(t) & t->sig.blocked;

	if (setsize > SIGSET_SIZE)
		return -EINVAL;
	return copy_to_user(uset, &pending, setsize) ? -EFAULT : 0;
}

SYSCALL_DEFINE2(rt_sigsuspend, const uint64_t *, umask, size_t, setsize)
{
	uint64_t mask;

	if (setsize != SIGSET_SIZE)
		return -EINVAL;
	if (copy_from_user(&mask, umask, sizeof(mask)))
		return -EFAULT;
	signal_set_temporary_mask(mask);
	while (!signal_is_pending(current()))
		sched_sleep_until(UINT64_MAX);
	return -ERESTARTNOHAND; /* EINTR once the handler ran */
}

/*
 * rt_sigtimedwait (sigwaitinfo, sigtimedwait, sigwait): takes a pending
 * signal of set, blocked or not, without running its handler.  While it
 * sleeps the set is unblocked for this thread, as on Linux, so that a
 * process-directed signal of the set may pick it and wake it; the old
 * mask is back before it returns.  Another signal ends the wait with EINTR
 * (its handler runs); the timeout with EAGAIN.
 */
SYSCALL_DEFINE4(rt_sigtimedwait, const uint64_t *, uset, void *, uinfo, const struct timespec_k *,
		uts, size_t, setsize)
{
	struct task *t = current();
	uint64_t set, saved, deadline = UINT64_MAX;
	struct sig_info info;
	int sig, err = 0;

	if (setsize != SIGSET_SIZE)
		return -EINVAL;
	if (copy_from_user(&set, uset, sizeof(set)))
		return -EFAULT;
	set &= ~SIG_UNBLOCKABLE;
	if (uts) {
		struct timespec_k ts;
		int64_t ns;
		if (copy_from_user(&ts, uts, sizeof(ts)))
			return -EFAULT;
		if ((ns = timespec_to_ns(&ts)) < 0)
			return ns;
		deadline = clock_monotonic_ns() + (uint64_t)ns; /* ns <= KTIME_MAX */
	}
	sig = signal_dequeue(t, set, &info);
	if (!sig) {
		saved = t->sig.blocked;
		/* Release: a sender that sees the set unblocked sees the
		 * mask it was blocked in (signal.c, dropped()). */
		__atomic_store_n(&t->sig.real_blocked, saved, __ATOMIC_RELAXED);
		__atomic_store_n(&t->sig.blocked, saved & ~set, __ATOMIC_RELEASE);
		err = sched_sleep_until(deadline);
		__atomic_store_n(&t->sig.blocked, saved, __ATOMIC_RELEASE);
		__atomic_store_n(&t->sig.real_blocked, 0, __ATOMIC_RELEASE);
		sig = signal_dequeue(t, set, &info);
	}
	if (!sig)
		return err ? -EINTR : -EAGAIN;
	if (uinfo && siginfo_to_user(uinfo, sig, &info))
		return -EFAULT;
	return sig;
}

SYSCALL_DEFINE0(pause)
{
	while (!signal_is_pending(current()))
		sched_sleep_until(UINT64_MAX);
	return -ERESTARTNOHAND;
}

SYSCALL_DEFINE0(rt_sigreturn)
{
	struct trapframe *tf = current()->tf;
	uint64_t mask;

	if (sigframe_restore(tf, &mask))
		group_exit(W_SIGNALED(SIGSEGV)); /* a forged or lost frame */
	current()->sig.blocked = mask & ~SIG_UNBLOCKABLE;
	/* A new frame, and maybe a mask that lets a pending signal through. */
	task_work_set(current(), TASK_WORK_FRAME | TASK_WORK_SIGNAL);
	return (long)tf->rax; /* the dispatcher stores this back in rax */
}

/* kill(pid > 0): the process of thread pid (any of its threads' ids
 * names it, as on Linux); sig 0 only checks that it exists and may be
 * signalled (EPERM). */
static int kill_process(int pid, int sig)
{
	struct task *t = task_find_vnr(pid); /* referenced: t and its group stay */
	int err = 0;

	if (!t)
		return -ESRCH;
	spin_lock(&proc_lock);
	if (t->group->state != GROUP_DEAD) /* not reaped meanwhile */
		err = signal_permission_locked(t->group, sig);
	if (!err && sig && t->group->state != GROUP_DEAD)
		signal_send_process_locked(t->group, sig, current()->group->tgid);
	spin_unlock(&proc_lock);
	task_put(t);
	return err;
}

SYSCALL_DEFINE2(kill, int, pid, int, sig)
{
	if (sig < 0 || sig > UAPI_NSIG)
		return -EINVAL;
	if (pid > 0)
		return kill_process(pid, sig);
	if (pid == -1)
		return signal_broadcast(sig);
	if (pid == INT32_MIN)
		return -ESRCH;
	return signal_send_group(pid ? pid_from_vnr(-pid) : current_pgid(), sig,
				 current()->group->tgid);
}

/* tgkill, tkill, rt_tgsigqueueinfo: sig with info to thread tid, of
 * process tgid unless tgid is 0 (both as the caller numbers them).
 * Linux's order: no such thread is ESRCH before a bad signal's EINVAL,
 * then the permission's EPERM; a real-time signal past the receiver's
 * RLIMIT_SIGPENDING is EAGAIN. */
static int kill_thread(int tgid, int tid, int sig, const struct sig_info *info)
{
	struct task *t = task_find_vnr(tid); /* referenced: t stays until task_put */
	int ret = -ESRCH;
	spin_lock(&proc_lock);
	if (t && (!tgid || pid_vnr(t->group->tgid) == tgid)) {
		ret =
		    sig < 0 || sig > UAPI_NSIG ? -EINVAL : signal_permission_locked(t->group, sig);
		if (!ret && sig && !task_exited(t)) {
			/* A stop or SIGCONT acts on the whole process. */
			jobctl_signal_sent(t->group, sig);
			ret = signal_send_info(t, sig, info);
		}
	}
	spin_unlock(&proc_lock);
	task_put(t);
	return ret;
}

/* What tkill and tgkill tell the receiver: SI_TKILL from the caller. */
static struct sig_info tkill_info(void)
{
	struct sig_info info = {.code = SI_TKILL};

	info.kill.pid = pid_vnr(current()->group->tgid);
	info.kill.uid = signal_sender_uid();
	return info;
}

SYSCALL_DEFINE3(tgkill, int, tgid, int, tid, int, sig)
{
	struct sig_info info = tkill_info();

	if (tgid <= 0 || tid <= 0)
		return -EINVAL;
	return kill_thread(tgid, tid, sig, &info);
}

SYSCALL_DEFINE2(tkill, int, tid, int, sig)
{
	struct sig_info info = tkill_info();

	if (tid <= 0)
		return -EINVAL;
	return kill_thread(0, tid, sig, &info);
}

/*
 * The information rt_sigqueueinfo and rt_tgsigqueueinfo send: the
 * caller's, the first 48 bytes of its siginfo_t (Linux's kernel_siginfo;
 * si_signo is replaced by sig).  Only the kernel and kill/tgkill send
 * si_code >= 0 or SI_TKILL: to another thread than the caller that is
 * EPERM, even for root, as Linux (dest: the target's id as the caller
 * would name itself).
 */
static long sigqueue_info_from_user(const void *uinfo, int dest, struct sig_info *info)
{
	int32_t head[3]; /* si_signo, si_errno, si_code; the union at 16 */

	if (copy_from_user(head, uinfo, sizeof(head)) ||
	    copy_from_user(info->raw, (const uint8_t *)uinfo + 16, sizeof(info->raw)))
		return -EFAULT;
	info->err = head[1];
	info->code = head[2];
	if ((info->code >= 0 || info->code == SI_TKILL) && dest != task_nr(current()))
		return -EPERM;
	return 0;
}

/* rt_sigqueueinfo: sig with the caller's information to process tgid. */
static long queue_process(int tgid, int sig, const struct sig_info *info)
{
	struct task *t = task_find_vnr(tgid); /* referenced: t and its group stay */
	long ret = -ESRCH;

	if (!t)
		return ret;
	spin_lock(&proc_lock);
	if (t->group->state != GROUP_DEAD) {
		ret =
		    sig < 0 || sig > UAPI_NSIG ? -EINVAL : signal_permission_locked(t->group, sig);
		if (!ret && sig)
			ret = signal_send_process_info_locked(t->group, sig, info);
	}
	spin_unlock(&proc_lock);
	task_put(t);
	return ret;
}

SYSCALL_DEFINE3(rt_sigqueueinfo, int, tgid, int, sig, const void *, uinfo)
{
	struct sig_info info;
	long err = sigqueue_info_from_user(uinfo, tgid, &info);

	return err ? err : queue_process(tgid, sig, &info);
}

SYSCALL_DEFINE4(rt_tgsigqueueinfo, int, tgid, int, tid, int, sig, const void *, uinfo)
{
	struct sig_info info;
	long err;

	if (tgid <= 0 || tid <= 0)
		return -EINVAL;
	if ((err = sigqueue_info_from_user(uinfo, tid, &info)))
		return err;
	return kill_thread(tgid, tid, sig, &info);
}
