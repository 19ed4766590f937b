/*
 * Files table: a process's two fd areas over fdmap, and the operations the
 * syscall layer needs (open/dup/close/fcntl/fork/exec/close_range/rlimit).
 */
#include "fdtable.h"

#define OPEN_FD_FLAGS (O_NONSEQFD | O_CLOEXEC | O_CLOFORK)
#define FD_FLAGS      (FD_CLOEXEC | FD_CLOFORK)

static unsigned int open_to_map_flags(unsigned int oflags)
{
	return (oflags & O_CLOEXEC ? FDMAP_F_CLOEXEC : 0) |
	       (oflags & O_CLOFORK ? FDMAP_F_CLOFORK : 0);
}

static unsigned int fd_to_map_flags(unsigned int fdflags)
{
	return (fdflags & FD_CLOEXEC ? FDMAP_F_CLOEXEC : 0) |
	       (fdflags & FD_CLOFORK ? FDMAP_F_CLOFORK : 0);
}

static int map_to_fd_flags(unsigned int mflags)
{
	return (mflags & FDMAP_F_CLOEXEC ? FD_CLOEXEC : 0) |
	       (mflags & FDMAP_F_CLOFORK ? FD_CLOFORK : 0);
}

/* The area pointer (&files->seq or &files->nonseq) where @fd would live. */
static struct fdmap **files_area(struct files_table *files, int fd)
{
	return fd >= NONSEQ_FD_BASE ? &files->nonseq : &files->seq;
}

/* The map covering @fd now, or NULL (negative, in the gap, past the end). */
static struct fdmap *files_map_of(struct files_table *files, int fd)
{
	struct fdmap *map;

	if (fd < 0)
		return NULL;
	/* Acquire pairs with the release in files_grow(): the copied slots are visible. */
	map = __atomic_load_n(files_area(files, fd), __ATOMIC_ACQUIRE);
	return fdmap_covers(map, (unsigned int)fd) ? map : NULL;
}

/* Under the lock: the file installed on @fd, or NULL (also for reserved fds). */
static inline struct file *files_installed(struct files_table *files, int fd)
{
	struct fdmap *map = files_map_of(files, fd);

	return map ? fdmap_file(map, (unsigned int)fd) : NULL;
}

/*
 * Under the lock: whether one more fd may be open, in the non-sequential
 * area if @nonseq.  The sequential area alone keeps Linux's rule (its
 * numbers stay below RLIMIT_NOFILE, checked by the callers), so a process
 * that never uses the other area sees exactly Linux, a lowered limit
 * included.  Non-sequential numbers stay above the limit, so there the
 * limit bounds how many fds are open in both areas together (reserved ones
 * included), and while any non-sequential fd is open that count bounds the
 * sequential area too: O_NONSEQFD never gets a process past the limit.
 * O(1): each map counts its busy slots.
 */
static bool files_room(struct files_table *files, bool nonseq)
{
	if (!nonseq && files->nonseq->busy == 0)
		return true;
	return files->seq->busy + files->nonseq->busy < files->nofile;
}

/* Smallest doubling of @size past index @idx, at most @cap. */
static unsigned int grown_size(unsigned int size, unsigned int idx, unsigned int cap)
{
	while (size <= idx)
		size *= 2;
	return size < cap ? size : cap;
}

/*
 * Under the lock: replace *@area by a copy of @size slots.  The old map stays
 * readable until a grace period has passed, for lookups that loaded it.
 * Returns 0 or -ENOMEM (nothing changed).
 */
static int files_grow(struct fdmap **area, unsigned int size)
{
	struct fdmap *old = *area, *map = fdmap_alloc_for_copy(old->base, size);

	if (!map)
		return -ENOMEM;
	fdmap_copy(map, old, FDMAP_COPY_GROW);
	/* Release: a lookup that loads the new pointer must see every copied slot. */
	__atomic_store_n(area, map, __ATOMIC_RELEASE);
	fdmap_free_deferred(old);
	return 0;
}

/*
 * Under the lock: the map covering @fd for dup_to, grown if needed.
 * -EBADF outside the areas or the limit; -EMFILE if @fd is free and no
 * more fds may be open (checked before growing: a failure changes nothing).
 */
