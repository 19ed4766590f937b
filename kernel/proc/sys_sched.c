/*
 * Scheduler calls about CPUs.  A task (a thread, as on Linux) may run on
 * the CPUs of its affinity mask that take tasks: the online ones, or CPU 0
 * alone with smp=off (docs/smp.md).  glibc's nproc reads the mask, busybox's
 * taskset reads and sets it.
 */
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/smp.h"
#include "arch/x86_64/uaccess.h"
#include "lib/spinlock.h"
#include "proc/cred.h"
#include "proc/proc.h"
#include "sched/sched.h"
#include "sys/syscall.h"
#include <uapi/errno.h>

/* Linux's cpumask_size() for a kernel with up to 64 CPUs. */
#define CPUMASK_BYTES 8

/* Copies the mask of thread pid (0: the caller) into umask: CPUMASK_BYTES
 * bytes (the rest of the buffer untouched), returned as the size, as
 * Linux.  EINVAL: len too short for the mask or not a multiple of a long;
 * ESRCH: no such task; EFAULT. */
SYSCALL_DEFINE3(sched_getaffinity, int, pid, unsigned int, len, uint64_t *, umask)
{
	struct task *t;
	uint64_t mask;

	if (len * 8 < 1 || (len & (sizeof(long) - 1)))
		return -EINVAL;
	if (pid < 0 || !(t = task_find_or_self(pid))) /* referenced: t stays until task_put */
		return -ESRCH;
	mask = sched_affinity(t) & smp_task_cpus();
	task_put(t);
	return copy_to_user(umask, &mask, CPUMASK_BYTES) ? -EFAULT : CPUMASK_BYTES;
}

/* Binds thread pid (0: the caller) to the CPUs of umask, len bytes of it
 * read (a shorter mask is zero-extended, a longer one cut: Linux's
 * get_user_cpu_mask).  EFAULT first, then ESRCH; EBUSY for a deadline
 * task unless every CPU is in it; EINVAL if no CPU of the mask takes
 * tasks.  The caller leaves a CPU outside the mask before the call
 * returns; another thread at its CPU's next way out of the kernel. */
SYSCALL_DEFINE3(sched_setaffinity, int, pid, unsigned int, len, const uint64_t *, umask)
{
	uint64_t mask = 0;
	struct task *t;

	if (copy_from_user(&mask, umask, len < CPUMASK_BYTES ? len : CPUMASK_BYTES))
		return -EFAULT;
	if (pid < 0 || !(t = task_find_or_self(pid))) /* referenced: t stays until task_put */
		return -ESRCH;
	if (!cred_same_owner(t) && !capable(CAP_SYS_NICE)) { /* another user's: EPERM */
		task_put(t);
		return -EPERM;
	}
	int err = sched_set_affinity(t, mask & smp_task_cpus());
	task_put(t);
	return err;
}

/* The CPU the caller runs on (it may have moved by the time it looks) and
 * its NUMA node, always 0; either pointer may be NULL; the third argument
 * (an obsolete cache) is ignored, as Linux.  EFAULT. */
SYSCALL_DEFINE3(getcpu, unsigned int *, ucpu, unsigned int *, unode, void *, unused)
{
	unsigned int cpu = (unsigned int)this_cpu()->id, node = 0;

	(void)unused;
	if (ucpu && copy_to_user(ucpu, &cpu, sizeof(cpu)))
		return -EFAULT;
	if (unode && copy_to_user(unode, &node, sizeof(node)))
		return -EFAULT;
	return 0;
}
