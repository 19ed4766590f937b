/*
 * ext2 (docs/ext2.md): the on-disk layout (revision 0 and 1, 1 to 4 KiB
 * blocks) and its in-memory super block and inodes, read and written.
 * Everything read from the disk is hostile input: the super block and
 * group descriptors are checked at mount (EINVAL), every block number,
 * bitmap bit and directory entry when used (EIO or EUCLEAN and an
 * "ext2: error" line, then the errors= behaviour).
 *
 * Lock order: an instance's ns_lock (namespace changes), then its
 * load_lock (a lookup reading a disk inode), then an inode's
 * map_lock (its block map and size), then the instance's alloc_lock
 * (bitmaps and counts), then one buffer's lock at a time (no path holds
 * two buffers), then spinlocks (an inode's core lock, icache_lock).
 */
#ifndef FS_EXT2_H
#define FS_EXT2_H

#include <stdint.h>
#include "block/bcache.h"
#include "fs/inode.h"
#include "fs/super.h"
#include "mm/filemap.h"
#include "lib/list.h"
#include "lib/spinlock.h"
#include "sched/mutex.h"
#include "sched/wait.h"

#define EXT2_MAGIC	   0xEF53
#define EXT2_ROOT_INO	   2
#define EXT2_NDIR	   12 /* direct block pointers; then single, double, triple */
#define EXT2_NAME_LEN	   255
#define EXT2_FAST_LINK_MAX 60	 /* a link target shorter than this lives in i_block */
#define EXT2_LINK_MAX	   32000 /* links to one inode, as Linux's ext2 */

/* Features (the only incompatible one read is filetype). */
#define EXT2_INCOMPAT_FILETYPE	    0x0002
#define EXT2_RO_COMPAT_SPARSE_SUPER 0x0001
#define EXT2_RO_COMPAT_LARGE_FILE   0x0002
#define EXT2_RO_COMPAT_BTREE_DIR    0x0004 /* Linux's ext2 knows it (never set) */
#define EXT2_RO_COMPAT_KNOWN                                                                       \
	(EXT2_RO_COMPAT_SPARSE_SUPER | EXT2_RO_COMPAT_LARGE_FILE | EXT2_RO_COMPAT_BTREE_DIR)

/* s_state and s_errors. */
#define EXT2_VALID_FS	     1 /* unmounted cleanly */
#define EXT2_ERROR_FS	     2 /* errors detected */
#define EXT2_ERRORS_CONTINUE 1
#define EXT2_ERRORS_RO	     2
#define EXT2_ERRORS_PANIC    3

/* i_flags: a dir_index directory's (Linux's EXT2_BTREE_FL, the same bit),
 * cleared by any change of its entries, which the hash tree does not see. */
#define EXT2_INDEX_FL 0x1000

/* The super block, at byte 1024 (the fields read). */
struct ext2_disk_super {
	uint32_t s_inodes_count, s_blocks_count, s_r_blocks_count, s_free_blocks_count;
	uint32_t s_free_inodes_count, s_first_data_block, s_log_block_size, s_log_frag_size;
	uint32_t s_blocks_per_group, s_frags_per_group, s_inodes_per_group;
	uint32_t s_mtime, s_wtime;
	uint16_t s_mnt_count, s_max_mnt_count, s_magic, s_state, s_errors, s_minor_rev_level;
	uint32_t s_lastcheck, s_checkinterval, s_creator_os, s_rev_level;
	uint16_t s_def_resuid, s_def_resgid;
	/* revision 1 */
	uint32_t s_first_ino;
	uint16_t s_inode_size, s_block_group_nr;
	uint32_t s_feature_compat, s_feature_incompat, s_feature_ro_compat;
} __attribute__((packed));
#define EXT2_SUPER_SIZE 1024 /* what the super block's copy in memory spans */

struct ext2_group_desc {
	uint32_t bg_block_bitmap, bg_inode_bitmap, bg_inode_table;
	uint16_t bg_free_blocks_count, bg_free_inodes_count, bg_used_dirs_count, bg_pad;
	uint32_t bg_reserved[3];
} __attribute__((packed));

struct ext2_disk_inode {
	uint16_t i_mode, i_uid;
	uint32_t i_size, i_atime, i_ctime, i_mtime, i_dtime;
	uint16_t i_gid, i_links_count;
	uint32_t i_blocks, i_flags, i_osd1;
	uint32_t i_block[EXT2_NDIR + 3];
	uint32_t i_generation, i_file_acl, i_size_high, i_faddr;
	uint8_t l_i_frag, l_i_fsize;
	uint16_t i_pad1, l_i_uid_high, l_i_gid_high;
	uint32_t l_i_reserved2;
} __attribute__((packed));

struct ext2_dirent {
	uint32_t inode;
	uint16_t rec_len;
	uint8_t name_len, file_type;
	char name[];
} __attribute__((packed));

/* One group's metadata places, checked at mount: constant. */
struct ext2_group {
	uint32_t block_bitmap, inode_bitmap, inode_table;
};

