/*
 * Running system calls: the table from number to handler, the dispatcher
 * every call goes through, and the trace's hook in it.  For the entry path
 * (arch/x86_64/syscall.c), syscall_indirect and the trace; a handler
 * includes sys/syscall.h alone.
 */
#ifndef SYS_DISPATCH_H
#define SYS_DISPATCH_H

#include <stdbool.h>
#include <stdint.h>
#include "sys/enosys.h"
#include "sys/strace.h"
#include "sys/syscall.h"

#define NR_SYSCALLS 1003

typedef long (*syscall_fn)(const uint64_t args[6]);

struct trapframe;

/* Number to handler (sys/syscall_table.c); NULL where none is implemented. */
extern const syscall_fn syscall_table[NR_SYSCALLS];
/* Number to the handler's parameters (its SYSCALL_DEFINEn), where it has one. */
extern const struct syscall_params *const syscall_params[NR_SYSCALLS];

/* True if nr names an implemented call. */
static inline bool syscall_exists(uint64_t nr)
{
	return nr < NR_SYSCALLS && syscall_table[nr];
}

/* Runs syscall nr with args, never traced (for the trace itself): the
 * handler's result, or -ENOSYS (counted, and logged with enosys=log:
 * sys/enosys.c). */
static inline long syscall_call(uint64_t nr, const uint64_t args[6])
{
	/* Both tests marked unlikely one by one: as one condition gcc laid
	 * the handler's call out of line, a jump back on every call. */
	if (__builtin_expect(nr >= NR_SYSCALLS, 0) || __builtin_expect(!syscall_table[nr], 0))
		return syscall_enosys(nr);
	return syscall_table[nr](args);
}

/*
 * The same, traced when the trace is on: every call, syscall_indirect's
 * inner one included, goes through here.  Inline, as it runs on every
 * system call: the trace costs one predictable branch when off.
 */
static inline long syscall_invoke(uint64_t nr, const uint64_t args[6])
{
	if (__builtin_expect(strace_on, 0))
		return strace_invoke(nr, args);
	return syscall_call(nr, args);
}

/* Points the SYSCALL instruction at syscall_entry (boot, per CPU). */
void syscall_init(void);

/* From syscall_entry (arch/x86_64/syscall.asm), for the calls its own
 * table lookup leaves out: traced, or without a handler. */
long syscall_dispatch(struct trapframe *tf);
/* From syscall_entry when the way out has work (arch/x86_64/syscall.c). */
void syscall_exit_work(struct trapframe *tf);

#endif
