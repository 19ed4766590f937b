/* Tests of execve that succeed: argv and envp reach the new program intact
 * (the echoargs helper prints them back), empty, many and long ones included. */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "testutil.h"

static char helper[300];
static char out[256 * 1024], expected[256 * 1024];

/* What echoargs prints for ARGV and ENVP, into `expected`. */
static void expect(char *const argv[], char *const envp[])
{
	size_t len = 0;
	for (int i = 0; argv[i]; i++)
		len += snprintf(expected + len, sizeof expected - len, "arg %d %s\n", i, argv[i]);
	for (int i = 0; envp[i]; i++)
		len += snprintf(expected + len, sizeof expected - len, "env %s\n", envp[i]);
}

/* execve the helper with ARGV and ENVP; check its output and exit status. */
static void check_exec(char *const argv[], char *const envp[], const char *what)
{
	int argc = 0, status;
	while (argv[argc])
		argc++;
	expect(argv, envp);
	status = run_capture(helper, argv, envp, out, sizeof out);
	ok(exited_with(status, argc) && strcmp(out, expected) == 0, "%s", what);
}

static void test_many_args(void)
{
	enum { N = 200 };
	static char words[N][8];
	char *argv[N + 1], *envp[N + 1];
	for (int i = 0; i < N; i++) {
		snprintf(words[i], sizeof words[i], "w%d", i);
		argv[i] = envp[i] = words[i];
	}
	argv[N] = envp[N] = NULL;
	check_exec(argv, envp, "200 arguments and 200 environment strings");
}

static void test_long_arg(void)
{
	size_t len = 100 * 1024;
	char *big = malloc(len + 1);
	memset(big, 'x', len);
	big[len] = '\0';
	char *argv[] = {"echoargs", big, NULL}, *envp[] = {big, NULL};
	check_exec(argv, envp, "a 100 KiB argument and environment string");
	free(big);
}

int main(int argc, char **argv)
{
	char *args[] = {"echoargs", "one", "two words", "", "\ttab", NULL};
	char *env[] = {"A=1", "B=with space", "EMPTY=", NULL}, *none[] = {NULL};
	char *renamed[] = {"another-name", NULL};
	(void)argc;
	plan(5);
	test_bin_path(argv[0], "echoargs", helper, sizeof helper);
	check_exec(args, env, "argv (with spaces, empty and tab words) and envp arrive intact");
	check_exec(args, none, "an empty environment stays empty");
	check_exec(renamed, env, "argv[0] is whatever the caller passes");
	test_many_args();
	test_long_arg();
	return done();
}
