/*
 * Where new fds go: the POSIX lowest-free rule in the sequential area, and
 * fdkernel's non-sequential area (O_NONSEQFD) above RLIMIT_NOFILE (which
 * still bounds how many are open), with released fds reused last and
 * 100,000 of them open at once.
 */
#include "fd_util.h"

#include <sys/resource.h>

#define MANY	     100000
#define SMALL_NOFILE 64

static int many[MANY];

/* In a child (stdio is at stake): close 0..2 and reopen, lowest first. */
static void child_reopen_std(void)
{
	int saved = fcntl(1, F_DUPFD, 10);

	close(0);
	close(1);
	close(2);
	int a = open_null(0), b = open_null(0), c = open_null(0);
	close(2);
	int d = open_null(0);
	dup2(saved, 1);
	_exit(a == 0 && b == 1 && c == 2 && d == 2 ? 0 : 1);
}

static void check_lowest(void)
{
	int a = open_null(0), b = open_null(0), c = open_null(0);

	ok(b == a + 1 && c == b + 1, "consecutive opens get consecutive fds");
	close(b);
	is_int(open_null(0), b, "a closed fd is the next one given");
	close(a);
	close(b);
	close(c);
	ok(exited_with(child_status(child_reopen_std), 0), "close 0, 1, 2: reopened as 0, 1, 2");
	is_int(fcntl(0, F_DUPFD, 30), 30, "F_DUPFD gives the lowest fd >= its argument");
	close(30);
}

static void check_nonseq_basics(void)
{
	int a = open_null(O_NONSEQFD), b = open_null(O_NONSEQFD), low = open_null(0);
	char c;

	ok(nonseq(a) && nonseq(b) && a != b, "O_NONSEQFD: fds at or above 1<<30");
	ok(low >= 0 && low < SMALL_NOFILE, "a plain open still takes the lowest fd");
	is_int(write(a, "x", 1), 1, "a nonseq fd works (write)");
	is_int(read(b, &c, 1), 0, "a nonseq fd works (read)");
	int d = dup(a);
	ok(d >= 0 && !nonseq(d), "dup of a nonseq fd is sequential");
	is_int(dup2(low, NONSEQ_FD_BASE + 77), NONSEQ_FD_BASE + 77, "dup2 onto a free nonseq fd");
	is_int(fcntl(NONSEQ_FD_BASE + 77, F_GETFD), 0, "... which is open, flags 0");
	close(NONSEQ_FD_BASE + 77);
	close(d);
	close(low);
	close(b);
	int e = open_null(O_NONSEQFD | O_CLOEXEC | O_CLOFORK);
	is_int(fcntl(e, F_GETFD), FD_CLOEXEC | FD_CLOFORK, "O_NONSEQFD with both close flags");
	close(e);
	close(a);
}

/*
 * Released nonseq fds go to the back of the free list: two released in
 * turn come back in that order, after the fds that were already free.
 */
static void check_reused_last(void)
{
	int a = open_null(O_NONSEQFD), b = open_null(O_NONSEQFD), fd, n = 0;

	close(a);
	close(b);
	while ((fd = open_null(O_NONSEQFD)) >= 0 && fd != a && fd != b && n < MANY)
		many[n++] = fd;
	ok(fd == a && n > 0, "released nonseq fds are reused last, first released first");
	if (fd != a)
		diag("got %d after %d others (released %d then %d)", fd, n, a, b);
	close(fd);
	while (n > 0)
		close(many[--n]);
}

static int set_nofile(rlim_t soft)
{
	struct rlimit r;

	getrlimit(RLIMIT_NOFILE, &r);
	r.rlim_cur = soft;
	return setrlimit(RLIMIT_NOFILE, &r);
}

/* With RLIMIT_NOFILE 64: EMFILE at 64 for every call, nonseq ones too. */
static void check_emfile(void)
{
	struct rlimit old;
	int fd, last = -1, n, p[2];

	getrlimit(RLIMIT_NOFILE, &old);
	require(set_nofile(SMALL_NOFILE) == 0, "setrlimit(RLIMIT_NOFILE, 64)");
	while ((fd = open_null(0)) >= 0)
		last = fd;
	is_errno(fd, EMFILE, "open fails with EMFILE at the limit");
	is_int(last, SMALL_NOFILE - 1, "... after the last fd below it");
	is_errno(dup(0), EMFILE, "dup too");
	is_errno(fcntl(0, F_DUPFD, 0), EMFILE, "F_DUPFD too");
	is_errno(pipe(p), EMFILE, "pipe too");
	if (fdk_only("the non-sequential area counts against the limit")) {
		n = open_null(O_NONSEQFD);
		is_errno(n, EMFILE, "the non-sequential area counts against the limit");
	}
	for (fd = 3; fd < SMALL_NOFILE; fd++)
		close(fd);
	setrlimit(RLIMIT_NOFILE, &old);
}

/* 100,000 nonseq fds at once, all distinct; the kernel's leak check sees them go. */
static void check_many(void)
{
	struct rlimit old;
	int n = 0, bad = 0, low = next_fd();

	getrlimit(RLIMIT_NOFILE, &old);
	require(set_nofile(MANY + SMALL_NOFILE) == 0, "RLIMIT_NOFILE above 100,000");

	while (n < MANY && (many[n] = open_null(O_NONSEQFD)) >= 0)
		n++;
	if (!is_int(n, MANY, "100,000 nonseq fds open at once"))
		diag("open %d: %s", n, strerror(errno));
	for (int i = 0; i < n; i++)
		bad += !nonseq(many[i]) || (i && many[i] == many[i - 1]);
	is_int(bad, 0, "all in the non-sequential area");
	is_int(next_fd(), low, "the sequential area is untouched");
	for (int i = 0; i < n; i++)
		bad += close(many[i]) != 0;
	is_int(bad, 0, "all closed again");
	is_errno(close(many[n / 2]), EBADF, "closed means closed");
	setrlimit(RLIMIT_NOFILE, &old);
}

int main(void)
{
	plan(4 + 6 + 8 + 1 + 5);
	check_lowest();
	check_emfile();
	if (!on_fdkernel()) {
		for (int i = 0; i < 8 + 1 + 5; i++)
			skip(NOT_LINUX, "O_NONSEQFD");
		return done();
	}
	check_nonseq_basics();
	check_reused_last();
	check_many();
	return done();
}
