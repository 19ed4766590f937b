/*
 * Inodes of the ramfs, fdkernel's only file system: regular files backed by
 * page frames, directories as lists of (name, inode), character devices.
 * ramfs.c implements this layer; the VFS (vfs.h) and execve sit on it.
 */
#ifndef FS_INODE_H
#define FS_INODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/list.h"
#include "lib/spinlock.h"
#include <uapi/stat.h>

struct inotify_watch;
struct dnotify_watch;
struct lease;
struct iov_iter;
struct super_block;
struct ramfs_dirent;

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
#define S_ISLNK(m)  (((m)&S_IFMT) == S_IFLNK)
#define S_ISFIFO(m) (((m)&S_IFMT) == S_IFIFO)
#define S_ISSOCK(m) (((m)&S_IFMT) == S_IFSOCK)
/* Device numbers in st_rdev (Linux's old 8:8 encoding). */
#define MKDEV(major, minor) (((major) << 8) | (minor))

#define NAME_MAX 255
#define PATH_MAX 4096
/* Largest regular file (EFBIG beyond): bounds the page index. */
#define RAMFS_MAX_FILE (1UL << 32)

struct inode {
	/*
	 * Atomic.  Held by each directory entry naming the inode, open files,
	 * working directories, a child directory (on its parent, for ".."),
	 * and walks in progress.  The last put frees the inode and its data.
	 */
	uint32_t refcount;
	uint64_t ino;  /* constant */
	uint32_t mode; /* type bits constant; permission bits under lock */
	uint32_t rdev; /* character devices: MKDEV(major, minor); constant */
	/* The instance it belongs to (fs/super.h), referenced: constant.
	 * Link and rename across instances are EXDEV; a write to a
	 * read-only one EROFS. */
	struct super_block *sb;
	struct list_head sb_link; /* in sb->inodes, under sb->inodes_lock */
	/* Atomic: mounts over this directory (fs/mount.h), changed under
	 * the inode lock and mount_lock; rmdir and rename refuse it (EBUSY). */
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
	 * inodes).  They hold no reference: the last inode_put detaches them
	 * (fsnotify_inode_gone), so a watch never keeps a file alive. */
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
	/* Atomic, as Linux's i_readcount: open files of this regular file
	 * that are open for reading only (a write lease wants none but its
	 * own; writers are writecount's). */
	int32_t readcount;

	struct spinlock lock; /* protects every field below */
	uint32_t nlink;	      /* directory entries naming it (+1 for a directory's ".") */
	uint32_t uid, gid;    /* stored and reported; one root user, nothing enforced */
	uint64_t size;	      /* bytes (regular); entries (directory) */
	uint64_t mtime_ns, ctime_ns, atime_ns;
	union {
		struct {
			uint64_t *pages; /* physical frame per page, 0 for a hole */
			size_t npages;	 /* slots in pages[] */
			/* A memfd (fs/ramfs/memfd.c): its F_SEAL_* bits, under the
			 * lock, only ever added to; constant false otherwise
			 * (F_GET_SEALS: EINVAL). */
			bool memfd;
			uint32_t seals;
			/* Atomic: the shared mappings that may write the file
			 * (vmas with VMA_SHARED | VMA_MAYWRITE, and an mmap
			 * about to add one), or -1 once F_SEAL_WRITE denies
			 * them (Linux's i_mmap_writable). */
			int32_t mmap_writable;
			size_t used; /* frames in pages[] (st_blocks) */
			/* An O_TMPFILE file opened without O_EXCL that has
			 * had no name yet: linkat may give it its first one
			 * (Linux's I_LINKABLE).  Under the lock; cleared by
			 * that link. */
			bool linkable;
		} file;
		struct {
			struct list_head entries; /* struct ramfs_dirent, in creation order */
			/* "..": referenced; itself for the root.  Set when
			 * linked, changed only by rename under rename_lock()
			 * and the inode lock: either lock keeps it still. */
			struct inode *parent;
			uint64_t next_pos; /* getdents cookie of the next new entry */
			/* The entries again, by name key, once there are many
			 * (ramfs.c's dir_hash_grow: a lookup then costs the same
			 * in a directory of ten thousand): buckets[key & mask],
			 * NULL before.  Under the lock; a bigger table replaces
			 * it whole. */
			struct ramfs_dirent **buckets;
			uint32_t mask;
			/* A generated directory (/proc and /proc/<pid>,
			 * fs/proc/proc_pid.c): entries made up at each lookup and
			 * listing, after the ramfs ones; NULL otherwise.
			 * Constant. */
			const struct dir_gen *gen;
			int gen_pid; /* the process /proc/<pid> is about (constant) */
			int gen_tid; /* /proc/<pid>/task/<tid>: the thread, else 0 (constant) */
		} dir;
		struct {
			/* A FIFO (fs/pipe/fifo.c): its pipe while an end is open,
			 * else NULL, under the lock (pipe.c's rule); held: the
			 * inode holds a reference on it instead (fifo_holding;
			 * both constant then). */
			struct pipe *pipe;
			bool held;
		} fifo;
		struct {
			/* A /proc/<pid> file: the process it reports, looked up
			 * by this number at each read, never by pointer, so a
			 * file outliving its process holds nothing; tid: the
			 * thread of /proc/<pid>/task/<tid>, else 0; fd: the fd
			 * of /proc/<pid>/fdinfo/<fd>. Constant. */
			int pid, tid, fd;
		} proc;
		struct {
			/* kmalloc'd, NUL-terminated, never empty; constant, freed
			 * with the inode (so any holder of a reference may read it) */
			char *target;
			/* A /proc link (fs/proc/proc_pid.c), made at lookup: not
			 * charged against the ramfs size.  Constant. */
			bool uncharged;
			/* One of the /proc/<pid> links Linux calls magic (exe,
			 * cwd, root, fd/N: they name an object, not a path),
			 * which openat2's RESOLVE_NO_MAGICLINKS refuses
			 * (lookup.c).  Constant. */
			bool magic;
			/* A /proc/<pid>/fd link (fs/proc/proc_fd.c): the open file
			 * it stands for and the inode a walk jumps to (lookup.c:
			 * the file's own, or fifo_holding's for a pipe; NULL when
			 * it cannot be opened, as a socket), both referenced
			 * and put with the link; file is NULL for other links.
			 * Constant. */
			struct file *file;
			struct inode *jump;
		} link;
	};
};

