/*
 * Listing the fds of a files table without its lock, for /proc/<pid>/fd:
 * both areas, non-sequential fds included (a user must see them).  The
 * same rules as files_lookup(): the maps are loaded with acquire and may
 * be replaced (freed only after a grace period), so the caller must not
 * sleep between loading a map and using the fd found in it.
 */
#include "fdtable.h"

/**
 * files_next_fd - the lowest fd >= @from with a file installed
 * @files: [in] the table (the caller holds a reference)
 * @from:  [in] where to start
 *
 * Returns that fd, or -1.  An fd opened or closed meanwhile may or may not
 * be seen, as in Linux's listing; a reserved fd (an open in progress) is not.
 */
int files_next_fd(struct files_table *files, unsigned int from)
{
	struct fdmap *areas[2] = {
	    __atomic_load_n(&files->seq, __ATOMIC_ACQUIRE),
	    __atomic_load_n(&files->nonseq, __ATOMIC_ACQUIRE),
	};

	for (int a = 0; a < 2; a++) {
		int fd = (int)from;
		while ((fd = fdmap_next_busy(areas[a], (unsigned int)fd)) >= 0) {
			if (fdmap_file(areas[a], (unsigned int)fd))
				return fd;
			fd++;
		}
	}
	return -1;
}
