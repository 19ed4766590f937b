/*
 * close_range (closing, CLOSE_RANGE_CLOEXEC, fdkernel's CLOSE_RANGE_CLOFORK,
 * both areas) and RLIMIT_NOFILE through getrlimit, setrlimit and prlimit:
 * the limit bounds new sequential fds, never the ones already open, and
 * (fdkernel) how many fds of both areas are open.
 */
#include "fd_util.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>

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

/*
 * Sequential fds only: a limit lowered below how many are open still hands
 * out a free number below it (Linux bounds numbers, not the count).
 */
static void check_lowered_count(int fd, const struct rlimit *cur)
{
	int got, low = fd + 1;

	for (int i = low; i < low + 30; i++)
		dup2(fd, i);
	is_int(set_limits((rlim_t)low + 10, cur->rlim_max), 0,
	       "RLIMIT_NOFILE below the number of open fds");
	close(low + 5);
	got = dup(fd);
	is_int(got, low + 5, "a free number below it is still handed out");
	is_errno(dup(fd), EMFILE, "the next one: EMFILE");
	for (int i = low; i < low + 30; i++)
		close(i);
	is_int(set_limits(50, cur->rlim_max), 0, "limit back to 50");
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
	check_lowered_count(fd, cur);
	is_int(set_limits(cur->rlim_max < 5000 ? cur->rlim_max : 5000, cur->rlim_max), 0,
	       "soft limit raised");
	int top = fcntl(fd, F_DUPFD, (cur->rlim_max < 5000 ? cur->rlim_max : 5000) - 1);
	ok(top > 1000, "F_DUPFD below the raised limit");
	close(top);
	close(fd);
}

/* Sequential fds open now (the test has no non-sequential one open). */
static int open_fds(rlim_t below)
{
	int n = 0;

	for (rlim_t fd = 0; fd < below; fd++)
		n += fcntl((int)fd, F_GETFD) >= 0;
	return n;
}

/* RLIMIT_NOFILE 0 is a sandbox: no fd at all, in either area, by any call. */
static void check_nofile_zero(const struct rlimit *cur)
{
	unsigned long args[6] = {1};
	sigset_t none;
	int p[2];

	sigemptyset(&none);
	require(set_limits(0, cur->rlim_max) == 0, "RLIMIT_NOFILE 0");
	is_errno(open_null(O_NONSEQFD), EMFILE, "RLIMIT_NOFILE 0: open(O_NONSEQFD) EMFILE");
	is_errno(pipe2(p, O_NONSEQFD), EMFILE, "... pipe2(O_NONSEQFD) EMFILE");
	is_errno(socket2(AF_UNIX, SOCK_DGRAM, 0, O_NONSEQFD), EMFILE,
		 "... socket2(O_NONSEQFD) EMFILE");
	is_errno(syscall_indirect(SYSIND_NONSEQFD, none, __NR_dup, args), EMFILE,
		 "... syscall_indirect(NONSEQFD, dup) EMFILE");
	is_errno(dup2(1, NONSEQ_FD_BASE + 5), EMFILE,
		 "... dup2 to a free non-sequential fd EMFILE");
	require(set_limits(cur->rlim_cur, cur->rlim_max) == 0, "limit restored");
}

/*
 * Limit N with both kinds open: the N-th open fd is the last, whichever area
 * it is in; lowering the limit below the count keeps every fd open and
 * stops new ones until enough are closed.
 */
static void check_nofile_count(const struct rlimit *cur)
{
	int n = open_fds(cur->rlim_cur), p[2];
	int a, b, c, d;

	require(set_limits(n + 4, cur->rlim_max) == 0, "RLIMIT_NOFILE = open fds + 4");
	a = open_null(O_NONSEQFD);
	b = open_null(0);
	c = open_null(O_NONSEQFD);
	d = open_null(0);
	ok(nonseq(a) && nonseq(c) && b >= 0 && !nonseq(b) && d >= 0 && !nonseq(d),
	   "limit N: 2 sequential and 2 non-sequential fds fill it");
	is_errno(open_null(0), EMFILE, "then a sequential open: EMFILE (free numbers below N)");
	is_errno(open_null(O_NONSEQFD), EMFILE, "a non-sequential open: EMFILE");
	is_errno(dup(1), EMFILE, "dup: EMFILE");
	is_errno(fcntl(1, F_DUPFD, 0), EMFILE, "F_DUPFD: EMFILE");
	is_errno(pipe(p), EMFILE, "pipe: EMFILE");
	is_int(dup2(b, d), d, "dup2 onto an open fd still works (it adds none)");
	close(a);
	a = open_null(0);
	ok(a >= 0 && !nonseq(a), "a closed non-sequential fd makes room for a sequential one");
	is_int(set_limits(n, cur->rlim_max), 0, "RLIMIT_NOFILE lowered below the open count");
	is_int(write(c, "x", 1), 1, "... every fd stays open and usable");
	close(a);
	is_errno(open_null(0), EMFILE, "... a new fd fails while the count is above it");
	close(b);
	close(c);
	close(d);
	is_errno(open_null(O_NONSEQFD), EMFILE, "... and at it");
	require(set_limits(cur->rlim_cur, cur->rlim_max) == 0, "limit restored");
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

	plan(11 + 9 + 12 + 5 + 12 + 5 + 2);
	check_close_range();
	require(getrlimit(RLIMIT_NOFILE, &cur) == 0, "getrlimit");
	check_rlimit_errors(&cur);
	check_lowered(&cur);
	if (on_fdkernel()) {
		check_nofile_zero(&cur);
		check_nofile_count(&cur);
	} else {
		for (int i = 0; i < 5 + 12; i++)
			skip(NOT_LINUX, "RLIMIT_NOFILE counts non-sequential fds");
	}
	check_prlimit(&cur);
	is_int(setrlimit(RLIMIT_NOFILE, &cur), 0, "limit restored");
	is_int(next_fd(), before, "no fd left open");
	return done();
}
