/*
 * Results of system calls as libc reports them, and the raw entry points a
 * program may use: syscall() and fdkernel's syscall_indirect().
 */
#include <errno.h>
#include <fdkernel.h>

#include "syscall.h"
#include "translate.h"

long sys_fail(long ret)
{
	errno = errno_from_linux(sys_error(ret));
	return -1;
}

/*
 * syscall(nr, a1..a6): moves each argument one register down (a6 from the
 * stack) and enters the kernel, as glibc's syscall.S does; in C the six
 * va_arg reads cost more than the kernel's getpid.  A failure goes on to
 * sys_fail, which sets errno and returns -1.
 */
__attribute__((naked)) long syscall(long nr __attribute__((unused)), ...)
{
	__asm__("mov %rdi, %rax\n\t"
		"mov %rsi, %rdi\n\t"
		"mov %rdx, %rsi\n\t"
		"mov %rcx, %rdx\n\t"
		"mov %r8, %r10\n\t"
		"mov %r9, %r8\n\t"
		"mov 8(%rsp), %r9\n\t"
		"syscall\n\t"
		"cmp $-4095, %rax\n\t"
		"jae 1f\n\t"
		"ret\n"
		"1:\tmov %rax, %rdi\n\t"
		"jmp sys_fail");
}

long syscall_indirect(unsigned long flags, sigset_t sigmask, int nr, const unsigned long args[6])
{
	return sys_call(__NR_syscall_indirect, flags, sigset_to_linux(&sigmask), nr, args);
}
