/*
 * Open files: what an fd refers to.  A struct file has a reference count
 * (fds, fork copies, in-flight syscalls each hold one), status flags, a
 * position, and an operations table supplied by what it is (a ramfs file,
 * a device, a pipe end, a socket).
 */
#ifndef FS_FILE_H
#define FS_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/list.h"
#include "lib/spinlock.h"
#include "sched/grace.h"
#include "sched/mutex.h"
#include "sched/task_sched.h"
#include <uapi/fcntl.h>

struct file;
struct inode;
struct mount;
struct iov_iter;
struct kstat;
struct uapi_stat;
struct poll_table;
struct fasync_list;
struct fown;

/*
 * read_iter/write_iter move data between the file and every segment of
 * the iterator in one call (a readv is one read, a writev one write: a
 * pipe or datagram socket sees the whole vector), copying through it
 * (lib/iov_iter.h).  pos is the position to use and update (a copy of
 * file->pos for read/write, the offset for pread/pwrite); operations on
 * unseekable files ignore it.  Each returns the bytes moved or -errno; a
 * fault after some progress returns the progress where the file type can
 * keep it (regular files, devices), as Linux.  getdents's buffer is a
 * user address.
 */
struct file_ops {
	long (*read_iter)(struct file *f, struct iov_iter *to, uint64_t *pos);
	long (*write_iter)(struct file *f, struct iov_iter *from, uint64_t *pos);
	long (*getdents)(struct file *f, void *ubuf, size_t len);
	/*
	 * Readiness mask (POLLIN, POLLOUT, POLLHUP...); registers on pt's
	 * queues (poll.h).  Files without it are always ready for poll() and
	 * cannot be watched by epoll (EPERM), as Linux's regular files.
	 */
	unsigned (*poll)(struct file *f, struct poll_table *pt);
	long (*ioctl)(struct file *f, unsigned long cmd, unsigned long arg);
	/* fstat of a file without an inode (pipes, sockets); optional. */
	int (*stat)(struct file *f, struct uapi_stat *st);
	/* The list of f's object that O_ASYNC puts f on, to be told when it
	 * becomes readable or writable (fs/fasync.h); NULL or absent: the
	 * flag is only stored, as Linux's files without ->fasync. */
	struct fasync_list *(*fasync)(struct file *f);
	/* fsync and fdatasync: write what is cached back (a disk's blocks,
	 * block/bdev_file.c); without it the file has nothing to sync. */
	int (*fsync)(struct file *f);
	/* A device of fixed size (a disk): its size in bytes.  lseek works
	 * on it, SEEK_END counts from the size and a position past the size
	 * is EINVAL, as Linux's fixed_size_llseek. */
	uint64_t (*fixed_size)(struct file *f);
	/* Last reference gone. */
	void (*release)(struct file *f);
	/* Lines of its own for /proc/<pid>/fdinfo/<fd> (Linux's show_fdinfo:
	 * a pidfd's "Pid:"), into buf; optional. */
	void (*show_fdinfo)(struct file *f, char *buf, size_t size);
	/* What /proc/<pid>/fd shows for a file without an inode or a stat
	 * type (Linux's anon inodes: "anon_inode:[eventfd]"); optional. */
	const char *anon_name;
	/* lseek, pread and pwrite work on it though it is no regular file
	 * nor directory (Linux's FMODE_LSEEK | FMODE_PREAD on /proc/<pid>
	 * files): SEEK_SET and SEEK_CUR, SEEK_END EINVAL. */
	bool seekable;
	/* mmap of it gives anonymous memory, as MAP_ANONYMOUS would
	 * (/dev/zero, Linux's mmap_zero); otherwise only regular files map. */
	bool mmap_anonymous;
	/* mmap of it maps a region of an inode the file holds (io_uring's
	 * rings, async/io_uring.c): the inode for the len bytes at *off,
	 * with *off rewritten to the offset in it, or NULL (-EINVAL); the
	 * vma takes its own reference.  Optional. */
	struct inode *(*mmap_region)(struct file *f, uint64_t *off, uint64_t len);
	/* Every wait of its read, write and socket calls honours
	 * file_nonblock (pipes, sockets, eventfds): io_uring tries such a
	 * call inline before it punts it to a worker. */
	bool nowait;
};

