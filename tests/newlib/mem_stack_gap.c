/* Tests that a stack that overflows its limit with a large frame faults,
 * instead of landing in a mapping placed below the stack: mmap keeps a guard
 * gap (Linux: 256 pages) between the stack's limit and what it places. */
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

#define PAGE	    4096
#define REGION	    (4UL << 20)
#define FRAME	    (512UL << 10) /* the large frame: half of Linux's gap */
#define STACK_SLACK (256UL << 10) /* what the stack may hold above main */

static volatile char *region;
static uintptr_t stack_limit = 8UL << 20;

/* Grows the stack page by page to near its limit, then jumps a large frame
 * past the limit: that must fault.  Exits 0 if it did not. */
static void overflow_with_big_frame(void)
{
	volatile char *sp = __builtin_frame_address(0);
	for (uintptr_t off = 0; off < stack_limit - STACK_SLACK; off += PAGE)
		sp[-(intptr_t)off] = 1;
	sp[-(intptr_t)(stack_limit - STACK_SLACK + FRAME)] = 1;
}

static bool region_intact(void)
{
	for (size_t i = 0; i < REGION; i += PAGE)
		if (region[i] != 'r')
			return false;
	return true;
}

int main(void)
{
	struct rlimit rl;
	plan(3);
	if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		stack_limit = rl.rlim_cur;
	region = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	require(region != MAP_FAILED, "mmap");
	memset((void *)region, 'r', REGION);
	diag("stack near %p, limit %lu KiB, region %p", __builtin_frame_address(0),
	     (unsigned long)(stack_limit >> 10), (void *)region);
	ok(killed_by(child_status(overflow_with_big_frame), SIGSEGV),
	   "a %lu KiB frame past the stack limit: SIGSEGV", (unsigned long)(FRAME >> 10));
	ok(region_intact(), "the mapping below the stack is untouched");
	char *top = (char *)region + REGION;
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	ok(sp - (uintptr_t)top >= stack_limit - STACK_SLACK + 256 * PAGE,
	   "mmap leaves the stack's reach and a 256-page gap free (%lu KiB between)",
	   (unsigned long)((sp - (uintptr_t)top) >> 10));
	return done();
}
