/*
 * ext2, read-only (docs/ext2.md): the on-disk layout it reads (revision 0
 * and 1, 1 to 4 KiB blocks) and its in-memory super block and inodes.
 * Everything read from the disk is hostile input: the super block and
 * group descriptors are checked at mount (EINVAL), every block number and
 * directory entry when used (EIO and an "ext2: error" line).
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

#define EXT2_MAGIC	   0xEF53
#define EXT2_ROOT_INO	   2
#define EXT2_NDIR	   12 /* direct block pointers; then single, double, triple */
#define EXT2_NAME_LEN	   255
#define EXT2_FAST_LINK_MAX 60 /* a link target up to this long lives in i_block */

/* Features (the only incompatible one read is filetype). */
#define EXT2_INCOMPAT_FILETYPE	    0x0002
#define EXT2_RO_COMPAT_SPARSE_SUPER 0x0001

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

/* One mounted instance (sb->fs_info): all constant after fill. */
struct ext2_sb_info {
	uint32_t block_size, addr_per_block;
	uint32_t blocks_count, first_data_block, inodes_count;
	uint32_t inodes_per_group, inode_size, groups;
	uint32_t free_blocks, free_inodes, r_blocks;
	bool filetype, sparse_super;
	uint32_t overhead;	/* metadata blocks, which statfs leaves out */
	uint32_t *inode_table;	/* each group's first inode-table block (checked) */
	uint32_t itable_blocks; /* inode-table blocks per group */
	/* The inodes alive (struct ext2_inode.hash_link), so one disk inode
	 * is one VFS inode (hard links, umount's busy check): under
	 * icache_lock.  Entries hold no reference; the last inode_put
	 * removes one (free_inode) before freeing it. */
	struct spinlock icache_lock;
	struct list_head icache;
};

/* An inode: the core, and the block map read from the disk (constant). */
struct ext2_inode {
	struct inode vfs;
	uint32_t block[EXT2_NDIR + 3];
	uint64_t disk_blocks; /* i_blocks: 512-byte sectors */
	/* A regular file's cached pages (mm/filemap.h), attached when it is
	 * read from the disk and detached by free_inode: constant between. */
	struct address_space *mapping;
	struct list_head hash_link;
};

#define EXT2_I(ip) container_of(ip, struct ext2_inode, vfs)

static inline struct ext2_sb_info *EXT2_SB(const struct super_block *sb)
{
	return sb->fs_info;
}

/* inode.c */
int ext2_iget(struct super_block *sb, uint32_t ino, struct inode **out);
int ext2_bmap(struct inode *ip, uint64_t lblk, uint32_t *pblk);
int ext2_read_block(struct super_block *sb, uint32_t pblk, struct buf **out);
void ext2_getattr(struct inode *ip, struct uapi_stat *st);
void ext2_error(struct super_block *sb, const char *what, uint64_t n);
struct inode *ext2_alloc_inode(struct super_block *sb, uint32_t mode);
void ext2_free_inode(struct inode *ip);
/* file.c */
extern const struct inode_operations ext2_file_iops;
extern const struct filemap_ops ext2_filemap_ops;
/* dir.c */
extern const struct inode_operations ext2_dir_iops;

#endif
