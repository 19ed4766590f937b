/*
 * The system-call table: one array from number to handler, built from
 * sys/syscall_list.h, and the dispatcher the entry code calls.  Every call,
 * syscall_indirect's inner one included, goes through syscall_invoke: the
 * one place the syscall trace hooks in.
 */
#include "sys/enosys.h"
#include "sys/strace.h"
#include "sys/syscall.h"
#include "sys/syscall_list.h"
#include <uapi/errno.h>

#define DECLARE_HANDLER(nr, name) long sys_##name(const uint64_t args[6]);
SYSCALL_LIST(DECLARE_HANDLER)

#define TABLE_ENTRY(nr, name) [nr] = sys_##name,
static const syscall_fn syscall_table[NR_SYSCALLS] = {SYSCALL_LIST(TABLE_ENTRY)};

bool syscall_exists(uint64_t nr)
{
	return nr < NR_SYSCALLS && syscall_table[nr];
}

long syscall_call(uint64_t nr, const uint64_t args[6])
{
	if (!syscall_exists(nr))
		return syscall_enosys(nr);
	return syscall_table[nr](args);
}

long syscall_invoke(uint64_t nr, const uint64_t args[6])
{
	if (__builtin_expect(strace_on, 0))
		return strace_invoke(nr, args);
	return syscall_call(nr, args);
}
