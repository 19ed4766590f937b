/*
 * Unit tests of kernel/fd/fdmap.c (cmocka): every operation, its errors and
 * the seed's edge cases, on the map alone.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>

#include "fd/fdmap.h"
#include "host_heap.h"
#include "fake_file.h"

#define BASE 1000u

/* Each test starts and must end with an empty heap and no live file. */
static int setup(void **state)
{
	(void)state;
	heap_fail_nth(0);
	return heap_live_blocks() != 0 || fake_files_live() != 0;
}

static int teardown(void **state)
{
	(void)state;
	grace_drain();
	fake_file_reclaim();
	assert_int_equal(heap_live_blocks(), 0);
	assert_int_equal(fake_files_live(), 0);
	return 0;
}

static int put_cb(void *arg, struct file *file, unsigned int fd)
{
	(void)arg;
	(void)fd;
	file_put(file);
	return 0;
}

/* Drop every installed file and free the map. */
static void map_destroy(struct fdmap *map)
{
	fdmap_for_each_file(map, true, put_cb, NULL);
	fdmap_free(map);
}

static void test_alloc_free_order(void **state)
{
	struct fdmap *map = fdmap_alloc(BASE, 8);
	unsigned int i;

	(void)state;
	for (i = 0; i < 8; i++)
		assert_int_equal(fdmap_alloc_free(map, 0), BASE + i);
	assert_int_equal(fdmap_alloc_free(map, 0), -ENOSPC);
	assert_null(fdmap_release(map, BASE + 5));
	fdmap_release(map, BASE + 2);
	fdmap_release(map, BASE + 7);
	/* Released fds come back in release order: the tail is reused last. */
	assert_int_equal(fdmap_alloc_free(map, 0), BASE + 5);
	fdmap_release(map, BASE + 5);
	assert_int_equal(fdmap_alloc_free(map, 0), BASE + 2);
	assert_int_equal(fdmap_alloc_free(map, 0), BASE + 7);
	assert_int_equal(fdmap_alloc_free(map, 0), BASE + 5);
	assert_int_equal(map->busy, 8);
	fdmap_free(map);
}

static void test_alloc_exact(void **state)
{
	struct fdmap *map = fdmap_alloc(BASE, 70);

	(void)state;
	assert_int_equal(fdmap_alloc_exact(map, BASE + 65, FDF_CLOEXEC), BASE + 65);
	assert_int_equal(fdmap_alloc_exact(map, BASE + 65, 0), -EBUSY);
	assert_int_equal(fdmap_alloc_exact(map, BASE + 70, 0), -EINVAL);
	assert_int_equal(fdmap_alloc_exact(map, BASE - 1, 0), -EINVAL);
	assert_int_equal(fdmap_get_flags(map, BASE + 65), FDMAP_F_BUSY | FDF_CLOEXEC);
	/* Taken from the middle of the free list: the rest keeps its order. */
	assert_int_equal(fdmap_alloc_exact(map, BASE, 0), BASE);
	assert_int_equal(fdmap_alloc_exact(map, BASE + 69, 0), BASE + 69);
	assert_int_equal(fdmap_alloc_free(map, 0), BASE + 1);
	assert_int_equal(map->busy, 4);
	fdmap_free(map);
}

static void test_alloc_lowest(void **state)
{
	struct fdmap *map = fdmap_alloc(0, 200);
	unsigned int i;

	(void)state;
	for (i = 0; i < 200; i++)
		assert_int_equal(fdmap_alloc_lowest(map, 0, 1000, 0), i);
	assert_int_equal(fdmap_alloc_lowest(map, 0, 1000, 0), -ENOSPC);
	assert_int_equal(fdmap_alloc_lowest(map, 0, 200, 0), -EMFILE);
	fdmap_release(map, 130);
	fdmap_release(map, 63);
	fdmap_release(map, 64);
	assert_int_equal(fdmap_alloc_lowest(map, 64, 1000, 0), 64);
	assert_int_equal(fdmap_alloc_lowest(map, 0, 1000, 0), 63);
	assert_int_equal(fdmap_alloc_lowest(map, 0, 130, 0), -EMFILE);
	assert_int_equal(fdmap_alloc_lowest(map, 0, 131, 0), 130);
	fdmap_release(map, 5);
	assert_int_equal(fdmap_alloc_lowest(map, 6, 1000, 0), -ENOSPC);
	assert_int_equal(fdmap_alloc_lowest(map, 250, 1000, 0), -ENOSPC);
	assert_int_equal(fdmap_alloc_lowest(map, 0, 1000, 0), 5);
	fdmap_free(map);
	/* Filled by free-list allocations, no search has seen the full words:
	 * the lazy summary must still find the one hole, and the end. */
	map = fdmap_alloc(0, 200);
	for (i = 0; i < 200; i++)
		assert_int_equal(fdmap_alloc_free(map, 0), i);
	assert_int_equal(fdmap_alloc_lowest(map, 0, 1000, 0), -ENOSPC);
	fdmap_release(map, 150);
	assert_int_equal(fdmap_alloc_lowest(map, 3, 1000, 0), 150);
	assert_int_equal(fdmap_alloc_lowest(map, 3, 1000, 0), -ENOSPC);
	fdmap_free(map);
}

