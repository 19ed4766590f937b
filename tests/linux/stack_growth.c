/*
 * The main stack as Linux keeps it: a vma that starts small ([stack] is
 * the arguments and 128 KiB) and grows down on each fault below it, up to
 * RLIMIT_STACK (checked at the fault, so a lowered limit applies at once)
 * and never within 256 pages (stack_guard_gap) of an accessible mapping
 * below; mmap placement keeps RLIMIT_STACK and the gap free below the
 * stack top (mmap_base, chosen at exec) and a hint inside the gap is not
 * taken.  A raised RLIMIT_STACK (64 MiB, then exec) lets the stack grow
 * that far (stress-ng's 16 MiB stacks).  Every fault past a bound is
 * SIGSEGV, and a recursion of 96 KiB frames stops at the gap instead of
 * writing over a mapping under the stack.  mprotect's PROT_GROWSDOWN
 * works on the stack only.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "testutil.h"

#define PAGE	  4096UL
#define MiB	  (1UL << 20)
#define GAP	  (256 * PAGE) /* Linux's stack_guard_gap */
#define BIG_LIMIT (64 * MiB)

static uintptr_t top, bottom; /* the [stack] vma now */

/* The [stack] line of /proc/self/maps into top and bottom. */
static bool find_stack(void)
{
	char buf[16384], *line;

	if (read_text("/proc/self/maps", buf, sizeof buf) <= 0 || !(line = strstr(buf, "[stack]")))
		return false;
	while (line > buf && line[-1] != '\n')
		line--;
	return sscanf(line, "%lx-%lx", &bottom, &top) == 2;
}

static uintptr_t stack_limit(void)
{
	struct rlimit rl;

	require(getrlimit(RLIMIT_STACK, &rl) == 0, "getrlimit");
	return rl.rlim_cur;
}

/* What a child touches, and how it ends: 0, or killed by SIGSEGV. */
static volatile uintptr_t touch_at;

static void touch(void)
{
	*(volatile char *)touch_at = 1;
	_exit(0);
}

/* Touching addr in a child: true if it lived, false if SIGSEGV ended it. */
static bool touch_lives(uintptr_t addr)
{
	int status;

	touch_at = addr;
	status = child_status(touch);
	if (!exited_with(status, 0) && !killed_by(status, SIGSEGV))
		diag("unexpected status %#x touching %#lx", status, (unsigned long)addr);
	return exited_with(status, 0);
}

static void lower_limit_then_touch(void)
{
	struct rlimit rl = {MiB, RLIM_INFINITY};

	if (setrlimit(RLIMIT_STACK, &rl))
		_exit(2);
	touch();
}

static void test_growth(uintptr_t limit)
{
	int status;

	ok(top - bottom < MiB, "[stack] starts small: %lu KiB",
	   (unsigned long)(top - bottom) >> 10);
	ok(touch_lives(top - limit), "a touch RLIMIT_STACK (%lu KiB) below the top grows the stack",
	   (unsigned long)limit >> 10);
	ok(!touch_lives(top - limit - PAGE), "a page further: SIGSEGV");
	touch_at = top - 2 * MiB;
	status = child_status(lower_limit_then_touch);
	ok(killed_by(status, SIGSEGV),
	   "after setrlimit(RLIMIT_STACK, 1 MiB), a touch 2 MiB down: SIGSEGV");
}

/* A mapping of len at end - len (MAP_FIXED, in the stack's reserve). */
static char *map_below(uintptr_t end, size_t len, int prot, int flags)
{
	char *p = mmap((void *)(end - len), len, prot, MAP_FIXED | MAP_ANONYMOUS | flags, -1, 0);

	require(p != MAP_FAILED, "mmap MAP_FIXED below the stack");
	return p;
}

static void test_guard_gap(void)
{
	uintptr_t end = top - 4 * MiB;
	char *m = map_below(end, 64 * 1024, PROT_READ | PROT_WRITE, MAP_PRIVATE);

	ok(touch_lives(end + GAP), "the stack grows to 256 pages above a mapping");
	ok(!touch_lives(end + GAP - PAGE), "not closer: SIGSEGV");
	munmap(m, 64 * 1024);
	m = map_below(end, 64 * 1024, PROT_NONE, MAP_PRIVATE);
	ok(touch_lives(end + PAGE), "above a PROT_NONE mapping it needs no gap");
	munmap(m, 64 * 1024);
}

/* 96 KiB frames, each written whole, until the stack can grow no more. */
static int recurse(int depth)
{
	volatile char frame[96 * 1024];

	if (depth > 100000) /* 9 GiB down: never, the stack ends long before */
		return 0;
	memset((char *)frame, depth, sizeof frame);
	return recurse(depth + 1) + frame[depth % sizeof frame];
}

