/*
 * ext2 directories (docs/ext2.md): the entries of each directory block
 * read in order (a dir_index directory is read linearly, which its
 * layout keeps valid), and changed in place: an entry goes into an
 * unused one or the slack of a used one (its rec_len split), or a new
 * block; a removed one merges into the one before it.  Every entry is
 * checked (rec_len a multiple of 4, at least the name's record, inside
 * the block; the name inside it; the inode number in range): a bad one
 * ends the walk with EIO and an "ext2: error" line.  A walk is bounded
 * by the directory's blocks.  Changes run under the instance's ns_lock;
 * each block is read and changed under its buffer's lock, so a lookup
 * walking beside a change sees each block before or after it.
 */
#include "fs/ext2/ext2.h"
#include "block/bcache.h"
#include "lib/string.h"
#include <uapi/errno.h>

#define DIRENT_HEAD 8 /* inode, rec_len, name_len, file_type */
/* The record an entry with a name of n bytes needs (4-byte aligned). */
#define DIRENT_REC(n) ((DIRENT_HEAD + (n) + 3) & ~3U)

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
		int err = ext2_get_block(dir, *pos / bs, false, &pblk);

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

long ext2_find_ino(struct inode *dir, const char *name, size_t len)
{
	struct find_ctx c = {name, len, 0};
	uint64_t pos = 0;
	int err = dir_walk(dir, &pos, find_one, &c);

	return err ? (long)err : (long)c.ino;
}

