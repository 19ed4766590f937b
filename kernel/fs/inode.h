/*
 * The VFS's inodes (docs/vfs.md): the inode core every file system
 * shares, the operations each file system gives its inodes, and the
 * dispatchers through which the VFS, execve and memory management reach
 * them (fs/inode.c).  The file systems (fs/ramfs/, fs/proc/, fs/devpts/)
 * implement the operations on inodes of their own that embed the core.
 */
#ifndef FS_INODE_H
#define FS_INODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/list.h"
#include "lib/spinlock.h"
#include "fs/super.h"
#include "lib/string.h"
#include "mm/layout.h"
#include <uapi/errno.h>
#include <uapi/ioctl.h>
#include <uapi/stat.h>

struct inotify_watch;
struct dnotify_watch;
struct lease;
struct vma;
struct iov_iter;
struct super_block;
struct inode;
struct file;
struct file_ops;

/* File types and permission bits of i_mode / st_mode (the values every Unix uses). */
#define S_IFMT	    0170000
#define S_IFSOCK    0140000
#define S_IFLNK	    0120000
#define S_IFREG	    0100000
#define S_IFBLK	    0060000
#define S_IFDIR	    0040000
#define S_IFCHR	    0020000
#define S_IFIFO	    0010000
#define S_ISREG(m)  (((m)&S_IFMT) == S_IFREG)
#define S_ISDIR(m)  (((m)&S_IFMT) == S_IFDIR)
#define S_ISCHR(m)  (((m)&S_IFMT) == S_IFCHR)
#define S_ISBLK(m)  (((m)&S_IFMT) == S_IFBLK)
#define S_ISLNK(m)  (((m)&S_IFMT) == S_IFLNK)
#define S_ISFIFO(m) (((m)&S_IFMT) == S_IFIFO)
#define S_ISSOCK(m) (((m)&S_IFMT) == S_IFSOCK)
/* Device numbers in st_rdev (Linux's old 8:8 encoding). */
#define MKDEV(major, minor) (((major) << 8) | (minor))
/* The mode's set-user-ID, set-group-ID and sticky bits. */
#define S_ISUID 04000
#define S_ISGID 02000
#define S_ISVTX 01000
#define S_IXGRP 00010

#define NAME_MAX 255
#define PATH_MAX 4096

/*
 * What a file system does with its inodes (docs/vfs.md, "Inode
 * operations"), as Linux's inode_operations with the regular-file data
 * calls its address_space and file operations would make.  Every inode
 * has one table (ip->op, set by its file system when it is made,
 * constant); the VFS calls a file system only through it, by the
 * dispatchers below, which keep the names the VFS always called.  An
 * operation a table leaves NULL is refused as Linux's VFS refuses it.
 * None is called under a lock of the caller's; names are as below (never
 * "." or "..", at most NAME_MAX bytes, not NUL-terminated).
 */
struct iattr;
struct fiemap_info;
/* One getdents record: return false to stop (no room).  Called under a
 * lock: must not sleep or touch user memory. */
typedef bool (*dir_emit_fn)(void *ctx, const char *name, size_t len, uint64_t ino,
			    unsigned int dtype, uint64_t next_pos);
