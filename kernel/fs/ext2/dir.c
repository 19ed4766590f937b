/*
 * ext2 directories (docs/ext2.md): the entries of each directory block
 * read in order (a dir_index directory is read linearly, which its
 * layout keeps valid).  Every entry is checked (rec_len a multiple of 4,
 * at least the name's record, inside the block; the name inside it; the
 * inode number in range): a bad one ends the walk with EIO and an
 * "ext2: error" line.  A walk is bounded by the directory's blocks.
 */
#include "fs/ext2/ext2.h"
#include "block/bcache.h"
#include "lib/string.h"
#include <uapi/errno.h>

#define DIRENT_HEAD 8 /* inode, rec_len, name_len, file_type */

/* Whether the entry at off of a block of size bs is sound. */
static bool dirent_ok(struct super_block *sb, const uint8_t *blk, uint32_t off, uint32_t bs)
{
	const struct ext2_dirent *de = (const void *)(blk + off);
	uint32_t rl;

	if (bs - off < DIRENT_HEAD)
		return false;
	rl = de->rec_len;
	if (rl < DIRENT_HEAD || rl % 4 || rl > bs - off ||
	    DIRENT_HEAD + (uint32_t)de->name_len > rl)
		return false;
	return de->inode <= EXT2_SB(sb)->inodes_count;
}

/* Linux's d_type from ext2's file_type (the filetype feature), else 0. */
static unsigned int dtype_of(const struct ext2_sb_info *si, uint8_t ft)
{
	static const unsigned char map[8] = {0, 8, 4, 2, 6, 1, 12, 10};

	return si->filetype && ft < 8 ? map[ft] : 0;
}

/*
 * Walks dir's entries from byte *pos, calling fn on each used one until
 * it returns false; *pos is left at the entry it stopped on, or the end.
 * 0, or -EIO for a damaged block or entry.
 */
typedef bool (*dirent_fn)(void *ctx, const struct ext2_dirent *de, uint64_t next);
static int dir_walk(struct inode *dir, uint64_t *pos, dirent_fn fn, void *ctx)
{
	struct super_block *sb = dir->sb;
	uint32_t bs = EXT2_SB(sb)->block_size;
	uint64_t size = inode_size(dir);

	while (*pos < size) {
		uint32_t pblk, off = *pos % bs;
		struct buf *b;
		int err = ext2_bmap(dir, *pos / bs, &pblk);

		if (!err && !pblk)
			err = -EIO; /* a directory has no holes */
		if (err || (err = ext2_read_block(sb, pblk, &b))) {
			ext2_error(sb, "unreadable directory block of inode", dir->ino);
			return err;
		}
		for (; off < bs; off += ((struct ext2_dirent *)(b->data + off))->rec_len) {
			const struct ext2_dirent *de = (const void *)(b->data + off);
			uint64_t here = *pos - *pos % bs + off;

			if (!dirent_ok(sb, b->data, off, bs)) {
				brelse(b);
				ext2_error(sb, "bad directory entry in inode", dir->ino);
				return -EIO;
			}
			*pos = here;
			if (de->inode && !fn(ctx, de, here + de->rec_len)) {
				brelse(b);
				return 0;
			}
		}
		brelse(b);
		*pos = *pos - *pos % bs + bs;
	}
	return 0;
}

struct find_ctx {
	const char *name;
	size_t len;
	uint32_t ino;
};

static bool find_one(void *ctx, const struct ext2_dirent *de, uint64_t next)
{
	struct find_ctx *c = ctx;

	(void)next;
	if (de->name_len != c->len || memcmp(de->name, c->name, c->len))
		return true;
	c->ino = de->inode;
	return false;
}

/* The inode number dir's entry name holds: 0 (none) or -EIO. */
static long find_ino(struct inode *dir, const char *name, size_t len)
{
	struct find_ctx c = {name, len, 0};
	uint64_t pos = 0;
	int err = dir_walk(dir, &pos, find_one, &c);

	return err ? (long)err : (long)c.ino;
}

static int ext2_lookup(struct inode *dir, const char *name, size_t len, struct inode **out)
{
	long ino = find_ino(dir, name, len);

	if (ino <= 0)
		return ino ? (int)ino : -ENOENT;
	return ext2_iget(dir->sb, ino, out);
}

struct emit_ctx {
	const struct ext2_sb_info *si;
	dir_emit_fn emit;
	void *ctx;
};

static bool emit_one(void *ctx, const struct ext2_dirent *de, uint64_t next)
{
	struct emit_ctx *c = ctx;

	return c->emit(c->ctx, de->name, de->name_len, de->inode, dtype_of(c->si, de->file_type),
		       next);
}

/* getdents: the entries as the disk has them ("." and ".." included),
 * positions being byte offsets (Linux's without dir_index hashing). */
static void ext2_iterate(struct inode *dir, uint64_t *pos, dir_emit_fn emit, void *ctx)
{
	struct emit_ctx c = {EXT2_SB(dir->sb), emit, ctx};
	uint64_t p = *pos;

	/* A damaged block ends the listing: from its end, not from the last
	 * entry given, which the next call would give again, and again. */
	if (dir_walk(dir, &p, emit_one, &c))
		p = inode_size(dir);
	*pos = p;
}

static struct inode *ext2_parent(struct inode *dir)
{
	long ino = find_ino(dir, "..", 2);
	struct inode *ip;

	if (dir == dir->sb->root || ino <= 0 || ext2_iget(dir->sb, ino, &ip)) {
		inode_get(dir); /* the root, or a damaged directory: itself */
		return dir;
	}
	return ip;
}

struct name_ctx {
	uint32_t ino;
	char *buf;
	size_t size;
	long len;
};

static bool name_one(void *ctx, const struct ext2_dirent *de, uint64_t next)
{
	struct name_ctx *c = ctx;

	(void)next;
	if (de->inode != c->ino ||
	    (de->name_len <= 2 && de->name[0] == '.' && (de->name_len == 1 || de->name[1] == '.')))
		return true;
	c->len = de->name_len < c->size ? de->name_len : (long)c->size - 1;
	memcpy(c->buf, de->name, c->len);
	c->buf[c->len] = 0;
	return false;
}

static long ext2_name_of(struct inode *dir, struct inode *child, char *buf, size_t size)
{
	struct name_ctx c = {(uint32_t)child->ino, buf, size, -ENOENT};
	uint64_t pos = 0;
	int err = size ? dir_walk(dir, &pos, name_one, &c) : -ENOENT;

	return err ? err : c.len;
}

const struct inode_operations ext2_dir_iops = {
    .lookup = ext2_lookup,
    .iterate = ext2_iterate,
    .parent = ext2_parent,
    .name_of = ext2_name_of,
    .getattr = ext2_getattr,
};
