/*
 * syscall_indirect(flags, sigmask, nr, args): runs system call nr with
 * args, with per-call flags in effect for fds it creates and, with
 * SYSIND_SIGMASK, the blocked signals replaced by sigmask for its
 * duration (Torvalds' 2007 proposal; docs/syscall_indirect.md).
 */
#include "arch/x86_64/uaccess.h"
#include "proc/signal.h"
#include "proc/task.h"
#include "sys/dispatch.h"
#include "async/async.h"
#include <uapi/errno.h>
#include <uapi/syscall_indirect.h>

/* No argument words: what a call without any is passed (it reads none). */
static const uint64_t no_args[6];

/*
 * The call in full: every check in its documented order, nr's nargs
 * argument words copied from uargs (only those: a handler reads no more,
 * as registers beyond them are not read either, so args may be shorter
 * than six words, or NULL for a call with none), and with SYSIND_SIGMASK,
 * sigmask in effect.  The flags stay set until the system call's way out
 * clears them (syscall.asm).
 */
static __attribute__((noinline)) long indirect_call(unsigned long flags, uint64_t sigmask, int nr,
						    const uint64_t *uargs, int queue)
{
	uint64_t args[6];
	unsigned int nargs;

	if ((flags & ~SYSIND_ALL) || (sigmask && !(flags & SYSIND_SIGMASK)))
		return -EINVAL;
	/* No nesting: a nested syscall_indirect finds the flag set below. */
	if (current()->indirect_flags)
		return -EINVAL;
	if (nr < 0 || !syscall_exists((uint64_t)nr))
		return -ENOSYS;
	if (flags & SYSIND_ASYNC) /* on a worker: a token now, the result in queue */
		return sysind_async_submit(flags, sigmask, nr, uargs, queue);
	/* Marks the call in progress even with no fd flag, to refuse nesting. */
	current()->indirect_flags = flags | SYSIND_ACTIVE;
	nargs = syscall_params[nr]->n;
	if (nargs && copy_from_user(args, uargs, nargs * sizeof(*args)))
		return -EFAULT;
	/* The caller's mask returns on the way out (signal_deliver), after a
	 * handler for a signal the temporary mask let through. */
	if (flags & SYSIND_SIGMASK)
		signal_set_temporary_mask(sigmask);
	return syscall_invoke((uint64_t)nr, nargs ? args : no_args);
}

SYSCALL_PARAMS(syscall_indirect, 5, {"unsigned long", "flags"}, {"uint64_t", "sigmask"},
	       {"int", "nr"}, {"const uint64_t *", "uargs"}, {"int", "queue"})

/*
 * The handler, written out rather than by SYSCALL_DEFINE4 so that its
 * common case reads only what it tests: a call without arguments, mask or
 * trace, only fd flags, not nested, ends in a tail call with nothing to
 * copy or save (its cost over the plain call: docs/bench.md,
 * getpid_indirect).  Anything else is indirect_call's.  The fd flags stay
 * in SYSIND_* form in the task: fd_install.c converts them to fd flags
 * (fdflags.h) only for the calls that create fds.
 */
long sys_syscall_indirect(const uint64_t frame[6])
{
	unsigned long flags = frame[0];
	unsigned int nr = (unsigned int)frame[2];
	struct task *t = current();
	const struct syscall_params *p;

	if (__builtin_expect((flags & ~(SYSIND_ALL & ~(SYSIND_SIGMASK | SYSIND_ASYNC))) | frame[1],
			     0) ||
	    nr >= NR_SYSCALLS || !(p = syscall_params[nr]) || p->n || strace_on ||
	    t->indirect_flags)
		return indirect_call(flags, frame[1], (int)frame[2], (const uint64_t *)frame[3],
				     (int)frame[4]);
	t->indirect_flags = flags | SYSIND_ACTIVE;
	return syscall_table[nr](no_args);
}
