/* Tests of a process's memory calls: brk (through sbrk) growing and
 * shrinking, anonymous mmap/munmap, and that unmapped memory faults. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

#define GROW (64 * 1024)
#define PAGE 4096

static volatile char *gone; /* memory given back, touched by a child */

static bool filled_with(const volatile char *p, size_t n, char c)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != c)
			return false;
	return true;
}

static void touch_gone(void)
{
	gone[0] = 1;
}

/* No output between the sbrk calls: stdio may call sbrk itself. */
static void test_brk(void)
{
	char *start = sbrk(0), *grown = sbrk(GROW), *top = sbrk(0), *shrunk, *end;
	bool usable = grown == start;
	int status;
	if (usable) {
		memset(grown, 0x5a, GROW);
		usable = filled_with(grown, GROW, 0x5a);
	}
	shrunk = sbrk(-GROW);
	end = sbrk(0);
	gone = start + GROW - 1;
	status = child_status(touch_gone);
	ok(grown == start && top == start + GROW, "sbrk(64 KiB) grows the break from %p", start);
	ok(usable, "the grown heap can be written and read back");
	ok(shrunk == top && end == start, "sbrk(-64 KiB) gives it back");
	ok(killed_by(status, SIGSEGV), "touching memory given back by brk: SIGSEGV");
	errno = 0;
	ok(sbrk((intptr_t)1 << 47) == (void *)-1 && errno == ENOMEM && sbrk(0) == end,
	   "growing the break past user space: ENOMEM, break unchanged");
}

static void test_mmap(void)
{
	size_t len = 3 * PAGE;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ok(p != MAP_FAILED && ((uintptr_t)p & (PAGE - 1)) == 0, "anonymous mmap of 3 pages: %p", p);
	if (p == MAP_FAILED)
		return;
	ok(filled_with(p, len, 0), "the new mapping reads as zeros");
	memset(p, 0xa5, len);
	ok(filled_with(p, len, (char)0xa5), "it can be written and read back");
	ok(munmap(p, len) == 0, "munmap succeeds");
	gone = p + PAGE;
	ok(killed_by(child_status(touch_gone), SIGSEGV), "touching unmapped memory: SIGSEGV");
	ok(mmap(NULL, 0, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED &&
	       errno == EINVAL,
	   "mmap of length 0: EINVAL");
	is_errno(munmap(p + 1, PAGE), EINVAL, "munmap of an unaligned address: EINVAL");
}

int main(void)
{
	plan(12);
	test_brk();
	test_mmap();
	return done();
}