struct inode_operations {
	/* Directories: each as its dispatcher (dir_find, dir_create...). */
	int (*lookup)(struct inode *dir, const char *name, size_t len, struct inode **out);
	/* Every inode: its own access rule, when the mode bits are not the
	 * whole of it (/proc/<pid>/fd, fdinfo: Linux's .permission); NULL
	 * for the mode bits (fs/permission.h).  0 or -errno. */
	int (*permission)(const struct inode *ip, int mask);
	/* create makes regular files, mknod devices, FIFOs and sockets. */
	int (*create)(struct inode *dir, const char *name, size_t len, uint32_t mode, uint32_t rdev,
		      struct inode **out);
	int (*mknod)(struct inode *dir, const char *name, size_t len, uint32_t mode, uint32_t rdev,
		     struct inode **out);
	int (*mkdir)(struct inode *dir, const char *name, size_t len, uint32_t mode, uint32_t rdev,
		     struct inode **out);
	int (*symlink)(struct inode *dir, const char *name, size_t len, const char *target,
		       size_t tlen);
	int (*link)(struct inode *dir, const char *name, size_t len, struct inode *ip);
	int (*unlink)(struct inode *dir, const char *name, size_t len);
	int (*rmdir)(struct inode *dir, const char *name, size_t len);
	int (*rename)(struct inode *olddir, const char *oldname, size_t oldlen,
		      struct inode *newdir, const char *newname, size_t newlen, unsigned int flags);
	/* O_TMPFILE: a regular file with no name, in *out (NULL: EOPNOTSUPP). */
	int (*tmpfile)(struct inode *dir, uint32_t mode, bool linkable, struct inode **out);
	/* getdents (Linux keeps it in the file operations; every caller here
	 * holds the inode, and an open directory's file is the VFS's). */
	void (*iterate)(struct inode *dir, uint64_t *pos, dir_emit_fn emit, void *ctx);
	/* ".." (a file system without dentries keeps it) and getcwd's name. */
	struct inode *(*parent)(struct inode *dir);
	long (*name_of)(struct inode *dir, struct inode *child, char *buf, size_t size);
	/* Every inode: metadata (chmod, chown, utimensat, truncate) and stat. */
	int (*setattr)(struct inode *ip, const struct iattr *attr);
	void (*getattr)(struct inode *ip, struct uapi_stat *st);
	/* Regular files' data (NULL for other types): as the dispatchers. */
	long (*read_iter)(struct inode *ip, struct iov_iter *to, uint64_t off);
	long (*write_iter)(struct inode *ip, struct iov_iter *from, uint64_t off);
	uint64_t (*page_ref)(struct inode *ip, size_t idx, bool fill);
	/* A file whose pages may need I/O (a disk file system's): page_ref
	 * never sleeps (faults call it under the uvm lock) and gives only a
	 * page in memory; page_prepare reads page idx in, with no lock of the
	 * caller's held, for the fault to retry: 0 or -EIO, -ENOMEM.  NULL:
	 * page_ref has every page at once (the ramfs). */
	int (*page_prepare)(struct inode *ip, size_t idx);
	int (*fallocate)(struct inode *ip, bool punch, bool keep_size, uint64_t off, uint64_t len);
	long (*seek_hole_data)(struct inode *ip, long off, bool hole);
	size_t (*resident_pages)(struct inode *ip);
	/* A process maps page idx shared and writable (its fault, under the
	 * uvm lock: no sleep): the page may change unseen.  NULL: nothing to
	 * note (the ramfs's pages are the file). */
	void (*page_mkwrite)(struct inode *ip, size_t idx);
	/*
	 * fsync, fdatasync, sync_file_range, msync: writes the data cached
	 * for bytes [start, end] back and, unless how has FSYNC_DATA_RANGE,
	 * the inode and the device's cache (a flush).  0 or -EIO (a write-back
	 * error not reported yet counts).  NULL: nothing is cached apart
	 * from the data itself (the ramfs): 0.
	 */
	int (*fsync)(struct inode *ip, uint64_t start, uint64_t end, unsigned int how);
	/* FS_IOC_FIEMAP (fs/fiemap.h): the extents of [start, start + len).
	 * NULL: EOPNOTSUPP (the ramfs, as Linux's tmpfs). */
	int (*fiemap)(struct inode *ip, struct fiemap_info *fi, uint64_t start, uint64_t len);
};
#define FSYNC_DATASYNC	 1U /* fdatasync: the inode only if the data needs it */
#define FSYNC_DATA_RANGE 2U /* sync_file_range: the range's pages only */

/*
 * The inode core: what every file system's inodes share.  Each file
 * system embeds it in an inode of its own (fs/ramfs/ramfs.h's struct
 * ramfs_inode, fs/proc/proc_pid.h's struct proc_inode), reached from here
 * by container_of, so the VFS never sees a file system's private data.
 */
