/*
 * close_range (closing, CLOSE_RANGE_CLOEXEC, fdkernel's CLOSE_RANGE_CLOFORK,
 * both areas) and RLIMIT_NOFILE through getrlimit, setrlimit and prlimit:
 * the limit bounds new sequential fds, never the ones already open.
 */
#include "fd_util.h"

#include <sys/resource.h>

#define BASE	      100	  /* close_range tests use fds BASE.. */
#define ABOVE_NR_OPEN (1UL << 31) /* above fdkernel's and any Linux nr_open */

/* Opens fds first..last on /dev/null. */
static void open_range(int first, int last)
{
	int fd = open_null(0);

	for (int i = first; i <= last; i++)
		dup2(fd, i);
	close(fd);
}

static bool all_flags(int first, int last, int want)
{
	for (int i = first; i <= last; i++)
		if (fcntl(i, F_GETFD) != want)
			return false;
	return true;
}

static void check_close_range(void)
{
	open_range(BASE, BASE + 9);
	is_int(close_range(BASE + 2, BASE + 7, 0), 0, "close_range(102, 107)");
	ok(all_flags(BASE, BASE + 1, 0) && all_flags(BASE + 8, BASE + 9, 0) &&
	       fcntl(BASE + 2, F_GETFD) < 0 && fcntl(BASE + 7, F_GETFD) < 0,
	   "... closes exactly those");
	is_int(close_range(BASE, BASE + 9, CLOSE_RANGE_CLOEXEC), 0, "CLOSE_RANGE_CLOEXEC");
	ok(all_flags(BASE, BASE + 1, FD_CLOEXEC) && all_flags(BASE + 8, BASE + 9, FD_CLOEXEC),
	   "... sets FD_CLOEXEC, closes nothing");
	if (fdk_only("CLOSE_RANGE_CLOFORK")) {
		close_range(BASE, BASE + 9, CLOSE_RANGE_CLOFORK);
		ok(all_flags(BASE, BASE + 1, FD_CLOEXEC | FD_CLOFORK),
		   "CLOSE_RANGE_CLOFORK adds FD_CLOFORK");
	}
	is_int(close_range(BASE, BASE + 9, CLOSE_RANGE_UNSHARE), 0, "CLOSE_RANGE_UNSHARE");
	ok(fcntl(BASE, F_GETFD) < 0 && fcntl(BASE + 9, F_GETFD) < 0, "... closes");
	is_int(close_range(BASE, BASE + 50, 0), 0, "close_range over nothing open");
	is_errno(close_range(5, 4, 0), EINVAL, "first > last: EINVAL");
	is_errno(close_range(BASE, BASE, 0x80), EINVAL, "unknown flag: EINVAL");
	if (fdk_only("close_range to ~0 reaches the non-sequential area")) {
		int n = open_null(O_NONSEQFD);
		close_range(BASE, ~0U, 0);
		is_errno(fcntl(n, F_GETFD), EBADF,
			 "close_range to ~0 reaches the non-sequential area");
	}
}

static int set_limits(rlim_t soft, rlim_t hard)
{
	struct rlimit r = {soft, hard};

	return setrlimit(RLIMIT_NOFILE, &r);
}

static void check_rlimit_errors(const struct rlimit *cur)
{
	struct rlimit r;

	ok(getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur <= r.rlim_max,
	   "getrlimit: soft <= hard");
	is_errno(syscall(__NR_getrlimit, 99, &r), EINVAL, "getrlimit of resource 99: EINVAL");
	is_errno(getrlimit(RLIMIT_NOFILE, NULL), EFAULT, "getrlimit to NULL: EFAULT");
	is_errno(getrlimit(RLIMIT_NOFILE, KERNEL_PTR), EFAULT, "getrlimit to the kernel: EFAULT");
	is_errno(setrlimit(RLIMIT_NOFILE, NULL), EFAULT, "setrlimit from NULL: EFAULT");
	is_errno(set_limits(cur->rlim_cur + 1, cur->rlim_cur), EINVAL, "soft > hard: EINVAL");
	is_errno(set_limits(16, ABOVE_NR_OPEN), EPERM, "hard above nr_open: EPERM");
	is_errno(syscall(__NR_setrlimit, 99, cur), EINVAL, "setrlimit of resource 99: EINVAL");
	ok(getrlimit(RLIMIT_STACK, &r) == 0 && r.rlim_cur > 0, "getrlimit(RLIMIT_STACK)");
}

/* A limit below open fds: they stay usable, new ones stay below it. */
static void check_lowered(const struct rlimit *cur)
{
	int fd = open_null(0), high = 200;

	dup2(fd, high);
	is_int(set_limits(50, cur->rlim_max), 0, "RLIMIT_NOFILE below an open fd (200)");
	is_int(fcntl(high, F_GETFD), 0, "the fd above the limit stays open");
	is_int(write(high, "x", 1), 1, "... and usable");
	is_errno(dup2(fd, 60), EBADF, "dup2 to 60: EBADF");
	is_errno(fcntl(fd, F_DUPFD, 60), EINVAL, "F_DUPFD from 60: EINVAL");
	is_int(close(high), 0, "close of the fd above the limit");
	is_int(set_limits(cur->rlim_max < 5000 ? cur->rlim_max : 5000, cur->rlim_max), 0,
	       "soft limit raised");
	int top = fcntl(fd, F_DUPFD, (cur->rlim_max < 5000 ? cur->rlim_max : 5000) - 1);
	ok(top > 1000, "F_DUPFD below the raised limit");
	close(top);
	close(fd);
}

static void check_prlimit(const struct rlimit *cur)
{
	struct rlimit r, now, set = {cur->rlim_cur, cur->rlim_max};
	pid_t child;

	getrlimit(RLIMIT_NOFILE, &now);
	ok(prlimit(0, RLIMIT_NOFILE, NULL, &r) == 0 && r.rlim_cur == now.rlim_cur,
	   "prlimit(0) reads the limit");
	ok(prlimit(getpid(), RLIMIT_NOFILE, &set, &r) == 0 && r.rlim_max == cur->rlim_max,
	   "prlimit(getpid()) sets it, returning the old one");
	if ((child = fork()) == 0)
		_exit(0);
	waitpid(child, NULL, 0);
	is_errno(prlimit(child, RLIMIT_NOFILE, NULL, &r), ESRCH, "prlimit of a reaped pid: ESRCH");
	is_errno(prlimit(0, RLIMIT_NOFILE, KERNEL_PTR, NULL), EFAULT,
		 "prlimit from the kernel: EFAULT");
	is_errno(prlimit(0, RLIMIT_NOFILE, NULL, KERNEL_PTR), EFAULT,
		 "prlimit to the kernel: EFAULT");
}

int main(void)
{
	struct rlimit cur;
	int before = next_fd();

	plan(11 + 9 + 8 + 5 + 2);
	check_close_range();
	require(getrlimit(RLIMIT_NOFILE, &cur) == 0, "getrlimit");
	check_rlimit_errors(&cur);
	check_lowered(&cur);
	check_prlimit(&cur);
	is_int(setrlimit(RLIMIT_NOFILE, &cur), 0, "limit restored");
	is_int(next_fd(), before, "no fd left open");
	return done();
}
