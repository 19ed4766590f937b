/*
 * Files tables shared by threads (CLONE_FILES): the reference count, and
 * the private copy execve takes before close-on-exec applies, so that
 * closing its CLOEXEC fds cannot close them under a process that shares
 * the table (Linux's unshare_files).
 */
#include "files.h"

/**
 * files_share - one more task uses @files (CLONE_FILES)
 * @files: [in] the table
 *
 * Returns @files.
 */
struct files_table *files_share(struct files_table *files)
{
	__atomic_add_fetch(&files->refs, 1, __ATOMIC_RELAXED);
	return files;
}

/**
 * files_put - a task stops using @files (exit, execve's unshare)
 * @files: [in] the table, or NULL
 *
 * The last user destroys it, closing every fd.
 */
void files_put(struct files_table *files)
{
	if (files && !__atomic_sub_fetch(&files->refs, 1, __ATOMIC_ACQ_REL))
		files_destroy(files);
}

/**
 * files_private - a table private to its caller, for execve and unshare
 * @files: [in] the caller's table
 *
 * Returns @files itself if no one else uses it, else a copy of its
 * installed fds, flags and all (Linux's unshare_files) with one reference,
 * or NULL with *err (files_copy's).  The caller swaps its pointer
 * (task_swap_files: other tasks read it under proc_lock) and only then
 * puts the shared table.
 */
struct files_table *files_private(struct files_table *files, int *err)
{
	if (__atomic_load_n(&files->refs, __ATOMIC_ACQUIRE) == 1)
		return files;
	return files_copy(files, FDMAP_COPY_UNSHARE, err);
}
