/*
 * Scheduler calls about CPUs.  Every task may run on every CPU that takes
 * tasks: all online ones, or CPU 0 alone with smp=off (docs/smp.md); the
 * call exists because glibc's nproc and busybox's taskset read it.
 */
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/smp.h"
#include "arch/x86_64/uaccess.h"
#include "lib/spinlock.h"
#include "proc/proc.h"
#include "sys/syscall.h"
#include <uapi/errno.h>

/* Linux's cpumask_size() for a kernel with up to 64 CPUs. */
#define CPUMASK_BYTES 8

/* Copies the mask of pid (0: the caller) into umask: CPUMASK_BYTES bytes
 * (the rest of the buffer untouched), returned as the size, as Linux.
 * EINVAL: len too short for the mask or not a multiple of a long;
 * ESRCH: no such task; EFAULT. */
SYSCALL_DEFINE3(sched_getaffinity, int, pid, unsigned int, len, uint64_t *, umask)
{
	uint64_t mask = smp_sched_on ? smp_online_mask : 1;
	struct task *t;

	if (len * 8 < 1 || (len & (sizeof(long) - 1)))
		return -EINVAL;
	if (pid < 0)
		return -ESRCH;
	if (!(t = task_find_or_self(pid)))
		return -ESRCH;
	task_put(t); /* only its existence mattered: every task has the mask */
	return copy_to_user(umask, &mask, CPUMASK_BYTES) ? -EFAULT : CPUMASK_BYTES;
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
