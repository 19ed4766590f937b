/*
 * Calls fdkernel does not implement: each answers ENOSYS and is counted
 * (/proc/kstat "enosys_calls"); with the boot word `enosys=log` the first
 * call of each number is logged with the calling program's name, so
 * running a foreign binary once lists what it missed (docs/linux-abi.md).
 */
#include "sys/enosys.h"
#include "cmdline.h"
#include "lib/printk.h"
#include "proc/task.h"
#include "sched/sched.h"
#include "sys/dispatch.h"
#include <uapi/errno.h>

/* Calls made to unimplemented numbers since boot (atomic). */
static unsigned long enosys_calls;
/* Numbers already logged, one bit each; numbers past NR_SYSCALLS share the
 * last bit (atomic bit operations: any CPU may set one). */
static uint64_t logged[(NR_SYSCALLS + 1 + 63) / 64];

long syscall_enosys(uint64_t nr)
{
	uint64_t bit = nr < NR_SYSCALLS ? nr : NR_SYSCALLS;
	uint64_t mask = 1ULL << (bit % 64);
	struct task *t = current();

	__atomic_add_fetch(&enosys_calls, 1, __ATOMIC_RELAXED);
	if (kopts.enosys_log &&
	    !(__atomic_fetch_or(&logged[bit / 64], mask, __ATOMIC_RELAXED) & mask))
		printk("enosys: %s[%d] called system call %lu, which fdkernel does not have\n",
		       t ? t->name : "kernel", t ? t->pid : 0, (unsigned long)nr);
	return -ENOSYS;
}

unsigned long enosys_count(void)
{
	return __atomic_load_n(&enosys_calls, __ATOMIC_RELAXED);
}
