/*
 * A process's files table: the fds it has open, in two fdmaps (sequential and
 * non-sequential areas).  The syscall layer's only way to create, find and close fds.
 *
 * Areas: [0, RLIMIT_NOFILE) is sequential (POSIX lowest-free rule; the map
 * doubles on demand up to NR_OPEN_MAX); [NONSEQ_FD_BASE, NONSEQ_FD_BASE +
 * NONSEQ_FD_MAX) is non-sequential (free-list order, released fds reused
 * last; grows on demand).  Fds in neither area are EBADF.  RLIMIT_NOFILE
 * also bounds how many fds both areas hold together.  docs/fdmap.md.
 *
 * The file refcount contract (file_get, file_put, file_tryget) is in fdmap.h.
 * Flags at this API are fd flags (fdflags_t, fdflags.h), except
 * close_range's, which files_close_range() takes as the system call does.
 * Files: fdtable.c (one fd at a time), fdtable_share.c (sharing and
 * copies), fdtable_close.c (what closing does; many fds at once).
 */
#ifndef FD_FDTABLE_H
#define FD_FDTABLE_H

#include "fdmap.h"

/*
 * The fd that names, for the lookups of one call, a file lent to the task
 * rather than one of its table (io_uring's IOSQE_FIXED_FILE: fd_install.h,
 * struct fd_redirect).  It lies in the gap between the areas, so no table
 * ever holds it: outside such a call it is EBADF like its neighbours.
 */
#define FD_LENT (NONSEQ_FD_BASE - 1)

#define FILES_DEFAULT_NOFILE 1024 /* RLIMIT_NOFILE soft limit of a new table */
#define FILES_MIN_MAP	     64	  /* slots each area starts with */

struct files_table {
	/*
	 * The tasks whose ->files point here (CLONE_FILES shares a table;
	 * atomic).  The last user's files_put() closes every fd, so the
	 * process's POSIX record locks go at its exit, as Linux's
	 * exit_files.  A file found by files_lookup() holds its own
	 * reference, so a thread sleeping in a call on a file keeps it alive
	 * when another thread closes the fd.  While it is 1 only the task
	 * using it changes it (a reader that borrowed it changes nothing):
	 * files_lookup_light() and files_private() rely on that.
	 */
	int users;
	/*
	 * The users, plus the readers of another task's table that borrowed
	 * it (files_borrow: /proc/<pid>/fd, pidfd_getfd; atomic).  They keep
	 * the memory, never the fds: the last reference frees the table,
	 * emptied by then.
	 */
	int refs;
	/*
	 * Protects every change to both maps (allocation, install, release,
	 * flags, replacement by a bigger map) and nofile.  files_lookup()
	 * does not take it.
	 */
	struct spinlock lock;
	struct fdmap *seq;    /* sequential area; replaced on growth, loaded with acquire */
	struct fdmap *nonseq; /* non-sequential area; same rules */
	/*
	 * RLIMIT_NOFILE: new fds need fewer open than this in both areas
	 * together (seq->busy + nonseq->busy), and sequential ones a number
	 * below it.
	 */
	unsigned int nofile;
	/* RLIMIT_NOFILE's hard limit (<= NR_OPEN_MAX), kept for getrlimit. */
	unsigned int nofile_max;
	/*
	 * Set, under the lock and for good, before the table first owns state
	 * that closing an fd must undo: a POSIX record lock or a dnotify
	 * watch (files_note_close_state).  Only then does files_put_closed()
	 * look for them, so a process that never used either pays one test
	 * per close.  Read without the lock after the fd was released under
	 * it: a setter that armed it first sees the close when it re-checks
	 * its fd, and a close after the arming sees it set.
	 */
	bool close_state;
};

struct files_table *files_create(void);
void files_destroy(struct files_table *files);
/* Sharing (fdtable_share.c): CLONE_FILES, the last user's exit, readers of
 * another task's table, and the private table execve needs (files_private:
 * a copy if others share it). */
