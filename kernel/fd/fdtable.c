/*
 * Files table: a process's two fd areas over fdmap, and the operations on
 * its fds one at a time: reserve, install, dup, look up (lock-free), list,
 * close, flags, and RLIMIT_NOFILE.  How tables are shared and copied is
 * fdtable_share.c's; what closing fds does, in bulk too, fdtable_close.c's.
 */
#include "fdtable.h"

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
							  unsigned int minfd, fdflags_t flags)
{
	for (;;) {
		struct fdmap *map = files->seq;
		unsigned int idx = minfd > map->size ? minfd : map->size;
		int err = files_grow(&files->seq, grown_size(map->size, idx, NR_OPEN_MAX));
		int fd;

		if (err)
			return err;
		fd = fdmap_alloc_lowest(files->seq, minfd, files->nofile, flags);
		if (fd != -ENOSPC)
			return fd;
	}
}

/*
 * Under the lock: lowest free fd in [minfd, nofile), growing the area as
 * needed.  The growth is out of line: the common path saves no registers.
 */
static int files_alloc_seq(struct files_table *files, unsigned int minfd, fdflags_t flags)
{
	int fd = fdmap_alloc_lowest(files->seq, minfd, files->nofile, flags);

	return fd != -ENOSPC ? fd : files_alloc_seq_grow(files, minfd, flags);
}

/* Under the lock: files_alloc_nonseq() once the free list is empty. */
static __attribute__((noinline)) int files_alloc_nonseq_grow(struct files_table *files,
							     fdflags_t flags)
{
	for (;;) {
		struct fdmap *map = files->nonseq;
		int err, fd;

		if (map->size >= NONSEQ_FD_MAX)
			return -EMFILE;
		err = files_grow(&files->nonseq, grown_size(map->size, map->size, NONSEQ_FD_MAX));
		if (err)
			return err;
		fd = fdmap_alloc_free(files->nonseq, flags);
		if (fd != -ENOSPC)
			return fd;
	}
}

/* Under the lock: the head of the non-sequential free list, growing the area as needed. */
static int files_alloc_nonseq(struct files_table *files, fdflags_t flags)
{
	int fd = fdmap_alloc_free(files->nonseq, flags);

	return fd != -ENOSPC ? fd : files_alloc_nonseq_grow(files, flags);
}

/* Under the lock: files_alloc_fd() once its arguments are checked.  Inline
 * in its two callers: dup saves a call and the registers it saved. */