struct inode {
	/*
	 * Atomic.  Held by each directory entry naming the inode, open files,
	 * working directories, a child directory (on its parent, for ".."),
	 * and walks in progress.  The last put frees the inode and its data
	 * (sb->op->free_inode).
	 */
	uint32_t refcount;
	uint64_t ino;  /* constant once the file system has made it */
	uint32_t mode; /* type bits constant; permission bits under lock */
	uint32_t rdev; /* character devices: MKDEV(major, minor); constant */
	/* The instance it belongs to (fs/super.h), referenced: constant.
	 * Link and rename across instances are EXDEV; a write to a
	 * read-only one EROFS. */
	struct super_block *sb;
	struct list_head sb_link; /* in sb->inodes, under sb->inodes_lock */
	/* Its file system's operations: constant (set at creation). */
	const struct inode_operations *op;
	/* The open-file operations of a regular file or directory (the
	 * file system's; devices and FIFOs get theirs from the VFS, as
	 * Linux's init_special_inode): constant. */
	const struct file_ops *fop;
	/* Atomic: mounts over this directory (fs/mount.h), changed under
	 * the inode lock and mount_lock; rmdir and rename refuse it (EBUSY)
	 * while a mount of the caller's namespace is among them
	 * (mount_is_local). */
	uint32_t mounted;
	/*
	 * Atomic, as Linux's i_writecount: above 0, the open files that may
	 * write the regular file; below 0, the address spaces running it
	 * (execve, fork's copies).  Each side waits for the other to reach
	 * 0 (ETXTBSY), so a running program's text never changes under it.
	 */
	int32_t writecount;
	/* inotify watches on this inode (fs/notify/inotify.c), chained through
	 * them, under inotify_lock (read without it only to skip unwatched
	 * inodes).  Together they hold one reference, as Linux's mark
	 * connector: an ext2 inode stays in memory while watched.  It goes
	 * when the last watch does, when the file is gone (no name, no other
	 * user: fsnotify_unlinked from inode_put, IN_DELETE_SELF) or when
	 * the instance leaves its last mount (fsnotify_sb_unmount,
	 * IN_UNMOUNT); sb_busy does not count it. */
	struct inotify_watch *watches;
	/* dnotify watches on this directory (fs/notify/dnotify.c), under
	 * dnotify_lock (read without it only to skip unwatched inodes).
	 * Each belongs to an open file of this directory, which holds the
	 * inode: the file's close or release removes it first. */
	struct dnotify_watch *dnotify;
	/* File leases on this regular file (fs/locks/lease.c), chained through
	 * them, under lease_lock (read without it only to skip inodes with
	 * none).  Each belongs to an open file of this inode, which holds
	 * the inode: the file's release removes it first. */
	struct lease *leases;
	/* The vmas mapping this file shared and writable whose pages are
	 * written back (mm/rmap.h: Linux's i_mmap), chained through them,
	 * under rmap_lock.  Each holds a reference on the inode, so the
	 * head outlives the list. */
	struct vma *mmaps;
	/* Atomic, as Linux's i_readcount: open files of this regular file
	 * that are open for reading only (a write lease wants none but its
	 * own; writers are writecount's). */
	int32_t readcount;