struct files_table *files_share(struct files_table *files);
void files_put(struct files_table *files);
struct files_table *files_borrow(struct files_table *files);
void files_unborrow(struct files_table *files);
void files_close_all(struct files_table *files);
struct files_table *files_private(struct files_table *files, int *err);
/* The lowest fd >= from with a file installed, or -1; lock-free. */
int files_next_fd(struct files_table *files, unsigned int from);
struct files_table *files_copy(struct files_table *files, int mode, int *err);
struct files_table *files_fork(struct files_table *files, int *err);
void files_exec(struct files_table *files);

int files_alloc_fd(struct files_table *files, int minfd, fdflags_t flags);
long files_dup_slow(struct files_table *files, int oldfd, int minfd, fdflags_t flags);
long files_dup_fast(int oldfd, fdflags_t flags, struct files_table *files);
/*
 * dup, F_DUPFD's lookup, dup3(O_NONSEQFD): a new fd for @oldfd's file, in
 * the area FDF_NONSEQ names (>= @minfd in the sequential one), looked up,
 * allocated and installed under one lock, so it carries the file @oldfd
 * had at that moment.  The fd, or -EBADF, -EINVAL, -EMFILE, -ENOMEM.
 * Non-sequential dups try the fast half, a leaf (fdtable.c); long, a
 * system call's result, so dup's handlers end in tail calls.
 */
static inline long files_dup(struct files_table *files, int oldfd, int minfd, fdflags_t flags)
{
	if (flags & FDF_NONSEQ)
		return files_dup_fast(oldfd, flags, files);
	return files_dup_slow(files, oldfd, minfd, flags);
}
int files_install(struct files_table *files, int fd, struct file *file);
int files_unreserve_fd(struct files_table *files, int fd);
/* The file on fd with a reference (file_put it), or NULL: an O_PATH file
 * counts as none (EBADF for the caller, file.h); _raw finds those too. */
struct file *files_lookup(struct files_table *files, int fd);
struct file *files_lookup_raw(struct files_table *files, int fd);
struct file *files_lookup_light(struct files_table *files, int fd, bool *put);
long files_close(struct files_table *files, int fd);
int files_dup_to(struct files_table *files, int oldfd, int newfd, fdflags_t fdflags);
int files_get_fdflags(struct files_table *files, int fd);
int files_set_fdflags(struct files_table *files, int fd, fdflags_t fdflags);
int files_change_fdflags(struct files_table *files, int fd, fdflags_t mask, fdflags_t fdflags);
int files_close_range_check(unsigned int first, unsigned int last, unsigned int flags);
int files_close_range(struct files_table *files, unsigned int first, unsigned int last,
		      unsigned int flags);
unsigned int files_count(struct files_table *files);
/*
 * fs.nr_open (/proc/sys/fs/nr_open is proc/rlimit.c's
 * row on it): RLIMIT_NOFILE's hard limit may not pass it, and a table
 * with a sequential fd open at or past it, rounded up to a word of fds as
 * Linux sizes its tables, cannot be copied (fork, unshare: EMFILE, as
 * Linux's dup_fd).  Atomic.
 */
extern int files_nr_open;
unsigned int files_nr_open_fds(void);
int files_set_nofile(struct files_table *files, unsigned long soft);
unsigned int files_get_nofile(struct files_table *files);
int files_set_nofile_limits(struct files_table *files, uint64_t soft, uint64_t hard);
void files_get_nofile_limits(struct files_table *files, uint64_t *soft, uint64_t *hard);

/* The table is about to own a POSIX record lock or a dnotify watch
 * (reclock_set, dnotify_fcntl): its closes must look for them from now on. */
void files_note_close_state(struct files_table *files);
/* The record locks and dnotify watches of files on file go (fdtable_close.c). */
void files_close_state(struct files_table *files, struct file *file);

/*
 * An fd of files that held file is gone (close, dup2 over it, close_range,
 * exec, the table's end): the process's POSIX record locks on the file and
 * its dnotify watches go with it, whichever fd set them, if the table ever
 * owned any (close_state), then the fd's reference.  Inline: every close
 * runs it, and most tables own neither.
 */
static inline void files_put_closed(struct files_table *files, struct file *file)
{
	if (__builtin_expect(__atomic_load_n(&files->close_state, __ATOMIC_RELAXED), 0))
		files_close_state(files, file);
	file_put(file);
}

#endif
