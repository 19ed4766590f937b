/*
 * The fixture the files-table unit tests share (test_files.c,
 * test_files_copy.c): a fresh table per test, torn down with a check that
 * nothing is left, and helpers to fill and inspect it.
 */
#ifndef FILES_FIXTURE_H
#define FILES_FIXTURE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fd/fdtable.h"
#include "host_heap.h"
#include "fake_file.h"

#define NS NONSEQ_FD_BASE

static inline int setup(void **state)
{
	heap_fail_nth(0);
	*state = files_create();
	return *state == NULL;
}

/* Every test ends with the table destroyed and nothing left: memory or references. */
static inline int teardown(void **state)
{
	files_destroy(*state);
	grace_drain();
	fake_file_reclaim();
	assert_int_equal(heap_live_blocks(), 0);
	assert_int_equal(fake_files_live(), 0);
	return 0;
}

/* Open a new file (id @id) on a new fd allocated with @flags; returns the fd. */
static inline int open_file(struct files_table *t, int minfd, unsigned int flags, int id)
{
	int fd = files_alloc_fd(t, minfd, flags);

	assert_true(fd >= 0);
	assert_int_equal(files_install(t, fd, fake_file_new(id)), 0);
	return fd;
}

/* The id of the file on @fd, or -1 if none; checks lookup takes a reference. */
static inline int id_at(struct files_table *t, int fd)
{
	struct file *f = files_lookup(t, fd);
	int id;

	if (!f)
		return -1;
	id = f->id;
	assert_true(f->refs >= 2);
	file_put(f);
	return id;
}

/* A snapshot of what a table looks like from outside, to check "unchanged". */
struct snapshot {
	unsigned int count, nofile;
	struct fdmap *seq, *nonseq;
	size_t blocks;
	long files;
};

static inline struct snapshot snap(struct files_table *t)
{
	return (struct snapshot){files_count(t), files_get_nofile(t), t->seq,
				 t->nonseq,	 heap_live_blocks(),  fake_files_live()};
}

static inline void assert_unchanged(struct files_table *t, struct snapshot before)
{
	struct snapshot now = snap(t);

	assert_memory_equal(&now, &before, sizeof(now));
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

#endif
