/* Differential test of Debian's busybox-static: the script
 * /usr/share/compat/busybox.sh run by /bin/busybox sh in a scratch
 * directory must print what the same binary printed on the host at build
 * time (busybox.expected, made by iso/busybox.mk), section by section. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

#define OUT_SIZE (256 * 1024)

/* The directory holding busybox.sh and busybox.expected in BUF: on the
 * host the build tree's compat/ beside user/ (ARGV0 is build/user/tests/x). */
static const char *compat_dir(const char *argv0, char *buf, size_t size)
{
	const char *slash = strrchr(argv0, '/');
	if (on_fdkernel())
		return "/usr/share/compat";
	snprintf(buf, size, "%.*s/../../compat", slash ? (int)(slash - argv0) : 1,
		 slash ? argv0 : ".");
	return buf;
}

static char *read_file(const char *path)
{
	static char buf[OUT_SIZE];
	FILE *f = fopen(path, "r");
	size_t n;
	require(f != NULL, path);
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Run the script in a fresh scratch directory, output into OUT with the
 * shell's exit status appended as "exit N" (as iso/busybox.mk does). */
static void run_script(const char *dir, char *out)
{
	char script[320], scratch[64], *argv[] = {"sh", script, NULL};
	char *envp[] = {"PATH=/usr/bin:/bin", "HOME=/", NULL};
	size_t len;
	int status;
	snprintf(script, sizeof script, "%s/busybox.sh", dir);
	snprintf(scratch, sizeof scratch, "/tmp/compat-%d", (int)getpid());
	require(mkdir(scratch, 0755) == 0 && chdir(scratch) == 0, "scratch directory");
	status = run_capture("/bin/busybox", argv, envp, out, OUT_SIZE - 32);
	len = strlen(out);
	snprintf(out + len, OUT_SIZE - len, "exit %d\n",
		 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	require(chdir("/") == 0, "chdir /");
	if (!ok(rmdir(scratch) == 0, "the script leaves its scratch directory empty")) {
		char *rm[] = {"rm", "-rf", scratch, NULL}, junk[256];
		run_capture("/bin/busybox", rm, envp, junk, sizeof junk); /* for the next tests */
	}
}

/* The length of the section starting at S: up to the next line that
 * starts with "== " (a section's title), or the end. */
static size_t section_len(const char *s)
{
	const char *next = strstr(s + 1, "\n== ");
	return next ? (size_t)(next + 1 - s) : strlen(s);
}

/* Compare WANT and HAVE section by section, one assertion each. */
static void compare(const char *want, const char *have)
{
	while (*want) {
		size_t wl = section_len(want), hl = *have ? section_len(have) : 0;
		if (!ok(wl == hl && !memcmp(want, have, wl), "%.*s", (int)strcspn(want, "\n"),
			want)) {
			diag("expected: %s", one_line(strndup(want, wl)));
			diag("got:      %s", one_line(strndup(have, hl)));
		}
		want += wl;
		have += hl;
	}
	if (!ok(!*have, "no output past the expected"))
		diag("extra: %s", one_line(strdup(have)));
}

/*
 * Removes from S the lines "find: /proc/...: No such file or directory":
 * find lists its own /proc/<pid>/fd, where the directory fds it used for
 * the listing are closed by the time it looks at them (Linux's find prints
 * the same, and exits 1).  Whether there were any.
 */
static bool drop_vanished_proc_fds(char *s)
{
	bool any = false;
	char *line = s;

	while (*line) {
		char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end + 1 - line) : strlen(line);
		if (!strncmp(line, "find: /proc/", 12) &&
		    strstr(line, "No such file or directory") &&
		    strstr(line, "No such file or directory") < line + len) {
			memmove(line, line + len, strlen(line + len) + 1);
			any = true;
		} else {
			line += len;
		}
	}
	return any;
}

/* The checklist's `find / -name motd -exec cat {} \;` over the whole
 * file system, /proc included, in fdkernel only (the host's / is not
 * ours): it prints /etc/motd, the one motd there is, and nothing else. */
static void find_motd(void)
{
	static char got[4096];
	char *argv[] = {"find", "/", "-name", "motd", "-exec", "cat", "{}", ";", NULL};
	char *envp[] = {"PATH=/usr/bin:/bin", NULL};
	int status;

	if (!on_fdkernel()) {
		skip("fdkernel only: the host's / differs", "find / -name motd -exec cat {} \\;");
		return;
	}
	status = run_capture("/bin/busybox", argv, envp, got, sizeof got);
	bool vanished = drop_vanished_proc_fds(got);
	if (!ok((status == 0 || (vanished && status == 0x100)) &&
		    strcmp(got, read_file("/etc/motd")) == 0,
		"find / -name motd -exec cat {} \\; prints /etc/motd"))
		diag("status 0x%x, got: %s", status, one_line(got));
}

static int count_sections(const char *s)
{
	int n = 0;
	for (; *s; s += section_len(s))
		n++;
	return n;
}

int main(int argc, char **argv)
{
	static char got[OUT_SIZE];
	char dirbuf[300], path[320];
	const char *dir, *expected;
	struct stat st;
	(void)argc;
	if (stat("/bin/busybox", &st) != 0)
		skip_all("no /bin/busybox (make deps installs busybox-static)");
	dir = compat_dir(argv[0], dirbuf, sizeof dirbuf);
	snprintf(path, sizeof path, "%s/busybox.expected", dir);
	expected = read_file(path);
	plan(count_sections(expected) + 3);
	run_script(dir, got);
	compare(expected, got);
	find_motd();
	return done();
}
