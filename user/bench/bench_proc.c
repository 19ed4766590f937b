/* Process life cycle: fork+exit+wait, and fork+execve+wait of a tiny static
 * program (argv[1], default /bin/true: ours on fdkernel and in the Linux
 * guest's initramfs; bench/run passes build/user/bin/true on the host). */
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define FORKS 40
#define EXECS 25
#define REPS  7

extern char **environ;

/* Forks a child that runs CHILD_PATH (or exits at once if NULL) and reaps
 * it; false after reporting row NAME failed. */
static int fork_and_wait(const char *name, const char *child_path)
{
	pid_t pid = fork();
	if (pid < 0) {
		bench_fail(name, "fork: %s", strerror(errno));
		return 0;
	}
	if (pid == 0) {
		if (child_path) {
			char *argv[] = {(char *)child_path, NULL};
			execve(child_path, argv, environ);
		}
		_exit(child_path ? 127 : 0);
	}
	int status;
	if (waitpid(pid, &status, 0) != pid) {
		bench_fail(name, "waitpid: %s", strerror(errno));
		return 0;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		bench_fail(name, "child %s ended with status 0x%x",
			   child_path ? child_path : "(fork only)", status);
		return 0;
	}
	return 1;
}

struct proc_case {
	const char *child_path; /* NULL: the child just exits */
	int count;		/* children per repetition */
};

static double proc_rep(const char *name, void *arg)
{
	const struct proc_case *c = arg;
	uint64_t start = bench_now_ns();
	for (int i = 0; i < c->count; i++)
		if (!fork_and_wait(name, c->child_path))
			return -1;
	return bench_ns_per_op(start, c->count) / 1000;
}

int main(int argc, char **argv)
{
	struct proc_case fork_only = {NULL, FORKS};
	struct proc_case fork_exec = {argc > 1 ? argv[1] : "/bin/true", EXECS};

	bench_begin("bench_proc", "fork_exit_wait,fork_execve_wait");
	bench_row("fork_exit_wait", "us", REPS, proc_rep, &fork_only);
	bench_row("fork_execve_wait", "us", REPS, proc_rep, &fork_exec);
	return bench_end();
}