/* Lowest-free against a linear scan, over a map big enough for the summary
 * level.  Exact allocations fill words too, which the lazy summary learns
 * of only when a search meets them. */
static void test_alloc_lowest_random(void **state)
{
	enum { N = 64 * 64 * 3 + 17 };
	struct fdmap *map = fdmap_alloc(0, N);
	static char busy[N];
	unsigned int i, round, start, want;

	(void)state;
	srand(7);
	for (round = 0; round < 20000; round++) {
		i = (unsigned int)rand() % N;
		if (busy[i] && rand() % 4) {
			fdmap_release(map, i);
			busy[i] = 0;
			continue;
		}
		if (!busy[i] && rand() % 3 == 0) {
			assert_int_equal(fdmap_alloc_exact(map, i, 0), i);
			busy[i] = 1;
			continue;
		}
		start = rand() % 2 ? 0 : (unsigned int)rand() % N;
		for (want = start; want < N && busy[want]; want++)
			;
		if (want == N) {
			assert_int_equal(fdmap_alloc_lowest(map, start, N + 1, 0), -ENOSPC);
			continue;
		}
		assert_int_equal(fdmap_alloc_lowest(map, start, N + 1, 0), want);
		busy[want] = 1;
	}
	fdmap_free(map);
}

static void test_flags(void **state)
{
	struct fdmap *map = fdmap_alloc(BASE, 4);
	int fd = fdmap_alloc_free(map, FDF_CLOEXEC | FDF_CLOFORK);

	(void)state;
	assert_int_equal(fdmap_get_flags(map, fd), FDMAP_F_BUSY | FDF_CLOEXEC | FDF_CLOFORK);
	assert_int_equal(fdmap_set_flags(map, fd, ~0u, 0), 0);
	assert_int_equal(fdmap_get_flags(map, fd), FDMAP_F_BUSY);
	assert_int_equal(fdmap_set_flags(map, fd, 0, FDF_CLOFORK | FDMAP_F_BUSY), 0);
	assert_int_equal(fdmap_get_flags(map, fd), FDMAP_F_BUSY | FDF_CLOFORK);
	assert_int_equal(fdmap_get_flags(map, BASE + 1), 0);
	assert_int_equal(fdmap_set_flags(map, BASE + 1, 0, FDF_CLOEXEC), -EBADF);
	/* A fresh allocation does not inherit the flags of the last user of the slot. */
	fdmap_release(map, fd);
	fdmap_alloc_exact(map, fd, 0);
	assert_int_equal(fdmap_get_flags(map, fd), FDMAP_F_BUSY);
	fdmap_free(map);
}

static void test_install_lookup(void **state)
{
	struct fdmap *map = fdmap_alloc(BASE, 4);
	struct file *f = fake_file_new(1);
	int fd = fdmap_alloc_free(map, 0);

	(void)state;
	assert_null(fdmap_file(map, fd)); /* reserved, not installed */
	assert_null(fdmap_file(map, BASE + 1));
	assert_null(fdmap_file(map, BASE + 4));
	assert_null(fdmap_file(map, BASE - 1));
	fdmap_install(map, fd, f);
	assert_ptr_equal(fdmap_file(map, fd), f);
	assert_ptr_equal(fdmap_release(map, fd), f);
	assert_null(fdmap_file(map, fd));
	file_put(f);
	fdmap_free(map);
}

