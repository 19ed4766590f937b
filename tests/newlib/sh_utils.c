/* Tests of the small /bin utilities driven through the shell: echo, cat,
 * ls, mkdir, rm, rmdir, true, false, sleep and kill, with their errors. */
#include <string.h>

#include "tap.h"
#include "testutil.h"

static long long monotonic_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void test_files(const char *sh)
{
	char out[512];
	check_shell(sh, "echo -n a; echo b c; echo", "ab c\n\n", 0);
	check_shell(sh, "echo a > @; echo b > @.2; cat @ @.2; cat < @ | cat - @.2; rm @ @.2",
		    "a\nb\na\nb\n", 0);
	check_shell(sh, "mkdir @; echo x > @/f; echo yy > @/g; mkdir @/sub; ls @", "f\ng\nsub\n",
		    0);
	check_shell(sh, "ls @/g", "@/g\n", 0);
	run_shell(sh, expand_scratch("ls -l @", out, sizeof out), out, sizeof out);
	if (!ok(out[0] == '-' && strstr(out, " 2 f\n-") && strstr(out, " 3 g\nd"),
		"ls -l shows types and sizes"))
		diag("%s", one_line(out));
	check_shell(sh, "rm @/f @/g; rmdir @/sub; rmdir @; ls @",
		    "ls: @: No such file or directory\n", 1);
	check_shell(sh, "mkdir /tmp", "mkdir: /tmp: File exists\n", 1);
	check_shell(sh, "rmdir @", "rmdir: @: No such file or directory\n", 1);
	check_shell(sh, "rm @", "rm: @: No such file or directory\n", 1);
}

static void test_processes(const char *sh)
{
	char out[64];
	long long start = monotonic_ms(), took;
	int status = run_shell(sh, "sleep 0.1", out, sizeof out);
	took = monotonic_ms() - start;
	ok(exited_with(status, 0) && took >= 100, "sleep 0.1 takes at least 100 ms (%lld)", took);
	check_shell(sh, "sleep x", "usage: sleep SECONDS\n", 1);
	check_shell(sh, "true", "", 0);
	check_shell(sh, "false", "", 1);
	check_shell(sh, "kill -9 99999999", "kill: 99999999: No such process\n", 1);
	check_shell(sh, "kill -NOSUCH 1", "usage: kill [-SIGNAL] PID...\n", 1);
}

int main(int argc, char **argv)
{
	(void)argc;
	plan(15);
	test_files(argv[0]);
	test_processes(argv[0]);
	return done();
}
