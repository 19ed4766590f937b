/* The most mappings a process may have (vm.max_map_count, 65,530 by
 * default): one-page PROT_NONE mappings placed with MAP_FIXED_NOREPLACE
 * a page apart, upwards above a three-page one, until mmap is ENOMEM;
 * each is then found where it was put (mincore 0 on it, ENOMEM on the
 * hole after it, a sample of a thousand); at the limit a munmap that
 * would split a mapping in two is ENOMEM (LTP munmap04) while one that
 * removes a mapping whole works and frees a place for a new mapping;
 * everything unmapped at the end.  On fdkernel the lookups walk a tree,
 * not the list (kernel/mm/vma.c): making these mappings took minutes
 * under QEMU when each walked all the ones before. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "testutil.h"

#define BASE	 0x10000000UL
#define MAX_MAPS 70000 /* above Linux's default limit, bounding the loop */

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

static long page;

static void *map_at(uintptr_t addr, size_t len)
{
	return mmap((void *)addr, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
		    -1, 0);
}

int main(void)
{
	static uintptr_t maps[MAX_MAPS];
	uintptr_t addr, big;
	unsigned char vec;
	int n = 0, bad = 0, err = 0;
	void *p;

	page = sysconf(_SC_PAGESIZE);
	plan(6);
	big = (uintptr_t)map_at(BASE, 3 * page);
	require(big == BASE, "a three-page mapping at the base");
	for (addr = BASE + 4 * page; n < MAX_MAPS; addr += 2 * page) {
		p = map_at(addr, page);
		if (p == MAP_FAILED) {
			err = errno;
			break;
		}
		maps[n++] = (uintptr_t)p;
	}
	ok(n < MAX_MAPS && err == ENOMEM && n > 60000,
	   "mmap is ENOMEM after %d one-page mappings (the map count's limit)", n);
	for (int i = 0; i < n; i += n / 1000 + 1) {
		if (mincore((void *)maps[i], page, &vec) != 0 ||
		    mincore((void *)(maps[i] + page), page, &vec) != -1 || errno != ENOMEM)
			bad++;
	}
	is_int(bad, 0, "each found where it was put, none in the holes between");
	is_errno(munmap((void *)(big + page), page), ENOMEM,
		 "at the limit, a munmap splitting a mapping in two: ENOMEM");
	ok(munmap((void *)maps[n / 2], page) == 0, "... one removing a mapping whole works");
	p = map_at(maps[n / 2], page);
	ok(p == (void *)maps[n / 2], "... and its place takes a new mapping");
	for (int i = 0; i < n; i++)
		if (munmap((void *)maps[i], page))
			bad++;
	ok(!bad && munmap((void *)big, 3 * page) == 0 && map_at(addr, page) != MAP_FAILED,
	   "all unmapped; mmap works again");
	return done();
}