struct file {
	uint32_t refcount;  /* atomic */
	unsigned int flags; /* O_ACCMODE | O_APPEND | O_NONBLOCK | O_ASYNC | O_PATH (F_GETFL) */
	const struct file_ops *ops;
	struct inode *inode; /* NULL for pipes and sockets */
	/* The mount it was opened through (referenced; fs/mount.h), whose
	 * flags apply to it and which umount finds busy while it is open;
	 * NULL for files not opened by name.  Constant. */
	struct mount *mnt;
	/*
	 * Linux's f_pos_lock: a read, write, lseek or getdents at the
	 * position of a regular file or directory holds it from the load of
	 * pos to the store of the new one, so tasks sharing the open file
	 * never read the same bytes or write over each other.  Taken only
	 * when the file may be shared (file_pos_lock).  A sleeping lock: the
	 * transfer under it copies user memory.  Outermost: nothing is held
	 * when it is taken.
	 */
	struct mutex pos_lock;
	uint64_t pos; /* atomic loads and stores; changed under pos_lock when shared */
	void *priv;   /* the implementation's state */
	/* Where it was opened by name, for /proc/<pid>/fd: the directory
	 * (referenced: it keeps a removed directory's inode, as a Linux
	 * dentry) and the name (kmalloc'd).  Set once before the file is
	 * installed, then constant; both NULL for a directory (its own
	 * parent link names it) and files not opened by name; a memfd has
	 * its "memfd:NAME" and no directory (fs/ramfs/memfd.c). */
	struct inode *dir;
	char *name;
	/* epoll items watching this file (fs/event/eventpoll.c), under its
	 * epoll_lock; they hold no reference: the last put removes them. */
	struct list_head ep_links;
	/* Signal-driven I/O: its owner, signal and place on its object's
	 * list (fs/fasync.h), allocated by the first F_SETOWN, F_SETSIG or
	 * O_ASYNC and kept until the last reference goes; NULL before. */
	struct fown *fown;
	bool flocked; /* holds a flock() lock (fs/locks/flock.c), under flock_lock */
	/* A regular file open for writing, counted in mnt->writers
	 * (remount,ro's EBUSY).  Constant. */
	bool mnt_writer;
	struct grace_head grace; /* released, awaiting a grace period (file.c) */
};

/*
 * Whether a wait on f must not sleep: its O_NONBLOCK, or an io_uring
 * attempt inline in the submitter (task_sched.h, nowait), which punts the
 * request to a worker on -EAGAIN.  The file types that honour it: pipes,
 * sockets, eventfds; the others are punted without an attempt.
 */
static inline bool file_nonblock(const struct file *f)
{
	return (__atomic_load_n(&f->flags, __ATOMIC_RELAXED) & O_NONBLOCK) ||
	       task_sched(current())->nowait;
}

/*
 * An O_PATH file: a place in the file system, not an open file.  Only
 * files_lookup_raw() finds it (fstat, fchdir, a dirfd, dup, fcntl, close,
 * execveat, /proc/<pid>/fd); every other call sees EBADF, as Linux's
 * fdget.  It can neither read nor write.
 */
static inline bool file_is_path(const struct file *f)
{
	return f->flags & O_PATH;
}

/*
 * Whether f was opened for reading / writing (its O_ACCMODE).  Reading is
 * O_RDONLY or O_RDWR: the O_WRONLY bit clear (it is set in O_WRONLY and in
 * the access mode 3, which gives neither) and not O_PATH, one test.  An
 * O_PATH file's access mode is always O_RDONLY (vfs.c keeps no other), so
 * writing needs no O_PATH test.
 */
static inline bool file_can_read(const struct file *f)
{
	return !(f->flags & (O_WRONLY | O_PATH));
}