	struct spinlock lock; /* protects every field below, and the file system's own */
	uint32_t nlink;	      /* directory entries naming it (+1 for a directory's ".") */
	/* chattr's FS_*_FL (uapi/ioctl.h), those its type keeps (fs_type's
	 * attr_flags); read atomically without the lock by the checks of
	 * inode_immutable and inode_append_only. */
	uint32_t attr_flags;
	uint32_t uid, gid; /* owner: the permission checks' (fs/permission.h) */
	uint64_t size;	   /* bytes (regular, link); entries (directory) */
	uint64_t mtime_ns, ctime_ns, atime_ns;
	/* What Linux's core keeps too (i_pipe, i_link), by type: */
	union {
		struct {
			/* A FIFO (fs/pipe/fifo.c): its pipe while an end is open,
			 * else NULL, under the lock (pipe.c's rule); held: the
			 * inode holds a reference on it instead (fifo_holding;
			 * both constant then, the core's last put drops it). */
			struct pipe *pipe;
			bool held;
		} fifo;
		/*
		 * A symbolic link, as a walk reads it (lookup.c) without a
		 * call into the file system.  All constant from creation;
		 * the file system's free_inode releases them, so any holder
		 * of a reference may read them.
		 */
		struct {
			/* NUL-terminated, never empty (Linux's i_link) */
			char *target;
			/* One of the /proc/<pid> links Linux calls magic (exe,
			 * cwd, root, fd/N: they name an object, not a path),
			 * which openat2's RESOLVE_NO_MAGICLINKS refuses. */
			bool magic;
			/* A /proc/<pid> link of a process the caller may not
			 * inspect (Linux's proc_fd_access_allowed): it stats,
			 * but readlink and walks through it are EACCES, and
			 * its target (empty) is never read. */
			bool denied;
			/* A /proc/<pid>/fd link (fs/proc/proc_fd.c): the open file
			 * it stands for and the inode a walk jumps to (the
			 * file's own, or fifo_holding's for a pipe; NULL when
			 * it cannot be opened, as a socket), both referenced
			 * by the link; file is NULL for other links (Linux's
			 * nd_jump_link from proc's get_link).  A
			 * /proc/<pid>/ns link (fs/proc/proc_ns.c) has only
			 * jump: its nsfs inode, on no mount. */
			struct file *file;
			struct inode *jump;
		} link;
	};
};

/* Linux's IS_IMMUTABLE: no write, no metadata change, no new name, no
 * removal (EPERM); IS_APPEND: written only at the end, never truncated
 * or removed.  chattr's +i and +a (fs/ioctl.c). */
static inline bool inode_immutable(const struct inode *ip)
{
	return __atomic_load_n(&ip->attr_flags, __ATOMIC_RELAXED) & FS_IMMUTABLE_FL;
}

static inline bool inode_append_only(const struct inode *ip)
{
	return __atomic_load_n(&ip->attr_flags, __ATOMIC_RELAXED) & FS_APPEND_FL;
}

/* Linux's notify_change for a mode, owner or explicit times: EPERM for an
 * immutable or append-only inode. */
static inline int inode_may_setattr(const struct inode *ip)
{
	return inode_immutable(ip) || inode_append_only(ip) ? -EPERM : 0;
}

/* Metadata changes (setattr): which fields of struct iattr are set. */
#define ATTR_MODE  1U
#define ATTR_UID   2U
#define ATTR_GID   4U
#define ATTR_SIZE  8U
#define ATTR_ATIME 16U
#define ATTR_MTIME 32U
/* Drop the set-user-ID, set-group-ID bit (the VFS decided: permission.h's
 * setid_drop_*); a file system applies them with iattr_drop_setid. */
#define ATTR_KILL_SUID 64U
#define ATTR_KILL_SGID 128U
/* chattr's flags (FS_IOC_SETFLAGS, fs/ioctl.c): the new attr_flags,
 * checked and merged with the kept ones by the VFS. */
#define ATTR_FLAGS 256U
/* With ATTR_ATIME: an access (fs/atime.c), which leaves ctime alone
 * (Linux's inode_update_time), where utimensat's change sets it. */
#define ATTR_TOUCH 512U
struct iattr {
	unsigned int valid;
	uint32_t mode, uid, gid;
	uint32_t attr_flags;
	uint64_t size;
	uint64_t atime_ns, mtime_ns; /* or INODE_TIME_NOW / INODE_TIME_OMIT */
};

/* For a file system's setattr, under ip->lock. */
static inline void iattr_drop_setid(struct inode *ip, unsigned int valid)
{
	if (valid & ATTR_KILL_SUID)
		ip->mode &= ~S_ISUID;
	if (valid & ATTR_KILL_SGID)
		ip->mode &= ~S_ISGID;
}

/*
 * Taking one side of writecount: a writer (open for writing, truncate by
 * name) or an exec (the program of an address space).  0, or -ETXTBSY
 * while the other side holds it.  Each taken count is given back once.
 */
