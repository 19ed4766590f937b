/*
 * File-system types and super blocks (docs/vfs.md, "Mounts").  A super
 * block is one instance of a file-system type: its root, its device
 * number, its limits (tmpfs's size= and nr_inodes=) and the inodes it
 * has.  Every inode points at its super block and holds a reference on
 * it, so an instance lives as long as its mount or any of its inodes
 * (an open file of an unmounted tmpfs keeps the whole instance alive).
 */
#ifndef FS_SUPER_H
#define FS_SUPER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/list.h"
#include "lib/spinlock.h"

struct inode;
struct mount;
struct super_block;
struct block_device;

/* What a file system's statfs fills (the rest is the VFS's). */
struct kstatfs {
	uint64_t bsize, blocks, bfree, bavail, files, ffree, namelen;
};

/* Super-block flags (Linux's SB_* values, as mount(2)'s MS_*). */
#define SB_RDONLY      1U
#define SB_SYNCHRONOUS 16U   /* writes reach the disk before the call returns */
#define SB_NODIRATIME  2048U /* no directory's atime changes (/proc's, as Linux's) */

/*
 * What an instance does with its inodes' memory (Linux's
 * super_operations' alloc_inode and free_inode).  The VFS's inode_alloc
 * and last inode_put (fs/inode.c) call them around the core's own work.
 */
struct super_operations {
	/* A zeroed inode of the file system's own type for mode, its op,
	 * fop and private data set: the core inside it, or NULL. */
	struct inode *(*alloc_inode)(struct super_block *sb, uint32_t mode);
	/* The last reference is gone (the core is detached already):
	 * releases the private data, then the memory. */
	void (*free_inode)(struct inode *ip);
	/* An instance of a type with one per mount (tmpfs) leaving its
	 * last mount: what becomes of its tree, root's reference passing
	 * (the ramfs empties it, as Linux's kill_litter_super; a disk file
	 * system only puts the root). */
	void (*kill_tree)(struct inode *root);
	/* The instance's last reference is gone (every inode freed): its
	 * own data and device go (ext2's).  NULL: nothing to release. */
	void (*put_super)(struct super_block *sb);
	/* statfs's counts (Linux's ->statfs); NULL: the instance's page
	 * and inode limits, as tmpfs. */
	void (*statfs)(struct super_block *sb, struct kstatfs *st);
	/* Writes everything of the instance back to its device and asks
	 * the device to flush its cache (Linux's ->sync_fs with wait, plus
	 * the writeback of the instance's dirty buffers): 0 or -EIO.  NULL:
	 * nothing to write (the ramfs). */
	int (*sync_fs)(struct super_block *sb);
};

struct fs_type {
	const char *name;
	const struct super_operations *sops; /* its instances' operations */
	uint32_t magic;			     /* statfs's f_type */
	/*
	 * Makes an instance's root (sb->root, referenced) and applies the
	 * mount options data (NUL-terminated, "" for none): 0, -EINVAL for
	 * an option it does not know or a bad value, -ENOMEM.
	 */
	int (*fill)(struct super_block *sb, const char *data);
	/* Changes options of a mounted instance (MS_REMOUNT, with the
	 * mount(2) flags asked: MS_RDONLY, MS_SYNCHRONOUS): 0 or -EINVAL.
	 * The VFS sets the instance's read-only flag after it. */
	int (*remount)(struct super_block *sb, unsigned long flags, const char *data);
	/* Its options as mountinfo shows them after "rw"/"ro" (",size=..."). */
	void (*show_options)(struct super_block *sb, char *buf, size_t size);
	/* One instance for every mount (proc, sysfs): fill runs once and
	 * the mounts share it.  NULL: a new instance each mount (tmpfs). */
	struct super_block **single;
	/* On a block device (Linux's FS_REQUIRES_DEV): mount's source names
	 * it, opened before fill into sb->bdev. */
	bool requires_dev;
	/* The chattr flags (FS_*_FL) its inodes keep: FS_IOC_SETFLAGS of
	 * others is EOPNOTSUPP; 0: no FS_IOC_GETFLAGS either (ENOTTY). */
	uint32_t attr_flags;
	/* 0 for most; ext2's: the flags FS_IOC_GETFLAGS shows, of an inode
	 * that keeps others only the file system sets (Linux's
	 * EXT2_FL_USER_VISIBLE); FS_IOC_SETFLAGS then changes attr_flags'
	 * among them and ignores the rest, as Linux's ext2. */
	uint32_t attr_flags_shown;
	/* Mounts only read-only (no write support): a mount or remount
	 * without MS_RDONLY is EROFS (busybox's mount retries read-only). */
	bool read_only;
};

