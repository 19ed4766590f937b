/*
 * ext2 inodes (docs/ext2.md): reading one from its group's inode table
 * (one VFS inode per disk inode while used: the instance's icache),
 * writing it back through the buffer cache, its end (an unlinked inode's
 * blocks and number go back at its last put), links, stat and setattr.
 */
#include "fs/ext2/ext2.h"
#include "block/bcache.h"
#include "block/blkdev.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/filemap.h"
#include "mm/heap.h"
#include "mm/layout.h"
#include "fs/vfs.h"
#include "proc/rlimit.h"
#include <uapi/errno.h>

/* Damage found (Linux's ext2_error): the line, the error state the
 * super block gets at its next write, and errors= (panic is taken as
 * remount-ro: a damaged disk does not stop the kernel). */
void ext2_error(struct super_block *sb, const char *what, uint64_t n)
{
	struct ext2_sb_info *si = EXT2_SB(sb);

	printk("ext2: error (device %s): %s %llu\n", sb->bdev->name, what, (unsigned long long)n);
	__atomic_or_fetch(&si->state, EXT2_ERROR_FS, __ATOMIC_RELAXED);
	if (si->errors == EXT2_ERRORS_CONTINUE || ext2_rdonly(sb))
		return;
	if (si->errors == EXT2_ERRORS_PANIC)
		printk("ext2: errors=panic taken as remount-ro (device %s)\n", sb->bdev->name);
	printk("ext2: remounting filesystem read-only (device %s)\n", sb->bdev->name);
	__atomic_or_fetch(&sb->flags, SB_RDONLY, __ATOMIC_RELAXED);
}

int ext2_dirty(struct super_block *sb, struct buf *b)
{
	bdirty(b);
	return EXT2_SB(sb)->sync && bwrite(b) ? -EIO : 0;
}

bool ext2_data_block_ok(struct super_block *sb, uint32_t pblk, const char *what)
{
	const struct ext2_sb_info *si = EXT2_SB(sb);

	if (pblk > si->first_data_block && pblk < si->blocks_count)
		return true;
	ext2_error(sb, what, pblk);
	return false;
}