int inode_get_write_access(struct inode *ip);
void inode_put_write_access(struct inode *ip);
int inode_deny_write_access(struct inode *ip);
void inode_allow_write_access(struct inode *ip);

/* The current real time in ns, as file times take it. */
uint64_t inode_now_ns(void);
/* The same at the last tick: cheaper, for comparisons (fs/atime.c). */
uint64_t inode_now_coarse_ns(void);
/*
 * A new inode of sb (its file system's, sb->op->alloc_inode) with one
 * reference (the caller's), nlink 0, a fresh number and the current
 * times, or NULL (inode_alloc_error says why).
 */
struct inode *inode_alloc(struct super_block *sb, uint32_t mode, uint32_t rdev);
/* Why inode_alloc gave NULL: -ENOSPC (sb's nr_inodes=) or -ENOMEM. */
int inode_alloc_error(const struct super_block *sb);
void inode_get(struct inode *ip);
void inode_put(struct inode *ip);
/* Inodes alive (leak accounting). */
unsigned long inode_count(void);

/* The largest file the VFS lets a write, copy or fallocate reach on ip's
 * instance (sb->maxbytes); a file without an inode (a pipe, a socket)
 * has no such bound (Linux's pipefs and sockfs: MAX_LFS_FILESIZE). */
static inline uint64_t inode_max_bytes(const struct inode *ip)
{
	return ip ? ip->sb->maxbytes : (uint64_t)INT64_MAX;
}

static inline bool inode_is_dir(const struct inode *ip)
{
	return S_ISDIR(ip->mode);
}

static inline bool inode_is_reg(const struct inode *ip)
{
	return S_ISREG(ip->mode);
}

static inline bool inode_is_link(const struct inode *ip)
{
	return S_ISLNK(ip->mode);
}

static inline void inode_set_stat_time(uint64_t *sec, uint64_t *nsec, uint64_t ns)
{
	*sec = ns / 1000000000UL;
	*nsec = ns % 1000000000UL;
}

/* Under ip->lock (the caller's getattr): what getattr reports of the
 * core (st_blocks is the file system's). */
static inline void inode_fill_stat(struct inode *ip, struct uapi_stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_dev = ip->sb->dev;
	st->st_ino = ip->ino;
	st->st_rdev = ip->rdev;
	st->st_blksize = PAGE_SIZE;
	st->st_mode = ip->mode;
	st->st_nlink = ip->nlink;
	st->st_uid = ip->uid;
	st->st_gid = ip->gid;
	st->st_size = S_ISREG(ip->mode) || S_ISLNK(ip->mode) ? ip->size
		      : S_ISDIR(ip->mode)		     ? PAGE_SIZE
							     : 0;
	inode_set_stat_time(&st->atime_sec, &st->atime_nsec, ip->atime_ns);
	inode_set_stat_time(&st->mtime_sec, &st->mtime_nsec, ip->mtime_ns);
	inode_set_stat_time(&st->ctime_sec, &st->ctime_nsec, ip->ctime_ns);
}

/*
 * Regular-file data, through ip->op (the file system's read_iter,
 * write_iter, page_ref...).  Reads stop at the size (holes read as
 * zeroes); writes grow the file.  Each returns bytes moved (short only on a fault or when
 * memory runs out after some progress), or -EFAULT, -ENOSPC, -EFBIG.  The
 * plain forms take kernel buffers; the _iter forms move data through an
 * I/O iterator (lib/iov_iter.h), and a fault part-way returns what was done.
 */
long inode_read(struct inode *ip, void *kbuf, size_t len, uint64_t off);
/*
 * The frame holding page idx of a regular file, with one more reference
 * for the caller (execve maps program text straight from the file, as a
 * page cache would), or 0 for a hole or a page past the end.  Writes to the
 * file change the frame in place.
 */
static inline uint64_t inode_page_ref(struct inode *ip, size_t idx)
{
	return ip->op->page_ref(ip, idx, false);
}
/* The same, a hole filled with a zeroed page first (a shared mapping
 * writes the file through it); 0 when the file system is full. */