static void test_next_flag_set(void **state)
{
	static const unsigned int marked[] = {3, 63, 64, 130, 199};
	struct fdmap *map = fdmap_alloc(BASE, 200);
	unsigned int i, pos = 0, base;
	unsigned long set;

	(void)state;
	for (i = 0; i < 200; i++)
		fdmap_alloc_free(map, 0);
	for (i = 0; i < 5; i++)
		fdmap_set_flags(map, BASE + marked[i], 0, FDF_CLOEXEC);
	fdmap_release(map, BASE + 4);
	assert_true(fdmap_next_flag_set(map, FDF_CLOEXEC, false, &pos, &base, &set));
	assert_int_equal(base, BASE);
	assert_int_equal(set, (1UL << 3) | (1UL << 63));
	assert_true(fdmap_next_flag_set(map, FDF_CLOEXEC, true, &pos, &base, &set));
	assert_int_equal(base, BASE + 64);
	assert_int_equal(set, 1UL);
	assert_true(fdmap_next_flag_set(map, FDF_CLOEXEC, true, &pos, &base, &set));
	assert_int_equal(base, BASE + 128);
	assert_int_equal(set, 1UL << 2);
	assert_true(fdmap_next_flag_set(map, FDF_CLOEXEC, false, &pos, &base, &set));
	assert_int_equal(base, BASE + 192);
	assert_int_equal(set, 1UL << 7);
	assert_false(fdmap_next_flag_set(map, FDF_CLOEXEC, false, &pos, &base, &set));
	/* Cleared ones are gone from a new scan; BUSY is never cleared. */
	pos = 60;
	assert_true(fdmap_next_flag_set(map, FDF_CLOEXEC, false, &pos, &base, &set));
	assert_int_equal(set, 1UL << 63);
	assert_true(fdmap_next_flag_set(map, FDF_CLOEXEC, false, &pos, &base, &set));
	assert_int_equal(base, BASE + 192);
	pos = 0;
	assert_true(fdmap_next_flag_set(map, FDMAP_F_BUSY, true, &pos, &base, &set));
	assert_int_equal(set, ~0UL & ~(1UL << 4));
	assert_int_equal(fdmap_get_flags(map, BASE), FDMAP_F_BUSY);
	fdmap_free(map);
}

static void test_top_open_fd(void **state)
{
	struct fdmap *map = fdmap_alloc(BASE, 130);
	unsigned int i;

	(void)state;
	assert_int_equal(fdmap_top_open_fd(map), BASE - 1);
	for (i = 0; i < 130; i++)
		fdmap_alloc_free(map, 0);
	assert_int_equal(fdmap_top_open_fd(map), BASE + 129);
	fdmap_release(map, BASE + 129);
	fdmap_release(map, BASE + 128);
	assert_int_equal(fdmap_top_open_fd(map), BASE + 127);
	fdmap_free(map);
}

/* Fill @map with fds BASE..BASE+n-1, each installed with a new file. */
static void fill(struct fdmap *map, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		fdmap_install(map, fdmap_alloc_free(map, 0), fake_file_new((int)i));
}

static void test_copy_grow(void **state)
{
	/* As files_grow does: the copy sets every slot of the new map. */
	struct fdmap *src = fdmap_alloc(BASE, 8), *dst = fdmap_alloc_for_copy(BASE, 16);
	int reserved;

	(void)state;
	fill(src, 6);
	fdmap_set_flags(src, BASE + 1, 0, FDF_CLOFORK);
	file_put(fdmap_release(src, BASE + 4));
	file_put(fdmap_release(src, BASE + 3));
	reserved = fdmap_alloc_free(src, 0); /* BASE + 6 */
	assert_int_equal(fdmap_copy(dst, src, FDMAP_COPY_GROW), 5);
	assert_int_equal(dst->busy, 5);
	assert_ptr_equal(fdmap_file(dst, BASE + 2), fdmap_file(src, BASE + 2));
	assert_int_equal(fdmap_get_flags(dst, BASE + 1), FDMAP_F_BUSY | FDF_CLOFORK);
	assert_int_equal(fdmap_get_flags(dst, reserved), FDMAP_F_BUSY);
	/* Free order: src's list (7, 4, 3), then the new slots. */
	assert_int_equal(fdmap_alloc_free(dst, 0), BASE + 7);
	assert_int_equal(fdmap_alloc_free(dst, 0), BASE + 4);
	assert_int_equal(fdmap_alloc_free(dst, 0), BASE + 3);
	assert_int_equal(fdmap_alloc_free(dst, 0), BASE + 8);
	assert_int_equal(fdmap_alloc_lowest(dst, 0, ~0u, 0), BASE + 9);
	/* The grow copy took no references: the files belong to src's owner. */
	map_destroy(src);
	fdmap_free(dst);
}

