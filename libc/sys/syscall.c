/*
 * Results of system calls as libc reports them, and the raw entry points a
 * program may use: syscall() and fdkernel's syscall_indirect().
 */
#include <errno.h>
#include <fdkernel.h>
#include <stdarg.h>

#include "syscall.h"
#include "translate.h"

long sys_fail(long ret)
{
	errno = errno_from_linux(sys_error(ret));
	return -1;
}

long syscall(long nr, ...)
{
	long a[6];
	va_list ap;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	return sys_result(syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5]));
}

long syscall_indirect(unsigned long flags, sigset_t sigmask, int nr, const unsigned long args[6])
{
	return sys_call(__NR_syscall_indirect, flags, sigset_to_linux(&sigmask), nr, args);
}
