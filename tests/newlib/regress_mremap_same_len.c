/* Regression (fdkernel issue 19, found by the fuzzer): mremap to the same
 * length, with the mapping going on past the range, split the mapping at the
 * range's end for nothing, and leaked a struct vma: the unmap of the empty tail
 * counted two cuts in the empty range and made one.  Linux returns the address
 * and changes nothing. */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>

#include "robust.h"

#define PAGE  4096UL
#define PAGES 64

/* mremap(p, k pages, k pages) for every k short of the whole mapping: how
 * many returned p (with flags, or not). */
static int same_length_calls(char *p, int flags)
{
	int same = 0;

	for (int k = 1; k < PAGES; k++)
		same += mremap(p, k * PAGE, k * PAGE, flags) == p;
	return same;
}

/* Whether page k of p still holds k (written before the calls). */
static bool contents_kept(const char *p)
{
	for (int k = 0; k < PAGES; k++)
		if (p[k * PAGE] != (char)k)
			return false;
	return true;
}

int main(int argc, char **argv)
{
	struct kstat before, after;
	char *p;
	(void)argc;
	plan(9);
	/* After plan: its printf's buffer (the malloc heap) is not counted. */
	bool have_before = kstat_read(&before);
	p = mmap(NULL, PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	require(p != MAP_FAILED, "mmap");
	for (int k = 0; k < PAGES; k++)
		p[k * PAGE] = (char)k;
	ok(same_length_calls(p, 0) == PAGES - 1, "mremap to the same length returns the address");
	ok(same_length_calls(p, MREMAP_MAYMOVE) == PAGES - 1, "with MREMAP_MAYMOVE too");
	ok(mremap(p + PAGE, PAGE, PAGE, 0) == p + PAGE, "from inside the mapping too");
	ok(maps_has(p, PAGES * PAGE, "rw-p"), "the mapping is still one, unsplit");
	ok(contents_kept(p), "and holds what was written");
	munmap(p, PAGES * PAGE);
	if (have_before && kstat_read(&after))
		ok(after.v[KS_VMAS] == before.v[KS_VMAS], "struct vma count back exactly: %ld, %ld",
		   before.v[KS_VMAS], after.v[KS_VMAS]);
	else
		skip("no " KSTAT_PATH, "struct vma count back exactly");
	system_usable(argv[0], "same-length mremaps");
	kstat_unchanged(&before, have_before, "nothing leaked");
	return done();
}