static void test_copy_sizes(void **state)
{
	struct fdmap *src = fdmap_alloc(BASE, 64), *small = fdmap_alloc(BASE, 4);
	struct fdmap *other = fdmap_alloc(0, 64);

	(void)state;
	fill(src, 4);
	assert_int_equal(fdmap_copy(other, src, FDMAP_COPY_GROW), -EINVAL);
	assert_int_equal(fdmap_copy(small, src, FDMAP_COPY_FORK), 4);
	assert_int_equal(fdmap_alloc_free(small, 0), -ENOSPC);
	map_destroy(small);
	small = fdmap_alloc(BASE, 3);
	assert_int_equal(fdmap_copy(small, src, FDMAP_COPY_FORK), -ENOSPC);
	assert_int_equal(small->busy, 0);
	assert_int_equal(fdmap_alloc_free(small, 0), BASE);
	fdmap_free(small);
	fdmap_free(other);
	map_destroy(src);
}

static void test_copy_fork(void **state)
{
	struct fdmap *src = fdmap_alloc(BASE, 8), *dst = fdmap_alloc_for_copy(BASE, 8);
	struct file *kept;

	(void)state;
	fill(src, 4);
	fdmap_set_flags(src, BASE + 1, 0, FDF_CLOFORK);
	fdmap_set_flags(src, BASE + 2, 0, FDF_CLOEXEC);
	fdmap_alloc_free(src, 0); /* reserved BASE + 4: an open in progress */
	kept = fdmap_file(src, BASE + 2);
	assert_int_equal(fdmap_copy(dst, src, FDMAP_COPY_FORK), 3);
	assert_int_equal(kept->refs, 2);
	assert_int_equal(fdmap_file(src, BASE + 1)->refs, 1);
	assert_null(fdmap_file(dst, BASE + 1));
	assert_int_equal(fdmap_get_flags(dst, BASE + 1), 0);
	assert_int_equal(fdmap_get_flags(dst, BASE + 4), 0);
	assert_int_equal(fdmap_get_flags(dst, BASE + 2), FDMAP_F_BUSY | FDF_CLOEXEC);
	/* Free order: src's free list, then the fds fork dropped in fd order. */
	assert_int_equal(fdmap_alloc_free(dst, 0), BASE + 5);
	assert_int_equal(fdmap_alloc_free(dst, 0), BASE + 6);
	assert_int_equal(fdmap_alloc_free(dst, 0), BASE + 7);
	assert_int_equal(fdmap_alloc_free(dst, 0), BASE + 1);
	assert_int_equal(fdmap_alloc_free(dst, 0), BASE + 4);
	assert_int_equal(fdmap_alloc_lowest(dst, 0, ~0u, 0), -ENOSPC);
	map_destroy(dst);
	assert_int_equal(kept->refs, 1);
	map_destroy(src);
}

/*
 * A fork's copy of a map whose second word is full, its summary bit set by
 * a lowest-free search, dropping a CLOFORK fd in each of the first two
 * words: the child's lowest hint must reach the first, its summary must
 * not skip the second, and its free list ends with them.
 */