static void recurse_forever(void)
{
	_exit(recurse(0) == 12345 ? 0 : 1);
}

static void test_recursion(void)
{
	uintptr_t end = top - 6 * MiB;
	char *m = map_below(end, MiB, PROT_READ | PROT_WRITE, MAP_SHARED);
	bool intact = true;

	memset(m, 'r', MiB);
	ok(killed_by(child_status(recurse_forever), SIGSEGV),
	   "96 KiB frames recursing toward a mapping 6 MiB down: SIGSEGV");
	for (size_t i = 0; i < MiB && intact; i++)
		intact = m[i] == 'r';
	ok(intact, "the mapping under the stack is untouched");
	munmap(m, MiB);
}

static void test_placement(uintptr_t limit)
{
	size_t len = 64 * 1024;
	uintptr_t hint = bottom - GAP / 2;
	char *p = mmap((void *)hint, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	require(p != MAP_FAILED, "mmap with a hint");
	ok((uintptr_t)p + len <= bottom - GAP || (uintptr_t)p >= top,
	   "a hint inside the stack's guard gap is not taken");
	munmap(p, len);
	p = mmap(NULL, MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	require(p != MAP_FAILED, "mmap");
	ok((uintptr_t)p + MiB <= top - limit - GAP,
	   "mmap leaves RLIMIT_STACK and the gap free below the stack top");
	munmap(p, MiB);
}

/* mprotect's PROT_GROWSDOWN: from the stack vma's bottom; elsewhere EINVAL. */
static void test_growsdown(void)
{
	uintptr_t page = ((uintptr_t)__builtin_frame_address(0) & ~(PAGE - 1));
	char *p = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	require(p != MAP_FAILED, "mmap");
	is_int(mprotect((void *)page, PAGE, PROT_READ | PROT_WRITE | PROT_GROWSDOWN), 0,
	       "mprotect(PROT_GROWSDOWN) of a stack page");
	is_errno(mprotect(p, PAGE, PROT_READ | PROT_GROWSDOWN), EINVAL,
		 "PROT_GROWSDOWN of another mapping: EINVAL");
	is_errno(mprotect(p, PAGE, PROT_READ | PROT_GROWSUP), EINVAL,
		 "PROT_GROWSUP: EINVAL (nothing grows up)");
	is_errno(mprotect((void *)page, PAGE, PROT_READ | PROT_GROWSDOWN | PROT_GROWSUP), EINVAL,
		 "both: EINVAL");
	munmap(p, PAGE);
}

/* Run after exec with RLIMIT_STACK at BIG_LIMIT: the exit status's bits
 * are the checks that failed. */
static int big_stack_checks(void)
{
	int failed = 0;
	char *p;

	if (!find_stack() || stack_limit() != BIG_LIMIT)
		return 64;
	p = mmap(NULL, MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || (uintptr_t)p + MiB > top - BIG_LIMIT - GAP)
		failed |= 1;
	if (!touch_lives(top - 48 * MiB))
		failed |= 2;
	if (touch_lives(top - BIG_LIMIT - PAGE))
		failed |= 4;
	return failed;
}

static void test_raised_limit(const char *self)
{
	struct rlimit rl = {BIG_LIMIT, RLIM_INFINITY};
	int status = -1;
	pid_t pid = fork();

	if (pid == 0) {
		char *argv[] = {(char *)self, "big", NULL};

		if (setrlimit(RLIMIT_STACK, &rl) == 0)
			execv(self, argv);
		_exit(128);
	}
	require(pid > 0 && waitpid(pid, &status, 0) == pid, "fork and wait");
	if (!WIFEXITED(status) || WEXITSTATUS(status) >= 64)
		diag("the 64 MiB-stack child ended with status %#x", status);
	ok(WIFEXITED(status) && !(WEXITSTATUS(status) & 1),
	   "RLIMIT_STACK 64 MiB at exec: mmap leaves it free below the stack top");
	ok(WIFEXITED(status) && !(WEXITSTATUS(status) & 2), "the stack grows 48 MiB deep");
	ok(WIFEXITED(status) && !(WEXITSTATUS(status) & 4), "and past 64 MiB is SIGSEGV");
}

int main(int argc, char **argv)
{
	uintptr_t limit;

	if (argc > 1 && strcmp(argv[1], "big") == 0)
		return big_stack_checks();
	limit = stack_limit();
	if (limit == RLIM_INFINITY || limit > 512 * MiB || limit < 8 * MiB)
		skip_all("RLIMIT_STACK is not a usual size");
	require(find_stack(), "[stack] in /proc/self/maps");
	plan(4 + 3 + 2 + 2 + 4 + 3);
	test_growth(limit);
	test_guard_gap();
	test_recursion();
	test_placement(limit);
	test_growsdown();
	test_raised_limit(argv[0]);
	return done();
}
