/* Exhaustion of execve's argument copy: one string just under 128 KiB runs
 * and one at it is E2BIG; arguments just under 2 MiB in all run and over it
 * (fdkernel's limit; Linux's follows the stack rlimit) are E2BIG.  The
 * pointer array counts too: 800,000 empty strings need 6.4 MB of argv[]
 * (over Linux's limit whatever the rlimit) and are E2BIG; 200,000 run. */
#include <stdlib.h>

#include "robust.h"

#define STRLEN_MAX (128 * 1024) /* one string, its NUL included */
#define TOTAL_MAX  (2 * 1024 * 1024)

static char path[300];

/* execve of /bin/true with NSTRINGS strings of LEN bytes each (plus the
 * name): the wait status, or exit 100 + errno if execve failed. */
static int run_true(int nstrings, size_t len)
{
	char **argv = calloc(nstrings + 2, sizeof *argv), *s = malloc(len + 1), *envp[] = {NULL};
	int status = -1;
	require(argv && s, "memory for the arguments");
	memset(s, 'a', len);
	s[len] = '\0';
	argv[0] = "true";
	for (int i = 1; i <= nstrings; i++)
		argv[i] = s;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		execve(path, argv, envp);
		_exit(100 + errno);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	free(argv);
	free(s);
	return status;
}

static void check(int nstrings, size_t len, int code, const char *what)
{
	int status = run_true(nstrings, len);
	if (!ok(exited_with(status, code), "%s", what))
		diag("wait status %#x (exit 100 + errno on a failed execve; E2BIG is %d)", status,
		     E2BIG);
}

int main(int argc, char **argv)
{
	struct kstat before;
	bool have_before = kstat_read(&before);
	(void)argc;
	test_bin_path(argv[0], "true", path, sizeof path);
	plan(10);
	check(1, STRLEN_MAX - 1, 0, "one string of 128 KiB - 1 bytes: runs");
	check(1, STRLEN_MAX, 100 + E2BIG, "one string of 128 KiB: E2BIG");
	check(15, STRLEN_MAX - 1, 0, "15 strings of 128 KiB - 1 (1.9 MiB): runs");
	if (on_fdkernel()) {
		/* Strings and their pointers count (Linux's rule). */
		check(TOTAL_MAX / 4096 - 2, 4095, 0,
		      "510 strings of 4 KiB and their pointers (2 MiB less 3 KiB): run");
		check(17, STRLEN_MAX - 1, 100 + E2BIG,
		      "17 strings of 128 KiB - 1 (2.1 MiB): E2BIG");
	} else {
		skip("Linux's total follows the stack rlimit", "2 MiB less 4 KiB in all: runs");
		skip("Linux's total follows the stack rlimit", "over 2 MiB in all: E2BIG");
	}
	check(200000, 0, 0, "200,000 empty strings (1.6 MB of pointers): run");
	check(800000, 0, 100 + E2BIG, "800,000 empty strings (6.4 MB of pointers): E2BIG");
	system_usable(argv[0], "huge argument lists");
	kstat_unchanged(&before, have_before, "nothing leaked");
	return done();
}