static void test_copy_fork_full_word(void **state)
{
	struct fdmap *src = fdmap_alloc(BASE, 192), *dst = fdmap_alloc_for_copy(BASE, 192);

	(void)state;
	fill(src, 129);
	assert_int_equal(fdmap_alloc_lowest(src, 0, ~0u, 0), BASE + 129); /* word 1 marked full */
	fdmap_install(src, BASE + 129, fake_file_new(129));
	fdmap_set_flags(src, BASE + 10, 0, FDF_CLOFORK);
	fdmap_set_flags(src, BASE + 70, 0, FDF_CLOFORK);
	assert_int_equal(fdmap_copy(dst, src, FDMAP_COPY_FORK), 128);
	for (unsigned int k = 0; k < 3; k++) {
		unsigned int fd = BASE + (unsigned int[]){10, 70, 130}[k];

		assert_int_equal(fdmap_alloc_lowest(dst, 0, ~0u, 0), fd);
		fdmap_install(dst, fd, fake_file_new((int)k));
	}
	assert_int_equal(fdmap_alloc_free(dst, 0), BASE + 131);
	assert_int_equal(fdmap_alloc_lowest(src, 0, ~0u, 0), BASE + 130); /* src unchanged */
	map_destroy(dst);
	map_destroy(src);
}

/* A shared table's private copy keeps CLOFORK fds; reserved ones still go. */
static void test_copy_unshare(void **state)
{
	struct fdmap *src = fdmap_alloc(BASE, 8), *dst = fdmap_alloc(BASE, 8);

	(void)state;
	fill(src, 3);
	fdmap_set_flags(src, BASE + 1, 0, FDF_CLOFORK);
	fdmap_alloc_free(src, 0); /* reserved BASE + 3 */
	assert_int_equal(fdmap_copy(dst, src, FDMAP_COPY_UNSHARE), 3);
	assert_int_equal(fdmap_file(src, BASE + 1)->refs, 2);
	assert_int_equal(fdmap_get_flags(dst, BASE + 1), FDMAP_F_BUSY | FDF_CLOFORK);
	assert_int_equal(fdmap_get_flags(dst, BASE + 3), 0);
	map_destroy(dst);
	assert_int_equal(fdmap_file(src, BASE + 1)->refs, 1);
	map_destroy(src);
}

struct walk {
	unsigned int seen, stop_after;
	unsigned int last_fd;
};

static int walk_cb(void *arg, struct file *file, unsigned int fd)
{
	struct walk *w = arg;

	assert_int_equal(file->id, (int)(fd - BASE));
	w->last_fd = fd;
	return ++w->seen == w->stop_after;
}

static void test_for_each_file(void **state)
{
	struct fdmap *map = fdmap_alloc(BASE, 100);
	struct walk w = {0, 0, 0};

	(void)state;
	fill(map, 90);
	fdmap_alloc_free(map, 0); /* reserved: skipped */
	fdmap_for_each_file(map, false, walk_cb, &w);
	assert_int_equal(w.seen, 90);
	w = (struct walk){0, 70, 0};
	fdmap_for_each_file(map, false, walk_cb, &w);
	assert_int_equal(w.last_fd, BASE + 69);
	map_destroy(map);
}

static void test_alloc_bad_sizes(void **state)
{
	(void)state;
	assert_null(fdmap_alloc(0, 0));
	assert_null(fdmap_alloc(0, FDMAP_MAX_SIZE + 1));
	assert_null(fdmap_alloc(0x7fffffffu - 10, 11));
	heap_fail_nth(1);
	assert_null(fdmap_alloc(0, 64));
}

static void test_deferred_free(void **state)
{
	struct fdmap *map = fdmap_alloc(BASE, 64);
	struct file *f = fake_file_new(1);

	(void)state;
	fdmap_install(map, fdmap_alloc_free(map, 0), f);
	fdmap_free_deferred(map);
	/* Still readable, as by a reader that loaded it before the switch. */
	assert_ptr_equal(fdmap_file(map, BASE), f);
	assert_int_equal(heap_live_blocks(), 1);
	grace_drain();
	assert_int_equal(heap_live_blocks(), 0);
	file_put(f);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    T(test_alloc_free_order),	 T(test_alloc_exact),	T(test_alloc_lowest),
	    T(test_alloc_lowest_random), T(test_flags),		T(test_install_lookup),
	    T(test_next_flag_set),	 T(test_top_open_fd),	T(test_copy_grow),
	    T(test_copy_sizes),		 T(test_copy_fork),	T(test_copy_fork_full_word),
	    T(test_copy_unshare),	 T(test_for_each_file), T(test_alloc_bad_sizes),
	    T(test_deferred_free),
	};

	return cmocka_run_group_tests_name("fdmap", tests, NULL, NULL);
}