struct super_block {
	const struct fs_type *type;	   /* constant */
	const struct super_operations *op; /* type->sops: constant */
	/* Atomic: one per inode of the instance and one per mount of it;
	 * the last put frees it. */
	uint32_t refs;
	uint32_t dev;	    /* st_dev: major 0, a minor of its own; constant */
	struct inode *root; /* referenced while mounted, NULL after */
	unsigned int flags; /* SB_*, under mount_lock (fs/mount.h) */
	/* The largest file size (EFBIG past it; Linux's s_maxbytes): set
	 * by the type's fill, then constant. */
	uint64_t maxbytes;
	/* Atomic: its mounts alive (attached, or detached and still held);
	 * each holds one of refs.  The last one's end empties the tree of
	 * a type with an instance per mount. */
	uint32_t mounts;
	/* The instance's limits and use, in pages and inodes (tmpfs's
	 * size= and nr_inodes=; SIZE_MAX: none).  used are atomic; max are
	 * written under mount_lock and read without it. */
	size_t pages_used, pages_max;
	size_t inodes_used, inodes_max;
	uint32_t mode, uid, gid; /* tmpfs's mode=, uid=, gid= of its root */
	/* Every inode of the instance, under inodes_lock: what umount asks
	 * whether anything outside the tree holds (sb_busy). */
	struct spinlock inodes_lock;
	struct list_head inodes;
	/* Its inodes that inotify watches, each holding its watches'
	 * reference (fs/notify/inotify.c, under inotify_lock; read without
	 * it to skip an unwatched instance at umount). */
	uint32_t watched;
	/* A disk file system's device, open (bdev_open) from sb_create_bdev
	 * to the instance's end (put_super closes it), so it outlives every
	 * inode; NULL for the others.  Constant. */
	struct block_device *bdev;
	/* Inodes live only while used (a disk file system: no entry holds
	 * one; the instance holds its root): what sb_busy counts. */
	bool icache;
	void *fs_info; /* the file system's own, freed by put_super: constant */
};

/* The instance's block size, statfs's f_bsize (ioctl's FIGETBSZ). */
uint32_t sb_block_size(struct super_block *sb);

/* The registered types, for mount(2) and /proc/filesystems: by name,
 * or the i-th (NULL past the last). */
const struct fs_type *fs_type_find(const char *name);
const struct fs_type *fs_type_at(size_t i);
extern const struct fs_type tmpfs_type, proc_type, sysfs_type, devtmpfs_type, internal_type,
    ext2_type;

/*
 * A new instance of type with its options: referenced once (the caller's,
 * which becomes its mount's), or -EINVAL/-ENOMEM/-EMFILE (no device
 * number left) in *err.  For a single-instance type, that instance.
 */
struct super_block *sb_create(const struct fs_type *type, const char *data, int *err);
/* The same for a type on a block device: bdev (opened by the caller)
 * passes to the instance, which closes it at its end, or is closed here
 * on failure.  sb_flags (SB_RDONLY, SB_SYNCHRONOUS) are the instance's
 * before fill runs, so fill knows whether it may write. */
struct super_block *sb_create_bdev(const struct fs_type *type, struct block_device *bdev,
				   unsigned int sb_flags, const char *data, int *err);
void sb_get(struct super_block *sb);
void sb_put(struct super_block *sb);
/* Instances alive (leak accounting). */
unsigned long sb_count(void);

/* The instance behind the inodes nothing names (memfds, System V shared
 * memory, anonymous pipes' /proc FIFOs): unmounted, limited as tmpfs's
 * default. */
extern struct super_block *internal_sb;

/* The root of devtmpfs's one instance, referenced, where drivers make
 * and remove their /dev nodes (block/genhd.c); NULL before it exists. */
struct inode *devtmpfs_root(void);

/* tmpfs's default size (the ramfs_size= boot option, or half of memory). */
size_t tmpfs_default_pages(void);
/*
 * The pages a size option s asks for, out of total: bytes with an
 * optional k, m, g or t (either case), or a percentage; "0" is no limit
 * (SIZE_MAX: the frame reserve still applies).  Half of total if s is
 * empty or malformed (the boot option's rule).
 */
size_t ramfs_limit_pages(const char *s, size_t total);
/* Charges n pages of file data to sb at once: false (ENOSPC) past its
 * limit or when free memory would fall to the frame reserve. */
bool sb_charge_pages(struct super_block *sb, size_t n);
void sb_uncharge_pages(struct super_block *sb, size_t n);
/* Pages charged in all instances (sysinfo's sharedram). */
size_t sb_pages_all(void);

/* Whether a write to the instance is refused: -EROFS or 0. */
int sb_want_write(const struct super_block *sb);
/*
 * Whether anything outside the instance's tree holds one of its inodes
 * (open files, working directories, mappings, running programs, walks
 * in progress, mounts on them), not counting extra references the caller
 * knows of on held: umount's EBUSY for an instance's last mount.
 */
bool sb_busy(struct super_block *sb, const struct inode *held, unsigned int extra);
/* Whether a file of the instance is open for writing: remount,ro's EBUSY. */
bool sb_has_writers(struct super_block *sb);

#endif
