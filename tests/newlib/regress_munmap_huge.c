/* Regression (found by the fuzzer): munmap of a huge range walked it page by
 * page in the kernel, so munmap(0, 1 TiB) held the only CPU for minutes. */
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>

#include "robust.h"

#define TIB	 (1UL << 40)
#define FAR_AWAY ((void *)0x100000000000UL) /* 16 TiB: nothing mapped there */
#define QUICK_MS 2000

/* munmap(ADDR, LEN) succeeds, and within QUICK_MS. */
static void quick_munmap(void *addr, size_t len, const char *what)
{
	long start = now_ms();
	int ret = munmap(addr, len);
	long ms = now_ms() - start;
	ok(ret == 0 && ms < QUICK_MS, "munmap of %s: 0 in %ld ms", what, ms);
}

/* A page mapped inside a 1 TiB munmap is gone afterwards (exit status 1 if
 * the munmap failed, SIGSEGV if the page went). */
static void unmap_around_a_page(void)
{
	char *page = mmap((char *)FAR_AWAY + (1UL << 30), 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (page == MAP_FAILED)
		_exit(2);
	page[0] = 1;
	if (munmap(FAR_AWAY, TIB) != 0)
		_exit(1);
	page[0] = 2; /* must fault */
}

/* Everything the process has, text and stack included: it dies of SIGSEGV. */
static void unmap_everything(void)
{
	munmap((void *)4096, 0x7ffffffff000UL - 4096);
}

int main(int argc, char **argv)
{
	struct kstat before;
	bool have_before = kstat_read(&before);
	(void)argc;
	plan(7);
	quick_munmap(FAR_AWAY, TIB, "1 TiB with nothing mapped");
	quick_munmap(FAR_AWAY, 64 * TIB, "64 TiB with nothing mapped");
	ok(killed_by(child_status(unmap_around_a_page), SIGSEGV),
	   "munmap of the 1 TiB around a mapped page: touching it is SIGSEGV");
	ok(killed_by(child_status(unmap_everything), SIGSEGV),
	   "unmapping the whole user half kills only that process (SIGSEGV)");
	system_usable(argv[0], "huge munmaps");
	kstat_unchanged(&before, have_before, "nothing leaked");
	return done();
}