/*
 * Generated entries of a directory (fs/proc/proc_pid.c).  Their cookies are
 * DIR_GEN_POS and above, past any ramfs cookie.  Neither is called under
 * a lock.  lookup: the child named, referenced, in *out: 0, -ENOENT, or
 * another error (-ESRCH: the process is gone).  iterate: emits from *pos
 * on, as dir_iterate.  sealed: no name can be added (ENOENT).
 */
#define DIR_GEN_POS (1ULL << 40)
/* One getdents record: return false to stop (no room).  Called under a
 * lock: must not sleep or touch user memory. */
typedef bool (*dir_emit_fn)(void *ctx, const char *name, size_t len, uint64_t ino,
			    unsigned int dtype, uint64_t next_pos);
struct dir_gen {
	int (*lookup)(struct inode *dir, const char *name, size_t len, struct inode **out);
	void (*iterate)(struct inode *dir, uint64_t *pos, dir_emit_fn emit, void *ctx);
	bool sealed;
};

/*
 * Taking one side of writecount: a writer (open for writing, truncate by
 * name) or an exec (the program of an address space).  0, or -ETXTBSY
 * while the other side holds it.  Each taken count is given back once.
 */
int inode_get_write_access(struct inode *ip);
void inode_put_write_access(struct inode *ip);
int inode_deny_write_access(struct inode *ip);
void inode_allow_write_access(struct inode *ip);

/* Reads the real-time clock once; file times need it (and timer_init). */
void ramfs_clock_init(void);
/* The current real time in ns, as file times take it. */
uint64_t ramfs_now_ns(void);
/* A new inode with one reference (the caller's) and nlink 0, or NULL. */
struct inode *inode_alloc(struct super_block *sb, uint32_t mode, uint32_t rdev);
/* An instance's root directory (sb->root, which holds it): its own
 * parent, nlink 2, mode's permission bits; NULL without memory. */
struct inode *ramfs_make_root(struct super_block *sb, uint32_t mode);
/* Why inode_alloc gave NULL: -ENOSPC (sb's nr_inodes=) or -ENOMEM. */
int inode_alloc_error(const struct super_block *sb);
/*
 * A new symbolic link to target (len bytes, 1..PATH_MAX-1), as inode_alloc,
 * in *out.  It counts as one page against the size limit: -ENOSPC, -ENOMEM.
 */
int inode_alloc_symlink(struct super_block *sb, const char *target, size_t len,
			struct inode **out);
void inode_get(struct inode *ip);
void inode_put(struct inode *ip);
/* Inodes alive (leak accounting). */
unsigned long inode_count(void);

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

/*
 * Regular-file data.  Reads stop at the size (holes read as zeroes); writes
 * grow the file.  Each returns bytes moved (short only on a fault or when
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
uint64_t inode_page_ref(struct inode *ip, size_t idx);
/* The same, a hole filled with a zeroed page first (a shared mapping
 * writes the file through it); 0 when the ramfs is full. */
