/* Helpers shared by the process and shell tests: where the user programs
 * live (fdkernel's /bin or the host build tree) and running code in a child. */
#ifndef USER_TESTUTIL_H
#define USER_TESTUTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef __NEWLIB__
#include <fdkernel.h> /* syscall(), which newlib does not declare */
#endif

#include "tap.h"

/* Stop the test with a TAP "Bail out!" when set-up it relies on failed, so
 * that it fails at once rather than hanging or testing garbage. */
static inline void require(bool cond, const char *what)
{
	if (cond)
		return;
	printf("Bail out! %s: %s\n", what, strerror(errno));
	fflush(stdout);
	exit(1);
}

/* True inside fdkernel, false on the host Linux.  fdkernel's sysname is
 * "Linux" (docs/linux-abi.md, "Identity"); its release ends in "-fdkernel". */
static inline bool on_fdkernel(void)
{
	static const char tail[] = "-fdkernel";
	struct utsname u;
	size_t len;

	if (uname(&u) != 0)
		return false;
	len = strlen(u.release);
	return len >= sizeof tail - 1 && strcmp(u.release + len - (sizeof tail - 1), tail) == 0;
}

/* The directory of the user programs in BUF: /bin on fdkernel; on the host
 * the bin directory beside the tests' one (ARGV0 is the running test's). */
static inline const char *test_bin_dir(const char *argv0, char *buf, size_t size)
{
	const char *slash = strrchr(argv0, '/');
	if (on_fdkernel())
		snprintf(buf, size, "/bin");
	else if (slash)
		snprintf(buf, size, "%.*s/../bin", (int)(slash - argv0), argv0);
	else
		snprintf(buf, size, "../bin");
	return buf;
}

/* The path of user program NAME in BUF (see test_bin_dir). */
static inline const char *test_bin_path(const char *argv0, const char *name, char *buf, size_t size)
{
	char dir[256];
	snprintf(buf, size, "%s/%s", test_bin_dir(argv0, dir, sizeof dir), name);
	return buf;
}

static inline void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, ms % 1000 * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Run FN in a child that exits 0 if FN returns.  Returns the child's wait
 * status, or -1 if fork or waitpid failed. */
