/* Debian's bash-static (a static glibc bash) runs process substitution:
 * `<(cmd)` is a pipe the command writes, named /dev/fd/N for the program
 * that opens it.  The program often opens it after the writer has exited,
 * so the open must not wait for a partner (it hung in fdkernel before).
 * /bin/bash-static in the guest (iso/busybox.mk) and on the host (make deps). */
#define _GNU_SOURCE
#include <sys/stat.h>

#include "testutil.h"

#define BASH "/bin/bash-static"

static const char script[] =
    "diff <(echo a) <(echo a); echo \"same $?\"\n"
    "diff <(echo a) <(echo b) > /dev/null; echo \"differ $?\"\n"
    "cat <(echo hi)\n"
    "while read -r line; do echo \"got $line\"; done < <(printf 'x\\ny\\n')\n";

/* Runs one bash -c command; its output (stdout and stderr) into out. */
static int bash(const char *cmd, char *out, size_t size)
{
	char *argv[] = {"bash-static", "-c", (char *)cmd, NULL};
	char *envp[] = {"PATH=/bin:/usr/bin", "LC_ALL=C", NULL};

	return run_capture(BASH, argv, envp, out, size);
}

int main(void)
{
	char out[512];
	struct stat st;
	bool good;
	int status;

	if (stat(BASH, &st) != 0 && !on_fdkernel())
		skip_all(BASH " is not installed (make deps installs bash-static)");
	plan(3);
	status = bash(script, out, sizeof out);
	ok(exited_with(status, 0), "bash ran the script (status 0x%x)", status);
	good = !strcmp(out, "same 0\ndiffer 1\nhi\ngot x\ngot y\n");
	ok(good, "diff <(echo a) <(echo a), cat <(echo hi), done < <(printf): %s", one_line(out));
	status = bash("echo hi | cat /dev/stdin; cat /dev/fd/3 3< <(echo three)", out, sizeof out);
	good = exited_with(status, 0) && !strcmp(out, "hi\nthree\n");
	ok(good, "cat /dev/stdin of a pipe, /dev/fd/3 of a substitution: %s", one_line(out));
	return done();
}
