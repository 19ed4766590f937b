/* Exhaustion of fds: open until EMFILE in the sequential area (at
 * RLIMIT_NOFILE) and in the non-sequential one (its 1<<20 fds, which
 * RLIMIT_NOFILE also counts; fdkernel only); each in a child, so the parent
 * sees every fd and byte come back. */
#include <fcntl.h>
#include <sys/resource.h>

#include <fdkernel.h>

#include "robust.h"

#define SEQ_LIMIT 512

/* Child exit codes: 0 all good, else the first check that failed. */
enum { GOOD, SETUP, COUNT, ERRNO, REUSE, CLOSE };

/* open /dev/null until EMFILE under an RLIMIT_NOFILE of SEQ_LIMIT. */
static void fill_sequential(void)
{
	struct rlimit rl = {SEQ_LIMIT, SEQ_LIMIT};
	int fd, last = -1, n = 0, open_before = 0;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		_exit(SETUP);
	for (fd = 0; fd < SEQ_LIMIT; fd++)
		open_before += fcntl(fd, F_GETFD) >= 0;
	while ((fd = open("/dev/null", O_RDONLY)) >= 0)
		last = fd, n++;
	if (errno != EMFILE)
		_exit(ERRNO);
	if (n != SEQ_LIMIT - open_before || last != SEQ_LIMIT - 1)
		_exit(COUNT);
	if (close(100) < 0 || open("/dev/null", O_RDONLY) != 100)
		_exit(REUSE); /* the lowest free fd again */
	_exit(close_range(3, ~0U, 0) == 0 && open("/dev/null", O_RDONLY) == 3 ? GOOD : CLOSE);
}

/* dup into the non-sequential area until EMFILE: NONSEQ_FD_MAX fds, which
 * RLIMIT_NOFILE at its largest allows when no sequential fd is open. */
static void fill_nonsequential(void)
{
	struct rlimit rl = {NR_OPEN_MAX, NR_OPEN_MAX};
	unsigned long args[6] = {0};
	sigset_t none;
	long fd, n = 1;
	sigemptyset(&none);
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0 ||
	    (fd = syscall_indirect(SYSIND_NONSEQFD, none, __NR_dup, args)) < 0 ||
	    close_range(0, NONSEQ_FD_BASE - 1, 0) < 0)
		_exit(SETUP);
	args[0] = (unsigned long)fd; /* the source: the first of them */
	while ((fd = syscall_indirect(SYSIND_NONSEQFD, none, __NR_dup, args)) >= 0)
		n++;
	if (errno != EMFILE)
		_exit(ERRNO);
	if (n != NONSEQ_FD_MAX)
		_exit(COUNT);
	if (close(NONSEQ_FD_BASE + 7) < 0 ||
	    syscall_indirect(SYSIND_NONSEQFD, none, __NR_dup, args) != NONSEQ_FD_BASE + 7)
		_exit(REUSE); /* the only free one */
	_exit(close_range(NONSEQ_FD_BASE, ~0U, 0) == 0 ? GOOD : CLOSE);
}

static void check(void (*fill)(void), const char *what)
{
	int status = child_status(fill);
	if (!ok(exited_with(status, GOOD), "%s", what))
		diag("wait status %#x (exit codes: 1 set-up, 2 count, 3 errno, 4 reuse, 5 close)",
		     status);
}

int main(int argc, char **argv)
{
	struct kstat before;
	(void)argc;
	bool have_before = kstat_read(&before);
	plan(5);
	check(fill_sequential, "open until EMFILE at RLIMIT_NOFILE 512: every fd below it used, "
			       "a freed one reused, close_range frees them");
	if (on_fdkernel())
		check(fill_nonsequential, "the non-sequential area: 1<<20 fds (RLIMIT_NOFILE "
					  "1<<20), then EMFILE; a freed one reused; close_range "
					  "frees them");
	else
		skip("no non-sequential area on the host", "the non-sequential area");
	system_usable(argv[0], "running out of fds");
	kstat_unchanged(&before, have_before, "nothing leaked");
	return done();
}
