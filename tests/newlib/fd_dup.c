/*
 * dup, dup2, dup3 and fcntl: what they share (the open file description,
 * so F_SETFL is seen by every copy) and what they do not (F_GETFD flags),
 * and their bad input; fdkernel's dup3(fd, -1, O_NONSEQFD).  Raw syscall() passes values libc would
 * refuse.
 */
#include "fd_util.h"

#include <sys/resource.h>

#define L_O_NONBLOCK 04000 /* Linux values for raw syscall() */
#define L_F_GETFD    1
#define L_F_SETFD    2

static int nofile(void)
{
	struct rlimit r;

	getrlimit(RLIMIT_NOFILE, &r);
	return (int)r.rlim_cur;
}

static void check_dup2(void)
{
	int fd = open_null(O_CLOEXEC), p[2], t = open_null(0);
	char c = 0;

	is_int(dup2(fd, fd), fd, "dup2(fd, fd) returns fd");
	is_int(fcntl(fd, F_GETFD), FD_CLOEXEC, "... and leaves its flags alone");
	require(pipe(p) == 0, "pipe");
	is_int(dup2(p[1], t), t, "dup2 onto an open fd");
	ok(write(t, "x", 1) == 1 && read(p[0], &c, 1) == 1 && c == 'x',
	   "... which now is the pipe");
	is_errno(dup2(fd, -1), EBADF, "dup2 to -1: EBADF");
	is_errno(dup2(fd, nofile()), EBADF, "dup2 to RLIMIT_NOFILE: EBADF");
	is_errno(dup2(fd, GAP_FD), EBADF, "dup2 into the gap between the areas: EBADF");
	close(p[0]);
	close(p[1]);
	close(t);
	is_errno(dup2(t, t), EBADF, "dup2(closed, closed): EBADF");
	close(fd);
}

static void check_dup3(void)
{
	int fd = open_null(0), t = next_fd() + 5;

	is_errno(dup3(fd, fd, 0), EINVAL, "dup3(fd, fd): EINVAL");
	is_errno(dup3(fd, fd, O_CLOEXEC), EINVAL, "dup3(fd, fd, O_CLOEXEC): EINVAL");
	is_errno(syscall(__NR_dup3, fd, t, L_O_NONBLOCK), EINVAL, "dup3 with O_NONBLOCK: EINVAL");
	is_errno(syscall(__NR_dup3, fd, t, 0x80000000L), EINVAL, "dup3 with a bit nobody has");
	is_errno(fcntl(t, F_GETFD), EBADF, "... and nothing made");
	is_int(dup3(fd, t, O_CLOEXEC), t, "dup3(O_CLOEXEC)");
	is_int(fcntl(t, F_GETFD), FD_CLOEXEC, "... sets FD_CLOEXEC");
	is_int(dup3(fd, t, 0), t, "dup3(0) on the same target");
	is_int(fcntl(t, F_GETFD), 0, "... clears it");
	/* Flags known only at run time take libc's translating dup3, constant
	 * ones <fdkernel.h>'s compile-time path: both must mean the same. */
	volatile int cloexec = O_CLOEXEC;
	is_int(dup3(fd, t, cloexec) == t ? fcntl(t, F_GETFD) : -1, FD_CLOEXEC,
	       "dup3(O_CLOEXEC) with run-time flags sets FD_CLOEXEC too");
	is_errno(dup3(fd, nofile(), 0), EBADF, "dup3 to RLIMIT_NOFILE: EBADF");
	is_errno(dup3(fd, -1, 0), EBADF, "dup3 to -1: EBADF");
	close(t);
	close(fd);
}

/* fdkernel's direct route into the non-sequential area (docs/fds.md). */
static void check_dup3_nonseq_fdk(int fd)
{
	int a = dup3(fd, -1, O_NONSEQFD), b = dup3(fd, -1, O_NONSEQFD), c;
	struct rlimit r;

	ok(a >= NONSEQ_FD_BASE && b >= NONSEQ_FD_BASE && a != b,
	   "dup3(fd, -1, O_NONSEQFD): fds in the non-sequential area");
	is_int(fcntl(a, F_GETFD), 0, "... with no fd flags");
	fcntl(fd, F_SETFL, O_NONBLOCK);
	ok(fcntl(a, F_GETFL) & O_NONBLOCK, "... on the same open file");
	fcntl(fd, F_SETFL, 0);
	close(a);
	c = dup3(fd, -1, O_NONSEQFD | O_CLOEXEC | O_CLOFORK);
	ok(c >= NONSEQ_FD_BASE && c != a, "a released non-sequential fd is not reused first");
	is_int(fcntl(c, F_GETFD), FD_CLOEXEC | FD_CLOFORK, "O_CLOEXEC | O_CLOFORK set both flags");
	is_errno(dup3(fd, 5, O_NONSEQFD), EINVAL, "O_NONSEQFD with a target fd: EINVAL");
	is_errno(dup3(fd, b, O_NONSEQFD), EINVAL, "... in the non-sequential area too");
	is_errno(syscall(__NR_dup3, fd, -1, O_NONSEQFD | L_O_NONBLOCK), EINVAL,
		 "O_NONSEQFD with O_NONBLOCK: EINVAL");
	is_errno(dup3(a, -1, O_NONSEQFD), EBADF, "a closed oldfd: EBADF");
	is_errno(dup3(-1, -1, O_NONSEQFD), EBADF, "oldfd -1: EBADF");
	getrlimit(RLIMIT_NOFILE, &r);
	struct rlimit low = {(rlim_t)next_fd() + 2, r.rlim_max}; /* b and c count too */
	setrlimit(RLIMIT_NOFILE, &low);
	is_errno(dup3(fd, -1, O_NONSEQFD), EMFILE, "RLIMIT_NOFILE fds open: EMFILE");
	setrlimit(RLIMIT_NOFILE, &r);
	close(b);
	close(c);
}

