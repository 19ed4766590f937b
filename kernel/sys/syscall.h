/*
 * System-call handlers.  Each is defined with SYSCALL_DEFINEn, which gives
 * it typed parameters and a uniform entry `long sys_NAME(const uint64_t
 * args[6])` for the one table in sys/syscall_table.c.  A handler returns
 * its result or -errno, as Linux does; it must validate every argument.
 */
#ifndef SYS_SYSCALL_H
#define SYS_SYSCALL_H

#include "sys/enosys.h"

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86_64/trapframe.h"
#include "sys/strace.h"
#include <uapi/errno.h>

#define NR_SYSCALLS 1002

typedef long (*syscall_fn)(const uint64_t args[6]);

/* A handler's parameters as written in its SYSCALL_DEFINEn, kept so the
 * syscall trace (sys/strace.c) decodes arguments from the definitions. */
struct syscall_param {
	const char *type, *name;
};
struct syscall_params {
	int n;
	struct syscall_param p[6];
};
#define SYSCALL_PARAMS(name, n, ...)                                                               \
	const struct syscall_params sysparams_##name = {n, {__VA_ARGS__}};

#define SYSCALL_DEFINE0(name)                                                                      \
	SYSCALL_PARAMS(name, 0)                                                                    \
	static long do_sys_##name(void);                                                           \
	long sys_##name(const uint64_t args[6])                                                    \
	{                                                                                          \
		(void)args;                                                                        \
		return do_sys_##name();                                                            \
	}                                                                                          \
	static long do_sys_##name(void)

#define SYSCALL_DEFINE1(name, t1, a1)                                                              \
	SYSCALL_PARAMS(name, 1, {#t1, #a1})                                                        \
	static long do_sys_##name(t1 a1);                                                          \
	long sys_##name(const uint64_t args[6])                                                    \
	{                                                                                          \
		return do_sys_##name((t1)args[0]);                                                 \
	}                                                                                          \
	static long do_sys_##name(t1 a1)

#define SYSCALL_DEFINE2(name, t1, a1, t2, a2)                                                      \
	SYSCALL_PARAMS(name, 2, {#t1, #a1}, {#t2, #a2})                                            \
	static long do_sys_##name(t1 a1, t2 a2);                                                   \
	long sys_##name(const uint64_t args[6])                                                    \
	{                                                                                          \
		return do_sys_##name((t1)args[0], (t2)args[1]);                                    \
	}                                                                                          \
	static long do_sys_##name(t1 a1, t2 a2)

#define SYSCALL_DEFINE3(name, t1, a1, t2, a2, t3, a3)                                              \
	SYSCALL_PARAMS(name, 3, {#t1, #a1}, {#t2, #a2}, {#t3, #a3})                                \
	static long do_sys_##name(t1 a1, t2 a2, t3 a3);                                            \
	long sys_##name(const uint64_t args[6])                                                    \
	{                                                                                          \
		return do_sys_##name((t1)args[0], (t2)args[1], (t3)args[2]);                       \
	}                                                                                          \
	static long do_sys_##name(t1 a1, t2 a2, t3 a3)

#define SYSCALL_DEFINE4(name, t1, a1, t2, a2, t3, a3, t4, a4)                                      \
	SYSCALL_PARAMS(name, 4, {#t1, #a1}, {#t2, #a2}, {#t3, #a3}, {#t4, #a4})                    \
	static long do_sys_##name(t1 a1, t2 a2, t3 a3, t4 a4);                                     \
	long sys_##name(const uint64_t args[6])                                                    \
	{                                                                                          \
		return do_sys_##name((t1)args[0], (t2)args[1], (t3)args[2], (t4)args[3]);          \
	}                                                                                          \
	static long do_sys_##name(t1 a1, t2 a2, t3 a3, t4 a4)

#define SYSCALL_DEFINE5(name, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5)                              \
	SYSCALL_PARAMS(name, 5, {#t1, #a1}, {#t2, #a2}, {#t3, #a3}, {#t4, #a4}, {#t5, #a5})        \
	static long do_sys_##name(t1 a1, t2 a2, t3 a3, t4 a4, t5 a5);                              \
	long sys_##name(const uint64_t args[6])                                                    \
	{                                                                                          \
		return do_sys_##name((t1)args[0], (t2)args[1], (t3)args[2], (t4)args[3],           \
				     (t5)args[4]);                                                 \
	}                                                                                          \
	static long do_sys_##name(t1 a1, t2 a2, t3 a3, t4 a4, t5 a5)

#define SYSCALL_DEFINE6(name, t1, a1, t2, a2, t3, a3, t4, a4, t5, a5, t6, a6)                      \
	SYSCALL_PARAMS(name, 6, {#t1, #a1}, {#t2, #a2}, {#t3, #a3}, {#t4, #a4}, {#t5, #a5},        \
		       {#t6, #a6})                                                                 \
	static long do_sys_##name(t1 a1, t2 a2, t3 a3, t4 a4, t5 a5, t6 a6);                       \
	long sys_##name(const uint64_t args[6])                                                    \
	{                                                                                          \
		return do_sys_##name((t1)args[0], (t2)args[1], (t3)args[2], (t4)args[3],           \
				     (t5)args[4], (t6)args[5]);                                    \
	}                                                                                          \
	static long do_sys_##name(t1 a1, t2 a2, t3 a3, t4 a4, t5 a5, t6 a6)

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
