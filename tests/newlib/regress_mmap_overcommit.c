/* Regression (found by the fuzzer): an mmap or brk larger than free memory
 * zeroed every free frame before failing, for seconds and starving others. */
#include <stdint.h>
#include <sys/mman.h>

#include <fdkernel.h>

#include "robust.h"

#define QUICK_MS 300

/* An anonymous mapping of LEN bytes fails with ENOMEM within QUICK_MS. */
static void refused_quickly(size_t len, const char *what)
{
	long start = now_ms();
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int err = errno;
	long ms = now_ms() - start;
	if (!ok(p == MAP_FAILED && err == ENOMEM && ms < QUICK_MS, "mmap of %s: ENOMEM in %ld ms",
		what, ms))
		diag("got %p, errno %d", p, err);
}

/* A break far beyond free memory is refused (the old break comes back). */
static void brk_refused_quickly(void)
{
	char *old = sbrk(0);
	long start = now_ms();
	long got = syscall(__NR_brk, (long)old + (1L << 40));
	long ms = now_ms() - start;
	ok(got == (long)old && ms < QUICK_MS, "brk 1 TiB up: refused in %ld ms", ms);
}

int main(int argc, char **argv)
{
	struct kstat before;
	(void)argc;
	if (!on_fdkernel())
		skip_all("Linux overcommits: huge anonymous mappings may succeed");
	bool have_before = kstat_read(&before);
	plan(6);
	refused_quickly(2UL << 30, "2 GiB (more than the guest's memory)");
	refused_quickly(64UL << 40, "64 TiB");
	brk_refused_quickly();
	system_usable(argv[0], "refused huge allocations");
	kstat_unchanged(&before, have_before, "nothing leaked");
	return done();
}