static inline bool file_can_write(const struct file *f)
{
	return (f->flags & O_ACCMODE) == O_WRONLY || (f->flags & O_ACCMODE) == O_RDWR;
}

/* What a lock on f locks (flock.c, reclock.c): its inode, shared by every
 * open of the file; files without one (pipes, sockets) lock only against
 * themselves. */
static inline const void *file_lock_key(const struct file *f)
{
	return f->inode ? (const void *)f->inode : (const void *)f;
}

/* One call of f's read_iter or write_iter (which the caller checked f
 * has) over the whole iterator, at *at, or at the file position, which
 * it then advances, when at is NULL (fs/read_write.c). */
long file_rw_iter(struct file *f, struct iov_iter *it, uint64_t *at, bool write);
/* read or write of one user buffer of len bytes (or, vec not NULL, over
 * an iterator on an iovec array the caller copied and checked) at off
 * (-1: the file position) with preadv2's flags,
 * for io_uring's READ, WRITE, READV and WRITEV: preadv2's errors, but a
 * file without positions (a pipe, a socket) ignores off, as Linux's
 * io_uring (which gives it to the file's read_iter), rather than ESPIPE. */
long fd_rw_flags(int fd, void *ubuf, size_t len, struct iov_iter *vec, long off, int rwf,
		 bool write);

/*
 * Takes f->pos_lock when f has a position (a regular file or directory)
 * and more than one reference (Linux's fdget_pos rule): a file no other
 * table, thread or in-flight call holds has no one to race with, so the
 * single-user path stays one load.  Returns whether it took the lock, for
 * file_pos_unlock (fs/read_write.c).
 */
bool file_pos_lock(struct file *f);
void file_pos_unlock(struct file *f, bool locked);

/* The position as a reader without the lock sees it (fdinfo, sendfile). */
static inline uint64_t file_pos_get(struct file *f)
{
	return __atomic_load_n(&f->pos, __ATOMIC_RELAXED);
}

static inline void file_pos_set(struct file *f, uint64_t pos)
{
	__atomic_store_n(&f->pos, pos, __ATOMIC_RELAXED);
}

/*
 * sendfile's and copy_file_range's copy (fs/sendfile.c): up to count bytes
 * from in at *pos to out at *out_pos (NULL: out's position), a chunk at a
 * time through a kernel buffer, advancing both by what out took.  The
 * bytes moved; the error of the first step when nothing moved (-EAGAIN
 * from a full non-blocking output, -EPIPE, -ERESTARTSYS...).  A short
 * write, the input's end or a signal ends it early.
 */
long file_copy_range(struct file *in, uint64_t *pos, struct file *out, uint64_t *out_pos,
		     size_t count);

/* A new file with one reference, or NULL when memory runs out. */
struct file *file_alloc(const struct file_ops *ops, unsigned int flags, void *priv);
/* The caller already holds a reference, so relaxed ordering is enough.
 * Inline: every dup takes one under the files lock. */
static inline void file_get(struct file *f)
{
	__atomic_add_fetch(&f->refcount, 1, __ATOMIC_RELAXED);
}
/* Takes a reference unless the count already reached zero (lock-free lookup). */
bool file_tryget(struct file *f);
/* References held now (the unix GC compares it with those it knows of). */
static inline uint32_t file_refcount(struct file *f)
{
	return __atomic_load_n(&f->refcount, __ATOMIC_ACQUIRE);
}
/* Drops a reference; the last one calls ops->release and frees the file. */
void file_put(struct file *f);
/* Open files in the system (leak accounting). */
unsigned long file_count(void);

/* What readlink of a /proc/<pid>/fd link to f shows, into buf (PATH_MAX
 * bytes): the path of a file opened by name (" (deleted)" once it has
 * none), "pipe:[ino]", "anon_inode:[...]"... (fs/proc/proc_fd.c; Linux's
 * d_path, as loop's backing_file shows it too).  0 or -errno. */
long file_path_text(struct file *f, char *buf);

#endif
