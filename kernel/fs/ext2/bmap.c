/*
 * ext2's block map (docs/ext2.md, "Files"): 12 direct pointers, then
 * single, double and triple indirect blocks; a 0 pointer is a hole.
 * ext2_get_block finds (and with create, makes) a file block's disk
 * block; ext2_truncate_blocks frees a file's blocks past a size.  Both
 * run under the inode's map_lock, so nothing else changes the map
 * meanwhile; each level is one buffer taken and released before the
 * next, so a damaged map (an indirect block naming itself) is only a
 * wrong pointer, never a lock taken twice.
 */
#include "fs/ext2/ext2.h"
#include "block/bcache.h"
#include "lib/string.h"
#include "mm/heap.h"
#include <uapi/errno.h>

/*
 * Where lblk sits: the depth of its tree (0 direct, 1..3 indirect), the
 * root slot in i_block and each level's index in idx[1..depth].  -1 past
 * the triple-indirect range.
 */
static int map_path(const struct ext2_sb_info *si, uint64_t lblk, uint32_t *root, uint32_t idx[4])
{
	uint64_t apb = si->addr_per_block, span = 1;
	int depth;

	if (lblk < EXT2_NDIR) {
		*root = lblk;
		return 0;
	}
	lblk -= EXT2_NDIR;
	for (depth = 1, span = apb; depth <= 3 && lblk >= span; depth++, span *= apb)
		lblk -= span;
	if (depth > 3)
		return -1;
	*root = EXT2_NDIR + depth - 1;
	for (int l = 1; l <= depth; l++) {
		span /= apb;
		idx[l] = (lblk / span) % apb;
	}
	return depth;
}

/* Under map_lock: entry i of indirect block blk (checked), or -EIO. */
static int read_entry(struct inode *ip, uint32_t blk, uint32_t i, uint32_t *out)
{
	struct buf *b;
	int err = ext2_read_block(ip->sb, blk, &b);

	if (err)
		return err;
	*out = ((const uint32_t *)b->data)[i];
	brelse(b);
	if (*out && !ext2_data_block_ok(ip->sb, *out, "block map entry outside the file system:"))
		return -EIO;
	return 0;
}

/* Under map_lock: a new block for ip, after the one it got last; an
 * indirect block is zeroed in the cache before anything points at it. */
static int new_map_block(struct inode *ip, bool indirect, uint32_t *out)
{
	struct ext2_inode *ei = EXT2_I(ip);
	struct super_block *sb = ip->sb;
	struct buf *b;
	int err = ext2_new_block(ip, ei->last_alloc ? ei->last_alloc + 1 : 0, out);

	if (err)
		return err;
	ei->last_alloc = *out;
	spin_lock(&ip->lock);
	ei->disk_blocks += EXT2_SB(sb)->block_size / 512;
	spin_unlock(&ip->lock);
	if (!indirect)
		return 0;
	if ((err = bget(sb->bdev, *out, &b)))
		return err;
	memset(b->data, 0, b->size);
	err = ext2_dirty(sb, b);
	brelse(b);
	return err;
}

/* Under map_lock: points entry i of indirect block blk (0: the inode's
 * slot i) at target. */
static int set_entry(struct inode *ip, uint32_t blk, uint32_t i, uint32_t target)
{
	struct buf *b;
	int err;

	if (!blk) {
		spin_lock(&ip->lock);
		EXT2_I(ip)->block[i] = target;
		spin_unlock(&ip->lock);
		return 0;
	}
	if ((err = ext2_read_block(ip->sb, blk, &b)))
		return err;
	((uint32_t *)b->data)[i] = target;
	err = ext2_dirty(ip->sb, b);
	brelse(b);
	return err;
}

int ext2_get_block_locked(struct inode *ip, uint64_t lblk, bool create, uint32_t *pblk)
{
	struct ext2_sb_info *si = EXT2_SB(ip->sb);
	uint32_t idx[4], root, parent = 0, ptr, slot;
	int depth = map_path(si, lblk, &root, idx), err = 0;
	bool grew = false;

	*pblk = 0;
	if (depth < 0 || (create && (lblk + 1) * si->block_size > ip->sb->maxbytes))
		return create ? -EFBIG : 0; /* past what a map reaches: a hole */
	if (create && ext2_rdonly(ip->sb))
		return -EROFS;
	ptr = __atomic_load_n(&EXT2_I(ip)->block[root], __ATOMIC_RELAXED);
	if (ptr && !ext2_data_block_ok(ip->sb, ptr, "block map entry outside the file system:"))
		return -EIO;
	slot = root;
	/* Level l's pointer is ptr, found in parent (0: the inode) at slot;
	 * a hole on the way is filled (create) or ends the walk. */
	for (int l = 0;; l++) {
		if (!ptr) {
			if (!create)
				return 0;
			if ((err = new_map_block(ip, l < depth, &ptr)) ||
			    (err = set_entry(ip, parent, slot, ptr)))
				break;
			grew = true;
		}
		if (l == depth)
			break;
		parent = ptr;
		slot = idx[l + 1];
		if ((err = read_entry(ip, parent, slot, &ptr)))
			break;
	}
	if (grew)
		err = ext2_write_inode(ip) ?: err;
	if (!err)
		*pblk = ptr;
	return err;
}