static inline uint64_t inode_page_fill_ref(struct inode *ip, size_t idx)
{
	return ip->op->page_ref(ip, idx, true);
}
long inode_write(struct inode *ip, const void *kbuf, size_t len, uint64_t off);
static inline long inode_read_iter(struct inode *ip, struct iov_iter *to, uint64_t off)
{
	return ip->op->read_iter(ip, to, off);
}
/* Writes at *pos (at the end of file if append) and advances *pos; the
 * set-id bits the writer may not keep go first (setid_drop_on_write). */
long inode_write_iter(struct inode *ip, struct iov_iter *from, uint64_t *pos, bool append);
/*
 * fallocate on a regular file (-EOPNOTSUPP without the op), arguments
 * checked by the caller: punch frees or zeroes [off, off + len) (the size kept), else the
 * holes there get zeroed pages and, unless keep_size, the size grows to
 * off + len.  0, -ENOSPC, -EPERM (a memfd's seals).
 */
int inode_fallocate(struct inode *ip, bool punch, bool keep_size, uint64_t off, uint64_t len);
/*
 * lseek's SEEK_DATA (hole false) and SEEK_HOLE on a regular file, as
 * tmpfs: the first byte at or after off in a written page (or in a hole:
 * never-written pages, fallocated ones not yet written, the end of the
 * file).  -ENXIO when off is negative or not before the size, or no data
 * follows it.
 */
long inode_seek_hole_data(struct inode *ip, long off, bool hole);
/* Sets the size: frees pages past it, zero-fills growth, drops set-id
 * bits as a write does.  0, -EFBIG, -ENOSPC, -EPERM (a memfd's
 * F_SEAL_SHRINK or F_SEAL_GROW). */
int inode_truncate(struct inode *ip, uint64_t size);
uint64_t inode_size(struct inode *ip);
/* Pages of a regular file that hold a frame (not holes): its resident set. */
size_t inode_resident_pages(struct inode *ip);
/* The file system's fsync (0 without one). */
static inline int inode_fsync(struct inode *ip, uint64_t start, uint64_t end, unsigned int how)
{
	return ip->op->fsync ? ip->op->fsync(ip, start, end, how) : 0;
}
static inline void inode_stat(struct inode *ip, struct uapi_stat *st)
{
	ip->op->getattr(ip, st);
}

/*
 * Metadata (the file system's setattr and getattr), each under the
 * inode lock and setting ctime as Linux does.  chmod keeps the type
 * bits; chown takes (uint32_t)-1 for "unchanged" and clears set-user-ID
 * (and set-group-ID with group execute) on a non-directory; times are ns
 * since the epoch, or one of these:
 */
#define INODE_TIME_NOW	(~0ULL)
#define INODE_TIME_OMIT (~1ULL)
/* chmod: 0, or -EPERM when a memfd's F_SEAL_EXEC fixes the exec bits. */
int inode_chmod(struct inode *ip, uint32_t mode);
/* Also drops set-id bits as Linux's chown (setid_drop_on_chown). */
void inode_chown(struct inode *ip, uint32_t uid, uint32_t gid);
void inode_set_times(struct inode *ip, uint64_t atime_ns, uint64_t mtime_ns);
/* chattr: attr_flags becomes flags (checked by fs/ioctl.c), the ctime
 * now; -EROFS, or the disk's error. */
int inode_set_attr_flags(struct inode *ip, uint32_t flags);

/*
 * Directories.  Names are (pointer, length), not NUL-terminated, never "."
 * or ".." (path lookup handles those) and at most NAME_MAX bytes.
 */
/* The child named, with a reference, or NULL. */
struct inode *dir_lookup(struct inode *dir, const char *name, size_t len);
/* The same in *out, with the error: -ENOENT, or the file system's
 * (/proc/<pid>'s ESRCH). */
