/* Memory through musl: malloc (mallocng, on brk and mmap) for small and
 * large sizes, calloc zeroes, realloc keeps the contents while growing
 * past a page boundary, anonymous mmap/munmap/mprotect, and ENOMEM. */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "testutil.h"

static void protected_write(void)
{
	char *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	p[0] = 1; /* SIGSEGV */
	_exit(0);
}

static void test_malloc(void)
{
	static const size_t sizes[] = {1, 16, 100, 4000, 5000, 70000, 300000, 2 << 20};
	void *p[8];
	int good = 1;

	for (int i = 0; i < 8; i++) {
		p[i] = malloc(sizes[i]);
		good &= p[i] != NULL && ((uintptr_t)p[i] & 15) == 0;
		if (p[i])
			memset(p[i], i + 1, sizes[i]);
	}
	ok(good, "malloc of 1 B .. 2 MiB: 16-byte aligned");
	for (int i = 0; i < 8; i++)
		good &= p[i] && ((char *)p[i])[sizes[i] - 1] == i + 1 && ((char *)p[i])[0] == i + 1;
	ok(good, "each block keeps its own bytes");
	for (int i = 0; i < 8; i++)
		free(p[i]);

	char *c = calloc(100000, 3);
	good = c != NULL;
	for (int i = 0; c && i < 300000; i++)
		good &= c[i] == 0;
	ok(good, "calloc of 300,000 bytes is zeroed");
	free(c);

	char *r = malloc(100);
	memset(r, 'r', 100);
	for (size_t n = 200; r && n <= (4 << 20); n *= 4)
		r = realloc(r, n);
	ok(r && r[0] == 'r' && r[99] == 'r', "realloc from 100 B to 3 MiB keeps the contents");
	free(r);

	errno = 0;
	ok(malloc(SIZE_MAX / 2) == NULL && errno == ENOMEM, "an impossible malloc: NULL, ENOMEM");
}

static void test_mmap(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	is_int(page, 4096, "sysconf(_SC_PAGESIZE)");
	ok(p != MAP_FAILED && ((uintptr_t)p & (page - 1)) == 0 && p[0] == 0 && p[3 * page - 1] == 0,
	   "anonymous mmap: page aligned and zeroed");
	p[page] = 'x';
	ok(mprotect(p + page, page, PROT_READ) == 0 && p[page] == 'x', "mprotect to read-only");
	ok(munmap(p, 3 * page) == 0, "munmap");
	ok(killed_by(child_status(protected_write), SIGSEGV),
	   "a write to a read-only page: SIGSEGV");
	ok(mmap(NULL, 0, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED &&
	       errno == EINVAL,
	   "mmap of length 0: EINVAL");
	is_errno(munmap(p + 1, page), EINVAL, "munmap of an unaligned address: EINVAL");
}

int main(void)
{
	plan(12);
	test_malloc();
	test_mmap();
	return done();
}