/* One mounted instance (sb->fs_info). */
struct ext2_sb_info {
	/* Constant after fill. */
	uint32_t block_size, addr_per_block;
	uint32_t blocks_count, first_data_block, inodes_count, blocks_per_group;
	uint32_t inodes_per_group, inode_size, groups, first_ino, gdt_blocks, reserved_gdt;
	uint32_t r_blocks, resuid, resgid;
	bool filetype, sparse_super, large_file;
	bool ro_only;		  /* an unknown RO_COMPAT feature: read-only mounts only */
	bool sync;		  /* -o sync: metadata and data written through */
	uint8_t errors;		  /* EXT2_ERRORS_*: the errors= option, or s_errors */
	uint8_t def_errors;	  /* s_errors (show_options leaves it out) */
	bool rw;		  /* read-write now: the disk is marked not clean */
	uint16_t mount_state;	  /* s_state when read-write began, written back at its end */
	uint32_t overhead;	  /* metadata blocks, which statfs leaves out */
	struct ext2_group *group; /* each group's bitmaps and inode table (checked) */
	uint32_t itable_blocks;	  /* inode-table blocks per group */
	/*
	 * alloc_lock protects the block and inode bitmaps, the group
	 * descriptors' counts and the counts below (and the super block's
	 * copies of them): a sleeping lock, held across the bitmap's,
	 * descriptor's and super block's buffers taken one at a time.
	 */
	struct mutex alloc_lock;
	uint32_t free_blocks, free_inodes;
	uint16_t state; /* s_state written at sync: VALID while clean, ERROR once damaged */
	/*
	 * ns_lock serialises every change of the instance's namespace:
	 * directory entries (insertion, removal, rename), link counts, the
	 * ancestry a rename checks.  Lookups do not take it: they read a
	 * directory block under its buffer's lock, and a change rewrites an
	 * entry under the same lock, so a lookup sees it before or after.
	 */
	struct mutex ns_lock;
	/* The device this instance holds alone (super.c's claim_dev), in
	 * its list under ext2_devs_lock; NULL before the claim. */
	struct block_device *bdev;
	struct list_head dev_link;
	/* The inodes alive (struct ext2_inode.hash_link), so one disk inode
	 * is one VFS inode (hard links, umount's busy check): under
	 * icache_lock.  Entries hold no reference; the last inode_put
	 * removes one at the end of its free_inode, then wakes icache_wq,
	 * where lookups of its number wait meanwhile. */
	struct spinlock icache_lock;
	struct list_head icache;
	struct wait_queue icache_wq;
	/*
	 * Held by ext2_iget from its second look in the icache to the
	 * loaded inode's entry there, so that a disk inode is read into one
	 * VFS inode at a time: two would each attach the file's mapping
	 * (mm/filemap.h: one host), and the one put back would detach it
	 * from under the other, freeing it when it had no pages.
	 */
	struct mutex load_lock;
};

/*
 * An inode: the core, and the block map.  map_lock (sleeping) is held by
 * whoever changes or walks the block map or the size of the file's data:
 * reads, writes, truncation, ext2_get_block, and the disk inode's end.
 * block[] and disk_blocks change under map_lock and the core's lock
 * both, so ext2_write_inode copies them under the core's lock alone.
 */
struct ext2_inode {
	struct inode vfs;
	struct mutex map_lock;
	uint32_t block[EXT2_NDIR + 3]; /* a device's number instead, as Linux */
	uint64_t disk_blocks;	       /* i_blocks: 512-byte sectors */
	uint32_t last_alloc;	       /* the block last given it (balloc's goal), under map_lock */
	bool fresh; /* made here, not written yet: its raw inode is zeroed first */
	/* A regular file's cached pages (mm/filemap.h), attached when it is
	 * read from the disk or made, detached by free_inode: constant between. */
	struct address_space *mapping;
	struct list_head hash_link;
};

#define EXT2_I(ip) container_of(ip, struct ext2_inode, vfs)

static inline struct ext2_sb_info *EXT2_SB(const struct super_block *sb)
{
	return sb->fs_info;
}

/* The time now, in the seconds the disk keeps (stat agrees before and
 * after the inode is read back). */
static inline uint64_t ext2_now(void)
{
	uint64_t ns = inode_now_ns();

	return ns - ns % 1000000000ULL;
}

static inline bool ext2_rdonly(const struct super_block *sb)
{
	return __atomic_load_n(&sb->flags, __ATOMIC_RELAXED) & SB_RDONLY;
}

/* inode.c */
int ext2_iget(struct super_block *sb, uint32_t ino, struct inode **out);
int ext2_read_block(struct super_block *sb, uint32_t pblk, struct buf **out);
/* Whether pblk may hold a file's data or map (inside the file system,
 * past the super block): false after an "ext2: error" line. */
