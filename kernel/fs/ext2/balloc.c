/*
 * ext2 block allocation (docs/ext2.md, "Allocation"): the block bitmaps,
 * the group descriptors' free counts and the super block's, changed
 * together under the instance's alloc_lock.  As Linux's ext2 balloc in
 * small: a file's next block is searched from a goal (the block after
 * the one it got last, else its inode's group), group by group from
 * there; the last s_r_blocks_count blocks are root's.  A bitmap that
 * disagrees with its counts or marks metadata free is damage: an
 * "ext2: error" line, and the search goes on past it.
 */
#include "fs/ext2/ext2.h"
#include "block/bcache.h"
#include "proc/cred.h"
#include <uapi/capability.h>
#include <uapi/errno.h>

/* Group g's first block and its block count (the last group may be short). */
static uint32_t group_first(const struct ext2_sb_info *si, uint32_t g)
{
	return si->first_data_block + g * si->blocks_per_group;
}

static uint32_t group_len(const struct ext2_sb_info *si, uint32_t g)
{
	uint32_t left = si->blocks_count - group_first(si, g);

	return left < si->blocks_per_group ? left : si->blocks_per_group;
}

/* Whether blk is one of group g's bitmaps or inode-table blocks, or its
 * super block copy, descriptors and reserved descriptors (Linux's
 * "system zone"). */
static bool system_block(const struct ext2_sb_info *si, uint32_t g, uint32_t blk)
{
	const struct ext2_group *gr = &si->group[g];
	uint32_t first = group_first(si, g);

	if (blk == gr->block_bitmap || blk == gr->inode_bitmap ||
	    (blk >= gr->inode_table && blk - gr->inode_table < si->itable_blocks))
		return true;
	return ext2_group_has_super(si, g) && blk >= first &&
	       blk - first < 1 + si->gdt_blocks + si->reserved_gdt;
}

/* The first clear bit of map at or after start and below n, or -1. */
static long find_clear(const uint8_t *map, uint32_t start, uint32_t n)
{
	for (uint32_t i = start; i < n; i++) {
		if (!(i & 7) && map[i >> 3] == 0xff && i + 8 <= n) {
			i += 7;
			continue;
		}
		if (!(map[i >> 3] & (1U << (i & 7))))
			return i;
	}
	return -1;
}

/* Linux's ext2_has_free_blocks: the reserve is root's (CAP_SYS_RESOURCE),
 * s_def_resuid's and s_def_resgid's group's. */
static bool may_take(const struct ext2_sb_info *si)
{
	const struct cred *c;

	if (si->free_blocks == 0 || si->free_blocks > si->blocks_count)
		return si->free_blocks != 0;
	if (si->free_blocks > si->r_blocks)
		return true;
	c = cred_current();
	return capable(CAP_SYS_RESOURCE) || c->fsuid == si->resuid ||
	       (si->resgid != 0 && cred_in_group(c, si->resgid));
}

/*
 * Under alloc_lock: takes a clear bit of group g's bitmap at or after
 * start (an offset in the group): the block, 0 when the group has none,
 * or -EIO.  A clear bit on metadata is damage: it is set (the block is
 * in use) and the search goes on.
 */
static long take_in_group(struct super_block *sb, uint32_t g, uint32_t start)
{
	struct ext2_sb_info *si = EXT2_SB(sb);
	uint32_t n = group_len(si, g);
	struct buf *b;
	long bit;

	if (ext2_read_block(sb, si->group[g].block_bitmap, &b))
		return -EIO;
	/* From start to the group's end, then from its beginning: each turn
	 * sets a bit, so the walk is bounded by the bitmap. */
	for (uint32_t from = start, pass = 0; pass < 2; pass++, from = 0) {
		while ((bit = find_clear(b->data, from, n)) >= 0) {
			uint32_t blk = group_first(si, g) + bit;
			int err;

			b->data[bit >> 3] |= 1U << (bit & 7);
			err = ext2_dirty(sb, b);
			if (!system_block(si, g, blk) && blk > si->first_data_block) {
				brelse(b);
				return err ? err : (long)blk;
			}
			ext2_error(sb, "block bitmap marks metadata free: block", blk);
			from = bit + 1;
		}
	}
	brelse(b);
	return 0;
}

int ext2_new_block(struct inode *ip, uint32_t goal, uint32_t *out)
{
	struct super_block *sb = ip->sb;
	struct ext2_sb_info *si = EXT2_SB(sb);
	uint32_t ino_group = (ip->ino - 1) / si->inodes_per_group, g0;
	long blk = 0;

	if (!goal || goal <= si->first_data_block || goal >= si->blocks_count)
		goal = group_first(si, ino_group < si->groups ? ino_group : 0);
	g0 = (goal - si->first_data_block) / si->blocks_per_group;
	mutex_lock(&si->alloc_lock);
	if (!may_take(si)) {
		mutex_unlock(&si->alloc_lock);
		return -ENOSPC;
	}
	for (uint32_t i = 0; i < si->groups && !blk; i++) {
		uint32_t g = (g0 + i) % si->groups, start = i ? 0 : goal - group_first(si, g);
		struct buf *b;
		struct ext2_group_desc *gd = ext2_group_desc(sb, g, &b);
		uint16_t nfree = gd ? gd->bg_free_blocks_count : 0;

		if (!gd) {
			blk = -EIO;
			break;
		}
		brelse(b);
		if (!nfree)
			continue;
		blk = take_in_group(sb, g, start);
		if (blk > 0)
			blk = ext2_count(sb, g, -1, 0, 0) ?: blk;
		else if (!blk)
			ext2_error(sb, "free blocks count wrong for group", g);
	}
	mutex_unlock(&si->alloc_lock);
	if (blk <= 0)
		return blk ? (int)blk : -ENOSPC;
	*out = blk;
	return 0;
}

void ext2_free_block(struct super_block *sb, uint32_t blk)
{
	struct ext2_sb_info *si = EXT2_SB(sb);
	uint32_t g, bit;

	if (blk <= si->first_data_block || blk >= si->blocks_count) {
		ext2_error(sb, "freeing a block outside the file system:", blk);
		return;
	}
	g = (blk - si->first_data_block) / si->blocks_per_group;
	bit = (blk - si->first_data_block) % si->blocks_per_group;
	if (system_block(si, g, blk)) {
		ext2_error(sb, "freeing blocks in system zones: block", blk);
		return;
	}
	mutex_lock(&si->alloc_lock);
	if (ext2_bitmap_clear(sb, si->group[g].block_bitmap, bit) > 0)
		ext2_count(sb, g, 1, 0, 0);
	else
		ext2_error(sb, "bit already cleared for block", blk);
	mutex_unlock(&si->alloc_lock);
}

int ext2_bitmap_clear(struct super_block *sb, uint32_t map, uint32_t bit)
{
	struct buf *b;
	int was, err;

	if ((err = ext2_read_block(sb, map, &b)))
		return err;
	was = !!(b->data[bit >> 3] & (1U << (bit & 7)));
	b->data[bit >> 3] &= ~(1U << (bit & 7));
	err = was ? ext2_dirty(sb, b) : 0;
	brelse(b);
	return err ? err : was;
}
