/*
 * ext2's super block (docs/ext2.md): mount reads and checks the super
 * block and the group descriptors as hostile input (any inconsistency
 * is EINVAL, before an inode is read), statfs reports its counts, and
 * the instance's end closes the device.
 */
#include "fs/ext2/ext2.h"
#include "block/bcache.h"
#include "block/blkdev.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/filemap.h"
#include "mm/heap.h"
#include <uapi/errno.h>

#define EXT2_GOOD_OLD_INODE_SIZE 128
#define EXT2_GOOD_OLD_FIRST_INO	 11

static int bad(const char *why)
{
	printk("ext2: mount refused: %s\n", why);
	return -EINVAL;
}

/* The super block's geometry, against itself and the device's size. */
static int check_super(const struct ext2_disk_super *ds, uint64_t dev_bytes,
		       struct ext2_sb_info *si)
{
	uint32_t bs;

	if (ds->s_magic != EXT2_MAGIC)
		return bad("no ext2 magic");
	if (ds->s_log_block_size > 2)
		return bad("block size past 4 KiB");
	bs = 1024U << ds->s_log_block_size;
	if (ds->s_rev_level > 1)
		return bad("unknown revision");
	if (ds->s_rev_level && (ds->s_feature_incompat & ~EXT2_INCOMPAT_FILETYPE))
		return bad("unsupported incompatible features");
	si->inode_size = ds->s_rev_level ? ds->s_inode_size : EXT2_GOOD_OLD_INODE_SIZE;
	if (si->inode_size < EXT2_GOOD_OLD_INODE_SIZE || si->inode_size > bs ||
	    (si->inode_size & (si->inode_size - 1)))
		return bad("inode size");
	if (!ds->s_blocks_per_group || ds->s_blocks_per_group > 8 * bs || !ds->s_inodes_per_group ||
	    ds->s_inodes_per_group > 8 * bs)
		return bad("blocks or inodes per group");
	if (ds->s_first_data_block != (bs == 1024) || ds->s_blocks_count <= ds->s_first_data_block)
		return bad("first data block or block count");
	if ((uint64_t)ds->s_blocks_count * bs > dev_bytes)
		return bad("block count exceeds the device");
	si->block_size = bs;
	si->addr_per_block = bs / 4;
	si->blocks_count = ds->s_blocks_count;
	si->first_data_block = ds->s_first_data_block;
	si->inodes_per_group = ds->s_inodes_per_group;
	si->groups = (ds->s_blocks_count - ds->s_first_data_block + ds->s_blocks_per_group - 1) /
		     ds->s_blocks_per_group;
	if ((uint64_t)si->groups * ds->s_inodes_per_group != ds->s_inodes_count)
		return bad("group count does not match the inode count");
	si->inodes_count = ds->s_inodes_count;
	si->itable_blocks =
	    (uint32_t)(((uint64_t)si->inodes_per_group * si->inode_size + bs - 1) / bs);
	si->free_blocks = ds->s_free_blocks_count;
	si->free_inodes = ds->s_free_inodes_count;
	si->r_blocks = ds->s_r_blocks_count;
	si->sparse_super =
	    ds->s_rev_level && (ds->s_feature_ro_compat & EXT2_RO_COMPAT_SPARSE_SUPER);
	si->filetype = ds->s_rev_level && (ds->s_feature_incompat & EXT2_INCOMPAT_FILETYPE);
	return 0;
}

/* The group descriptors (the blocks after the super block's): each
 * group's inode table inside the file system. */
static int read_groups(struct super_block *sb, struct ext2_sb_info *si)
{
	uint32_t per_block = si->block_size / sizeof(struct ext2_group_desc);
	uint32_t gdt = si->first_data_block + 1;

	if (!(si->inode_table = kmalloc(si->groups * sizeof(uint32_t))))
		return -ENOMEM;
	for (uint32_t g = 0; g < si->groups; g += per_block) {
		struct buf *b;
		uint32_t blk = gdt + g / per_block;

		if (blk >= si->blocks_count)
			return bad("group descriptors past the end");
		if (bread(sb->bdev, blk, &b))
			return -EIO;
		for (uint32_t i = 0; i < per_block && g + i < si->groups; i++) {
			const struct ext2_group_desc *gd =
			    (const struct ext2_group_desc *)b->data + i;
			uint32_t t = gd->bg_inode_table;

			si->inode_table[g + i] = t;
			if (t <= gdt || t >= si->blocks_count ||
			    si->blocks_count - t < si->itable_blocks) {
				brelse(b);
				return bad("inode table outside the file system");
			}
		}
		brelse(b);
	}
	return 0;
}

/* Reads the super block (byte 1024, 1024 bytes) in blocks the device
 * takes, then sets the device's cache block size to the file system's. */