static int files_reach(struct files_table *files, int fd, struct fdmap **mapp)
{
	struct fdmap **area = files_area(files, fd);
	unsigned int idx, cap;
	int err = 0;

	if (fd < 0 || (fd < NONSEQ_FD_BASE && (unsigned int)fd >= files->nofile))
		return -EBADF;
	idx = (unsigned int)fd - (*area)->base;
	cap = area == &files->seq ? NR_OPEN_MAX : NONSEQ_FD_MAX;
	if (idx >= cap)
		return -EBADF;
	if ((idx >= (*area)->size || !fdmap_busy(*area, (unsigned int)fd)) &&
	    !files_room(files, area == &files->nonseq))
		return -EMFILE;
	if (idx >= (*area)->size)
		err = files_grow(area, grown_size((*area)->size, idx, cap));
	*mapp = *area;
	return err;
}

/* Under the lock: files_alloc_seq() once the area is full from @minfd up. */
static __attribute__((noinline)) int files_alloc_seq_grow(struct files_table *files,
							  unsigned int minfd, unsigned int mflags)
{
	for (;;) {
		struct fdmap *map = files->seq;
		unsigned int idx = minfd > map->size ? minfd : map->size;
		int err = files_grow(&files->seq, grown_size(map->size, idx, NR_OPEN_MAX));
		int fd;

		if (err)
			return err;
		fd = fdmap_alloc_lowest(files->seq, minfd, files->nofile, mflags);
		if (fd != -ENOSPC)
			return fd;
	}
}

/*
 * Under the lock: lowest free fd in [minfd, nofile), growing the area as
 * needed.  The growth is out of line: the common path saves no registers.
 */
static int files_alloc_seq(struct files_table *files, unsigned int minfd, unsigned int mflags)
{
	int fd = fdmap_alloc_lowest(files->seq, minfd, files->nofile, mflags);

	return fd != -ENOSPC ? fd : files_alloc_seq_grow(files, minfd, mflags);
}

/* Under the lock: files_alloc_nonseq() once the free list is empty. */
static __attribute__((noinline)) int files_alloc_nonseq_grow(struct files_table *files,
							     unsigned int mflags)
{
	for (;;) {
		struct fdmap *map = files->nonseq;
		int err, fd;

		if (map->size >= NONSEQ_FD_MAX)
			return -EMFILE;
		err = files_grow(&files->nonseq, grown_size(map->size, map->size, NONSEQ_FD_MAX));
		if (err)
			return err;
		fd = fdmap_alloc_free(files->nonseq, mflags);
		if (fd != -ENOSPC)
			return fd;
	}
}

/* Under the lock: the head of the non-sequential free list, growing the area as needed. */
static int files_alloc_nonseq(struct files_table *files, unsigned int mflags)
{
	int fd = fdmap_alloc_free(files->nonseq, mflags);

	return fd != -ENOSPC ? fd : files_alloc_nonseq_grow(files, mflags);
}

/* Under the lock: files_alloc_fd() once its arguments are checked.  Inline
 * in its two callers: dup saves a call and the registers it saved. */
static inline int files_alloc_locked(struct files_table *files, unsigned int minfd,
				     unsigned int flags, bool nonseq)
{
	if (!files_room(files, nonseq))
		return -EMFILE;
	if (nonseq)
		return files_alloc_nonseq(files, open_to_map_flags(flags));
	if (minfd >= files->nofile)
		return -EMFILE;
	return files_alloc_seq(files, minfd, open_to_map_flags(flags));
}

/**
 * files_create - a new, empty files table
 *
 * Returns the table (RLIMIT_NOFILE FILES_DEFAULT_NOFILE), or NULL when memory runs out.
 */
struct files_table *files_create(void)
{
	struct files_table *files = kzalloc(sizeof(*files));

	if (!files)
		return NULL;
	files->users = files->refs = 1;
	spin_init(&files->lock, "files");
	files->nofile = FILES_DEFAULT_NOFILE;
	files->nofile_max = NR_OPEN_MAX;
	files->seq = fdmap_alloc(0, FILES_MIN_MAP);
	files->nonseq = fdmap_alloc(NONSEQ_FD_BASE, FILES_MIN_MAP);
	if (files->seq && files->nonseq)
		return files;
	fdmap_free(files->seq);
	fdmap_free(files->nonseq);
	kfree(files);
	return NULL;
}

void files_note_close_state(struct files_table *files)
{
	if (__atomic_load_n(&files->close_state, __ATOMIC_RELAXED))
		return;
	spin_lock_task(&files->lock);
	__atomic_store_n(&files->close_state, true, __ATOMIC_RELAXED);
	spin_unlock_task(&files->lock);
}

/* What closing an fd of a table with close_state undoes: out of line, so
 * the common close saves no registers for it. */
static __attribute__((noinline)) void files_close_state(struct files_table *files,
							struct file *file)
{
	reclock_close(file, files);
	dnotify_close(file, files);
}

