/* Tests of the shell's plumbing: | pipelines of any length, < > >>
 * redirections, ; lists, and the status of a pipeline (its last command). */
#include "tap.h"
#include "testutil.h"

int main(int argc, char **argv)
{
	const char *sh = argv[0];
	(void)argc;
	plan(10);
	check_shell(sh, "echo hi | cat > @; cat @", "hi\n", 0);
	check_shell(sh, "echo a b c | cat | cat | cat | cat | cat", "a b c\n", 0);
	check_shell(sh, "cat < @ | cat | cat", "hi\n", 0);
	check_shell(sh, "echo one > @; echo two >> @; echo three >> @; cat @", "one\ntwo\nthree\n",
		    0);
	check_shell(sh, "echo new > @; cat < @", "new\n", 0);
	check_shell(sh, "cat < @ > @.copy; cat @.copy; rm @.copy", "new\n", 0);
	check_shell(sh, "true | false", "", 1);
	check_shell(sh, "false | true", "", 0);
	check_shell(sh, "cat < @.missing", "sh: @.missing: No such file or directory\n", 1);
	check_shell(sh, "rm @; cat @", "cat: @: No such file or directory\n", 1);
	return done();
}
