/* The thread-pointer registers (arch_prctl) and set_tid_address: what a
 * threaded libc (musl, glibc) does before main.  Each process keeps its own
 * FS and GS bases across context switches and fork; execve clears them.
 * newlib does not use FS, so the test may move it freely (on Linux too). */
#include <errno.h>
#include <fdkernel.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/wait.h>

#include "tap.h"
#include "testutil.h"

#define ARCH_SET_GS 0x1001
#define ARCH_SET_FS 0x1002
#define ARCH_GET_FS 0x1003
#define ARCH_GET_GS 0x1004

static long arch_prctl(int code, uint64_t addr)
{
	return syscall(__NR_arch_prctl, code, addr);
}

static uint64_t fs_word(void)
{
	uint64_t v;

	__asm__ volatile("movq %%fs:0, %0" : "=r"(v));
	return v;
}

static uint64_t gs_word(void)
{
	uint64_t v;

	__asm__ volatile("movq %%gs:0, %0" : "=r"(v));
	return v;
}

static uint64_t tcb_a[4] = {0x1111aaaa}, tcb_b[4] = {0x2222bbbb}, gsblock[2] = {0x3333cccc};

/* The child points FS elsewhere and yields many times: the parent's FS must
 * survive every switch, and the child's its own. */
static void test_switches(void)
{
	int fds[2], status;
	uint64_t seen = 0;

	require(arch_prctl(ARCH_SET_FS, (uint64_t)tcb_a) == 0, "ARCH_SET_FS");
	require(pipe(fds) == 0, "pipe");
	pid_t child = fork();
	if (child == 0) {
		uint64_t inherited = fs_word();
		arch_prctl(ARCH_SET_FS, (uint64_t)tcb_b);
		for (int i = 0; i < 200; i++)
			syscall(__NR_sched_yield);
		uint64_t mine = fs_word() == tcb_b[0] ? inherited : 0;
		write(fds[1], &mine, sizeof(mine));
		_exit(0);
	}
	int bad = 0;
	for (int i = 0; i < 200; i++) {
		syscall(__NR_sched_yield);
		bad += fs_word() != tcb_a[0];
	}
	read(fds[0], &seen, sizeof(seen));
	waitpid(child, &status, 0);
	close(fds[0]);
	close(fds[1]);
	ok(bad == 0, "FS base kept across 200 switches to a child with its own");
	ok(seen == tcb_a[0], "fork's child inherits FS, then keeps its own across switches");
}

static void test_get_set(void)
{
	uint64_t got = 0;

	ok(arch_prctl(ARCH_SET_FS, (uint64_t)tcb_b) == 0 && fs_word() == tcb_b[0],
	   "ARCH_SET_FS: %%fs:0 reads the new block");
	ok(arch_prctl(ARCH_GET_FS, (uint64_t)&got) == 0 && got == (uint64_t)tcb_b,
	   "ARCH_GET_FS returns the base set");
	ok(arch_prctl(ARCH_SET_GS, (uint64_t)gsblock) == 0 && gs_word() == gsblock[0],
	   "ARCH_SET_GS: %%gs:0 reads the new block");
	ok(arch_prctl(ARCH_GET_GS, (uint64_t)&got) == 0 && got == (uint64_t)gsblock,
	   "ARCH_GET_GS returns the base set");
	ok(arch_prctl(ARCH_SET_GS, 0) == 0, "ARCH_SET_GS 0 restores the default");
}

static void test_errors(void)
{
	uint64_t before = 0, after = 0;

	arch_prctl(ARCH_GET_FS, (uint64_t)&before);
	errno = 0;
	ok(arch_prctl(ARCH_SET_FS, 0xffff800000000000UL) == -1 && errno == EPERM,
	   "ARCH_SET_FS to a kernel address: EPERM");
	arch_prctl(ARCH_GET_FS, (uint64_t)&after);
	ok(after == before, "a refused ARCH_SET_FS leaves FS unchanged");
	errno = 0;
	ok(arch_prctl(ARCH_GET_FS, 8) == -1 && errno == EFAULT, "ARCH_GET_FS into page 0: EFAULT");
	errno = 0;
	ok(arch_prctl(ARCH_GET_GS, 0xffffffff80000000UL) == -1 && errno == EFAULT,
	   "ARCH_GET_GS into kernel memory: EFAULT");
	errno = 0;
	ok(arch_prctl(0x1999, 0) == -1 && errno == EINVAL, "unknown code: EINVAL");
}

/* execve starts the new program with FS and GS at 0. */
static void test_exec(const char *self)
{
	int status;

	arch_prctl(ARCH_SET_FS, (uint64_t)tcb_a);
	pid_t child = fork();
	if (child == 0) {
		char *args[] = {(char *)self, "--report-fs", NULL};
		char *env[] = {NULL};
		execve(self, args, env);
		_exit(99);
	}
	waitpid(child, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "after execve FS and GS are 0 (status %d)", WEXITSTATUS(status));
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		uint64_t fs = 1, gs = 1;
		arch_prctl(ARCH_GET_FS, (uint64_t)&fs);
		arch_prctl(ARCH_GET_GS, (uint64_t)&gs);
		return fs == 0 && gs == 0 ? 0 : 1;
	}
	plan(14);
	test_switches();
	test_get_set();
	test_errors();
	test_exec(argv[0]);
	ok(syscall(__NR_set_tid_address, NULL) == getpid(),
	   "set_tid_address returns the caller's tid (its pid, single-threaded)");
	return done();
}
