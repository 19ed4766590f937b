/*
 * signalfd / signalfd4 argument checks in Linux's order (sizemask, the
 * mask's address, flags, the fd), SIGKILL and SIGSTOP silently left out of
 * a mask, the flags (SFD_NONBLOCK, SFD_CLOEXEC, fdkernel's SFD_CLOFORK),
 * and what a signalfd refuses: short reads, writes.  Nothing leaks.
 */
#include "fd_util.h"
#include "robust.h"
#include "signalfd_util.h"

static void check_args(void)
{
	uint64_t m = LBIT(LSIGUSR1);
	int p[2], fd, before;

	require(pipe(p) == 0, "pipe");
	before = next_fd();
	is_errno(syscall(__NR_signalfd4, -1, &m, 4, 0), EINVAL, "sizemask 4: EINVAL");
	is_errno(syscall(__NR_signalfd4, -1, &m, 16, 0), EINVAL, "sizemask 16: EINVAL");
	is_errno(syscall(__NR_signalfd, -1, &m, 0), EINVAL, "signalfd, sizemask 0: EINVAL");
	is_errno(syscall(__NR_signalfd4, -1, (void *)8, 4, 0), EINVAL,
		 "a bad size is EINVAL before a bad mask");
	is_errno(syscall(__NR_signalfd4, -1, (void *)8, 8, 0), EFAULT, "unmapped mask: EFAULT");
	is_errno(syscall(__NR_signalfd4, -1, KERNEL_PTR, 8, 0), EFAULT, "kernel mask: EFAULT");
	is_errno(syscall(__NR_signalfd4, -1, (void *)8, 8, 1), EFAULT,
		 "a bad mask is EFAULT before bad flags");
	is_errno(sfd(-1, m, 1), EINVAL, "flags 1: EINVAL");
	is_errno(sfd(-1, m, O_RDWR), EINVAL, "flags O_RDWR: EINVAL");
	is_errno(sfd(-1, m, 0x80000000), EINVAL, "flags bit 31: EINVAL");
	is_errno(sfd(-2, m, 0), EBADF, "fd -2: EBADF");
	is_errno(sfd(1000, m, 0), EBADF, "fd not open: EBADF");
	is_errno(sfd(p[0], m, 0), EINVAL, "fd not a signalfd (a pipe): EINVAL");
	is_errno(sfd(1000, m, 1), EINVAL, "bad flags are EINVAL before a bad fd");
	is_int(next_fd(), before, "failed calls left no fd behind");
	fd = sfd(-1, m, 0);
	is_errno(sfd(fd, m, 1), EINVAL, "bad flags on an update: EINVAL");
	close(fd);
	close(p[0]);
	close(p[1]);
}

/* SIGKILL and SIGSTOP are silently removed: the call succeeds and
 * SIGKILL stays fatal (it is never read through the fd). */
static void check_unblockable(void)
{
	uint64_t m = LBIT(LSIGKILL) | LBIT(LSIGSTOP) | LBIT(LSIGUSR1);
	struct signalfd_siginfo ssi;
	int fd = sfd(-1, m, SFD_NONBLOCK), status;
	pid_t pid;

	ok(fd >= 0, "a mask with SIGKILL and SIGSTOP is accepted");
	is_int(sfd_read1(fd, &ssi), 0, "nothing pending: EAGAIN");
	close(fd);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		int f = sfd(-1, LBIT(LSIGKILL), 0);

		lsig_kill(getpid(), LSIGKILL);
		_exit(f >= 0 && sfd_read1(f, &ssi) == LSIGKILL ? 3 : 4);
	}
	ok(waitpid(pid, &status, 0) == pid && killed_by(status, SIGKILL),
	   "SIGKILL in a signalfd's mask still kills (%#x)", status);
}

static void check_flags(void)
{
	int fd = sfd(-1, LBIT(LSIGUSR1), 0);

	is_int(fcntl(fd, F_GETFD), 0, "no flag: F_GETFD 0");
	is_int(fcntl(fd, F_GETFL) & (O_ACCMODE | O_NONBLOCK), O_RDWR, "no flag: O_RDWR, blocking");
	is_int(sfd(fd, LBIT(LSIGUSR2), SFD_NONBLOCK | SFD_CLOEXEC), fd, "an update returns the fd");
	is_int(fcntl(fd, F_GETFL) & O_NONBLOCK, 0, "an update's flags do not apply to the file");
	is_int(fcntl(fd, F_GETFD), 0, "nor to the fd");
	close(fd);
	fd = sfd(-1, LBIT(LSIGUSR1), SFD_NONBLOCK | SFD_CLOEXEC);
	is_int(fcntl(fd, F_GETFL) & O_NONBLOCK, O_NONBLOCK, "SFD_NONBLOCK: O_NONBLOCK");
	is_int(fcntl(fd, F_GETFD), FD_CLOEXEC, "SFD_CLOEXEC: FD_CLOEXEC");
	close(fd);
	if (fdk_only("SFD_CLOFORK: FD_CLOFORK")) {
		fd = sfd(-1, LBIT(LSIGUSR1), SFD_CLOFORK);
		is_int(fcntl(fd, F_GETFD), FD_CLOFORK, "SFD_CLOFORK: FD_CLOFORK");
		close(fd);
	}
}

/* Reads shorter than a record, writes, faults. */
static void check_io(void)
{
	char buf[SSI_SIZE * 2];
	int fd = sfd(-1, LBIT(LSIGUSR1), SFD_NONBLOCK);

	require(lsig_procmask(UAPI_SIG_BLOCK, LBIT(LSIGUSR1), NULL) == 0, "block");
	is_errno(read(fd, buf, SSI_SIZE - 1), EINVAL, "a 127-byte read: EINVAL");
	is_errno(read(fd, buf, 0), EINVAL, "a 0-byte read: EINVAL");
	is_errno(write(fd, buf, SSI_SIZE), EINVAL, "write: EINVAL");
	is_errno(read(fd, buf, SSI_SIZE), EAGAIN, "nothing pending: EAGAIN");
	lsig_kill(getpid(), LSIGUSR1);
	is_errno(read(fd, buf, SSI_SIZE - 1), EINVAL, "a short read with a signal pending: EINVAL");
	ok(lsig_pending() & LBIT(LSIGUSR1), "and the signal stays pending");
	is_errno(read(fd, (void *)8, SSI_SIZE), EFAULT, "an unmapped buffer: EFAULT");
	read(fd, buf, sizeof(buf)); /* whether the fault lost it differs: drain */
	lsig_procmask(UAPI_SIG_UNBLOCK, LBIT(LSIGUSR1), NULL);
	close(fd);
}

int main(int argc, char **argv)
{
	struct kstat before;
	bool have = kstat_read(&before);

	(void)argc;
	plan(36);
	check_args();
	check_unblockable();
	check_flags();
	check_io();
	ok(can_run_true(argv[0]) && pipe_round_trip(), "the system still works");
	kstat_unchanged(&before, have, "nothing left: files, heap, tasks");
	return done();
}
