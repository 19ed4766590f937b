/* MAP_GROWSDOWN: a private anonymous mapping that grows down to a fault
 * below it, as the main stack does (one mechanism): bounded by
 * RLIMIT_STACK and by the guard gap above an accessible mapping below
 * (SIGSEGV), not by a PROT_NONE one.  Other kinds of mapping refuse the
 * flag (EINVAL), and mprotect's PROT_GROWSDOWN works on it. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "testutil.h"

#define PAGE   4096UL
#define GAP    256UL	 /* Linux's stack_guard_gap, in pages */
#define REGION (4 * GAP) /* pages reserved for each case */

/* A free region of REGION pages; its end. */
static uintptr_t free_region(void)
{
	void *p = mmap(NULL, REGION * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	require(p != MAP_FAILED && munmap(p, REGION * PAGE) == 0, "reserve a region");
	return (uintptr_t)p + REGION * PAGE;
}

/* A MAP_GROWSDOWN mapping of pages pages ending at end. */
static char *growsdown_at(uintptr_t end, unsigned long pages)
{
	void *p = mmap((void *)(end - pages * PAGE), pages * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_GROWSDOWN, -1, 0);

	require(p != MAP_FAILED, "mmap MAP_GROWSDOWN");
	return p;
}

/* The start of the mapping holding addr, from /proc/self/maps (0: none);
 * *named gets whether it has a name ([stack] ...). */
static uintptr_t mapping_start(uintptr_t addr, bool *named)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	uintptr_t lo, hi, found = 0;

	require(f != NULL, "open /proc/self/maps");
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo <= addr && addr < hi) {
			found = lo;
			*named = strchr(line, '[') != NULL;
		}
	fclose(f);
	return found;
}

/* Runs touch(arg) in a child: its wait status. */
static int in_child(void (*touch)(uintptr_t), uintptr_t arg)
{
	int status;
	pid_t pid;

	fflush(stdout);
	require((pid = fork()) >= 0, "fork");
	if (pid == 0) {
		touch(arg);
		_exit(0);
	}
	require(waitpid(pid, &status, 0) == pid, "waitpid");
	return status;
}

static bool segv(int status)
{
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV;
}

static void refused_kinds(void)
{
	int fd = open("/proc/self/exe", O_RDONLY), zero = open("/dev/zero", O_RDWR);
	int rw = PROT_READ | PROT_WRITE;
	void *p;

	p = mmap(NULL, 2 * PAGE, rw, MAP_PRIVATE | MAP_ANONYMOUS | MAP_GROWSDOWN, -1, 0);
	ok(p != MAP_FAILED, "private anonymous MAP_GROWSDOWN");
	munmap(p, 2 * PAGE);
	is_errno((long)mmap(NULL, PAGE, rw, MAP_SHARED | MAP_ANONYMOUS | MAP_GROWSDOWN, -1, 0),
		 EINVAL, "shared anonymous: EINVAL");
	is_errno((long)mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_GROWSDOWN, fd, 0), EINVAL,
		 "a private file mapping: EINVAL");
	is_errno((long)mmap(NULL, PAGE, rw, MAP_PRIVATE | MAP_GROWSDOWN, zero, 0), EINVAL,
		 "/dev/zero: EINVAL");
	close(fd);
	close(zero);
}

static void growth(void)
{
	uintptr_t end = free_region();
	char *p = growsdown_at(end, 2);
	bool named = true;

	p[-1] = 1;
	is_int(mapping_start((uintptr_t)p - 1, &named), (uintptr_t)p - PAGE,
	       "a fault a byte below grows it a page");
	ok(!named, "and it is not [stack]");
	p[-10 * (long)PAGE] = 2;
	is_int(mapping_start((uintptr_t)p - 10 * PAGE, &named), (uintptr_t)p - 10 * PAGE,
	       "a fault 10 pages below grows it to there");
	ok(p[-1] == 1 && p[-10 * (long)PAGE] == 2 && p[-5 * (long)PAGE] == 0,
	   "the pages keep what was written; the others are zero");
	is_int(mprotect(p, PAGE, PROT_READ | PROT_GROWSDOWN), 0, "mprotect(PROT_GROWSDOWN)");
	is_int(mapping_start((uintptr_t)p - 10 * PAGE, &named), (uintptr_t)p - 10 * PAGE,
	       "changed from its bottom: one mapping still");
	munmap((void *)(end - REGION * PAGE), REGION * PAGE);
}

static void touch(uintptr_t addr)
{
	*(volatile char *)addr = 1;
}

/* An accessible mapping 10 pages below: a fault in its gap is SIGSEGV. */
static void guard_gap(void)
{
	uintptr_t end = free_region();
	char *p = growsdown_at(end, 2);
	void *below =
	    mmap(p - 10 * PAGE, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

	require(below != MAP_FAILED, "mmap below");
	ok(segv(in_child(touch, (uintptr_t)p - 1)),
	   "a fault within the guard gap of a mapping below: SIGSEGV");
	mprotect(below, PAGE, PROT_NONE);
	is_int(in_child(touch, (uintptr_t)p - 1), 0, "a PROT_NONE mapping there needs no gap");
	munmap((void *)(end - REGION * PAGE), REGION * PAGE);
	end = free_region();
	p = growsdown_at(end, 2);
	below = mmap(p - (GAP + 3) * PAGE, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		     -1, 0);
	require(below != MAP_FAILED, "mmap below");
	is_int(in_child(touch, (uintptr_t)p - PAGE), 0, "a fault a gap and a page above it grows");
	ok(segv(in_child(touch, (uintptr_t)p - 3 * PAGE)), "a page lower: SIGSEGV");
	munmap((void *)(end - REGION * PAGE), REGION * PAGE);
}

/* Growth stops at RLIMIT_STACK (the mapping's whole size, as Linux's
 * acct_stack_growth). */
static void limit_touch(uintptr_t addr)
{
	struct rlimit r = {16 * PAGE, RLIM_INFINITY};

	require(setrlimit(RLIMIT_STACK, &r) == 0, "setrlimit");
	touch(addr);
}

static void rlimit_stack(void)
{
	uintptr_t end = free_region();
	char *p = growsdown_at(end, 2);

	is_int(in_child(limit_touch, end - 16 * PAGE), 0, "growth to RLIMIT_STACK");
	ok(segv(in_child(limit_touch, end - 17 * PAGE)), "a page past it: SIGSEGV");
	(void)p;
	munmap((void *)(end - REGION * PAGE), REGION * PAGE);
}

int main(void)
{
	plan(16);
	refused_kinds();
	growth();
	guard_gap();
	rlimit_stack();
	return done();
}
