/* syscall_indirect()'s own errors (unknown flags, nesting, a stray mask:
 * EINVAL; bad nr: ENOSYS; unreadable args: EFAULT) and the inner call's
 * result and errno passed through unchanged. */
#include <fcntl.h>
#include <unistd.h>

#include "indirect.h"
#include "sigutil.h"

#define KERNEL_ADDR 0xffffffff80100000UL

static void test_own_errors(void)
{
	static const unsigned long args[6];

	is_errno(IND(1UL << 6, __NR_getpid, 0), EINVAL, "unknown flag bit 6: EINVAL");
	is_errno(IND(1UL << 63, __NR_getpid, 0), EINVAL, "unknown flag bit 63: EINVAL");
	is_errno(IND(0, __NR_syscall_indirect, 0, 0, __NR_getpid, (unsigned long)args), EINVAL,
		 "nesting: EINVAL");
	is_errno(IND_CALL(0, LBIT(LSIGUSR1), __NR_getpid, 0), EINVAL,
		 "a mask without SYSIND_SIGMASK: EINVAL");
	is_errno(IND(0, -1, 0), ENOSYS, "nr -1: ENOSYS");
	is_errno(IND(0, 5000, 0), ENOSYS, "nr 5000: ENOSYS");
	is_errno(IND(0, 0x7fffffff, 0), ENOSYS, "nr INT_MAX: ENOSYS");
	is_errno(syscall(__NR_syscall_indirect, 0, 0, __NR_getpid, NULL), EFAULT,
		 "args NULL: EFAULT");
	is_errno(syscall(__NR_syscall_indirect, 0, 0, __NR_getpid, KERNEL_ADDR), EFAULT,
		 "args in the kernel half: EFAULT");
	is_errno(syscall(__NR_syscall_indirect, 0, 0, __NR_getpid, 0x8000000000000000UL), EFAULT,
		 "args non-canonical: EFAULT");
}

static void test_pass_through(void)
{
	int fds[2];
	char buf[4];

	is_int(IND(0, __NR_getpid, 0), getpid(), "getpid: the same result");
	is_errno(IND(SYSIND_NONSEQFD, __NR_open, (unsigned long)"/no/such/file", 0), ENOENT,
		 "open of a missing file: ENOENT");
	is_errno(IND(0, __NR_close, (unsigned long)-1), EBADF, "close(-1): EBADF");
	is_errno(IND(0, __NR_fcntl, 0, 9999, 0), EINVAL, "fcntl with a bad cmd: EINVAL");
	require(pipe(fds) == 0 && write(fds[1], "abc", 3) == 3, "pipe");
	is_int(IND(0, __NR_read, (unsigned long)fds[0], (unsigned long)buf, sizeof(buf)), 3,
	       "read: the byte count");
	require(write(fds[1], "d", 1) == 1, "write");
	is_errno(IND(0, __NR_read, (unsigned long)fds[0], KERNEL_ADDR, 1), EFAULT,
		 "read into the kernel half: the inner EFAULT");
	close(fds[0]);
	close(fds[1]);
}

int main(void)
{
	if (!indirect_available())
		skip_all("no syscall_indirect (fdkernel only)");
	plan(16);
	test_own_errors();
	test_pass_through();
	return done();
}
