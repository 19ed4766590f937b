/*
 * The one way the glue enters the kernel: syscall6() and the sys_call()
 * macro that pads arguments and turns -errno into errno (newlib's value).
 */
#ifndef LIBC_SYS_SYSCALL_H
#define LIBC_SYS_SYSCALL_H

#include <uapi/syscalls.h>
#include <uapi/syscall_indirect.h>

/* Raw Linux x86_64 system call: returns the kernel's value, -errno on error. */
static inline long syscall6(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
	register long r10 __asm__("r10") = a4;
	register long r8 __asm__("r8") = a5;
	register long r9 __asm__("r9") = a6;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

/* The kernel's own errno value of a raw result, 0 if it is no error. */
static inline int sys_error(long ret)
{
	return ret < 0 && ret > -4096 ? (int)-ret : 0;
}

/* Sets errno from a failed raw result (translated); returns -1. */
long sys_fail(long ret);

/* A kernel result as libc returns it: -1 with errno set (translated).
 * Inline: success, the common case, costs a compare. */
static inline long sys_result(long ret)
{
	return sys_error(ret) ? sys_fail(ret) : ret;
}

#define SYS_PAD6(a, b, c, d, e, f, ...)                                                            \
	(long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f)

/* sys_raw(nr, args...): up to six arguments, missing ones are 0. */
#define sys_raw(nr, ...) syscall6((nr), SYS_PAD6(__VA_ARGS__ __VA_OPT__(, ) 0, 0, 0, 0, 0, 0))

/* sys_call(nr, args...): as sys_raw, with libc's -1/errno convention. */
#define sys_call(nr, ...) sys_result(sys_raw((nr)__VA_OPT__(, ) __VA_ARGS__))

#endif