int ext2_get_block(struct inode *ip, uint64_t lblk, bool create, uint32_t *pblk)
{
	struct ext2_inode *ei = EXT2_I(ip);
	int err;

	mutex_lock(&ei->map_lock);
	err = ext2_get_block_locked(ip, lblk, create, pblk);
	mutex_unlock(&ei->map_lock);
	return err;
}

/* Under map_lock: one of ip's blocks goes back to the bitmap. */
static void drop_block(struct inode *ip, uint32_t blk)
{
	ext2_free_block(ip->sb, blk);
	spin_lock(&ip->lock);
	EXT2_I(ip)->disk_blocks -= EXT2_SB(ip->sb)->block_size / 512;
	spin_unlock(&ip->lock);
}

/*
 * Under map_lock: frees what indirect block blk maps (depth levels
 * below it, 1: data blocks) from its relative block `from` on; *empty
 * says whether it maps nothing any more (the caller frees it then).  A
 * copy of the block is walked, so no buffer is held across the levels.
 */
static int free_branch(struct inode *ip, uint32_t blk, int depth, uint64_t from, bool *empty)
{
	struct ext2_sb_info *si = EXT2_SB(ip->sb);
	uint64_t span = 1;
	uint32_t apb = si->addr_per_block, *tab;
	bool changed = false;
	struct buf *b;
	int err;

	for (int l = 1; l < depth; l++)
		span *= apb;
	if (!(tab = kmalloc(si->block_size)))
		return -ENOMEM;
	if ((err = ext2_read_block(ip->sb, blk, &b))) {
		kfree(tab);
		return err;
	}
	memcpy(tab, b->data, si->block_size);
	brelse(b);
	*empty = true;
	for (uint32_t i = 0; i < apb && !err; i++) {
		uint64_t start = i * span;
		bool gone = true;

		if (!tab[i])
			continue;
		if (start + span <= from) {
			*empty = false; /* wholly below the new end: kept */
			continue;
		}
		if (!ext2_data_block_ok(ip->sb, tab[i],
					"block map entry outside the file system:")) {
			err = -EIO;
			break;
		}
		if (depth > 1)
			err = free_branch(ip, tab[i], depth - 1, from > start ? from - start : 0,
					  &gone);
		if (err || !gone) {
			*empty = false;
			continue;
		}
		drop_block(ip, tab[i]);
		tab[i] = 0;
		changed = true;
	}
	if (changed && !ext2_read_block(ip->sb, blk, &b)) {
		memcpy(b->data, tab, si->block_size);
		err = ext2_dirty(ip->sb, b) ?: err;
		brelse(b);
	}
	kfree(tab);
	return err;
}

int ext2_truncate_blocks(struct inode *ip, uint64_t size)
{
	struct ext2_inode *ei = EXT2_I(ip);
	struct ext2_sb_info *si = EXT2_SB(ip->sb);
	uint64_t first = (size + si->block_size - 1) / si->block_size, start = EXT2_NDIR;
	uint64_t span = si->addr_per_block;
	int err = 0;

	for (uint32_t i = first; i < EXT2_NDIR; i++) {
		uint32_t blk = ei->block[i];

		if (!blk)
			continue;
		set_entry(ip, 0, i, 0);
		if (ext2_data_block_ok(ip->sb, blk, "block map entry outside the file system:"))
			drop_block(ip, blk);
	}
	for (int depth = 1; depth <= 3 && !err;
	     depth++, start += span, span *= si->addr_per_block) {
		uint32_t root = ei->block[EXT2_NDIR + depth - 1];
		bool gone;

		if (!root || start + span <= first)
			continue;
		if (!ext2_data_block_ok(ip->sb, root, "block map entry outside the file system:")) {
			err = -EIO;
			break;
		}
		err = free_branch(ip, root, depth, first > start ? first - start : 0, &gone);
		if (!err && gone) {
			set_entry(ip, 0, EXT2_NDIR + depth - 1, 0);
			drop_block(ip, root);
		}
	}
	ei->last_alloc = 0;
	return ext2_write_inode(ip) ?: err;
}