static inline int files_alloc_locked(struct files_table *files, unsigned int minfd, fdflags_t flags,
				     bool nonseq)
{
	if (!files_room(files, nonseq))
		return -EMFILE;
	if (nonseq)
		return files_alloc_nonseq(files, flags);
	if (minfd >= files->nofile)
		return -EMFILE;
	return files_alloc_seq(files, minfd, flags);
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
 * files_alloc_fd - reserve a new fd (install a file on it next, or unreserve it)
 * @files: [in] the table
 * @minfd: [in] smallest acceptable fd (sequential area only; F_DUPFD's argument)
 * @flags: [in] FDF_NONSEQ | FDF_CLOEXEC | FDF_CLOFORK (fdflags.h)
 *
 * Returns the fd, -EINVAL for unknown flags or a negative @minfd, -EMFILE
 * when RLIMIT_NOFILE fds are open (both areas count; see files_room), no fd >= @minfd is
 * free below RLIMIT_NOFILE (sequential) or the non-sequential area is
 * full, -ENOMEM if growing the area failed.
 */
int files_alloc_fd(struct files_table *files, int minfd, fdflags_t flags)
{
	int fd;

	if ((flags & ~FDF_ALL) || minfd < 0)
		return -EINVAL;
	spin_lock_task(&files->lock);
	fd = files_alloc_locked(files, (unsigned int)minfd, flags, flags & FDF_NONSEQ);
	spin_unlock_task(&files->lock);
	return fd;
}

/*
 * Under the lock: dup's one body.  The lookup of @oldfd, the allocation
 * and the install happen in one pass, so the new fd carries the file
 * @oldfd had at that moment.  Returns the new fd, or -EBADF, or
 * files_alloc_locked()'s errors.
 */
static inline long dup_locked(struct files_table *files, int oldfd, unsigned int minfd,
			      fdflags_t flags)
{
	bool nonseq = flags & FDF_NONSEQ;
	struct file *file = files_installed(files, oldfd);
	int fd = file ? files_alloc_locked(files, minfd, flags, nonseq) : -EBADF;

	if (fd >= 0) {
		file_get(file); /* the new fd's reference */
		fdmap_install(nonseq ? files->nonseq : files->seq, (unsigned int)fd, file);
	}
	return fd;
}

/**
 * files_dup_slow - files_dup()'s slow half: the lookup, allocation and install under the lock
 * @files: [in] the table
 * @oldfd: [in] open fd
 * @minfd: [in] as files_alloc_fd()
 * @flags: [in] fd flags: made by fdflags.h's conversions, so no bit but
 *              FDF_ALL's (others would not be kept: fdmap keeps FDF_KEPT)
 *
 * Every sequential dup, and the non-sequential ones the fast half leaves
 * (contention, an error, growth).  Returns the new fd, -EBADF if @oldfd
 * has no file, -EINVAL for a negative @minfd, or files_alloc_fd()'s
 * other errors.
 */
long files_dup_slow(struct files_table *files, int oldfd, int minfd, fdflags_t flags)
{
	long fd;

	if (minfd < 0)
		return -EINVAL;
	spin_lock_task(&files->lock);
	fd = dup_locked(files, oldfd, (unsigned int)minfd, flags);
	spin_unlock_task(&files->lock);
	return fd;
}

/* files_dup_fast's way out: its arguments in the same order, so that
 * every jump here from the leaf moves nothing. */
static __attribute__((noinline)) long dup_fast_fallback(int oldfd, fdflags_t flags,
							struct files_table *files)
{
	return files_dup_slow(files, oldfd, 0, flags);
}

/**
 * files_dup_fast - files_dup()'s fast half: a non-sequential dup as a leaf
 * @oldfd: [in] open fd
 * @flags: [in] FDF_NONSEQ, with FDF_CLOEXEC / FDF_CLOFORK (as files_dup_slow())
 * @files: [in] the table
 *
 * Its common case calls nothing: the lock free at
 * the first try, @oldfd open, room, a slot on the free list (the pop,
 * file_get and install inline): the cheapest fd path (docs/bench.md).
 * Anything else is files_dup_slow's.  Returns as files_dup_slow().  The
 * table comes last: sys_dup3 holds the fd and the flags in the first two
 * argument registers already, and jumps here without moving them.
 */
long files_dup_fast(int oldfd, fdflags_t flags, struct files_table *files)
{
	struct fdmap *map;
	struct file *file;
	unsigned int i;

	if (!spin_trylock_task(&files->lock))
		return dup_fast_fallback(oldfd, flags, files);
	map = files->nonseq;
	/* Room first: after the lookup's acquire load it would load the maps again. */
	if (!files_room(files, true) || map->free_head == FDMAP_NIL ||
	    !(file = files_installed(files, oldfd))) {
		spin_unlock_task(&files->lock);
		return dup_fast_fallback(oldfd, flags, files);
	}
	/* The reference first: its atomic add makes the compiler reload what
	 * the pop computed if it came after, and that costs a register. */
	file_get(file); /* the new fd's reference */
	i = fdmap_take_head(map, flags);
	fdmap_install_slot(map, i, file);
	spin_unlock_task(&files->lock);
	return map->base + i; /* below INT_MAX: no sign to extend */
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
			return fd == FD_LENT ? files_lookup_lent(files) : NULL;
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
 * __fget_light; what it saves: docs/bench.md, poll_1of512).
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
	if (__builtin_expect(!file, 0)) {
		*put = fd == FD_LENT; /* a lent file: referenced, as shared */
		return *put ? files_lookup(files, fd) : NULL;
	}
	return file_is_path(file) ? NULL : file;
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

/*
 * Listing the fds without the lock, for /proc/<pid>/fd: both areas,
 * non-sequential fds included (a user must see them).  The same rules as
 * files_lookup(): the maps are loaded with acquire and may be replaced
 * (freed only after a grace period), so the caller must not sleep between
 * loading a map and using the fd found in it.
 */
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

/**
 * files_close - close an fd
 * @files: [in] the table
 * @fd:    [in] the fd
 *
 * Returns 0, or -EBADF if @fd has no file (free, reserved, out of range);
 * long, close(2)'s result, so its handler ends in a tail call.
 */
long files_close(struct files_table *files, int fd)
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

/* Under the lock: make @newfd (covered by @map) carry @file with @flags; returns what it replaced.
 */
static int files_put_on(struct fdmap *map, int newfd, struct file *file, fdflags_t flags,
			struct file **replaced)
{
	unsigned int fd = (unsigned int)newfd;

	*replaced = NULL;
	if (fdmap_busy(map, fd)) {
		*replaced = fdmap_file(map, fd);
		if (!*replaced)
			return -EBUSY; /* an open in progress owns it, as Linux says */
		fdmap_set_flags(map, fd, FDF_KEPT, flags);
	} else {
		fdmap_alloc_exact(map, fd, flags);
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
 * @fdflags: [in] FDF_KEPT bits for @newfd
 *
 * @oldfd == @newfd returns @newfd and changes nothing (dup2; dup3 rejects it
 * before calling).  Returns @newfd, -EINVAL for unknown flags, -EBADF for a
 * bad @oldfd or @newfd, -EMFILE if @newfd is free and RLIMIT_NOFILE fds are
 * open (replacing an open fd adds none), -EBUSY if @newfd is reserved,
 * -ENOMEM if growing failed.
 */
int files_dup_to(struct files_table *files, int oldfd, int newfd, fdflags_t fdflags)
{
	struct file *file, *replaced = NULL;
	struct fdmap *map;
	int ret;

	if (fdflags & ~FDF_KEPT)
		return -EINVAL;
	spin_lock_task(&files->lock);
	file = files_installed(files, oldfd);
	if (!file)
		ret = -EBADF;
	else if (oldfd == newfd)
		ret = newfd;
	else if (!(ret = files_reach(files, newfd, &map)))
		ret = files_put_on(map, newfd, file, fdflags, &replaced);
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
 * Returns the fd's FDF_KEPT bits (F_GETFD's FD_* values), or -EBADF if @fd has no file.
 */
int files_get_fdflags(struct files_table *files, int fd)
{
	int ret = -EBADF;

	spin_lock_task(&files->lock);
	if (files_installed(files, fd))
		ret = (int)(fdmap_get_flags(files_map_of(files, fd), (unsigned int)fd) & FDF_KEPT);
	spin_unlock_task(&files->lock);
	return ret;
}

/**
 * files_set_fdflags - F_SETFD: replace both flags
 * @files:   [in] the table
 * @fd:      [in] the fd
 * @fdflags: [in] FDF_KEPT bits (F_SETFD's FD_* values)
 *
 * Returns 0, -EINVAL for unknown bits, -EBADF if @fd has no file.
 */
int files_set_fdflags(struct files_table *files, int fd, fdflags_t fdflags)
{
	if (fdflags & ~FDF_KEPT)
		return -EINVAL;
	return files_change_fdflags(files, fd, FDF_KEPT, fdflags);
}

/**
 * files_change_fdflags - ioctl's FIOCLEX, FIONCLEX: change some flags only
 * @files:   [in] the table
 * @fd:      [in] the fd
 * @mask:    [in] the FDF_KEPT bits to change
 * @fdflags: [in] their new values
 *
 * Returns 0, -EBADF if @fd has no file.
 */
int files_change_fdflags(struct files_table *files, int fd, fdflags_t mask, fdflags_t fdflags)
{
	int ret = -EBADF;

	spin_lock_task(&files->lock);
	if (files_installed(files, fd))
		ret = fdmap_set_flags(files_map_of(files, fd), (unsigned int)fd, mask, fdflags);
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

/*
 * RLIMIT_NOFILE: the soft limit new fds are checked against (files_room)
 * and the hard one getrlimit reports.
 */
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
