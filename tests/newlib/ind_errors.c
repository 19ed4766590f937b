/* syscall_indirect()'s own errors (unknown flags, nesting, a stray mask:
 * EINVAL; bad nr: ENOSYS; unreadable args: EFAULT), args read only as far
 * as the call takes arguments, and the inner call's result and errno
 * passed through unchanged. */
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "indirect.h"
#include "sigutil.h"

#define KERNEL_ADDR 0xffffffff80100000UL

static void test_own_errors(void)
{
	static const unsigned long args[6];

	is_errno(IND(1UL << 7, __NR_getpid, 0), EINVAL, "unknown flag bit 7: EINVAL");
	is_errno(IND(1UL << 63, __NR_getpid, 0), EINVAL, "unknown flag bit 63: EINVAL");
	is_errno(IND(0, __NR_syscall_indirect, 0, 0, __NR_getpid, (unsigned long)args), EINVAL,
		 "nesting: EINVAL");
	is_errno(IND_CALL(0, LBIT(LSIGUSR1), __NR_getpid, 0), EINVAL,
		 "a mask without SYSIND_SIGMASK: EINVAL");
	is_errno(IND(0, -1, 0), ENOSYS, "nr -1: ENOSYS");
	is_errno(IND(0, 5000, 0), ENOSYS, "nr 5000: ENOSYS");
	is_errno(IND(0, 0x7fffffff, 0), ENOSYS, "nr INT_MAX: ENOSYS");
	is_errno(syscall(__NR_syscall_indirect, 0, 0, __NR_close, NULL), EFAULT,
		 "args NULL: EFAULT");
	is_errno(syscall(__NR_syscall_indirect, 0, 0, __NR_close, KERNEL_ADDR), EFAULT,
		 "args in the kernel half: EFAULT");
	is_errno(syscall(__NR_syscall_indirect, 0, 0, __NR_close, 0x8000000000000000UL), EFAULT,
		 "args non-canonical: EFAULT");
}

/* Only the words the inner call takes are read: a call without arguments
 * never touches args, and a shorter array may end at an unmapped page. */
static void test_args_read(void)
{
	char *page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned long *end;
	int fds[2];

	require(page != MAP_FAILED && munmap(page + 4096, 4096) == 0,
		"two pages, the second unmapped");
	end = (unsigned long *)(page + 4096);
	is_int(syscall(__NR_syscall_indirect, 0, 0, __NR_getpid, NULL), getpid(),
	       "getpid with args NULL: it takes none, so none are read");
	is_int(syscall(__NR_syscall_indirect, SYSIND_CLOEXEC, 0, __NR_getppid, KERNEL_ADDR),
	       getppid(), "getppid with args in the kernel half: not read either");
	require(pipe(fds) == 0, "pipe");
	end[-1] = (unsigned long)fds[0];
	is_int(syscall(__NR_syscall_indirect, 0, 0, __NR_close, end - 1), 0,
	       "close with its one word just before an unmapped page: read, and no more");
	is_errno(close(fds[0]), EBADF, "... and the fd it named is closed");
	end[-1] = (unsigned long)fds[1];
	is_errno(syscall(__NR_syscall_indirect, 0, 0, __NR_dup2, end - 1), EFAULT,
		 "dup2's second word on the unmapped page: EFAULT");
	end[-2] = (unsigned long)fds[1];
	end[-1] = 100;
	is_int(syscall(__NR_syscall_indirect, 0, 0, __NR_dup2, end - 2), 100,
	       "dup2(fds[1], 100) with both words mapped: it runs");
	close(fds[1]);
	close(100);
	munmap(page, 4096);
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
	plan(22);
	test_own_errors();
	test_args_read();
	test_pass_through();
	return done();
}
