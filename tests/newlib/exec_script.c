/* execve of "#!" scripts, as Linux's binfmt_script: the interpreter (this
 * test itself, in its echo mode) gets its name, the line's one argument
 * (inner blanks kept), the script's path, then argv[1..]; interpreters
 * that are scripts are followed five deep (ELOOP for a sixth); a line
 * without an interpreter, or one cut at 256 bytes, is ENOEXEC; a missing
 * interpreter ENOENT. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

static char *const echo_env[] = {"SCRIPT_ECHO=1", NULL};

/* Echo mode: argv joined by '|'. */
static int echo_args(int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		printf("%s%s", argv[i], i + 1 < argc ? "|" : "\n");
	return 0;
}

/* /tmp/exec-script-PID-N holding TEXT, mode 0755; its path in buf. */
static const char *script(int n, const char *text, char *buf, size_t size)
{
	int fd;

	snprintf(buf, size, "/tmp/exec-script-%d-%d", (int)getpid(), n);
	fd = open(buf, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	require(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text), buf);
	close(fd);
	return buf;
}

/* Runs PATH with argv {"zero", "x y", "z"}: its output is EXPECTED. */
static void runs(const char *path, const char *expected, const char *what)
{
	char *argv[] = {"zero", "x y", "z", NULL}, out[1024];
	int status = run_capture(path, argv, echo_env, out, sizeof(out));

	if (!ok(exited_with(status, 0) && strcmp(out, expected) == 0, "%s", what))
		diag("status 0x%x, output: %s", status, one_line(out));
}

/* execve of PATH fails here, in this process, with ERR. */
static void fails(const char *path, int err, const char *what)
{
	char *argv[] = {"zero", NULL};

	is_errno(execve(path, argv, echo_env), err, "%s", what);
}

/* Scripts 10..14, each the interpreter of the next, the first's the
 * program SELF; the last one's path in LAST, its expected output in WANT. */
enum { CHAIN = 14 };
static void chain(const char *self, char *last, char *want, size_t size)
{
	char text[128];
	size_t len = snprintf(want, size, "%s", self);

	for (int i = 10; i <= CHAIN; i++) {
		snprintf(text, sizeof(text), "#!%s\n", i == 10 ? self : last);
		script(i, text, last, 64);
		len += snprintf(want + len, size - len, "|%s", last);
	}
	snprintf(want + len, size - len, "|x y|z\n");
}

int main(int argc, char **argv)
{
	char text[600], want[1200], a[64], b[64], c[64], d[64], e[64], f[64];
	const char *self = argv[0];

	if (getenv("SCRIPT_ECHO"))
		return echo_args(argc, argv);
	plan(10);
	require(self[0] == '/', "argv[0] is an absolute path");

	snprintf(text, sizeof(text), "#!%s\necho not shell\n", self);
	script(1, text, a, sizeof(a));
	snprintf(want, sizeof(want), "%s|%s|x y|z\n", self, a);
	runs(a, want, "#!interpreter: its name, the script's path, argv[1..]");

	snprintf(text, sizeof(text), "#! \t%s  one  two \t\n", self);
	script(2, text, b, sizeof(b));
	snprintf(want, sizeof(want), "%s|one  two|%s|x y|z\n", self, b);
	runs(b, want, "blanks around the name and one argument with inner blanks kept");

	chain(self, c, want, sizeof(want));
	runs(c, want, "five scripts deep, each the next one's interpreter");
	snprintf(text, sizeof(text), "#!%s\n", c);
	fails(script(CHAIN + 1, text, c, sizeof(c)), ELOOP, "a sixth: ELOOP");
	fails(script(4, "#!/nonexistent/interpreter\n", d, sizeof(d)), ENOENT,
	      "a missing interpreter: ENOENT");
	fails(script(5, "#!  \t \nexit 0\n", e, sizeof(e)), ENOEXEC, "#! and blanks only: ENOEXEC");
	memset(text, 'a', sizeof(text));
	memcpy(text, "#!/", 3);
	text[sizeof(text) - 1] = '\0';
	fails(script(6, text, f, sizeof(f)), ENOEXEC,
	      "an interpreter name cut by the 256-byte line: ENOEXEC");
	fails(script(6, "#!/tmp\n", f, sizeof(f)), EACCES, "a directory as interpreter: EACCES");

	/* A script naming itself: Linux gives up after a few rounds. */
	snprintf(text, sizeof(text), "#!/tmp/exec-script-%d-7\n", (int)getpid());
	fails(script(7, text, f, sizeof(f)), ELOOP, "a script that is its own interpreter: ELOOP");
	for (int i = 1; i <= CHAIN + 1; i++) {
		snprintf(f, sizeof(f), "/tmp/exec-script-%d-%d", (int)getpid(), i);
		unlink(f);
	}
	ok(access(a, F_OK) != 0 && access(f, F_OK) != 0, "the scripts are removed");
	return done();
}