void files_put_closed(struct files_table *files, struct file *file)
{
	if (__builtin_expect(__atomic_load_n(&files->close_state, __ATOMIC_RELAXED), 0))
		files_close_state(files, file);
	file_put(file);
}

static int put_file(void *arg, struct file *file, unsigned int fd)
{
	(void)fd;
	files_put_closed(arg, file);
	return 0;
}

/**
 * files_destroy - close every fd and free the table
 * @files: [in] table no one else can reach any more (the last reference;
 *              its last user closed its fds already, files_put)
 */
void files_destroy(struct files_table *files)
{
	fdmap_for_each_file(files->seq, true, put_file, files);
	fdmap_for_each_file(files->nonseq, true, put_file, files);
	fdmap_free(files->seq);
	fdmap_free(files->nonseq);
	kfree(files);
}

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
 * files_alloc_fd - reserve a new fd (install a file on it next, or unreserve it)
 * @files: [in] the table
 * @minfd: [in] smallest acceptable fd (sequential area only; F_DUPFD's argument)
 * @flags: [in] O_NONSEQFD | O_CLOEXEC | O_CLOFORK
 *
 * Returns the fd, -EINVAL for unknown flags or a negative @minfd, -EMFILE
 * when RLIMIT_NOFILE fds are open (both areas count; see files_room), no fd >= @minfd is
 * free below RLIMIT_NOFILE (sequential) or the non-sequential area is
 * full, -ENOMEM if growing the area failed.
 */
int files_alloc_fd(struct files_table *files, int minfd, unsigned int flags)
{
	int fd;

	if ((flags & ~OPEN_FD_FLAGS) || minfd < 0)
		return -EINVAL;
	spin_lock_task(&files->lock);
	fd = files_alloc_locked(files, (unsigned int)minfd, flags, flags & O_NONSEQFD);
	spin_unlock_task(&files->lock);
	return fd;
}

/**
 * files_dup - dup/F_DUPFD: a new fd for @oldfd's file, in one pass under the lock
 * @files: [in] the table
 * @oldfd: [in] open fd
 * @minfd: [in] as files_alloc_fd()
 * @flags: [in] as files_alloc_fd()
 *
 * The lookup, the allocation and the install happen under one lock, so the
 * new fd carries the file @oldfd had at that moment.  Returns the new fd,
 * -EBADF if @oldfd has no file, or files_alloc_fd()'s errors.
 */
/* files_dup's pass, in the area nonseq names (a constant in each caller). */
static inline __attribute__((always_inline)) int dup_locked(struct files_table *files, int oldfd,
							    unsigned int minfd, unsigned int flags,
							    bool nonseq)
{
	struct file *file;
	int fd;

	spin_lock_task(&files->lock);
	file = files_installed(files, oldfd);
	fd = file ? files_alloc_locked(files, minfd, flags, nonseq) : -EBADF;
	if (fd >= 0) {
		file_get(file); /* the new fd's reference */
		fdmap_install(nonseq ? files->nonseq : files->seq, (unsigned int)fd, file);
	}
	spin_unlock_task(&files->lock);
	return fd;
}

static __attribute__((noinline)) long dup_nonseq_locked(struct files_table *files, int oldfd,
							unsigned int flags)
{
	return dup_locked(files, oldfd, 0, flags, true);
}

/*
 * files_dup in the non-sequential area; @flags: O_CLOEXEC | O_CLOFORK.  Its
 * common case is a leaf: the lock free at the first try, @oldfd open,
 * room, a slot on the free list; anything else (contention, an error,
 * growth) is dup_nonseq_locked's.  Calling nothing, it saves no registers:
 * the seed's O(1) allocation makes the cheapest fd path (docs/bench.md).
 */
long files_dup_nonseq(struct files_table *files, int oldfd, unsigned int flags)
{
	struct fdmap *map;
	struct file *file;
	unsigned int i;

	if (!spin_trylock_task(&files->lock))
		return dup_nonseq_locked(files, oldfd, flags);
	map = files->nonseq;
	file = files_installed(files, oldfd);
	if (!file || !files_room(files, true) || map->free_head == FDMAP_NIL) {
		spin_unlock_task(&files->lock);
		return dup_nonseq_locked(files, oldfd, flags);
	}
	i = fdmap_take_head(map, open_to_map_flags(flags));
	file_get(file); /* the new fd's reference */
	fdmap_install_slot(map, i, file);
	spin_unlock_task(&files->lock);
	return (int)(map->base + i);
}

static __attribute__((noinline)) long dup_seq(struct files_table *files, int oldfd,
					      unsigned int minfd, unsigned int flags)
{
	return dup_locked(files, oldfd, minfd, flags, false);
}

long files_dup(struct files_table *files, int oldfd, int minfd, unsigned int flags)
{
	if ((flags & ~OPEN_FD_FLAGS) || minfd < 0)
		return -EINVAL;
	if (flags & O_NONSEQFD)
		return files_dup_nonseq(files, oldfd, flags);
	return dup_seq(files, oldfd, (unsigned int)minfd, flags);
}

/**
 * files_install - put a file on a reserved fd
 * @files: [in] the table
 * @fd:    [in] fd from files_alloc_fd() with no file yet
 * @file:  [in] the file; the table takes over the caller's reference on success
 *
 * Returns 0, or -EBADF if @fd is not reserved (the reference stays the caller's).
 */
int files_install(struct files_table *files, int fd, struct file *file)
{
	struct fdmap *map;
	int err = -EBADF;

	spin_lock_task(&files->lock);
	map = files_map_of(files, fd);
	if (map && fdmap_busy(map, (unsigned int)fd) && !fdmap_file(map, (unsigned int)fd)) {
		fdmap_install(map, (unsigned int)fd, file);
		err = 0;
	}
	spin_unlock_task(&files->lock);
	return err;
}

/**
 * files_unreserve_fd - give back a reserved fd no file was installed on
 * @files: [in] the table
 * @fd:    [in] fd from files_alloc_fd()
 *
 * Returns 0, or -EBADF if @fd is not reserved.
 */
int files_unreserve_fd(struct files_table *files, int fd)
{
	struct fdmap *map;
	int err = -EBADF;

	spin_lock_task(&files->lock);
	map = files_map_of(files, fd);
	if (map && fdmap_busy(map, (unsigned int)fd) && !fdmap_file(map, (unsigned int)fd)) {
		fdmap_release(map, (unsigned int)fd);
		err = 0;
	}
	spin_unlock_task(&files->lock);
	return err;
}

/**
 * files_lookup_raw - the file on @fd, with a reference; lock-free
 * @files: [in] the table
 * @fd:    [in] any fd
 *
 * Returns the file (drop it with file_put()), or NULL if @fd has no file.
 * O_PATH files included: only the calls that take them use this
 * (files_lookup refuses them, Linux's fdget against fdget_raw).
 */
struct file *files_lookup_raw(struct files_table *files, int fd)
{
	for (;;) {
		struct fdmap *map = files_map_of(files, fd);
		struct file *file = map ? fdmap_file(map, (unsigned int)fd) : NULL;

		if (!file)
			return NULL;
		if (!file_tryget(file))
			continue; /* being closed: the slot has changed, look again */
		/*
		 * The fd may have been closed or the map replaced between the
		 * load and the reference.  file_tryget() orders this re-check
		 * after it; if the same file is still there, it was installed
		 * on @fd while we held a reference.
		 */
		if (files_map_of(files, fd) == map && fdmap_file(map, (unsigned int)fd) == file)
			return file;
		file_put(file);
	}
}

/**
 * files_lookup_light - the file on @fd for the calling task's own use,
 *                      without a reference when it needs none
 * @files: [in]  the calling task's table
 * @fd:    [in]  any fd
 * @put:   [out] whether the caller must file_put() the file
 *
 * A table with one user is changed by that task alone: a file installed on
 * @fd stays installed, referenced by the table, until the caller itself
 * closes it, so the call needs no reference of its own (Linux's
 * __fget_light: a poll of 512 fds saves 41 instructions an fd, docs/bench.md).
 * A shared table goes through files_lookup() (a /proc reader that borrowed
 * it only looks).
 * Acquire: a thread's changes to the table precede its exit's put.
 *
 * Returns the file, or NULL if @fd has no file.
 */
struct file *files_lookup_light(struct files_table *files, int fd, bool *put)
{
	*put = __atomic_load_n(&files->users, __ATOMIC_ACQUIRE) != 1;
	if (*put)
		return files_lookup(files, fd);
	struct file *file = files_installed(files, fd);
	return file && file_is_path(file) ? NULL : file;
}

struct file *files_lookup(struct files_table *files, int fd)
{
	struct file *file = files_lookup_raw(files, fd);

	if (file && file_is_path(file)) {
		file_put(file);
		return NULL;
	}
	return file;
}

/**
 * files_close - close an fd
 * @files: [in] the table
 * @fd:    [in] the fd
 *
 * Returns 0, or -EBADF if @fd has no file (free, reserved, out of range).
 */
int files_close(struct files_table *files, int fd)
{
	struct file *file = NULL;
	struct fdmap *map;

	spin_lock_task(&files->lock);
	map = files_map_of(files, fd); /* once: the release needs the same map */
	if (map && (file = fdmap_file(map, (unsigned int)fd)))
		fdmap_release(map, (unsigned int)fd);
	spin_unlock_task(&files->lock);
	if (!file)
		return -EBADF;
	files_put_closed(files, file);
	return 0;
}

/* Under the lock: make @newfd (covered by @map) carry @file with @mflags; returns what it replaced.
 */
static int files_put_on(struct fdmap *map, int newfd, struct file *file, unsigned int mflags,
			struct file **replaced)
{
	unsigned int fd = (unsigned int)newfd;

	*replaced = NULL;
	if (fdmap_busy(map, fd)) {
		*replaced = fdmap_file(map, fd);
		if (!*replaced)
			return -EBUSY; /* an open in progress owns it, as Linux says */
		fdmap_set_flags(map, fd, FDMAP_F_USER, mflags);
	} else {
		fdmap_alloc_exact(map, fd, mflags);
	}
	file_get(file);
	fdmap_install(map, fd, file); /* readers see the old file or the new one */
	return newfd;
}

/**
 * files_dup_to - dup2/dup3: make @newfd refer to @oldfd's file
 * @files:   [in] the table
 * @oldfd:   [in] open fd
 * @newfd:   [in] target fd, in the sequential area below RLIMIT_NOFILE or
 *                anywhere in the non-sequential area; what it held is closed
 * @fdflags: [in] FD_CLOEXEC | FD_CLOFORK for @newfd
 *
 * @oldfd == @newfd returns @newfd and changes nothing (dup2; dup3 rejects it
 * before calling).  Returns @newfd, -EINVAL for unknown flags, -EBADF for a
 * bad @oldfd or @newfd, -EMFILE if @newfd is free and RLIMIT_NOFILE fds are
 * open (replacing an open fd adds none), -EBUSY if @newfd is reserved,
 * -ENOMEM if growing failed.
 */
int files_dup_to(struct files_table *files, int oldfd, int newfd, unsigned int fdflags)
{
	struct file *file, *replaced = NULL;
	struct fdmap *map;
	int ret;

	if (fdflags & ~FD_FLAGS)
		return -EINVAL;
	spin_lock_task(&files->lock);
	file = files_installed(files, oldfd);
	if (!file)
		ret = -EBADF;
	else if (oldfd == newfd)
		ret = newfd;
	else if (!(ret = files_reach(files, newfd, &map)))
		ret = files_put_on(map, newfd, file, fd_to_map_flags(fdflags), &replaced);
	spin_unlock_task(&files->lock);
	if (replaced)
		files_put_closed(files, replaced);
	return ret;
}

/**
 * files_get_fdflags - F_GETFD
 * @files: [in] the table
 * @fd:    [in] the fd
 *
 * Returns FD_CLOEXEC | FD_CLOFORK bits, or -EBADF if @fd has no file.
 */
int files_get_fdflags(struct files_table *files, int fd)
{
	int ret = -EBADF;

	spin_lock_task(&files->lock);
	if (files_installed(files, fd))
		ret = map_to_fd_flags(fdmap_get_flags(files_map_of(files, fd), (unsigned int)fd));
	spin_unlock_task(&files->lock);
	return ret;
}

/**
 * files_set_fdflags - F_SETFD: replace both flags
 * @files:   [in] the table
 * @fd:      [in] the fd
 * @fdflags: [in] FD_CLOEXEC | FD_CLOFORK
 *
 * Returns 0, -EINVAL for unknown bits, -EBADF if @fd has no file.
 */
int files_set_fdflags(struct files_table *files, int fd, unsigned int fdflags)
{
	int ret = -EBADF;

	if (fdflags & ~FD_FLAGS)
		return -EINVAL;
	spin_lock_task(&files->lock);
	if (files_installed(files, fd))
		ret = fdmap_set_flags(files_map_of(files, fd), (unsigned int)fd, FDMAP_F_USER,
				      fd_to_map_flags(fdflags));
	spin_unlock_task(&files->lock);
	return ret;
}

/* Number of busy fds in both areas (reserved ones included). */
unsigned int files_count(struct files_table *files)
{
	unsigned int n;

	spin_lock_task(&files->lock);
	n = files->seq->busy + files->nonseq->busy;
	spin_unlock_task(&files->lock);
	return n;
}
