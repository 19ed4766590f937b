/* Through musl's wrappers: sigaltstack and the classic stack overflow
 * caught on it (siglongjmp back), nice/getpriority/setpriority (musl turns
 * the raw 20 - nice back into nice), flock between processes, sendfile
 * from a file into a pipe. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

static char alt[64 * 1024];
static sigjmp_buf jump;
static volatile sig_atomic_t on_alt;

static void on_segv(int sig)
{
	char here;

	on_alt = &here >= alt && &here < alt + sizeof alt;
	siglongjmp(jump, sig);
}

static void test_altstack(void)
{
	stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt}, old;
	struct sigaction sa = {.sa_handler = on_segv, .sa_flags = SA_ONSTACK | SA_NODEFER};

	ok(sigaltstack(&ss, NULL) == 0 && sigaltstack(NULL, &old) == 0 && old.ss_sp == alt &&
	       old.ss_flags == 0,
	   "sigaltstack set and read back");
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
	if (sigsetjmp(jump, 1) == 0)
		stack_overflow_recurse(0);
	ok(on_alt, "a stack overflow lands in the SIGSEGV handler, on the alternate stack");
	ok(sigaltstack(NULL, &old) == 0 && old.ss_flags == 0,
	   "back on the main stack after siglongjmp");
	signal(SIGSEGV, SIG_DFL);
}

static void test_nice(void)
{
	int n0;

	errno = 0;
	n0 = getpriority(PRIO_PROCESS, 0);
	ok(errno == 0 && n0 >= -20 && n0 <= 19, "getpriority: a nice value (%d)", n0);
	ok(nice(2) == n0 + 2 && getpriority(PRIO_PROCESS, 0) == n0 + 2, "nice(2) adds 2");
	ok(setpriority(PRIO_PROCESS, 0, n0 + 5) == 0 && nice(0) == n0 + 5,
	   "setpriority, and nice(0) reads it");
	errno = 0;
	ok(getpriority(PRIO_PROCESS, -7) == -1 && errno == ESRCH, "no such process: ESRCH");
}

static void test_flock(void)
{
	char path[] = "/tmp/libc_calls.XXXXXX";
	int fd = mkstemp(path), status;
	pid_t pid;

	require(fd >= 0, "mkstemp");
	ok(flock(fd, LOCK_EX) == 0, "flock LOCK_EX");
	fflush(stdout);
	if ((pid = fork()) == 0) {
		int other = open(path, O_RDWR);
		_exit(flock(other, LOCK_SH | LOCK_NB) == -1 && errno == EWOULDBLOCK ? 0 : 1);
	}
	ok(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "another process's open: EWOULDBLOCK");
	ok(flock(fd, LOCK_UN) == 0, "LOCK_UN");
	close(fd);
	unlink(path);
}

static void test_sendfile(void)
{
	char path[] = "/tmp/libc_calls.XXXXXX", buf[32] = "";
	int fd = mkstemp(path), p[2];
	off_t off = 4;

	require(fd >= 0 && write(fd, "0123456789", 10) == 10 && pipe(p) == 0, "file and pipe");
	ok(sendfile(p[1], fd, &off, 3) == 3 && off == 7 && read(p[0], buf, sizeof buf) == 3 &&
	       !memcmp(buf, "456", 3),
	   "sendfile from an offset into a pipe");
	ok(lseek(fd, 0, SEEK_CUR) == 10, "the file position did not move");
	close(p[0]);
	close(p[1]);
	close(fd);
	unlink(path);
}

int main(void)
{
	plan(12);
	test_altstack();
	test_nice();
	test_flock();
	test_sendfile();
	return tap_failed != 0;
}