static inline int child_status(void (*fn)(void))
{
	int status;
	pid_t pid;
	fflush(stdout);
	if ((pid = fork()) == 0) {
		fn();
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

static inline bool exited_with(int status, int code)
{
	return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == code;
}

static inline bool killed_by(int status, int sig)
{
	return status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == sig;
}

/* Blocks until child PID has ended, leaving it a zombie to reap: waitid
 * (P_PID, WEXITED | WNOWAIT), raw (newlib has no waitid).  So a test that
 * reaps with WNOHANG does not guess how long an exit takes. */
static inline bool await_zombie(pid_t pid)
{
	long info[16]; /* a siginfo_t */

	return syscall(247 /* waitid */, 1 /* P_PID */, pid, info,
		       4 /* WEXITED */ | 0x01000000 /* WNOWAIT */, NULL) == 0;
}

/* Run PATH with ARGV and ENVP, its stdout and stderr read into OUT (at most
 * SIZE - 1 bytes, NUL-terminated; more output gets the child EPIPE/SIGPIPE).
 * Returns its wait status, or -1 if it could not be started or waited for. */
static inline int run_capture(const char *path, char *const argv[], char *const envp[], char *out,
			      size_t size)
{
	int fds[2], status;
	size_t len = 0;
	ssize_t n;
	pid_t pid;
	if (pipe(fds) < 0)
		return -1;
	fflush(stdout);
	if ((pid = fork()) == 0) {
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		close(fds[1]);
		execve(path, argv, envp);
		_exit(127);
	}
	close(fds[1]);
	while ((n = read(fds[0], out + len, size - 1 - len)) > 0)
		len += n;
	out[len] = '\0';
	close(fds[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

/* Run `sh -c CMD` with PATH set to the user programs' directory, output
 * captured into OUT as run_capture does.  Returns the shell's wait status. */
static inline int run_shell(const char *argv0, const char *cmd, char *out, size_t size)
{
	char sh[300], path[270] = "PATH=";
	char *argv[] = {"sh", "-c", (char *)cmd, NULL}, *envp[] = {path, NULL};
	test_bin_dir(argv0, path + 5, sizeof path - 5);
	return run_capture(test_bin_path(argv0, "sh", sh, sizeof sh), argv, envp, out, size);
}

/* base/name in one of four static buffers, so that a call may take up
 * to four of them (scratch paths of a test). */
static inline const char *path_at(const char *base, const char *name)
{
	static char bufs[4][256];
	static int next;
	char *path = bufs[next++ & 3];

	snprintf(path, sizeof bufs[0], "%s/%s", base, name);
	return path;
}

/* The text of the file at path (a /proc file: read until EOF) into buf,
 * NUL-terminated; its length, or -1 if it cannot be opened. */
static inline long read_text(const char *path, char *buf, size_t size)
{
	long len = 0, n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	while (len < (long)size - 1 && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	return len;
}

/* The state letter of a /proc stat file ("/proc/42/stat",
 * "/proc/self/task/43/stat"): 'S' while it sleeps; '?' if unreadable. */
static inline char stat_state(const char *path)
{
	char buf[512], *paren;

	if (read_text(path, buf, sizeof buf) < 0 || !(paren = strrchr(buf, ')')) || !paren[1])
		return '?';
	return paren[2];
}

/* Polls cond every millisecond for up to 30 s (the bound only matters
 * when what is tested is wrong): cond's last value. */
#define WAIT_UNTIL(cond)                                                                           \
	({                                                                                         \
		int __n = 0;                                                                       \
		while (!(cond) && __n++ < 30000)                                                   \
			sleep_ms(1);                                                               \
		(cond);                                                                            \
	})

/* Writes text to path (a /proc/sys knob, say): 0, or -1 with the errno
 * of the open or the write (a short write counts as failed). */
static inline int write_text(const char *path, const char *text)
{
	size_t len = strlen(text);
	int fd = open(path, O_WRONLY), err;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, len);
	err = errno;
	close(fd);
	errno = err;
	return n == (ssize_t)len ? 0 : -1;
}

/* /proc/meminfo's figure for key ("Dirty", "MemTotal"), in kB; -1 if the
 * file or the line is missing. */
static inline long meminfo_kb(const char *key)
{
	char buf[4096];
	size_t len = strlen(key);

	if (read_text("/proc/meminfo", buf, sizeof buf) <= 0)
		return -1;
	for (char *line = buf; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		if (!strncmp(line, key, len) && line[len] == ':')
			return strtol(line + len + 1, NULL, 10);
	return -1;
}

/* S with its newlines shown as '|', to fit on a TAP diagnostic line. */
static inline char *one_line(char *s)
{
	for (char *p = s; (p = strchr(p, '\n'));)
		*p = '|';
	return s;
}

/* TEMPLATE into BUF with each '@' replaced by a scratch file name unique to
 * this process, /tmp/sh-PID. */
static inline const char *expand_scratch(const char *template, char *buf, size_t size)
{
	char file[32];
	size_t len = 0;
	snprintf(file, sizeof file, "/tmp/sh-%d", (int)getpid());
	buf[0] = '\0';
	for (const char *p = template; *p && len < size - 1; p++)
		len += snprintf(buf + len, size - len, *p == '@' ? "%s" : "%.1s",
				*p == '@' ? file : p);
	return buf;
}

/* One TAP assertion: `sh -c CMD` prints EXPECTED (stdout and stderr) and
 * exits with STATUS; '@' in both stands for the scratch file. */
static inline int check_shell(const char *argv0, const char *cmd, const char *expected, int status)
{
	char cmdbuf[512], want[1024], out[4096];
	int got = run_shell(argv0, expand_scratch(cmd, cmdbuf, sizeof cmdbuf), out, sizeof out);
	expand_scratch(expected, want, sizeof want);
	if (ok(exited_with(got, status) && strcmp(out, want) == 0, "sh -c '%s'", cmdbuf))
		return 1;
	diag("exit status %d (wait status %#x), output \"%s\"", WEXITSTATUS(got), got,
	     one_line(out));
	return 0;
}

/* Recurses until the stack runs out: the stack-overflow tests' SIGSEGV
 * (the depth limit only hides the endless recursion from the compiler). */
static inline int stack_overflow_recurse(int depth)
{
	volatile char pad[512];

	pad[0] = (char)depth;
	if (depth > (1 << 30))
		return 0;
	return stack_overflow_recurse(depth + 1) + pad[0];
}

#endif
