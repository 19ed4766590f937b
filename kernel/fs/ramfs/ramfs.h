/*
 * The ramfs as the file systems built on it see it (tmpfs, devtmpfs and
 * the internal instance in fs/ramfs/tmpfs.c; procfs and devpts keep their
 * stored entries in ramfs directories): its inode, which embeds the VFS's
 * core, and the operations the others reuse or wrap.  docs/vfs.md says
 * which file system implements what.
 */
#ifndef FS_RAMFS_H
#define FS_RAMFS_H

#include "fs/inode.h"
#include "lib/list.h"

struct ramfs_dirent;

/* Largest regular file (EFBIG beyond), every ramfs instance's
 * maxbytes: Linux's MAX_LFS_FILESIZE, as its tmpfs. */
#define RAMFS_MAX_FILE ((uint64_t)INT64_MAX)

/* A regular file's page index (ramfs_index.c): a radix tree, NULL root
 * when the file has no page. */
#define RAMFS_INDEX_BITS 6
struct ramfs_index_node;
struct ramfs_index {
	struct ramfs_index_node *root;
	unsigned height; /* levels under root; 1: root is a leaf */
};

/* A ramfs inode: the core, then the data of its type, under vfs.lock
 * unless a field says otherwise. */
struct ramfs_inode {
	struct inode vfs;
	union {
		struct {
			struct ramfs_index pages; /* page number to frame */
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
			size_t used; /* frames in pages (st_blocks) */
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
			 * (ramfs_dir.c's dir_hash_grow: a lookup then costs the
			 * same in a directory of ten thousand): buckets[key &
			 * mask], NULL before.  Under the lock; a bigger table
			 * replaces it whole. */
			struct ramfs_dirent **buckets;
			uint32_t mask;
		} dir;
	};
};

/* Only for an inode of a file system built on the ramfs (its sb->op is
 * ramfs_super_ops or one that allocates a struct ramfs_inode first). */
static inline struct ramfs_inode *RAMFS_I(const struct inode *ip)
{
	return container_of((struct inode *)ip, struct ramfs_inode, vfs);
}

/* Whether ip is a ramfs regular file (memfd's seals, mmap's counts). */
extern const struct inode_operations ramfs_file_iops;
static inline bool ramfs_is_file(const struct inode *ip)
{
	return ip->op == &ramfs_file_iops;
}

extern const struct super_operations ramfs_super_ops;

/* For a file system whose inodes embed a struct ramfs_inode first (procfs):
 * sets up ri for mode as ramfs_super_ops' alloc_inode does, and releases
 * what it holds (its data pages, directory entries, "..", a link's
 * target) when the inode goes. */
void ramfs_inode_init(struct ramfs_inode *ri, uint32_t mode);
void ramfs_evict(struct inode *ip);

/*
 * ramfs_super_ops' kill_tree: empties the tree under root (referenced;
 * the reference is taken over), as `rm -rf` would, one entry at a time
 * without recursion: an instance leaving its last mount.  What is still
 * open elsewhere stays, unlinked.
 */
void ramfs_kill_tree(struct inode *root);

/* An instance's root directory (sb->root, which holds it): its own
 * parent, nlink 2, mode's permission bits; NULL without memory. */
struct inode *ramfs_make_root(struct super_block *sb, uint32_t mode);

/* The directory operations, for the file systems that wrap them
 * (ramfs_dir_iops holds them all).  Each as its dispatcher in inode.h. */
extern const struct inode_operations ramfs_dir_iops;
int ramfs_lookup(struct inode *dir, const char *name, size_t len, struct inode **out);
int ramfs_create(struct inode *dir, const char *name, size_t len, uint32_t mode, uint32_t rdev,
		 struct inode **out);
int ramfs_symlink(struct inode *dir, const char *name, size_t len, const char *target, size_t tlen);
int ramfs_link(struct inode *dir, const char *name, size_t len, struct inode *ip);
int ramfs_unlink(struct inode *dir, const char *name, size_t len);
int ramfs_rmdir(struct inode *dir, const char *name, size_t len);
int ramfs_rename(struct inode *olddir, const char *oldname, size_t oldlen, struct inode *newdir,
		 const char *newname, size_t newlen, unsigned int flags);
struct inode *ramfs_parent(struct inode *dir);
long ramfs_name_of(struct inode *dir, struct inode *child, char *buf, size_t size);
int ramfs_setattr(struct inode *ip, const struct iattr *attr);
void ramfs_getattr(struct inode *ip, struct uapi_stat *st);
/* Emits ".", ".." and the stored entries from *pos on, as dir_iterate;
 * false when emit stopped it (no room), true when all are out. */
bool ramfs_iterate_entries(struct inode *dir, uint64_t *pos, dir_emit_fn emit, void *ctx);

#endif
