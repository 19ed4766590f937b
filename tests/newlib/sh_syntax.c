/* Tests of the shell's language: quoting, $?, comments, builtins (cd, pwd,
 * exit), error messages and statuses, scripts, and deaths by signal. */
#include <string.h>

#include "tap.h"
#include "testutil.h"

static void test_quotes(const char *sh)
{
	char expected[512], dir[256];
	snprintf(expected, sizeof expected,
		 "arg 0 echoargs\narg 1 a b\narg 2 c  d\narg 3 efg\narg 4 \narg 5 x\nenv PATH=%s\n",
		 test_bin_dir(sh, dir, sizeof dir));
	check_shell(sh, "echoargs 'a b' \"c  d\" e'f'\"g\" \"\" x", expected, 6);
	check_shell(sh, "echo \"it's\" 'say \"hi\"'", "it's say \"hi\"\n", 0);
	check_shell(sh, "echo a#b # a comment", "a#b\n", 0);
}

static void test_status(const char *sh)
{
	check_shell(sh, "false; echo $?", "1\n", 0);
	check_shell(sh, "true; echo $? '$?' \"[$?]\"", "0 $? [0]\n", 0);
	check_shell(sh, "nosuchcmd", "sh: nosuchcmd: command not found\n", 127);
	check_shell(sh, "nosuchcmd; echo $?", "sh: nosuchcmd: command not found\n127\n", 0);
	check_shell(sh, "/tmp", "sh: /tmp: Permission denied\n", 126);
	check_shell(sh, "exit 42", "", 42);
	check_shell(sh, "false; exit", "", 1);
	check_shell(sh, "exit 3; echo not reached", "", 3);
}

static void test_builtins(const char *sh)
{
	check_shell(sh, "cd /tmp; pwd", "/tmp\n", 0);
	check_shell(sh, "cd /tmp; cd; pwd", "/\n", 0);
	check_shell(sh, "cd /nonexistent", "sh: cd: /nonexistent: No such file or directory\n", 1);
	check_shell(sh, "cd /tmp; pwd > @; cat @; rm @", "/tmp\n", 0);
}

static void test_errors_and_scripts(const char *sh)
{
	char cmd[512];
	check_shell(sh, "echo \"open", "sh: syntax error: unterminated quote\n", 2);
	check_shell(sh, "| cat", "sh: syntax error: empty command\n", 2);
	check_shell(sh, "echo >", "sh: syntax error: redirection without a file name\n", 2);
	check_shell(sh,
		    "echo 'echo one' > @; echo '# comment' >> @; echo 'echo two; false' >> @; "
		    "sh @; echo $?; rm @",
		    "one\ntwo\n1\n", 0);
	check_shell(sh, "echo 'echo piped; exit 5' | sh", "piped\n", 5);
	snprintf(cmd, sizeof cmd, "%s --crash", sh);
	check_shell(sh, cmd, "Killed by signal 11\n", 128 + 11);
}

static int *volatile null_pointer;

int main(int argc, char **argv)
{
	const char *sh = argv[0];
	if (argc > 1 && strcmp(argv[1], "--crash") == 0)
		return *null_pointer; /* run by the shell: dies by SIGSEGV */
	plan(21);
	test_quotes(sh);
	test_status(sh);
	test_builtins(sh);
	test_errors_and_scripts(sh);
	return done();
}
