/*
 * arch_prctl: the x86_64 thread-pointer registers.  A libc points FS at its
 * thread control block (musl and glibc do it before main, and every TLS
 * access goes through it), so each task keeps its own bases and the
 * scheduler loads them (sched.c: user_bases_load).
 */
#include "arch/x86_64/uaccess.h"
#include "mm/layout.h"
#include "proc/task.h"
#include "sched/sched.h"
#include "sys/syscall.h"
#include <uapi/errno.h>

#define ARCH_SET_GS    0x1001
#define ARCH_SET_FS    0x1002
#define ARCH_GET_FS    0x1003
#define ARCH_GET_GS    0x1004
#define ARCH_GET_CPUID 0x1011
#define ARCH_SET_CPUID 0x1012

/* A base must lie in the user half: Linux gives EPERM otherwise (a kernel
 * address would let user mode read kernel memory through %fs). */
static long set_base(uint64_t *base, uint64_t addr)
{
	if (addr >= USER_END)
		return -EPERM;
	*base = addr;
	user_bases_load(current());
	return 0;
}

static long get_base(uint64_t base, uint64_t uaddr)
{
	return copy_to_user((void *)uaddr, &base, sizeof(base)) ? -EFAULT : 0;
}

SYSCALL_DEFINE2(arch_prctl, int, code, uint64_t, addr)
{
	struct task *t = current();

	switch (code) {
	case ARCH_SET_FS:
		return set_base(&t->fsbase, addr);
	case ARCH_SET_GS:
		return set_base(&t->gsbase, addr);
	case ARCH_GET_FS:
		return get_base(t->fsbase, addr);
	case ARCH_GET_GS:
		return get_base(t->gsbase, addr);
	case ARCH_GET_CPUID: /* CPUID never faults here: enabled */
		return 1;
	case ARCH_SET_CPUID: /* no CPUID faulting (no cpuid_fault in /proc/cpuinfo) */
		return -ENODEV;
	}
	return -EINVAL;
}
