/*
 * ext2 inodes (docs/ext2.md): reading one from its group's inode table
 * (one VFS inode per disk inode while used: the instance's icache), the
 * block map (12 direct, single, double, triple indirect; 0 is a hole),
 * links and stat; regular files' data is file.c's.
 */
#include "fs/ext2/ext2.h"
#include "block/bcache.h"
#include "block/blkdev.h"
#include "lib/iov_iter.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/filemap.h"
#include "mm/heap.h"
#include "mm/layout.h"
#include "fs/vfs.h"
#include <uapi/errno.h>

void ext2_error(struct super_block *sb, const char *what, uint64_t n)
{
	printk("ext2: error (device %s): %s %llu\n", sb->bdev->name, what, (unsigned long long)n);
}

/* A block of the file system, checked to be a data block inside it. */
int ext2_read_block(struct super_block *sb, uint32_t pblk, struct buf **out)
{
	const struct ext2_sb_info *si = EXT2_SB(sb);

	if (pblk <= si->first_data_block || pblk >= si->blocks_count) {
		ext2_error(sb, "block number outside the file system:", pblk);
		return -EIO;
	}
	return bread(sb->bdev, pblk, out) ? -EIO : 0;
}

int ext2_bmap(struct inode *ip, uint64_t lblk, uint32_t *pblk)
{
	struct ext2_sb_info *si = EXT2_SB(ip->sb);
	uint64_t apb = si->addr_per_block, span = 1;
	uint32_t ptr;
	int depth = 0;

	if (lblk < EXT2_NDIR) {
		ptr = EXT2_I(ip)->block[lblk];
	} else {
		/* Which tree (depth 1..3) and the index inside it. */
		lblk -= EXT2_NDIR;
		for (depth = 1, span = apb; depth <= 3 && lblk >= span; depth++, span *= apb)
			lblk -= span;
		if (depth > 3) {
			*pblk = 0; /* past what a map reaches: a hole */
			return 0;
		}
		ptr = EXT2_I(ip)->block[EXT2_NDIR + depth - 1];
	}
	/* Each level is one read: depth bounds the walk, so no loop of
	 * indirect blocks can make it endless. */
	for (; depth > 0 && ptr; depth--) {
		struct buf *b;
		int err = ext2_read_block(ip->sb, ptr, &b);

		if (err)
			return err;
		span /= apb;
		ptr = ((const uint32_t *)b->data)[(lblk / span) % apb];
		brelse(b);
	}
	if (ptr && (ptr <= si->first_data_block || ptr >= si->blocks_count)) {
		ext2_error(ip->sb, "data block outside the file system:", ptr);
		return -EIO;
	}
	*pblk = ptr;
	return 0;
}

void ext2_getattr(struct inode *ip, struct uapi_stat *st)
{
	spin_lock(&ip->lock);
	inode_fill_stat(ip, st);
	if (S_ISDIR(ip->mode))
		st->st_size = ip->size;
	st->st_blocks = EXT2_I(ip)->disk_blocks;
	st->st_blksize = EXT2_SB(ip->sb)->block_size;
	spin_unlock(&ip->lock);
}

static const struct inode_operations ext2_other_iops = {
    .getattr = ext2_getattr,
};

struct inode *ext2_alloc_inode(struct super_block *sb, uint32_t mode)
{
	struct ext2_inode *ei = kzalloc(sizeof(*ei));

	(void)sb;
	if (!ei)
		return NULL;
	list_init(&ei->hash_link);
	ei->vfs.op = &ext2_other_iops;
	if (S_ISDIR(mode)) {
		ei->vfs.op = &ext2_dir_iops;
		ei->vfs.fop = &vfs_dir_ops;
	} else if (S_ISREG(mode)) {
		ei->vfs.op = &ext2_file_iops;
		ei->vfs.fop = &vfs_file_ops;
	}
	return &ei->vfs;
}

void ext2_free_inode(struct inode *ip)
{
	struct ext2_sb_info *si = EXT2_SB(ip->sb);
	struct ext2_inode *ei = EXT2_I(ip);

	spin_lock(&si->icache_lock);
	if (!list_empty(&ei->hash_link))
		list_del(&ei->hash_link);
	spin_unlock(&si->icache_lock);
	if (S_ISLNK(ip->mode))
		kfree(ip->link.target);
	if (ei->mapping) /* its pages stay cached while the file exists */
		filemap_detach(ei->mapping, ip->nlink > 0);
	kfree(ei);
}

/* The cached inode ino with a new reference, or NULL; one whose last
 * reference is going (0) is passed over: free_inode unhashes it. */
static struct inode *icache_find(struct ext2_sb_info *si, uint32_t ino)
{
	struct ext2_inode *ei;

