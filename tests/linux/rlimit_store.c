/* Resource limits are kept per process: set, read back, inherited by a
 * fork child, each limit apart from the others; soft above hard is
 * EINVAL; an unknown resource EINVAL. */
#define _GNU_SOURCE
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

static int same(int res, rlim_t cur, rlim_t max)
{
	struct rlimit r;
	return getrlimit(res, &r) == 0 && r.rlim_cur == cur && r.rlim_max == max;
}

int main(void)
{
	struct rlimit r, orig_cpu, orig_fsize, orig_sig;
	int status;

	plan(8);
	getrlimit(RLIMIT_CPU, &orig_cpu);
	getrlimit(RLIMIT_FSIZE, &orig_fsize);
	getrlimit(RLIMIT_SIGPENDING, &orig_sig);
	ok(orig_sig.rlim_cur > 0 && orig_sig.rlim_cur != RLIM_INFINITY,
	   "RLIMIT_SIGPENDING has a finite default (%lu)", (unsigned long)orig_sig.rlim_cur);
	r = (struct rlimit){100, RLIM_INFINITY};
	ok(setrlimit(RLIMIT_CPU, &r) == 0 && same(RLIMIT_CPU, 100, RLIM_INFINITY),
	   "RLIMIT_CPU set and read back");
	r = (struct rlimit){4096, 8192};
	ok(setrlimit(RLIMIT_FSIZE, &r) == 0 && same(RLIMIT_FSIZE, 4096, 8192),
	   "RLIMIT_FSIZE set and read back");
	r = (struct rlimit){7, orig_sig.rlim_max};
	ok(setrlimit(RLIMIT_SIGPENDING, &r) == 0 && same(RLIMIT_SIGPENDING, 7, orig_sig.rlim_max),
	   "RLIMIT_SIGPENDING set and read back");
	ok(same(RLIMIT_CPU, 100, RLIM_INFINITY), "one limit does not touch another");
	pid_t pid = fork();
	if (pid == 0)
		_exit(same(RLIMIT_CPU, 100, RLIM_INFINITY) && same(RLIMIT_FSIZE, 4096, 8192) &&
			      same(RLIMIT_SIGPENDING, 7, orig_sig.rlim_max)
			  ? 0
			  : 1);
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "a fork child inherits the limits");
	r = (struct rlimit){9000, 8192};
	errno = 0;
	is_errno(setrlimit(RLIMIT_FSIZE, &r), EINVAL, "soft above hard: EINVAL");
	errno = 0;
	is_errno(setrlimit(16, &r), EINVAL, "resource 16: EINVAL");
	setrlimit(RLIMIT_CPU, &orig_cpu);
	setrlimit(RLIMIT_SIGPENDING, &orig_sig);
	return done();
}