static void check_dup3_nonseq(void)
{
	int fd = open_null(0), before = next_fd();

	if (on_fdkernel()) {
		check_dup3_nonseq_fdk(fd);
	} else {
		is_errno(dup3(fd, -1, O_NONSEQFD), EINVAL,
			 "dup3(fd, -1, O_NONSEQFD): EINVAL (Linux)");
		for (int i = 0; i < 10; i++)
			skip(NOT_LINUX, "dup3(O_NONSEQFD)");
	}
	is_int(next_fd(), before, "dup3(O_NONSEQFD) left no sequential fd behind");
	close(fd);
}

static void check_dupfd(void)
{
	int fd = open_null(0), n = nofile();

	is_errno(fcntl(fd, F_DUPFD, n), EINVAL, "F_DUPFD from RLIMIT_NOFILE: EINVAL");
	is_errno(fcntl(fd, F_DUPFD, -1), EINVAL, "F_DUPFD from -1: EINVAL");
	is_errno(fcntl(fd, F_DUPFD_CLOEXEC, n), EINVAL, "F_DUPFD_CLOEXEC from the limit: EINVAL");
	int top = fcntl(fd, F_DUPFD, n - 1);
	is_int(top, n - 1, "F_DUPFD from RLIMIT_NOFILE - 1 gets it");
	is_errno(fcntl(fd, F_DUPFD, n - 1), EMFILE, "... and then EMFILE");
	close(top);
	is_errno(syscall(__NR_fcntl, fd, 9999, 0), EINVAL, "unknown fcntl command: EINVAL");
	close(fd);
}

static void check_fdflags(void)
{
	int fd = open_null(0), d;

	is_int(fcntl(fd, F_SETFD, FD_CLOEXEC), 0, "F_SETFD FD_CLOEXEC");
	d = dup(fd);
	ok(fcntl(fd, F_GETFD) == FD_CLOEXEC && fcntl(d, F_GETFD) == 0,
	   "fd flags are per fd: the dup has none");
	is_int(fcntl(fd, F_SETFD, 0), 0, "F_SETFD 0");
	is_int(fcntl(fd, F_GETFD), 0, "... clears FD_CLOEXEC");
	if (fdk_only("F_SETFD replaces both bits")) {
		fcntl(fd, F_SETFD, FD_CLOEXEC | FD_CLOFORK);
		fcntl(fd, F_SETFD, FD_CLOFORK);
		is_int(fcntl(fd, F_GETFD), FD_CLOFORK, "F_SETFD replaces both bits");
	}
	long r = syscall(__NR_fcntl, fd, L_F_SETFD, 0x100);
	if (on_fdkernel())
		is_errno(r, EINVAL, "F_SETFD with an unknown bit: EINVAL (fdkernel)");
	else
		ok(r == 0 && syscall(__NR_fcntl, fd, L_F_GETFD) == 0,
		   "F_SETFD with an unknown bit: ignored (Linux)");
	close(d);
	close(fd);
}

static void check_fl(void)
{
	int fd = open_null(0), rd = open("/dev/null", O_RDONLY), d = dup(fd);
	int wr = open("/dev/null", O_WRONLY | O_APPEND);

	is_int(fcntl(rd, F_GETFL) & O_ACCMODE, O_RDONLY, "F_GETFL: O_RDONLY");
	is_int(fcntl(wr, F_GETFL) & (O_ACCMODE | O_APPEND), O_WRONLY | O_APPEND,
	       "F_GETFL: O_WRONLY | O_APPEND");
	is_int(fcntl(fd, F_SETFL, O_NONBLOCK | O_APPEND | O_RDONLY), 0, "F_SETFL");
	is_int(fcntl(fd, F_GETFL) & (O_ACCMODE | O_NONBLOCK | O_APPEND),
	       O_RDWR | O_NONBLOCK | O_APPEND, "... sets O_NONBLOCK | O_APPEND, not the mode");
	ok(fcntl(d, F_GETFL) & O_NONBLOCK, "status flags are shared with the dup");
	fcntl(fd, F_SETFL, 0);
	ok(!(fcntl(d, F_GETFL) & (O_NONBLOCK | O_APPEND)), "F_SETFL 0 clears them");
	close(d);
	close(wr);
	close(rd);
	close(fd);
}

int main(void)
{
	int before;

	plan(8 + 12 + 12 + 6 + 6 + 6 + 1);
	before = next_fd();
	check_dup2();
	check_dup3();
	check_dup3_nonseq();
	check_dupfd();
	check_fdflags();
	check_fl();
	is_int(next_fd(), before, "no fd left open");
	return done();
}
