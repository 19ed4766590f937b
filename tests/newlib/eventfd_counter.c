/*
 * eventfd: the counter (sums, EFD_SEMAPHORE, the 2^64-1 ceiling), every
 * errno (bad flags, short buffers, 0xffffffffffffffff, EAGAIN, EFAULT),
 * poll readiness, sleeping readers and writers woken from another process,
 * EINTR, and one counter seen through dup, fork and SCM_RIGHTS.
 */
#include "event_util.h"

#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>

#define MAXV 0xfffffffffffffffeULL /* the largest count */

static void check_flags(void)
{
	int fd;

	is_errno(eventfd(0, 0x10), EINVAL, "eventfd2 with an unknown flag: EINVAL");
	fd = eventfd(0, 0);
	ok(fd >= 0 && fcntl(fd, F_GETFD) == 0 && (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDWR,
	   "eventfd(0, 0): read-write, no fd flag");
	ok(!(fcntl(fd, F_GETFL) & O_NONBLOCK), "... blocking");
	close(fd);
	fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	ok(fcntl(fd, F_GETFL) & O_NONBLOCK, "EFD_NONBLOCK: O_NONBLOCK");
	is_int(fcntl(fd, F_GETFD), FD_CLOEXEC, "EFD_CLOEXEC: FD_CLOEXEC");
	close(fd);
	if (fdk_only("EFD_CLOFORK")) {
		fd = eventfd(0, EFD_CLOFORK);
		is_int(fcntl(fd, F_GETFD), FD_CLOFORK, "EFD_CLOFORK: FD_CLOFORK");
		close(fd);
	}
	fd = syscall(__NR_eventfd, 5);
	is_int(read8(fd), 5, "eventfd(5) (the old call) starts at 5");
	close(fd);
	fd = syscall(__NR_eventfd2, 0x100000007UL, 0);
	is_int(read8(fd), 7, "initval is an unsigned int: the upper bits are ignored");
	close(fd);
}

static void check_counter(void)
{
	int fd = eventfd(0, EFD_NONBLOCK);
	uint32_t small = 1;
	uint64_t halves[2] = {0, 0};
	struct iovec iov[2] = {{&halves[0], 4}, {(char *)&halves[0] + 4, 4}};

	is_errno(read8(fd), EAGAIN, "count 0, non-blocking read: EAGAIN");
	is_int(write8(fd, 3), 8, "write 3: 8 bytes");
	is_int(write8(fd, 4), 8, "write 4");
	is_int(read8(fd), 7, "a read takes the sum, 7");
	is_errno(read8(fd), EAGAIN, "... and leaves 0");
	is_errno(write(fd, &small, 4), EINVAL, "a 4-byte write: EINVAL");
	is_errno(write8(fd, UINT64_MAX), EINVAL, "writing 0xffffffffffffffff: EINVAL");
	write8(fd, 9);
	is_errno(read(fd, &small, 4), EINVAL, "a 4-byte read: EINVAL");
	is_int(read(fd, halves, 16), 8, "a 16-byte read moves 8");
	is_int(halves[0], 9, "... the count");
	is_errno(writev(fd, iov, 2), EINVAL,
		 "writev of 4 + 4 bytes: EINVAL (one write per segment)");
	write8(fd, 0x1122334455667788ULL);
	is_int(readv(fd, iov, 2) == 8 && halves[0] == 0x1122334455667788ULL, 1,
	       "readv into 4 + 4 bytes reads the value across them");
	is_errno(write(fd, NULL, 8), EFAULT, "write from NULL: EFAULT");
	is_errno(write(fd, KERNEL_PTR, 8), EFAULT, "write from a kernel address: EFAULT");
	is_errno(read8(fd), EAGAIN, "... the count unchanged, 0");
	is_int(write8(fd, MAXV), 8, "write 2^64-2: the largest count");
	is_errno(write8(fd, 1), EAGAIN, "one more does not fit: EAGAIN");
	is_int(ready(fd, POLLIN | POLLOUT), POLLIN, "full: POLLIN, no POLLOUT");
	is_int(read8(fd), (int64_t)MAXV, "read gives 2^64-2 back");
	is_int(ready(fd, POLLIN | POLLOUT), POLLOUT, "empty: POLLOUT only");
	write8(fd, 1);
	is_int(ready(fd, POLLIN | POLLOUT), POLLIN | POLLOUT, "1: POLLIN | POLLOUT");
	is_errno(read(fd, KERNEL_PTR, 8), EFAULT, "read into a kernel address: EFAULT");
	close(fd);
}

static void check_semaphore(void)
{
	int fd = eventfd(3, EFD_SEMAPHORE | EFD_NONBLOCK);
	eventfd_t v = 0;

	is_int(read8(fd), 1, "EFD_SEMAPHORE: a read takes 1");
	ok(eventfd_read(fd, &v) == 0 && v == 1, "... again (eventfd_read)");
	is_int(read8(fd), 1, "... and the third");
	is_errno(read8(fd), EAGAIN, "... then EAGAIN");
	ok(eventfd_write(fd, 2) == 0 && read8(fd) == 1, "eventfd_write 2: reads give 1 each");
	close(fd);
}

static void check_sleepers(void)
{
	int fd = eventfd(0, 0);
	pid_t pid;
	long t = now_ms();

	pid = later8(fd, 50, 42);
	is_int(read8(fd), 42, "a blocking read sleeps until another process writes");
	ok(now_ms() - t >= 40, "... which took its delay");
	waitpid(pid, NULL, 0);
	write8(fd, MAXV);
	t = now_ms(); /* before the fork: on two CPUs the child's sleep may start first */
	pid = later8(fd, -50, 0);
	is_int(write8(fd, 5), 8, "a write that does not fit sleeps until another process reads");
	ok(now_ms() - t >= 40, "... which took its delay");
	waitpid(pid, NULL, 0);
	is_int(read8(fd), 5, "the counter holds the second write only");
	pid = signal_later(50);
	is_errno(read8(fd), EINTR, "a signal ends a blocking read: EINTR");
	ok(got_signal, "... after its handler ran");
	waitpid(pid, NULL, 0);
	close(fd);
}

/* The fd passed over a unix socket: the same counter. */
static int pass_fd(int fd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	int sv[2], got = -1;
	char c = 'x';
	struct iovec v = {&c, 1};
	struct msghdr m = {.msg_iov = &v, .msg_iovlen = 1, .msg_control = &ctl};

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		return -1;
	memset(&ctl, 0, sizeof ctl);
	m.msg_controllen = CMSG_SPACE(sizeof(int));
	ctl.h.cmsg_len = CMSG_LEN(sizeof(int));
	ctl.h.cmsg_level = SOL_SOCKET;
	ctl.h.cmsg_type = SCM_RIGHTS;
	memcpy(CMSG_DATA(&ctl.h), &fd, sizeof fd);
	if (sendmsg(sv[0], &m, 0) == 1 && recvmsg(sv[1], &m, 0) == 1)
		memcpy(&got, CMSG_DATA(&ctl.h), sizeof got);
	close(sv[0]);
	close(sv[1]);
	return got;
}

static void check_sharing(void)
{
	int fd = eventfd(0, EFD_NONBLOCK), copy = dup(fd), passed = pass_fd(fd);
	pid_t pid;

	write8(copy, 1);
	write8(passed, 2);
	is_int(read8(fd), 3, "dup and SCM_RIGHTS share the counter");
	close(copy);
	pid = later8(passed, 0, 10);
	waitpid(pid, NULL, 0);
	close(passed);
	is_int(read8(fd), 10, "a forked child writes the parent's counter");
	pid = later8(fd, 10, 4);
	close(fd); /* the child holds the last reference */
	ok(reaped_ok(pid), "the child's write after the parent closed succeeds");
}

int main(void)
{
	int before = next_fd();

	plan(8 + 22 + 5 + 7 + 3 + 1);
	check_flags();
	check_counter();
	check_semaphore();
	check_sleepers();
	check_sharing();
	is_int(next_fd(), before, "no fd left open");
	return done();
}
