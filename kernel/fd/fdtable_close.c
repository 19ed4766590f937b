/*
 * What closing fds does: the put of a closed fd's file, with the record
 * locks and dnotify watches the table may own (docs/fdmap.md, "Closing an
 * fd"), and the closes of many fds at once: execve's close-on-exec step,
 * close_range(2) (which may flag instead) and the last user's exit.  Files
 * are put with the lock dropped, a bitmap word of them at a time.
 */
#include "fdtable.h"

void files_note_close_state(struct files_table *files)
{
	if (__atomic_load_n(&files->close_state, __ATOMIC_RELAXED))
		return;
	spin_lock_task(&files->lock);
	__atomic_store_n(&files->close_state, true, __ATOMIC_RELAXED);
	spin_unlock_task(&files->lock);
}

/* What closing an fd of a table with close_state undoes (files_put_closed). */
void files_close_state(struct files_table *files, struct file *file)
{
	reclock_close(file, files);
	dnotify_close(file, files);
}

#define BATCH (8 * sizeof(long)) /* files put per lock drop: one bitmap word */

/*
 * Under the lock: detach the installed fds of @set (fds @base + j) whose
 * index in @map lies in [first, last] into @out.  Returns how many.
 */
static unsigned int take_set(struct fdmap *map, unsigned int base, unsigned long set,
			     unsigned int first, unsigned int last, struct file **out)
{
	unsigned int n = 0;

	for (; set; set &= set - 1) {
		unsigned int fd = base + (unsigned int)__builtin_ctzl(set);
		unsigned int idx = fd - map->base;

		if (idx >= first && idx <= last && fdmap_file(map, fd))
			out[n++] = fdmap_release(map, fd);
	}
	return n;
}

/*
 * Close the installed fds of one area with index in [first, last] and @flag
 * (FDMAP_F_BUSY: all).  Files are put with the lock dropped, a word at a
 * time; the map may grow meanwhile but indices stay valid.
 */
static void files_close_matching(struct files_table *files, struct fdmap **area, unsigned int first,
				 unsigned int last, unsigned int flag)
{
	struct file *batch[BATCH];
	unsigned int pos = first, base, n, i;
	unsigned long set;

	do {
		n = 0;
		spin_lock_task(&files->lock);
		while (!n && pos <= last &&
		       fdmap_next_flag_set(*area, flag, false, &pos, &base, &set))
			n = take_set(*area, base, set, first, last, batch);
		spin_unlock_task(&files->lock);
		for (i = 0; i < n; i++)
			files_put_closed(files, batch[i]);
	} while (n);
}

/* Under the lock: set @fdf on the busy fds of one area with index in [first, last]. */
static void files_flag_range(struct fdmap *map, unsigned int first, unsigned int last,
			     fdflags_t fdf)
{
	unsigned int pos = first, base;
	unsigned long set;

	while (pos <= last && fdmap_next_flag_set(map, FDMAP_F_BUSY, false, &pos, &base, &set)) {
		for (; set; set &= set - 1) {
			unsigned int fd = base + (unsigned int)__builtin_ctzl(set);

			if (fd - map->base >= first && fd - map->base <= last)
				fdmap_set_flags(map, fd, 0, fdf);
		}
	}
}

/* Under the lock: clear @flag on every busy fd of @map. */
static void files_clear_flag(struct fdmap *map, unsigned int flag)
{
	unsigned int pos = 0, base;
	unsigned long set;

	while (fdmap_next_flag_set(map, flag, true, &pos, &base, &set))
		;
}

/**
 * files_exec - the execve step: close FD_CLOEXEC fds, clear FD_CLOFORK on the rest
 * @files: [in] the table (POSIX.1-2024: FD_CLOFORK does not survive exec)
 *
 * Reserved-but-not-installed fds are left alone, as Linux does.
 */
void files_exec(struct files_table *files)
{
	files_close_matching(files, &files->seq, 0, ~0u, FDF_CLOEXEC);
	files_close_matching(files, &files->nonseq, 0, ~0u, FDF_CLOEXEC);
	spin_lock_task(&files->lock);
	files_clear_flag(files->seq, FDF_CLOFORK);
	files_clear_flag(files->nonseq, FDF_CLOFORK);
	spin_unlock_task(&files->lock);
}

/* Indices [*lo, *hi] of an area starting at @base that fds [first, last] cover; false if none. */
static bool area_range(unsigned int base, unsigned int first, unsigned int last, unsigned int *lo,
		       unsigned int *hi)
{
	if (last < base)
		return false;
	*lo = first > base ? first - base : 0;
	*hi = last - base;
	return true;
}

/* close_range() on one area. */
static void files_range_area(struct files_table *files, struct fdmap **area, unsigned int first,
			     unsigned int last, fdflags_t fdf)
{
	unsigned int lo, hi;

	if (!area_range((*area)->base, first, last, &lo, &hi))
		return;
	if (!fdf) {
		files_close_matching(files, area, lo, hi, FDMAP_F_BUSY);
		return;
	}
	spin_lock_task(&files->lock);
	files_flag_range(*area, lo, hi, fdf);
	spin_unlock_task(&files->lock);
}

/* close_range(2)'s arguments: 0, or -EINVAL for unknown flags or @first > @last. */
int files_close_range_check(unsigned int first, unsigned int last, unsigned int flags)
{
	if (flags & ~(CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC | CLOSE_RANGE_CLOFORK))
		return -EINVAL;
	return first > last ? -EINVAL : 0;
}

/**
 * files_close_all - close every fd: the last user's exit (files_put)
 * @files: [in] the table, which readers may still have borrowed
 *
 * As close_range over everything, under the lock: a borrower looking fds
 * up meanwhile finds each one open or gone, never freed under it.
 */
void files_close_all(struct files_table *files)
{
	files_close_matching(files, &files->seq, 0, ~0u, FDMAP_F_BUSY);
	files_close_matching(files, &files->nonseq, 0, ~0u, FDMAP_F_BUSY);
}

/**
 * files_close_range - close_range(2) over both areas
 * @files: [in] the table
 * @first: [in] first fd
 * @last:  [in] last fd (included; ~0u for "all")
 * @flags: [in] 0 closes; CLOSE_RANGE_CLOEXEC / CLOSE_RANGE_CLOFORK set the
 *              flag instead; CLOSE_RANGE_UNSHARE is accepted (the caller
 *              unshares the table before calling: task_unshare_files)
 *
 * Returns 0, or -EINVAL for unknown flags or @first > @last.
 */
int files_close_range(struct files_table *files, unsigned int first, unsigned int last,
		      unsigned int flags)
{
	fdflags_t fdf = fdflags_from_close_range(flags);
	int err = files_close_range_check(first, last, flags);

	if (err)
		return err;
	files_range_area(files, &files->seq, first, last, fdf);
	files_range_area(files, &files->nonseq, first, last, fdf);
	return 0;
}
