/*
 * The ramfs size limit (see ramfs_space.h).  Without one, `cat /dev/zero >
 * /tmp/big` took every frame and nothing could run afterwards, not even rm.
 * The count is a lone atomic: a page is charged before its frame is taken
 * and uncharged after it is dropped, so the limit is never exceeded.
 */
#include "fs/ramfs/ramfs_space.h"
#include "cmdline.h"
#include "lib/printk.h"
#include "mm/frame.h"
#include "mm/layout.h"
#include <stdint.h>

static size_t pages_used; /* atomic: file data pages the ramfs holds */
static size_t pages_max;  /* set once by ramfs_space_init */

size_t ramfs_limit_pages(const char *s, size_t total)
{
	uint64_t n = 0;
	const char *p = s;

	for (; *p >= '0' && *p <= '9' && n < (1UL << 50); p++)
		n = n * 10 + (uint64_t)(*p - '0');
	if (p == s || (p[0] && p[1])) {
		if (*s)
			printk("ramfs: bad ramfs_size=%s ignored\n", s);
		return total / 2;
	}
	switch (*p) {
	case '%':
		return total * n / 100;
	case 'G':
		n <<= 10; /* fall through */
	case 'M':
		n <<= 10; /* fall through */
	case 'K':
		n <<= 10; /* fall through */
	case '\0':
		return n ? n >> PAGE_SHIFT : SIZE_MAX;
	}
	printk("ramfs: bad ramfs_size=%s ignored\n", s);
	return total / 2;
}

void ramfs_space_init(void)
{
	pages_max = ramfs_limit_pages(kopts.ramfs_size, frame_total_count());
	if (pages_max == SIZE_MAX)
		printk_info("ramfs: no size limit\n");
	else
		printk_info("ramfs: size limit %zu KiB\n", pages_max << (PAGE_SHIFT - 10));
}

bool ramfs_charge_pages(size_t n)
{
	if (__atomic_add_fetch(&pages_used, n, __ATOMIC_RELAXED) > pages_max || !frame_spare(n)) {
		ramfs_uncharge_pages(n);
		return false;
	}
	return true;
}

void ramfs_uncharge_pages(size_t n)
{
	__atomic_sub_fetch(&pages_used, n, __ATOMIC_RELAXED);
}

size_t ramfs_pages_used(void)
{
	return __atomic_load_n(&pages_used, __ATOMIC_RELAXED);
}

size_t ramfs_pages_max(void)
{
	return pages_max;
}
