/*
 * The one way the glue enters the kernel: syscall0() .. syscall6() and the
 * sys_call() macro that picks one by its argument count and turns -errno
 * into errno (newlib's value).
 */
#ifndef LIBC_SYS_SYSCALL_H
#define LIBC_SYS_SYSCALL_H

#include <uapi/syscalls.h>
#include <uapi/syscall_indirect.h>

/*
 * Raw Linux x86_64 system calls with 0 to 6 arguments: the kernel's value,
 * -errno on error.  One per count, so a call loads only the registers it
 * passes (close: no five zeroed registers).
 */
#define SYSCALL_ASM(...)                                                                           \
	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr)__VA_ARGS__ : "rcx", "r11", "memory")

static inline long syscall0(long nr)
{
	long ret;

	SYSCALL_ASM();
	return ret;
}

static inline long syscall1(long nr, long a1)
{
	long ret;

	SYSCALL_ASM(, "D"(a1));
	return ret;
}

static inline long syscall2(long nr, long a1, long a2)
{
	long ret;

	SYSCALL_ASM(, "D"(a1), "S"(a2));
	return ret;
}

static inline long syscall3(long nr, long a1, long a2, long a3)
{
	long ret;

	SYSCALL_ASM(, "D"(a1), "S"(a2), "d"(a3));
	return ret;
}

static inline long syscall4(long nr, long a1, long a2, long a3, long a4)
{
	register long r10 __asm__("r10") = a4;
	long ret;

	SYSCALL_ASM(, "D"(a1), "S"(a2), "d"(a3), "r"(r10));
	return ret;
}

static inline long syscall5(long nr, long a1, long a2, long a3, long a4, long a5)
{
	register long r10 __asm__("r10") = a4;
	register long r8 __asm__("r8") = a5;
	long ret;

	SYSCALL_ASM(, "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8));
	return ret;
}

static inline long syscall6(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
	register long r10 __asm__("r10") = a4;
	register long r8 __asm__("r8") = a5;
	register long r9 __asm__("r9") = a6;
	long ret;

	SYSCALL_ASM(, "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9));
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

/* sys_raw(nr, args...): up to six arguments, each converted to long, by
 * the syscallN of their count. */
#define SYS_NARGS(...)			     SYS_NARGS_(__VA_ARGS__ __VA_OPT__(, ) 6, 5, 4, 3, 2, 1, 0)
#define SYS_NARGS_(a, b, c, d, e, f, n, ...) n
#define SYS_CAT(a, b)			     SYS_CAT_(a, b)
#define SYS_CAT_(a, b)			     a##b
#define sys_raw(nr, ...)		     SYS_CAT(sys_raw_, SYS_NARGS(__VA_ARGS__))((nr)__VA_OPT__(, ) __VA_ARGS__)
#define sys_raw_0(nr)			     syscall0(nr)
#define sys_raw_1(nr, a)		     syscall1(nr, (long)(a))
#define sys_raw_2(nr, a, b)		     syscall2(nr, (long)(a), (long)(b))
#define sys_raw_3(nr, a, b, c)		     syscall3(nr, (long)(a), (long)(b), (long)(c))
#define sys_raw_4(nr, a, b, c, d)	     syscall4(nr, (long)(a), (long)(b), (long)(c), (long)(d))
#define sys_raw_5(nr, a, b, c, d, e)                                                               \
	syscall5(nr, (long)(a), (long)(b), (long)(c), (long)(d), (long)(e))
#define sys_raw_6(nr, a, b, c, d, e, f)                                                            \
	syscall6(nr, (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f))

/* sys_call(nr, args...): as sys_raw, with libc's -1/errno convention. */
#define sys_call(nr, ...) sys_result(sys_raw((nr)__VA_OPT__(, ) __VA_ARGS__))

#endif
