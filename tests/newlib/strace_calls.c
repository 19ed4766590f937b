/*
 * The syscall trace's subject: calls whose strings, fds and flags the trace
 * must decode.  In the suite it checks its own results like any test (and
 * on the host Linux); tests/harness/boot-checks also boots it as init with
 * strace=strace_calls and checks the trace lines (docs/debugging.md), which
 * cover a forked child and its execve too, and the kernel's report of a
 * second child killed by a fault (its rip named crash_child+0x...).
 */
#define _GNU_SOURCE /* pipe2 */
#include "indirect.h"
#include "tap.h"
#include "testutil.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* A forked child is traced too, and stays traced across execve. */
static int fork_exec_true(const char *argv0)
{
	char path[512];
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		char *const args[] = {"true", NULL};
		execve(test_bin_path(argv0, "true", path, sizeof(path)), args, environ);
		_exit(127);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0;
}

/* Writes to NULL: the kernel's fault report names this function. */
static __attribute__((noinline)) void crash_child(void)
{
	volatile int *p = NULL;

	asm("" : "+r"(p)); /* a real store, not a compile-time trap */
	*p = 1;
}

static int fork_crash(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		crash_child();
		_exit(0);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) &&
	       WTERMSIG(status) == SIGSEGV;
}

/* /proc/strace refuses a target with a '/' and keeps the old one. */
static void check_proc_strace(void)
{
	char before[64] = "", after[64] = "";
	int fd = open("/proc/strace", O_RDWR);
	ssize_t n;

	ok(fd >= 0 && read(fd, before, sizeof(before) - 1) > 0, "/proc/strace reads the target");
	close(fd);
	fd = open("/proc/strace", O_WRONLY);
	n = write(fd, "bad/name\n", 9);
	is_errno(n, EINVAL, "/proc/strace: a target with '/' is EINVAL");
	close(fd);
	fd = open("/proc/strace", O_RDONLY);
	ok(read(fd, after, sizeof(after) - 1) > 0 && !strcmp(before, after),
	   "/proc/strace: the target is unchanged (%s)", strtok(after, "\n"));
	close(fd);
}

int main(int argc, char **argv)
{
	struct epoll_event ev = {.events = EPOLLIN};
	int p[2], s, d, e;

	(void)argc;
	plan(13);
	is_errno(open("/nonexistent/strace", O_RDONLY), ENOENT, "open of a missing path: ENOENT");
	ok(pipe2(p, O_CLOEXEC | O_NONBLOCK) == 0, "pipe2(O_CLOEXEC|O_NONBLOCK)");
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ok(s >= 0, "socket(AF_UNIX, SOCK_STREAM|SOCK_CLOEXEC)");
	ok(write(p[1], "hi\n", 3) == 3, "write to the pipe");
	ok(fork_exec_true(argv[0]), "a forked child execs true");
	if (on_fdkernel()) {
		d = (int)IND(SYSIND_NONSEQFD | SYSIND_CLOFORK, __NR_dup, (unsigned long)s);
		ok(d >= NONSEQ_FD_BASE, "syscall_indirect(NONSEQFD|CLOFORK, dup) = %d", d);
		close(d);
		check_proc_strace();
	} else {
		for (int i = 0; i < 4; i++)
			skip("fdkernel only", "syscall_indirect and /proc/strace");
	}
	ok(fork_crash(), "a child writing to NULL is killed by SIGSEGV");
	e = epoll_create1(EPOLL_CLOEXEC);
	ok(e >= 0, "epoll_create1(EPOLL_CLOEXEC)");
	ok(epoll_ctl(e, EPOLL_CTL_ADD, p[0], &ev) == 0, "epoll_ctl(EPOLL_CTL_ADD) of the pipe");
	close(e);
	e = eventfd(0, EFD_SEMAPHORE | EFD_CLOEXEC);
	ok(e >= 0, "eventfd(0, EFD_SEMAPHORE|EFD_CLOEXEC)");
	close(e);
	close(s);
	close(p[0]);
	close(p[1]);
	return done();
}