uint64_t inode_page_fill_ref(struct inode *ip, size_t idx);
long inode_write(struct inode *ip, const void *kbuf, size_t len, uint64_t off);
long inode_read_iter(struct inode *ip, struct iov_iter *to, uint64_t off);
/* Writes at *pos (at the end of file if append) and advances *pos. */
long inode_write_iter(struct inode *ip, struct iov_iter *from, uint64_t *pos, bool append);
/*
 * fallocate on a regular file (ramfs_falloc.c), arguments checked by the
 * caller: punch frees or zeroes [off, off + len) (the size kept), else the
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
/* Sets the size: frees pages past it, zero-fills growth.  0, -EFBIG, -ENOSPC,
 * -EPERM (a memfd's F_SEAL_SHRINK or F_SEAL_GROW). */
int inode_truncate(struct inode *ip, uint64_t size);
uint64_t inode_size(struct inode *ip);
/* Pages of a regular file that hold a frame (not holes): its resident set. */
size_t inode_resident_pages(struct inode *ip);
void inode_stat(struct inode *ip, struct uapi_stat *st);

/*
 * Metadata (ramfs_attr.c), each under the inode lock and setting ctime as
 * Linux does.  chmod keeps the type bits; chown takes (uint32_t)-1 for
 * "unchanged" and clears set-user-ID (and set-group-ID with group execute)
 * on a non-directory; times are ns since the epoch, or one of these: */
#define INODE_TIME_NOW	(~0ULL)
#define INODE_TIME_OMIT (~1ULL)
/* chmod: 0, or -EPERM when a memfd's F_SEAL_EXEC fixes the exec bits. */
int inode_chmod(struct inode *ip, uint32_t mode);
void inode_chown(struct inode *ip, uint32_t uid, uint32_t gid);
void inode_set_times(struct inode *ip, uint64_t atime_ns, uint64_t mtime_ns);

/*
 * Directories.  Names are (pointer, length), not NUL-terminated, never "."
 * or ".." (path lookup handles those) and at most NAME_MAX bytes.
 */
/* The child named, with a reference, or NULL. */
struct inode *dir_lookup(struct inode *dir, const char *name, size_t len);
/* The same in *out, with the error: -ENOENT, or a generated directory's. */
int dir_find(struct inode *dir, const char *name, size_t len, struct inode **out);
/*
 * Creates a child of the given mode (S_IFREG, S_IFDIR or S_IFCHR type) and
 * returns it referenced in *out.  If the name exists: -EEXIST, with the
 * existing inode referenced in *out.  -ENOENT if dir was removed, -ENOMEM.
 */
int dir_create(struct inode *dir, const char *name, size_t len, uint32_t mode, uint32_t rdev,
	       struct inode **out);
/*
 * Removes an entry: rmdir when want_dir (-ENOTDIR, -ENOTEMPTY), unlink
 * otherwise (-EISDIR).  -ENOENT if missing.
 */
int dir_remove(struct inode *dir, const char *name, size_t len, bool want_dir);
/*
 * Adds a name for the existing non-directory ip (a hard link): nlink
 * grows, the entry takes a reference.  -EEXIST, -ENOENT if dir was removed
 * or ip has no name left (Linux's linkat rule), -ENOMEM.
 */
int dir_link(struct inode *dir, const char *name, size_t len, struct inode *ip);
/* The same for a new inode from inode_alloc*, which has no name yet. */
int dir_add_new(struct inode *dir, const char *name, size_t len, struct inode *ip);
/*
 * rename(2) on two resolved parents (ramfs_rename.c): moves the entry
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
/*
 * Empties the tree under root (referenced; the reference is taken over),
 * as `rm -rf` would, one entry at a time without recursion: an instance
 * leaving its last mount.  What is still open elsewhere stays, unlinked.
 */
void ramfs_kill_tree(struct inode *root);
/* The parent directory, referenced (the root is its own parent). */
struct inode *dir_parent(struct inode *dir);
/*
 * Renames as a sequence count (Linux's rename_lock seqcount): odd while
 * a rename moves an entry, bumped twice by each.  A walk that must not
 * climb out of a directory (lookup.c's scoped walks) samples it with
 * dir_rename_begin and, after each "..", asks dir_rename_retry whether a
 * rename ran meanwhile and ".." may have left the scope: then EAGAIN.
 */
unsigned long dir_rename_begin(void);
bool dir_rename_retry(unsigned long seq);
/* Copies the name child has in dir into buf (NUL-terminated): length or -ENOENT. */
long dir_name_of(struct inode *dir, struct inode *child, char *buf, size_t size);

/* Emits entries from *pos on ("." is 0, ".." is 1), advancing *pos past each. */
void dir_iterate(struct inode *dir, uint64_t *pos, dir_emit_fn emit, void *ctx);

#endif