static inline int dir_find(struct inode *dir, const char *name, size_t len, struct inode **out)
{
	return dir->op->lookup(dir, name, len, out); /* a walk's one call per component */
}
/*
 * Creates a child of the given mode (op->mkdir for S_IFDIR, op->create
 * for S_IFREG, op->mknod for the others) and returns it referenced in
 * *out.  If the name exists: -EEXIST, with the existing inode referenced
 * in *out.  -ENOENT if dir was removed (or takes no new names: /proc),
 * -ENOSPC, -ENOMEM; -EPERM without the op, as Linux.
 */
int dir_create(struct inode *dir, const char *name, size_t len, uint32_t mode, uint32_t rdev,
	       struct inode **out);
/*
 * Removes an entry: rmdir when want_dir (-ENOTDIR, -ENOTEMPTY), unlink
 * otherwise (-EISDIR).  -ENOENT if missing, -EBUSY for a mount point.
 */
int dir_remove(struct inode *dir, const char *name, size_t len, bool want_dir);
/*
 * Adds a name for the existing non-directory ip (a hard link): nlink
 * grows, the entry takes a reference.  -EEXIST, -ENOENT if dir was removed
 * or ip has no name left (Linux's linkat rule), -ENOMEM.
 */
int dir_link(struct inode *dir, const char *name, size_t len, struct inode *ip);
/*
 * A new symbolic link name in dir to target (tlen bytes, 1..PATH_MAX-1):
 * -EEXIST, -ENOENT, -ENOSPC (a link counts one page against tmpfs's
 * size=), -ENOMEM.
 */
int dir_symlink(struct inode *dir, const char *name, size_t len, const char *target, size_t tlen);
/*
 * O_TMPFILE: a new regular file of dir's instance with no name, in *out;
 * linkable: linkat may give it its first name (Linux's I_LINKABLE).
 * -EOPNOTSUPP where the file system makes none (/proc), -ENOSPC, -ENOMEM.
 */
int dir_tmpfile(struct inode *dir, uint32_t mode, bool linkable, struct inode **out);
/*
 * rename(2) on two resolved parents of one instance: moves the entry
 * oldname of olddir to newname in newdir, replacing what is there
 * atomically, or with RENAME_EXCHANGE swaps the two.  flags: RENAME_*
 * plus RENAME_OLD_SLASH / RENAME_NEW_SLASH when the name had a trailing
 * slash.  Errors as Linux orders them: -ENOENT, -ENOTDIR, -EEXIST
 * (NOREPLACE), -EINVAL (a directory into itself), -ENOTEMPTY, -EISDIR, -ENOMEM.
 */
#define RENAME_OLD_SLASH (1U << 30)
#define RENAME_NEW_SLASH (1U << 31)
int dir_rename(struct inode *olddir, const char *oldname, size_t oldlen, struct inode *newdir,
	       const char *newname, size_t newlen, unsigned int flags);
/* The parent directory, referenced (the root is its own parent). */
struct inode *dir_parent(struct inode *dir);
/*
 * The rename lock and sequence, every file system's (Linux's
 * rename_lock seqlock).  A file system's rename holds the lock while it
 * moves entries (the ramfs for its whole rename: its tree's shape holds
 * still under it) and brackets the changes with vfs_rename_seq_begin and
 * _end, so the count is odd while an entry moves and bumped twice by
 * each rename.  A walk that must not climb out of a directory (lookup.c's
 * scoped walks) samples it with dir_rename_begin and, after each "..",
 * asks dir_rename_retry whether a rename ran meanwhile and ".." may have
 * left the scope: then EAGAIN.
 */
void vfs_rename_lock(void);
void vfs_rename_unlock(void);
void vfs_rename_seq_begin(void);
void vfs_rename_seq_end(void);
unsigned long dir_rename_begin(void);
bool dir_rename_retry(unsigned long seq);
/* Copies the name child has in dir into buf (NUL-terminated): length or -ENOENT. */
long dir_name_of(struct inode *dir, struct inode *child, char *buf, size_t size);

/* Emits entries from *pos on ("." is 0, ".." is 1), advancing *pos past each. */
void dir_iterate(struct inode *dir, uint64_t *pos, dir_emit_fn emit, void *ctx);

#endif
