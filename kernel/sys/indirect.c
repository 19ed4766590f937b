/*
 * syscall_indirect(flags, sigmask, nr, args): runs system call nr with
 * args, with per-call flags in effect for fds it creates and, with
 * SYSIND_SIGMASK, the blocked signals replaced by sigmask for its
 * duration (Torvalds' 2007 proposal; docs/syscall_indirect.md).
 */
#include "arch/x86_64/uaccess.h"
#include "proc/signal.h"
#include "proc/task.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/syscall_indirect.h>

SYSCALL_DEFINE4(syscall_indirect, unsigned long, flags, uint64_t, sigmask, int, nr,
		const uint64_t *, uargs)
{
	uint64_t args[6];
	long ret;

	if ((flags & ~SYSIND_ALL) || (sigmask && !(flags & SYSIND_SIGMASK)))
		return -EINVAL;
	if (nr == __NR_syscall_indirect || current()->indirect_flags)
		return -EINVAL; /* no nesting */
	if (copy_from_user(args, uargs, sizeof(args)))
		return -EFAULT;
	if (nr < 0 || !syscall_exists((uint64_t)nr))
		return -ENOSYS;
	/* Marks the call in progress even with no fd flag, to refuse nesting.
	 * current() is reloaded rather than kept: nothing to save around calls. */
	current()->indirect_flags = flags | SYSIND_ACTIVE;
	if (flags & SYSIND_SIGMASK)
		signal_set_temporary_mask(sigmask);
	ret = syscall_invoke((uint64_t)nr, args);
	current()->indirect_flags = 0;
	/* The caller's mask returns on the way out (signal_deliver), after a
	 * handler for a signal the temporary mask let through. */
	return ret;
}
