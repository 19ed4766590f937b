/*
 * fdkernel's own calls through the glue: socket2() with O_NONSEQFD and
 * syscall_indirect().  Linux lacks both, so on the host they SKIP (ENOSYS).
 */
#include <fcntl.h>
#include <fdkernel.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tap.h"

static void check_socket2(void)
{
	int fd = socket2(AF_UNIX, SOCK_STREAM, 0, O_NONSEQFD | O_CLOEXEC);

	if (fd < 0 && errno == ENOSYS) {
		skip("socket2 is fdkernel-only (ENOSYS)", "socket2 creates a socket");
		skip("socket2 is fdkernel-only (ENOSYS)",
		     "O_NONSEQFD: fd in the non-sequential area");
		skip("socket2 is fdkernel-only (ENOSYS)", "O_CLOEXEC: FD_CLOEXEC set");
		return;
	}
	ok(fd >= 0, "socket2 creates a socket");
	ok(fd >= NONSEQ_FD_BASE, "O_NONSEQFD: fd in the non-sequential area");
	is_int(fcntl(fd, F_GETFD), FD_CLOEXEC, "O_CLOEXEC: FD_CLOEXEC set");
	close(fd);
}

static void check_indirect(void)
{
	unsigned long args[6] = {AF_UNIX, SOCK_STREAM, 0};
	sigset_t none;

	sigemptyset(&none);
	long fd = syscall_indirect(SYSIND_NONSEQFD | SYSIND_CLOFORK, none, __NR_socket, args);
	if (fd < 0 && errno == ENOSYS) {
		skip("syscall_indirect is fdkernel-only (ENOSYS)", "socket via syscall_indirect");
		skip("syscall_indirect is fdkernel-only (ENOSYS)", "unknown flags: EINVAL");
		return;
	}
	ok(fd >= NONSEQ_FD_BASE && fcntl(fd, F_GETFD) == FD_CLOFORK,
	   "socket via syscall_indirect: non-sequential, FD_CLOFORK");
	close(fd);
	is_errno(syscall_indirect(~SYSIND_ALL, none, __NR_getpid, args), EINVAL,
		 "unknown flags: EINVAL");
}

int main(void)
{
	plan(5);
	check_socket2();
	check_indirect();
	return done();
}
