/*
 * System-call handlers.  Each is defined with SYSCALL_DEFINEn, which gives
 * it typed parameters and a uniform entry `long sys_NAME(const uint64_t
 * args[6])` for the one table in sys/syscall_table.c.  A handler returns
 * its result or -errno, as Linux does; it must validate every argument.
 * This is all a handler includes: the table, the dispatcher and the trace
 * are in sys/dispatch.h, for the few files that run system calls.
 */
#ifndef SYS_SYSCALL_H
#define SYS_SYSCALL_H

#include <stdint.h>
#include <uapi/errno.h>

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

#endif