	list_for_each_entry(ei, &si->icache, hash_link)
	{
		uint32_t refs = __atomic_load_n(&ei->vfs.refcount, __ATOMIC_RELAXED);

		if (ei->vfs.ino != ino)
			continue;
		while (refs)
			if (__atomic_compare_exchange_n(&ei->vfs.refcount, &refs, refs + 1, false,
							__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				return &ei->vfs;
	}
	return NULL;
}

/* Reads disk inode ino into d: 0 or -EIO. */
static int read_disk_inode(struct super_block *sb, uint32_t ino, struct ext2_disk_inode *d)
{
	struct ext2_sb_info *si = EXT2_SB(sb);
	uint32_t idx, group;
	uint64_t byte;
	struct buf *b;
	int err;

	if (ino < 1 || ino > si->inodes_count) {
		ext2_error(sb, "inode number out of range:", ino);
		return -EIO;
	}
	group = (ino - 1) / si->inodes_per_group;
	idx = (ino - 1) % si->inodes_per_group;
	byte = (uint64_t)idx * si->inode_size;
	if ((err = ext2_read_block(sb, si->inode_table[group] + byte / si->block_size, &b)))
		return err;
	memcpy(d, b->data + byte % si->block_size, sizeof(*d));
	brelse(b);
	return 0;
}

/* A link's target: in i_block (fast) or its first block (slow). */
static int read_link(struct inode *ip, const struct ext2_disk_inode *d)
{
	uint64_t size = ip->size;
	struct buf *b;
	uint32_t pblk;
	int err;

	if (!size || size >= PATH_MAX || size >= EXT2_SB(ip->sb)->block_size)
		return -EIO; /* a damaged size, not a lack of memory (ext2_fuzz seed 2) */
	if (!(ip->link.target = kmalloc(size + 1)))
		return -ENOMEM;
	if (!d->i_blocks) {
		if (size >= EXT2_FAST_LINK_MAX)
			return -EIO;
		memcpy(ip->link.target, d->i_block, size);
	} else {
		if ((err = ext2_bmap(ip, 0, &pblk)) || !pblk ||
		    (err = ext2_read_block(ip->sb, pblk, &b)))
			return err ? err : -EIO;
		memcpy(ip->link.target, b->data, size);
		brelse(b);
	}
	ip->link.target[size] = 0;
	return strlen(ip->link.target) == size ? 0 : -EIO;
}

/* Linux's new_decode_dev / old_decode_dev, into the 8:8 numbers here. */
static uint32_t decode_rdev(const struct ext2_disk_inode *d)
{
	uint32_t old = d->i_block[0], nw = d->i_block[1];

	if (old)
		return MKDEV((old >> 8) & 0xff, old & 0xff);
	return MKDEV((nw >> 8) & 0xfff, (nw & 0xff) | ((nw >> 12) & 0xfff00));
}

static void fill_inode(struct inode *ip, const struct ext2_disk_inode *d)
{
	struct ext2_inode *ei = EXT2_I(ip);

	ip->nlink = d->i_links_count;
	ip->uid = d->i_uid | (uint32_t)d->l_i_uid_high << 16;
	ip->gid = d->i_gid | (uint32_t)d->l_i_gid_high << 16;
	ip->size = d->i_size;
	if (S_ISREG(ip->mode))
		ip->size |= (uint64_t)d->i_size_high << 32; /* large_file */
	ip->atime_ns = d->i_atime * 1000000000ULL;
	ip->mtime_ns = d->i_mtime * 1000000000ULL;
	ip->ctime_ns = d->i_ctime * 1000000000ULL;
	ei->disk_blocks = d->i_blocks;
	memcpy(ei->block, d->i_block, sizeof(ei->block));
}

/* A new VFS inode from the disk's: its reference in *out. */
static int load_inode(struct super_block *sb, uint32_t ino, struct inode **out)
{
	struct ext2_disk_inode d;
	struct inode *ip;
	uint32_t type;
	int err;

	if ((err = read_disk_inode(sb, ino, &d)))
		return err;
	type = d.i_mode & S_IFMT;
	if (!d.i_links_count ||
	    !(type == S_IFREG || type == S_IFDIR || type == S_IFLNK || type == S_IFCHR ||
	      type == S_IFBLK || type == S_IFIFO || type == S_IFSOCK)) {
		ext2_error(sb, "deleted or bad inode:", ino);
		return -EIO;
	}
	if (!(ip = inode_alloc(sb, d.i_mode, S_ISCHR(type) || S_ISBLK(type) ? decode_rdev(&d) : 0)))
		return -ENOMEM;
	ip->ino = ino;
	fill_inode(ip, &d);
	if (S_ISLNK(type) && (err = read_link(ip, &d))) {
		ext2_error(sb, "bad symbolic link:", ino);
		inode_put(ip);
		return err;
	}
	if (S_ISREG(type) && !(EXT2_I(ip)->mapping = filemap_attach(ip, &ext2_filemap_ops))) {
		inode_put(ip);
		return -ENOMEM;
	}
	*out = ip;
	return 0;
}

int ext2_iget(struct super_block *sb, uint32_t ino, struct inode **out)
{
	struct ext2_sb_info *si = EXT2_SB(sb);
	struct inode *ip, *old;
	int err;

	spin_lock(&si->icache_lock);
	ip = icache_find(si, ino);
	spin_unlock(&si->icache_lock);
	if (ip) {
		*out = ip;
		return 0;
	}
	if ((err = load_inode(sb, ino, &ip)))
		return err;
	/* Another lookup may have loaded it meanwhile: keep the first. */
	spin_lock(&si->icache_lock);
	if (!(old = icache_find(si, ino)))
		list_add(&EXT2_I(ip)->hash_link, &si->icache);
	spin_unlock(&si->icache_lock);
	if (old) {
		inode_put(ip);
		ip = old;
	}
	*out = ip;
	return 0;
}
