/* RLIMIT_FSIZE and RLIMIT_CPU enforced as Linux: a write is cut at the
 * file-size limit, a write at or past it is EFBIG with SIGXFSZ (which
 * kills by default), so is growing a file past it with ftruncate; a
 * process over its CPU soft limit gets SIGXCPU, and SIGKILL at the hard
 * one.  fallocate growing a file is checked as truncate. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

static volatile int xfsz;
static volatile int *shared;

static void on_xfsz(int sig)
{
	(void)sig;
	xfsz++;
}

static void on_xcpu(int sig)
{
	struct rlimit r;

	(void)sig;
	shared[0]++;
	getrlimit(RLIMIT_CPU, &r);
	shared[1] = (int)r.rlim_cur;
}

static void set_soft(int res, rlim_t soft)
{
	struct rlimit r;

	getrlimit(res, &r);
	r.rlim_cur = soft;
	setrlimit(res, &r);
}

static void test_fsize(void)
{
	static char buf[10000];
	char path[] = "/tmp/rlimit_fsizeXXXXXX";
	int fd = mkstemp(path), status;

	unlink(path);
	signal(SIGXFSZ, on_xfsz);
	set_soft(RLIMIT_FSIZE, 4096);
	is_int(write(fd, buf, sizeof(buf)), 4096, "a write is cut at RLIMIT_FSIZE");
	errno = 0;
	ok(write(fd, buf, 1) == -1 && errno == EFBIG && xfsz == 1,
	   "a write at the limit: EFBIG and SIGXFSZ");
	is_int(pwrite(fd, buf, 10, 4090), 6, "a pwrite across it is cut");
	errno = 0;
	ok(ftruncate(fd, 8192) == -1 && errno == EFBIG && xfsz == 2,
	   "ftruncate past it: EFBIG and SIGXFSZ");
	errno = 0;
	ok(fallocate(fd, 0, 0, 8192) == -1 && errno == EFBIG && xfsz == 3,
	   "fallocate growing past it: EFBIG and SIGXFSZ");
	ok(fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 8192) == 0,
	   "fallocate keeping the size is no growth");
	ok(ftruncate(fd, 4096) == 0 && ftruncate(fd, 100) == 0,
	   "up to it, and shrinking, are fine");
	ok(write(fd, buf, 0) == 0, "an empty write is no write");
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGXFSZ, SIG_DFL);
		if (pwrite(fd, buf, 1, 5000) >= 0)
			_exit(0);
		_exit(1);
	}
	waitpid(pid, &status, 0);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGXFSZ,
	   "SIGXFSZ's default action kills the writer");
	set_soft(RLIMIT_FSIZE, RLIM_INFINITY);
	close(fd);
}

static void test_cpu(void)
{
	int status;

	shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t pid = fork();
	if (pid == 0) {
		struct rlimit r = {1, 2};
		signal(SIGXCPU, on_xcpu);
		setrlimit(RLIMIT_CPU, &r);
		alarm(120); /* a kernel that never sends them ends here */
		for (;;)
			;
	}
	waitpid(pid, &status, 0);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL && shared[0] == 1,
	   "CPU soft limit 1 s, hard 2 s: SIGXCPU once, then SIGKILL (%d, signal %d)", shared[0],
	   WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	is_int(shared[1], 2, "at the SIGXCPU the soft limit moved a second on");
}

int main(void)
{
	plan(11);
	test_fsize();
	test_cpu();
	return done();
}
