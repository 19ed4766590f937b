/*
 * How a task comes to hold a files table: shared by threads (CLONE_FILES),
 * borrowed by readers of another task's fds, copied at fork, or copied to
 * be private before execve's close-on-exec applies, so that closing its
 * CLOEXEC fds cannot close them under a process that shares the table
 * (Linux's unshare_files).
 */
#include "fdtable.h"

/**
 * files_copy - a new table with @files's installed fds
 * @files: [in] the table
 * @mode:  [in] FDMAP_COPY_FORK (close-on-fork fds left out) or
 *              FDMAP_COPY_UNSHARE (all of them)
 *
 * @err:   [out] why there is no copy
 *
 * Each copied fd keeps its flags and takes a reference on its file;
 * reserved fds are not copied; same RLIMIT_NOFILE.  Returns the copy, or
 * NULL with *@err -ENOMEM, or -EMFILE when a sequential fd at or past
 * fs.nr_open is open (files_nr_open): nothing taken, nothing leaked.
 */
struct files_table *files_copy(struct files_table *files, int mode, int *err)
{
	struct files_table *child = kzalloc(sizeof(*child));

	*err = -ENOMEM;
	if (!child)
		return NULL;
	child->users = child->refs = 1;
	spin_init(&child->lock, "files");
	spin_lock_task(&files->lock);
	if (fdmap_top_open_fd(files->seq) >= (int)files_nr_open_fds()) {
		spin_unlock_task(&files->lock);
		kfree(child);
		*err = -EMFILE;
		return NULL;
	}
	child->seq = fdmap_alloc_for_copy(0, files->seq->size);
	child->nonseq = fdmap_alloc_for_copy(NONSEQ_FD_BASE, files->nonseq->size);
	if (child->seq && child->nonseq) {
		fdmap_copy(child->seq, files->seq, mode);
		fdmap_copy(child->nonseq, files->nonseq, mode);
		child->nofile = files->nofile;
		child->nofile_max = files->nofile_max;
		spin_unlock_task(&files->lock);
		return child;
	}
	spin_unlock_task(&files->lock);
	fdmap_free(child->seq);
	fdmap_free(child->nonseq);
	kfree(child);
	return NULL;
}

/**
 * files_fork - the child's copy of a table
 * @files: [in] parent table
 * @err:   [out] why there is none (files_copy)
 *
 * files_copy() without the FD_CLOFORK fds.
 */
struct files_table *files_fork(struct files_table *files, int *err)
{
	return files_copy(files, FDMAP_COPY_FORK, err);
}

/**
 * files_share - one more task uses @files (CLONE_FILES)
 * @files: [in] the table
 *
 * Returns @files.
 */
struct files_table *files_share(struct files_table *files)
{
	__atomic_add_fetch(&files->users, 1, __ATOMIC_RELAXED);
	return files_borrow(files);
}

/**
 * files_put - a task stops using @files (exit, execve's unshare)
 * @files: [in] the table, or NULL
 *
 * The last user closes every fd, whoever borrowed the table: the process's
 * POSIX locks go before its exit is seen, as on Linux.
 */
void files_put(struct files_table *files)
{
	if (!files)
		return;
	if (!__atomic_sub_fetch(&files->users, 1, __ATOMIC_ACQ_REL))
		files_close_all(files);
	files_unborrow(files);
}

/**
 * files_borrow - keep another task's table to read it
 * @files: [in] a table found under proc_lock (task->files)
 *
 * For /proc/<pid>/fd, fdinfo, limits and pidfd_getfd: the reader looks fds
 * up, lists them and reads flags, and changes nothing.  Its reference
 * keeps the memory only, so it neither delays the close of the fds at the
 * owner's exit (a lock would outlive its owner, seen after the reap) nor
 * makes execve copy the table (the owner's POSIX locks, owned by the old
 * table, would go).  Linux's readers take no reference at all.  Returns
 * @files; files_unborrow() gives it back.
 */
struct files_table *files_borrow(struct files_table *files)
{
	__atomic_add_fetch(&files->refs, 1, __ATOMIC_RELAXED);
	return files;
}

/**
 * files_unborrow - drop a reference from files_borrow (or a user's, files_put)
 * @files: [in] the table
 *
 * The last one frees it (its last user closed its fds already).
 */
void files_unborrow(struct files_table *files)
{
	if (!__atomic_sub_fetch(&files->refs, 1, __ATOMIC_ACQ_REL))
		files_destroy(files);
}

/**
 * files_private - a table private to its caller, for execve and unshare
 * @files: [in] the caller's table
 *
 * Returns @files itself if no other task uses it (readers that borrowed
 * it do not count), else a copy of its installed fds, flags and all
 * (Linux's unshare_files) with one reference, or NULL with *err
 * (files_copy's).  The caller swaps its pointer (task_swap_files: other tasks read it under
 * proc_lock) and only then puts the shared table.
 */
struct files_table *files_private(struct files_table *files, int *err)
{
	if (__atomic_load_n(&files->users, __ATOMIC_ACQUIRE) == 1)
		return files;
	return files_copy(files, FDMAP_COPY_UNSHARE, err);
}
