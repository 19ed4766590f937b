/*
 * ext2 inode allocation (docs/ext2.md, "Allocation"): the inode bitmaps,
 * the group descriptors' free-inode and directory counts and the super
 * block's, under the instance's alloc_lock.  As Linux's ext2 ialloc in
 * small: a file goes in its directory's group when that has room (its
 * blocks follow it there), a directory in a group with at least the
 * average of free inodes and the most free blocks (Orlov's spreading,
 * without its parent heuristics), so trees spread across the disk.
 */
#include "fs/ext2/ext2.h"
#include "block/bcache.h"
#include <uapi/errno.h>

/* Group g's free inodes and blocks (descriptor counts): false on -EIO. */
static bool group_counts(struct super_block *sb, uint32_t g, uint32_t *inodes, uint32_t *blocks)
{
	struct buf *b;
	struct ext2_group_desc *gd = ext2_group_desc(sb, g, &b);

	if (!gd)
		return false;
	*inodes = gd->bg_free_inodes_count;
	*blocks = gd->bg_free_blocks_count;
	brelse(b);
	return true;
}

/* Under alloc_lock: the group a new directory goes in, or -EIO. */
static long group_for_dir(struct super_block *sb)
{
	struct ext2_sb_info *si = EXT2_SB(sb);
	uint32_t avg = si->free_inodes / si->groups, best_blocks = 0, fi, fb;
	long best = -1;

	for (uint32_t g = 0; g < si->groups; g++) {
		if (!group_counts(sb, g, &fi, &fb))
			return -EIO;
		if (fi && fi >= avg && (best < 0 || fb > best_blocks)) {
			best = g;
			best_blocks = fb;
		}
	}
	return best < 0 ? 0 : best;
}

/* Under alloc_lock: the first group from the directory's on with a free
 * inode (and, the first pass, a free block), or -EIO. */
static long group_for_file(struct super_block *sb, uint32_t parent_group)
{
	struct ext2_sb_info *si = EXT2_SB(sb);
	uint32_t fi, fb;

	for (int pass = 0; pass < 2; pass++)
		for (uint32_t i = 0; i < si->groups; i++) {
			uint32_t g = (parent_group + i) % si->groups;

			if (!group_counts(sb, g, &fi, &fb))
				return -EIO;
			if (fi && (fb || pass))
				return g;
		}
	return parent_group;
}

/* Under alloc_lock: takes a clear bit of group g's inode bitmap (none
 * below first_ino): the inode number, 0 when full, or -EIO. */
static long take_in_group(struct super_block *sb, uint32_t g)
{
	struct ext2_sb_info *si = EXT2_SB(sb);
	uint32_t base = g * si->inodes_per_group, from = 0;
	struct buf *b;

	if (ext2_read_block(sb, si->group[g].inode_bitmap, &b))
		return -EIO;
	if (base + 1 < si->first_ino)
		from = si->first_ino - 1 - base;
	for (uint32_t i = from; i < si->inodes_per_group; i++) {
		if (!(i & 7) && b->data[i >> 3] == 0xff && i + 8 <= si->inodes_per_group) {
			i += 7;
			continue;
		}
		if (!(b->data[i >> 3] & (1U << (i & 7)))) {
			int err;

			b->data[i >> 3] |= 1U << (i & 7);
			err = ext2_dirty(sb, b);
			brelse(b);
			return err ? err : (long)(base + i + 1);
		}
	}
	brelse(b);
	return 0;
}

long ext2_new_ino(struct inode *dir, uint32_t mode)
{
	struct super_block *sb = dir->sb;
	struct ext2_sb_info *si = EXT2_SB(sb);
	uint32_t pg = (dir->ino - 1) / si->inodes_per_group;
	long g, ino = 0;

	mutex_lock(&si->alloc_lock);
	if (!si->free_inodes || si->free_inodes > si->inodes_count) {
		mutex_unlock(&si->alloc_lock);
		return -ENOSPC;
	}
	g = S_ISDIR(mode) ? group_for_dir(sb) : group_for_file(sb, pg < si->groups ? pg : 0);
	/* The chosen group first, then every other: a full bitmap whose
	 * count said otherwise is damage, and the search goes on. */
	for (uint32_t i = 0; g >= 0 && i < si->groups && !ino; i++) {
		uint32_t gg = (g + i) % si->groups, fi, fb;

		if (!group_counts(sb, gg, &fi, &fb)) {
			ino = -EIO;
			break;
		}
		if (!fi)
			continue;
		ino = take_in_group(sb, gg);
		if (ino > 0)
			ino = ext2_count(sb, gg, 0, -1, S_ISDIR(mode) ? 1 : 0) ?: ino;
		else if (!ino)
			ext2_error(sb, "free inodes count wrong for group", gg);
	}
	mutex_unlock(&si->alloc_lock);
	if (g < 0)
		return g;
	return ino ? ino : -ENOSPC;
}

void ext2_free_ino(struct super_block *sb, uint32_t ino, bool dir)
{
	struct ext2_sb_info *si = EXT2_SB(sb);
	uint32_t g = (ino - 1) / si->inodes_per_group, bit = (ino - 1) % si->inodes_per_group;

	if (ino < si->first_ino || ino > si->inodes_count) {
		ext2_error(sb, "freeing a reserved or nonexistent inode", ino);
		return;
	}
	mutex_lock(&si->alloc_lock);
	if (ext2_bitmap_clear(sb, si->group[g].inode_bitmap, bit) > 0)
		ext2_count(sb, g, 0, 1, dir ? -1 : 0);
	else
		ext2_error(sb, "bit already cleared for inode", ino);
	mutex_unlock(&si->alloc_lock);
}
