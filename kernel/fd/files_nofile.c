/*
 * RLIMIT_NOFILE of a files table: the soft limit new fds are checked
 * against (files_room in fdtable.c) and the hard one getrlimit reports.
 */
#include "fdtable.h"

int files_nr_open = NR_OPEN_MAX;

/* How many sequential fds a copy may span: nr_open rounded up to a word. */
unsigned int files_nr_open_fds(void)
{
	unsigned int n = (unsigned int)__atomic_load_n(&files_nr_open, __ATOMIC_RELAXED);

	return (n + 63) & ~63u; /* a word of fds, as Linux's fdtable */
}

/**
 * files_set_nofile - set RLIMIT_NOFILE (soft)
 * @files: [in] the table
 * @soft:  [in] new limit; may be below open fds (they stay open, as on Linux;
 *              new fds fail until fewer than @soft are open)
 *
 * Returns 0, or -EPERM above NR_OPEN_MAX (Linux's answer above nr_open).
 */
int files_set_nofile(struct files_table *files, unsigned long soft)
{
	if (soft > NR_OPEN_MAX)
		return -EPERM;
	spin_lock_task(&files->lock);
	files->nofile = (unsigned int)soft;
	spin_unlock_task(&files->lock);
	return 0;
}

/* The current RLIMIT_NOFILE. */
unsigned int files_get_nofile(struct files_table *files)
{
	unsigned int n;

	spin_lock_task(&files->lock);
	n = files->nofile;
	spin_unlock_task(&files->lock);
	return n;
}

/**
 * files_set_nofile_limits - setrlimit(RLIMIT_NOFILE): soft and hard together
 * @files: [in] the table
 * @soft:  [in] new soft limit; may be below open fds (they stay open)
 * @hard:  [in] new hard limit (raising it is allowed: everyone is root)
 *
 * Returns 0, -EINVAL if @soft > @hard, -EPERM if @hard > NR_OPEN_MAX.
 */
int files_set_nofile_limits(struct files_table *files, uint64_t soft, uint64_t hard)
{
	if (soft > hard)
		return -EINVAL;
	if (hard > NR_OPEN_MAX)
		return -EPERM;
	spin_lock_task(&files->lock);
	files->nofile = (unsigned int)soft;
	files->nofile_max = (unsigned int)hard;
	spin_unlock_task(&files->lock);
	return 0;
}

/* getrlimit(RLIMIT_NOFILE). */
void files_get_nofile_limits(struct files_table *files, uint64_t *soft, uint64_t *hard)
{
	spin_lock_task(&files->lock);
	*soft = files->nofile;
	*hard = files->nofile_max;
	spin_unlock_task(&files->lock);
}
