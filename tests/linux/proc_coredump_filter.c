/* /proc/<pid>/coredump_filter: eight hex digits and a newline, 0644; a
 * write takes a number as kstrtouint reads it (0x hex, 0 octal, decimal,
 * one trailing newline) and keeps its low nine bits, EINVAL or ERANGE
 * otherwise; one value per address space, inherited by fork, kept across
 * exec, writable from another process.  (That a core obeys it is the
 * coredump test's.) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

static char file[64] = "/proc/self/coredump_filter";

static int is_str(const char *got, const char *want, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vok(!strcmp(got, want), fmt, ap);
	va_end(ap);
	if (!r)
		diag("got \"%s\"", got);
	return r;
}

/* The filter's text, or "" if unreadable. */
static const char *show(void)
{
	static char text[32];
	int fd = open(file, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;

	text[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
	return text;
}

/* write(2)'s result for text (its length, or -errno). */
static long store(const char *text)
{
	int fd = open(file, O_WRONLY);
	long n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	n = n < 0 ? -errno : n;
	close(fd);
	return n;
}

static void test_format(void)
{
	struct stat st;

	ok(stat(file, &st) == 0 && (st.st_mode & 0777) == 0644, "mode 0644");
	is_str(show(), "00000033\n", "Linux's default, 0x33, as eight hex digits");
}

static void test_writes(void)
{
	static const struct {
		const char *text;
		long ret; /* 0: the whole length */
		const char *after;
	} cases[] = {
	    {"0x7", 0, "00000007\n"},	 {"255\n", 0, "000000ff\n"}, {"017", 0, "0000000f\n"},
	    {"+5", 0, "00000005\n"},	 {"0XfFf", 0, "000001ff\n"}, {"0", 0, "00000000\n"},
	    {"abc", -EINVAL, NULL},	 {"-1", -EINVAL, NULL},	     {"5 ", -EINVAL, NULL},
	    {"0x", -EINVAL, NULL},	 {"\n", -EINVAL, NULL},	     {"4294967296", -ERANGE, NULL},
	    {"0x33\n", 0, "00000033\n"},
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char before[32];
		long want = cases[i].ret ? cases[i].ret : (long)strlen(cases[i].text);
		strcpy(before, show());
		const char *t = cases[i].text;
		int shown = (int)strcspn(t, "\n");
		is_int(store(t), want, "write \"%.*s%s\": %ld", shown, t, t[shown] ? "\\n" : "",
		       want);
		is_str(show(), cases[i].after ? cases[i].after : before, "  then reads %.8s",
		       cases[i].after ? cases[i].after : "the same");
	}
	/* 0x, 31 zeros, 1ff: 36 bytes */
	is_int(store("0x00000000000000000000000000000001ff"), 36, "a long write is taken whole");
	is_str(show(), "00000001\n", "  but only its first 34 bytes count: 0x0...01");
}

/* Exit status: the filter's value, for the parent to check. */
static int value_now(void)
{
	return (int)strtol(show(), NULL, 16);
}

static void test_fork_exec(const char *self)
{
	int status;
	pid_t pid;

	require(store("0x3") == 3, "set 0x3");
	pid = fork();
	if (pid == 0)
		_exit(value_now() == 3 && store("0x1") == 3 && value_now() == 1 ? 0 : 1);
	ok(waitpid(pid, &status, 0) == pid && exited_with(status, 0),
	   "fork: the child starts with the parent's value and changes its own");
	is_str(show(), "00000003\n", "the parent's is unchanged");

	pid = fork();
	if (pid == 0) {
		execl(self, self, "show", (char *)NULL);
		_exit(99);
	}
	ok(waitpid(pid, &status, 0) == pid && exited_with(status, 3), "exec keeps it (%d)",
	   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

static void test_other_process(void)
{
	int go[2], status;
	pid_t pid;
	char c;

	require(pipe(go) == 0, "pipe");
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		_exit(read(go[0], &c, 1) == 0 && value_now() == 0x10 ? 0 : 1);
	}
	close(go[0]);
	snprintf(file, sizeof file, "/proc/%d/coredump_filter", (int)pid);
	ok(store("0x10") == 4, "another process's file takes a write");
	is_str(show(), "00000010\n", "and reads its new value");
	close(go[1]);
	ok(waitpid(pid, &status, 0) == pid && exited_with(status, 0),
	   "which that process sees as its own");
	is_int(store("0x10"), -ENOENT, "once it is reaped, the file is gone");
	strcpy(file, "/proc/self/coredump_filter");
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "show"))
		return value_now();
	plan(2 + 13 * 2 + 2 + 3 + 4);
	test_format();
	test_writes();
	test_fork_exec("/proc/self/exe");
	test_other_process();
	return done();
}