/* A block of the file system, checked to be a data block inside it. */
int ext2_read_block(struct super_block *sb, uint32_t pblk, struct buf **out)
{
	if (!ext2_data_block_ok(sb, pblk, "block number outside the file system:"))
		return -EIO;
	return bread(sb->bdev, pblk, out) ? -EIO : 0;
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

/* Links, devices, FIFOs, sockets: metadata only. */
static const struct inode_operations ext2_other_iops = {
    .setattr = ext2_setattr,
    .getattr = ext2_getattr,
};

struct inode *ext2_alloc_inode(struct super_block *sb, uint32_t mode)
{
	struct ext2_inode *ei = kzalloc(sizeof(*ei));

	(void)sb;
	if (!ei)
		return NULL;
	list_init(&ei->hash_link);
	mutex_init(&ei->map_lock, "ext2_map");
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

/* Whether i_block holds a block map (not a device number or a fast
 * link's target). */
static bool has_map(struct inode *ip)
{
	return S_ISREG(ip->mode) || S_ISDIR(ip->mode) ||
	       (S_ISLNK(ip->mode) && EXT2_I(ip)->disk_blocks);
}

/*
 * The last put of an inode no entry names (unlinked while open, or a
 * creation that failed): its blocks, then its disk inode (dtime), then
 * its bitmap bit go, so its number is reused only after the rest.  On a
 * read-only instance it stays allocated: an orphan e2fsck frees.
 */
static void delete_inode(struct inode *ip)
{
	struct ext2_inode *ei = EXT2_I(ip);

	mutex_lock(&ei->map_lock);
	if (has_map(ip))
		ext2_truncate_blocks(ip, 0);
	spin_lock(&ip->lock);
	ip->size = 0;
	spin_unlock(&ip->lock);
	ext2_write_inode(ip);
	mutex_unlock(&ei->map_lock);
	ext2_free_ino(ip->sb, ip->ino, S_ISDIR(ip->mode));
}

void ext2_free_inode(struct inode *ip)
{
	struct ext2_sb_info *si = EXT2_SB(ip->sb);
	struct ext2_inode *ei = EXT2_I(ip);
	bool hashed;

	spin_lock(&si->icache_lock);
	hashed = !list_empty(&ei->hash_link);
	spin_unlock(&si->icache_lock);
	/* Its pages stay cached while the file exists (the dirty ones
	 * written first); a deleted one's go before its blocks and its
	 * number can be reused (a new file of that number finds a mapping
	 * of its own). */
	if (ei->mapping)
		filemap_detach(ei->mapping, ip, ip->nlink > 0);
	/* Only a hashed inode was read or made whole (a failed read is not). */
	if (hashed && ip->nlink == 0 && !ext2_rdonly(ip->sb))
		delete_inode(ip);
	/* Unhashed last: a lookup of its number waits for this (ext2_iget),
	 * so that no newer inode of the file writes its pages or its block
	 * map while this one still does (Linux's I_FREEING). */
	if (hashed) {
		spin_lock(&si->icache_lock);
		list_del(&ei->hash_link);
		spin_unlock(&si->icache_lock);
		wake_up(&si->icache_wq);
	}
	if (S_ISLNK(ip->mode))
		kfree(ip->link.target);
	kfree(ei);
}

/* The cached inode ino with a new reference, or NULL; one whose last
 * reference went (0) is passed over, *going set: its free_inode has not
 * ended (it unhashes it last). */
static struct inode *icache_find(struct ext2_sb_info *si, uint32_t ino, bool *going)
{
	struct inode *ip = NULL;
	struct ext2_inode *ei;

	*going = false;
	spin_lock(&si->icache_lock);
	list_for_each_entry(ei, &si->icache, hash_link)
	{
		uint32_t refs = __atomic_load_n(&ei->vfs.refcount, __ATOMIC_RELAXED);

		if (ei->vfs.ino != ino)
			continue;
		while (refs &&
		       !__atomic_compare_exchange_n(&ei->vfs.refcount, &refs, refs + 1, false,
						    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			;
		if (refs) {
			ip = &ei->vfs;
			break;
		}
		*going = true;
	}
	spin_unlock(&si->icache_lock);
	return ip;
}

/* The cached inode ino with a new reference once no inode of ino is
 * being freed, or NULL then. */
static struct inode *icache_get(struct ext2_sb_info *si, uint32_t ino)
{
	for (;;) {
		DEFINE_WAIT(w);
		struct inode *ip;
		bool going;

		prepare_to_wait(&si->icache_wq, &w);
		if (!(ip = icache_find(si, ino, &going)) && going)
			schedule();
		finish_wait(&si->icache_wq, &w);
		if (ip || !going)
			return ip;
	}
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
	if ((err = ext2_read_block(sb, si->group[group].inode_table + byte / si->block_size, &b)))
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
		if ((err = ext2_get_block(ip, 0, false, &pblk)) || !pblk ||
		    (err = ext2_read_block(ip->sb, pblk, &b)))
			return err ? err : -EIO;
		memcpy(ip->link.target, b->data, size);
		brelse(b);
	}
	ip->link.target[size] = 0;
	return strlen(ip->link.target) == size ? 0 : -EIO;
}

/* A device number from i_block: Linux's old encoding (8:8) in [0], else
 * its new one in [1], which is the core's (a user's dev_t) as it is. */
static uint32_t decode_rdev(const struct ext2_disk_inode *d)
{
	uint32_t old = d->i_block[0];

	return old ? MKDEV((old >> 8) & 0xff, old & 0xff) : d->i_block[1];
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
	ip->attr_flags = d->i_flags;
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
	struct inode *ip;
	int err = 0;

	if ((ip = icache_get(si, ino))) {
		*out = ip;
		return 0;
	}
	/* Looked for again under load_lock: another task may have loaded
	 * it, or put it meanwhile (its free_inode takes no load_lock). */
	mutex_lock(&si->load_lock);
	if (!(ip = icache_get(si, ino)) && !(err = load_inode(sb, ino, &ip)))
		ext2_icache_add(ip);
	mutex_unlock(&si->load_lock);
	if (!err)
		*out = ip;
	return err;
}

void ext2_icache_add(struct inode *ip)
{
	struct ext2_sb_info *si = EXT2_SB(ip->sb);

	spin_lock(&si->icache_lock);
	list_add(&EXT2_I(ip)->hash_link, &si->icache);
	spin_unlock(&si->icache_lock);
}

/* Under ip->lock: the core and map into the disk inode d (a new one was
 * zeroed: Linux's ext2 zeroes a new raw inode, extra space included). */
static void fill_disk_inode(struct inode *ip, struct ext2_disk_inode *d)
{
	struct ext2_inode *ei = EXT2_I(ip);

	d->i_mode = ip->mode;
	d->i_uid = ip->uid & 0xffff;
	d->l_i_uid_high = ip->uid >> 16;
	d->i_gid = ip->gid & 0xffff;
	d->l_i_gid_high = ip->gid >> 16;
	d->i_size = (uint32_t)ip->size;
	d->i_size_high = S_ISREG(ip->mode) ? (uint32_t)(ip->size >> 32) : 0;
	d->i_atime = ip->atime_ns / 1000000000ULL;
	d->i_mtime = ip->mtime_ns / 1000000000ULL;
	d->i_ctime = ip->ctime_ns / 1000000000ULL;
	d->i_links_count = ip->nlink;
	d->i_dtime = ip->nlink ? 0 : d->i_ctime;
	d->i_blocks = (uint32_t)ei->disk_blocks;
	d->i_flags = __atomic_load_n(&ip->attr_flags, __ATOMIC_RELAXED);
	memcpy(d->i_block, ei->block, sizeof(d->i_block));
}

/* A file past 2 GiB sets large_file, as Linux's ext2 does on its first. */
static void note_large_file(struct inode *ip)
{
	struct ext2_sb_info *si = EXT2_SB(ip->sb);

	if (__atomic_load_n(&si->large_file, __ATOMIC_RELAXED) || inode_size(ip) <= 0x7fffffff)
		return;
	mutex_lock(&si->alloc_lock);
	si->large_file = true;
	ext2_write_super(ip->sb);
	mutex_unlock(&si->alloc_lock);
}

int ext2_write_inode(struct inode *ip)
{
	struct super_block *sb = ip->sb;
	struct ext2_sb_info *si = EXT2_SB(sb);
	uint32_t idx = (ip->ino - 1) % si->inodes_per_group;
	uint64_t byte = (uint64_t)idx * si->inode_size;
	struct buf *b;
	int err;

	if (ip->ino < 1 || ip->ino > si->inodes_count)
		return -EIO;
	note_large_file(ip);
	err = ext2_read_block(
	    sb, si->group[(ip->ino - 1) / si->inodes_per_group].inode_table + byte / si->block_size,
	    &b);
	if (err)
		return err;
	/* Copied under the buffer's lock: of two writers the later copies
	 * the later state, so the disk never goes back to an older one. */
	struct ext2_disk_inode *d = (void *)(b->data + byte % si->block_size);
	spin_lock(&ip->lock);
	if (EXT2_I(ip)->fresh)
		memset(d, 0, si->inode_size);
	EXT2_I(ip)->fresh = false;
	fill_disk_inode(ip, d);
	spin_unlock(&ip->lock);
	err = ext2_dirty(sb, b);
	brelse(b);
	return err;
}

static void set_time(uint64_t *field, uint64_t ns, uint64_t now)
{
	if (ns == INODE_TIME_NOW)
		*field = now;
	else if (ns != INODE_TIME_OMIT)
		*field = ns - ns % 1000000000ULL; /* the disk keeps seconds */
}

/*
 * Under the pages' write_lock (m: no writer runs): truncate or extend a
 * regular file to size.  The size first, so no reader brings back a page
 * past it; then the pages past it go and the last one's tail is zeroed
 * (mm/filemap.h: each page under its lock, so a write-back of it ends
 * first); then the blocks, under map_lock (Linux's order: page lock,
 * then the block map's).
 */
static int set_size(struct inode *ip, struct address_space *m, uint64_t size)
{
	uint64_t old = inode_size(ip);
	int err = 0;

	if (size > ip->sb->maxbytes || (size > old && rlimit_fsize_grow(size)))
		return -EFBIG;
	spin_lock(&ip->lock);
	ip->size = size;
	ip->mtime_ns = ip->ctime_ns = ext2_now();
	spin_unlock(&ip->lock);
	if (size >= old)
		return 0;
	filemap_truncate(m, size);
	mutex_lock(&EXT2_I(ip)->map_lock);
	err = ext2_truncate_blocks(ip, size);
	mutex_unlock(&EXT2_I(ip)->map_lock);
	return err;
}

/* The VFS checked permissions (sys_attr.c); a size is a truncate. */
int ext2_setattr(struct inode *ip, const struct iattr *a)
{
	struct address_space *m = NULL;
	uint64_t now = ext2_now();
	int err = 0;

	if (ext2_rdonly(ip->sb))
		return -EROFS;
	if ((a->valid & ATTR_SIZE) && S_ISREG(ip->mode) && (m = EXT2_I(ip)->mapping)) {
		mutex_lock(&m->write_lock); /* writers wait: Linux's i_rwsem */
		err = set_size(ip, m, a->size);
	}
	mutex_lock(&EXT2_I(ip)->map_lock);
	if (!err && (a->valid & ~ATTR_SIZE)) {
		spin_lock(&ip->lock);
		if (a->valid & ATTR_MODE)
			ip->mode = (ip->mode & S_IFMT) | (a->mode & 07777);
		if ((a->valid & ATTR_UID) && a->uid != (uint32_t)-1)
			ip->uid = a->uid;
		if ((a->valid & ATTR_GID) && a->gid != (uint32_t)-1)
			ip->gid = a->gid;
		iattr_drop_setid(ip, a->valid);
		if (a->valid & ATTR_ATIME)
			set_time(&ip->atime_ns, a->atime_ns, now);
		if (a->valid & ATTR_MTIME)
			set_time(&ip->mtime_ns, a->mtime_ns, now);
		if (a->valid & ATTR_FLAGS)
			__atomic_store_n(&ip->attr_flags, a->attr_flags, __ATOMIC_RELAXED);
		if (!(a->valid & ATTR_TOUCH))
			ip->ctime_ns = now;
		spin_unlock(&ip->lock);
	}
	if (!err || (a->valid & ATTR_SIZE))
		err = ext2_write_inode(ip) ?: err;
	mutex_unlock(&EXT2_I(ip)->map_lock);
	if (m)
		mutex_unlock(&m->write_lock);
	return err;
}