bool ext2_data_block_ok(struct super_block *sb, uint32_t pblk, const char *what);
void ext2_getattr(struct inode *ip, struct uapi_stat *st);
int ext2_setattr(struct inode *ip, const struct iattr *a);
/* Damage found: the "ext2: error" line, the error state, errors=. */
void ext2_error(struct super_block *sb, const char *what, uint64_t n);
struct inode *ext2_alloc_inode(struct super_block *sb, uint32_t mode);
void ext2_free_inode(struct inode *ip);
/* file.c */
extern const struct inode_operations ext2_file_iops;
extern const struct filemap_ops ext2_filemap_ops;
/* Writes ip's core and map into its disk inode (through the buffer
 * cache; written through on a sync mount): 0 or -EIO. */
int ext2_write_inode(struct inode *ip);
/* A new inode's VFS side, in the icache (ialloc gave it its number). */
void ext2_icache_add(struct inode *ip);
/* Marks b dirty and, on a sync mount, writes it now: 0 or -EIO. */
int ext2_dirty(struct super_block *sb, struct buf *b);

/* bmap.c */
/*
 * The disk block of ip's block lblk in *pblk, 0 for a hole; with create,
 * a hole gets a new zeroed-on-disk-order block (and the indirect blocks
 * on the way, zeroed), ip's i_blocks and disk inode updated.  Takes
 * ip's map_lock unless the caller holds it (ext2_get_block_locked).
 * 0, -EIO (a damaged map), -ENOSPC, -EFBIG (past the triple-indirect
 * range or the instance's maxbytes), -EROFS.
 */
int ext2_get_block(struct inode *ip, uint64_t lblk, bool create, uint32_t *pblk);
int ext2_get_block_locked(struct inode *ip, uint64_t lblk, bool create, uint32_t *pblk);
/* Under map_lock: frees ip's blocks from byte size on (indirect blocks
 * that map nothing any more too), holes staying holes. 0 or -EIO. */
int ext2_truncate_blocks(struct inode *ip, uint64_t size);

/* balloc.c */
/* A free block near goal (0: near ip's inode), taken: 0, -ENOSPC, -EIO.
 * Non-root callers may not take the last r_blocks. */
int ext2_new_block(struct inode *ip, uint32_t goal, uint32_t *out);
void ext2_free_block(struct super_block *sb, uint32_t blk);
/* Under alloc_lock: clears bit of the bitmap block map: 1 if it was set,
 * 0 if it was clear already (the caller's damage to report), or -EIO. */
int ext2_bitmap_clear(struct super_block *sb, uint32_t map, uint32_t bit);

/* ialloc.c */
/* A free inode for a new file of mode in dir: its number, -ENOSPC, -EIO. */
long ext2_new_ino(struct inode *dir, uint32_t mode);
void ext2_free_ino(struct super_block *sb, uint32_t ino, bool dir);

/* super.c */
/* Whether group g has a copy of the super block and descriptors. */
bool ext2_group_has_super(const struct ext2_sb_info *si, uint32_t g);
/* Writes the counts and state into the super block's buffer. */
int ext2_write_super(struct super_block *sb);
/* Under alloc_lock: adds to group g's free blocks, free inodes and
 * directories, in its descriptor, the instance's counts and the super
 * block: 0 or -EIO. */
int ext2_count(struct super_block *sb, uint32_t g, int blocks, int inodes, int dirs);
/* The descriptor of group g in its buffer (*bp, locked): NULL and -EIO. */
struct ext2_group_desc *ext2_group_desc(struct super_block *sb, uint32_t g, struct buf **bp);

/* dir.c */
extern const struct inode_operations ext2_dir_iops;
/* The inode number dir's entry name holds: 0 (none) or -EIO. */
long ext2_find_ino(struct inode *dir, const char *name, size_t len);
/* Under ns_lock: adds an entry name -> ino of mode's type. */
int ext2_add_entry(struct inode *dir, const char *name, size_t len, uint32_t ino, uint32_t mode);
/* Under ns_lock: removes entry name (its inode number in *ino, which
 * must match *ino when nonzero). */
int ext2_remove_entry(struct inode *dir, const char *name, size_t len, uint32_t *ino);
/* Under ns_lock: points entry name at ino (rename over an entry, "..").*/
int ext2_set_entry(struct inode *dir, const char *name, size_t len, uint32_t ino, uint32_t mode);
/* Under ns_lock: whether dir holds only "." and "..": 1, 0, or -EIO. */
int ext2_dir_empty(struct inode *dir);
/* A new directory's first block: "." and "..". */
int ext2_make_empty(struct inode *dir, uint32_t parent);

/* namei.c: the namespace operations of ext2_dir_iops */
int ext2_create(struct inode *dir, const char *name, size_t len, uint32_t mode, uint32_t rdev,
		struct inode **out);
int ext2_symlink(struct inode *dir, const char *name, size_t len, const char *target, size_t tlen);
int ext2_link(struct inode *dir, const char *name, size_t len, struct inode *ip);
int ext2_unlink(struct inode *dir, const char *name, size_t len);
int ext2_rmdir(struct inode *dir, const char *name, size_t len);
int ext2_rename(struct inode *olddir, const char *oldname, size_t oldlen, struct inode *newdir,
		const char *newname, size_t newlen, unsigned int flags);

#endif