static int ext2_lookup(struct inode *dir, const char *name, size_t len, struct inode **out)
{
	long ino = ext2_find_ino(dir, name, len);

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
	long ino = ext2_find_ino(dir, "..", 2);
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

/* ---- Changes (under ns_lock) ---- */

/* ext2's file_type of a mode (the filetype feature), else 0. */
static uint8_t ftype_of(const struct ext2_sb_info *si, uint32_t mode)
{
	static const uint8_t map[16] = {
	    [S_IFREG >> 12] = 1, [S_IFDIR >> 12] = 2,  [S_IFCHR >> 12] = 3, [S_IFBLK >> 12] = 4,
	    [S_IFIFO >> 12] = 5, [S_IFSOCK >> 12] = 6, [S_IFLNK >> 12] = 7};

	return si->filetype ? map[(mode & S_IFMT) >> 12] : 0;
}

/* One entry offered to a change: the block's data, the entry's offset
 * and the previous used-or-not entry's (-1 for the first). */
typedef int (*change_fn)(void *ctx, uint8_t *blk, uint32_t off, long prev);

/* After a change of dir's entries: its times, and no hash index (Linux's
 * ext2 clears EXT2_BTREE_FL, the same bit: the tree would miss it). */
static int touch_dir(struct inode *dir, bool times)
{
	spin_lock(&dir->lock);
	if (times)
		dir->mtime_ns = dir->ctime_ns = ext2_now();
	__atomic_and_fetch(&dir->attr_flags, ~EXT2_INDEX_FL, __ATOMIC_RELAXED);
	spin_unlock(&dir->lock);
	return ext2_write_inode(dir);
}

/*
 * Under ns_lock: offers each entry of dir, block by block, to fn under
 * the block's lock until fn returns 1 (it changed the block, which is
 * written) or an error.  1, 0 when fn took none, or -EIO.
 */
static int dir_change(struct inode *dir, change_fn fn, void *ctx)
{
	struct super_block *sb = dir->sb;
	uint32_t bs = EXT2_SB(sb)->block_size;
	uint64_t nblocks = inode_size(dir) / bs;

	for (uint64_t i = 0; i < nblocks; i++) {
		uint32_t pblk, off;
		long prev = -1;
		struct buf *b;
		int ret = ext2_get_block(dir, i, false, &pblk);

		if (!ret && !pblk)
			ret = -EIO;
		if (ret || (ret = ext2_read_block(sb, pblk, &b))) {
			ext2_error(sb, "unreadable directory block of inode", dir->ino);
			return ret;
		}
		for (off = 0; off < bs;
		     prev = off, off += ((struct ext2_dirent *)(b->data + off))->rec_len) {
			if (!dirent_ok(sb, b->data, off, bs)) {
				brelse(b);
				ext2_error(sb, "bad directory entry in inode", dir->ino);
				return -EIO;
			}
			if ((ret = fn(ctx, b->data, off, prev)))
				break;
		}
		if (ret > 0)
			ret = ext2_dirty(sb, b) ?: 1;
		brelse(b);
		if (ret)
			return ret;
	}
	return 0;
}

struct add_ctx {
	const char *name;
	size_t len;
	uint32_t ino;
	uint8_t type;
};

static void fill_entry(struct ext2_dirent *de, const struct add_ctx *c)
{
	de->inode = c->ino;
	de->name_len = c->len;
	de->file_type = c->type;
	memcpy(de->name, c->name, c->len);
}

/* An unused entry with room, or a used one whose slack holds the name. */
static int add_one(void *ctx, uint8_t *blk, uint32_t off, long prev)
{
	struct add_ctx *c = ctx;
	struct ext2_dirent *de = (void *)(blk + off), *nde;
	uint32_t need = DIRENT_REC(c->len), used = de->inode ? DIRENT_REC(de->name_len) : 0;

	(void)prev;
	if (de->rec_len < used + need)
		return 0;
	if (!used) {
		fill_entry(de, c);
		return 1;
	}
	nde = (void *)(blk + off + used);
	nde->rec_len = de->rec_len - used;
	de->rec_len = used;
	fill_entry(nde, c);
	return 1;
}

/* Under ns_lock: dir grows by a block holding only the entry. */
static int add_block(struct inode *dir, const struct add_ctx *c)
{
	uint32_t bs = EXT2_SB(dir->sb)->block_size, pblk;
	uint64_t size = inode_size(dir);
	struct ext2_dirent *de;
	struct buf *b;
	int err = ext2_get_block(dir, size / bs, true, &pblk);

	if (err || (err = bget(dir->sb->bdev, pblk, &b)))
		return err;
	memset(b->data, 0, bs);
	de = (void *)b->data;
	de->rec_len = bs;
	fill_entry(de, c);
	err = ext2_dirty(dir->sb, b);
	brelse(b);
	spin_lock(&dir->lock);
	dir->size = size + bs;
	spin_unlock(&dir->lock);
	return err;
}

int ext2_add_entry(struct inode *dir, const char *name, size_t len, uint32_t ino, uint32_t mode)
{
	struct add_ctx c = {name, len, ino, ftype_of(EXT2_SB(dir->sb), mode)};
	int err = dir_change(dir, add_one, &c);

	if (!err)
		err = add_block(dir, &c);
	return err < 0 ? err : touch_dir(dir, true);
}

struct name_match {
	const char *name;
	size_t len;
	uint32_t ino; /* in: the inode to set (set_one); out: the one removed */
	uint8_t type;
};

static bool matches(const struct ext2_dirent *de, const struct name_match *m)
{
	return de->inode && de->name_len == m->len && !memcmp(de->name, m->name, m->len);
}

/* The entry goes: merged into the one before it, or (first of its
 * block) marked unused, as Linux's ext2_delete_entry. */
static int remove_one(void *ctx, uint8_t *blk, uint32_t off, long prev)
{
	struct name_match *m = ctx;
	struct ext2_dirent *de = (void *)(blk + off);

	if (!matches(de, m))
		return 0;
	m->ino = de->inode;
	if (prev >= 0)
		((struct ext2_dirent *)(blk + prev))->rec_len += de->rec_len;
	else
		de->inode = 0;
	return 1;
}

int ext2_remove_entry(struct inode *dir, const char *name, size_t len, uint32_t *ino)
{
	struct name_match m = {name, len, 0, 0};
	int err = dir_change(dir, remove_one, &m);

	if (err <= 0)
		return err ? err : -ENOENT;
	*ino = m.ino;
	return touch_dir(dir, true);
}

static int set_one(void *ctx, uint8_t *blk, uint32_t off, long prev)
{
	struct name_match *m = ctx;
	struct ext2_dirent *de = (void *)(blk + off);

	(void)prev;
	if (!matches(de, m))
		return 0;
	de->inode = m->ino;
	de->file_type = m->type;
	return 1;
}

int ext2_set_entry(struct inode *dir, const char *name, size_t len, uint32_t ino, uint32_t mode)
{
	struct name_match m = {name, len, ino, ftype_of(EXT2_SB(dir->sb), mode)};
	bool dotdot = len == 2 && name[0] == '.' && name[1] == '.';
	int err = dir_change(dir, set_one, &m);

	if (err <= 0)
		return err ? err : -ENOENT;
	return touch_dir(dir, !dotdot); /* ".." moving is not a change of the directory's times */
}

static bool other_entry(void *ctx, const struct ext2_dirent *de, uint64_t next)
{
	(void)next;
	*(bool *)ctx =
	    !(de->name_len <= 2 && de->name[0] == '.' && (de->name_len == 1 || de->name[1] == '.'));
	return !*(bool *)ctx;
}

int ext2_dir_empty(struct inode *dir)
{
	bool other = false;
	uint64_t pos = 0;
	int err = dir_walk(dir, &pos, other_entry, &other);

	return err ? err : !other;
}

int ext2_make_empty(struct inode *dir, uint32_t parent)
{
	struct ext2_sb_info *si = EXT2_SB(dir->sb);
	struct ext2_dirent *de;
	uint32_t pblk;
	struct buf *b;
	int err = ext2_get_block(dir, 0, true, &pblk);

	if (err || (err = bget(dir->sb->bdev, pblk, &b)))
		return err;
	memset(b->data, 0, si->block_size);
	de = (void *)b->data;
	*de = (struct ext2_dirent){dir->ino, DIRENT_REC(1), 1, ftype_of(si, S_IFDIR)};
	de->name[0] = '.';
	de = (void *)(b->data + DIRENT_REC(1));
	*de =
	    (struct ext2_dirent){parent, si->block_size - DIRENT_REC(1), 2, ftype_of(si, S_IFDIR)};
	memcpy(de->name, "..", 2);
	err = ext2_dirty(dir->sb, b);
	brelse(b);
	spin_lock(&dir->lock);
	dir->size = si->block_size;
	spin_unlock(&dir->lock);
	return err;
}

const struct inode_operations ext2_dir_iops = {
    .lookup = ext2_lookup,
    .create = ext2_create,
    .mknod = ext2_create,
    .mkdir = ext2_create,
    .symlink = ext2_symlink,
    .link = ext2_link,
    .unlink = ext2_unlink,
    .rmdir = ext2_rmdir,
    .rename = ext2_rename,
    .iterate = ext2_iterate,
    .parent = ext2_parent,
    .name_of = ext2_name_of,
    .setattr = ext2_setattr,
    .getattr = ext2_getattr,
};