static int read_super(struct super_block *sb, struct ext2_sb_info *si)
{
	struct block_device *bdev = sb->bdev;
	uint32_t lb = bdev->disk->lbsize > 1024 ? bdev->disk->lbsize : 1024;
	struct ext2_disk_super ds;
	struct buf *b;
	int err;

	if (bdev_bytes(bdev) < 2048)
		return bad("device too small");
	bcache_set_blocksize(bdev, lb);
	if ((err = bread(bdev, 1024 / lb, &b)))
		return err;
	memcpy(&ds, b->data + 1024 % lb, sizeof(ds));
	brelse(b);
	if ((err = check_super(&ds, bdev_bytes(bdev), si)))
		return err;
	if (si->block_size < bdev->disk->lbsize)
		return bad("block size below the device's sector size");
	bcache_set_blocksize(bdev, si->block_size);
	return 0;
}

/* Whether group g has a copy of the super block and descriptors
 * (sparse_super: groups 0, 1 and the powers of 3, 5 and 7). */
static bool group_has_super(const struct ext2_sb_info *si, uint32_t g)
{
	if (!si->sparse_super || g <= 1)
		return true;
	for (uint32_t b = 3; b <= 7; b += 2) {
		uint64_t p = b;

		while (p < g)
			p *= b;
		if (p == g)
			return true;
	}
	return false;
}

/* Blocks the metadata takes (Linux's bsddf statfs, its default): the
 * super block copies and descriptors, two bitmaps and the inode table
 * of each group; computed once at mount. */
static uint32_t overhead(const struct ext2_sb_info *si)
{
	uint32_t gdb = (si->groups + si->block_size / 32 - 1) / (si->block_size / 32);
	uint64_t n = si->first_data_block;

	for (uint32_t g = 0; g < si->groups; g++)
		n += (group_has_super(si, g) ? 1 + gdb : 0) + 2 + si->itable_blocks;
	return n < si->blocks_count ? (uint32_t)n : si->blocks_count;
}

static int ext2_fill(struct super_block *sb, const char *data)
{
	struct ext2_sb_info *si;
	struct inode *root;
	int err;

	if (*data)
		return -EINVAL; /* no options yet */
	if (!(si = kzalloc(sizeof(*si))))
		return -ENOMEM;
	spin_init(&si->icache_lock, "ext2_icache");
	list_init(&si->icache);
	sb->fs_info = si; /* freed by put_super, whatever happens below */
	sb->icache = true;
	if ((err = read_super(sb, si)) || (err = read_groups(sb, si)))
		return err;
	si->overhead = overhead(si);
	/* The largest file a triple-indirect map reaches, and below 2^32
	 * blocks of 512 bytes (i_blocks), as Linux's ext2_max_size. */
	sb->maxbytes = (uint64_t)INT64_MAX;
	if ((err = ext2_iget(sb, EXT2_ROOT_INO, &root)))
		return err == -EIO ? -EINVAL : err;
	if (!S_ISDIR(root->mode)) {
		inode_put(root);
		return bad("root is not a directory");
	}
	sb->root = root;
	return 0;
}

static void ext2_kill_tree(struct inode *root)
{
	inode_put(root); /* the instance's: nothing else of the tree is held */
}

static void ext2_put_super(struct super_block *sb)
{
	struct ext2_sb_info *si = EXT2_SB(sb);

	if (si)
		kfree(si->inode_table);
	kfree(si);
	filemap_drop_sb(sb); /* no inode is left: the files' pages go */
	/* Its blocks stay cached for the device's other users, as Linux's
	 * page cache of the block device keeps them. */
	bdev_close(sb->bdev);
}

static void ext2_statfs(struct super_block *sb, struct kstatfs *st)
{
	const struct ext2_sb_info *si = EXT2_SB(sb);

	st->bsize = si->block_size;
	st->blocks = si->blocks_count - si->overhead;
	st->bfree = si->free_blocks <= si->blocks_count ? si->free_blocks : 0;
	st->bavail = st->bfree > si->r_blocks ? st->bfree - si->r_blocks : 0;
	st->files = si->inodes_count;
	st->ffree = si->free_inodes <= si->inodes_count ? si->free_inodes : 0;
	st->namelen = EXT2_NAME_LEN;
}

static void ext2_show_options(struct super_block *sb, char *buf, size_t size)
{
	(void)sb;
	if (size)
		buf[0] = 0;
}

const struct super_operations ext2_super_ops = {
    .alloc_inode = ext2_alloc_inode,
    .free_inode = ext2_free_inode,
    .kill_tree = ext2_kill_tree,
    .put_super = ext2_put_super,
    .statfs = ext2_statfs,
};

const struct fs_type ext2_type = {
    .name = "ext2",
    .sops = &ext2_super_ops,
    .magic = EXT2_MAGIC,
    .fill = ext2_fill,
    .show_options = ext2_show_options,
    .requires_dev = true,
    .read_only = true,
};
