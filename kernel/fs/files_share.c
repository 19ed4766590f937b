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
 * files_unshare - make *@filesp private to the caller
 * @filesp: [in/out] the caller's table pointer
 *
 * A shared table is replaced by a copy of its installed fds, flags and all
 * (Linux's unshare_files), and the caller's reference on the shared one
 * dropped.  Returns 0, or -ENOMEM (nothing changed).
 */
int files_unshare(struct files_table **filesp)
{
	struct files_table *copy;

	if (__atomic_load_n(&(*filesp)->refs, __ATOMIC_ACQUIRE) == 1)
		return 0;
	if (!(copy = files_copy(*filesp, FDMAP_COPY_UNSHARE)))
		return -ENOMEM;
	files_put(*filesp);
	*filesp = copy;
	return 0;
}
