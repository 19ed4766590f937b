/*
 * ext2's super block (docs/ext2.md): mount reads and checks the super
 * block and the group descriptors as hostile input (any inconsistency
 * is EINVAL, before an inode is read) and parses the options; a
 * read-write instance marks the disk not clean until its clean end
 * (umount, remount read-only); the counts are written back to the super
 * block as they change; statfs reports them; the instance's end writes
 * everything back and closes the device.
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
	si->blocks_per_group = ds->s_blocks_per_group;
	si->resuid = ds->s_def_resuid;
	si->resgid = ds->s_def_resgid;
	si->state = ds->s_state;
	si->errors = ds->s_errors >= EXT2_ERRORS_CONTINUE && ds->s_errors <= EXT2_ERRORS_PANIC
			 ? ds->s_errors
			 : EXT2_ERRORS_CONTINUE;
	si->def_errors = si->errors;
	si->first_ino = ds->s_rev_level ? ds->s_first_ino : EXT2_GOOD_OLD_FIRST_INO;
	if (si->first_ino <= EXT2_ROOT_INO || si->first_ino > si->inodes_count)
		return bad("first inode");
	si->gdt_blocks = (si->groups + bs / 32 - 1) / (bs / 32);
	if (ds->s_rev_level) {
		si->sparse_super = ds->s_feature_ro_compat & EXT2_RO_COMPAT_SPARSE_SUPER;
		si->large_file = ds->s_feature_ro_compat & EXT2_RO_COMPAT_LARGE_FILE;
		si->ro_only = ds->s_feature_ro_compat & ~EXT2_RO_COMPAT_KNOWN;
		si->filetype = ds->s_feature_incompat & EXT2_INCOMPAT_FILETYPE;
	}
	return 0;
}

/* Whether a group's metadata sits inside the file system, past the
 * descriptors (the bitmaps one block each, the inode table whole). */
static bool group_ok(const struct ext2_sb_info *si, const struct ext2_group_desc *gd)
{
	uint32_t gdt_end = si->first_data_block + 1 + si->gdt_blocks, t = gd->bg_inode_table;

	return t >= gdt_end && t < si->blocks_count && si->blocks_count - t >= si->itable_blocks &&
	       gd->bg_block_bitmap >= gdt_end && gd->bg_block_bitmap < si->blocks_count &&
	       gd->bg_inode_bitmap >= gdt_end && gd->bg_inode_bitmap < si->blocks_count;
}

struct ext2_group_desc *ext2_group_desc(struct super_block *sb, uint32_t g, struct buf **bp)
{
	struct ext2_sb_info *si = EXT2_SB(sb);
	uint32_t per_block = si->block_size / sizeof(struct ext2_group_desc);

	if (g >= si->groups || bread(sb->bdev, si->first_data_block + 1 + g / per_block, bp))
		return NULL;
	return (struct ext2_group_desc *)(*bp)->data + g % per_block;
}

int ext2_count(struct super_block *sb, uint32_t g, int blocks, int inodes, int dirs)
{
	struct ext2_sb_info *si = EXT2_SB(sb);
	struct buf *b;
	struct ext2_group_desc *gd = ext2_group_desc(sb, g, &b);
	int err;

	if (!gd)
		return -EIO;
	gd->bg_free_blocks_count += blocks;
	gd->bg_free_inodes_count += inodes;
	gd->bg_used_dirs_count += dirs;
	err = ext2_dirty(sb, b);
	brelse(b);
	si->free_blocks += blocks;
	si->free_inodes += inodes;
	return err ? err : ext2_write_super(sb);
}

/* The group descriptors (the blocks after the super block's): each
 * group's bitmaps and inode table inside the file system. */
static int read_groups(struct super_block *sb, struct ext2_sb_info *si)
{
	uint32_t per_block = si->block_size / sizeof(struct ext2_group_desc);
	uint32_t gdt = si->first_data_block + 1;

	if (!(si->group = kmalloc(si->groups * sizeof(*si->group))))
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

			si->group[g + i] = (struct ext2_group){
			    gd->bg_block_bitmap, gd->bg_inode_bitmap, gd->bg_inode_table};
			if (!group_ok(si, gd)) {
				brelse(b);
				return bad("group metadata outside the file system");
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
	si->reserved_gdt =
	    *(const uint16_t *)(b->data + 1024 % lb + 206); /* s_reserved_gdt_blocks */
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
bool ext2_group_has_super(const struct ext2_sb_info *si, uint32_t g)
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
		n += (ext2_group_has_super(si, g) ? 1 + gdb : 0) + 2 + si->itable_blocks;
	return n < si->blocks_count ? (uint32_t)n : si->blocks_count;
}

/*
 * Writes the counts, the state and large_file into the super block's
 * buffer (the primary copy only, as Linux's ext2).  Under alloc_lock,
 * or while nothing else writes (mount, the instance's end).
 */
int ext2_write_super(struct super_block *sb)
{
	struct ext2_sb_info *si = EXT2_SB(sb);
	uint32_t bs = sb->bdev->blocksize;
	struct ext2_disk_super *ds;
	struct buf *b;
	int err;

	if (bread(sb->bdev, 1024 / bs, &b))
		return -EIO;
	ds = (void *)(b->data + 1024 % bs);
	ds->s_free_blocks_count = si->free_blocks;
	ds->s_free_inodes_count = si->free_inodes;
	ds->s_state = __atomic_load_n(&si->state, __ATOMIC_RELAXED);
	ds->s_wtime = ext2_now() / 1000000000ULL;
	if (si->large_file)
		ds->s_feature_ro_compat |= EXT2_RO_COMPAT_LARGE_FILE;
	err = ext2_dirty(sb, b);
	brelse(b);
	return err;
}

/* Everything of the instance to the disk (the super block, descriptors,
 * bitmaps, inodes, directories, data: all in the buffer cache), then a
 * cache flush: what umount, remount read-only and the sync calls ask. */
static int ext2_sync_fs(struct super_block *sb)
{
	struct ext2_sb_info *si = EXT2_SB(sb);
	int err = filemap_sync_sb(sb); /* the files' dirty pages first */

	mutex_lock(&si->alloc_lock);
	err = ext2_write_super(sb) ?: err;
	mutex_unlock(&si->alloc_lock);
	return bcache_sync(sb->bdev) ?: err;
}

/* Read-write from now on (mount or remount): the disk says "not clean"
 * until the clean end, as Linux's ext2_setup_super, and counts a mount. */
static int begin_rw(struct super_block *sb)
{
	struct ext2_sb_info *si = EXT2_SB(sb);
	uint32_t bs = sb->bdev->blocksize;
	struct ext2_disk_super *ds;
	struct buf *b;

	if (si->ro_only)
		return bad("unsupported read-only-compatible features: read-only only");
	if (!(si->state & EXT2_VALID_FS))
		printk("ext2: warning (device %s): mounting unchecked fs\n", sb->bdev->name);
	else if (si->state & EXT2_ERROR_FS)
		printk("ext2: warning (device %s): mounting fs with errors\n", sb->bdev->name);
	si->mount_state = si->state;
	if (bread(sb->bdev, 1024 / bs, &b))
		return -EIO;
	ds = (void *)(b->data + 1024 % bs);
	ds->s_mnt_count++;
	ds->s_mtime = ext2_now() / 1000000000ULL;
	bdirty(b);
	brelse(b);
	si->state &= ~EXT2_VALID_FS;
	return ext2_sync_fs(sb);
}

/* The clean end of a read-write time: the state found at mount back
 * (and the errors found since), everything written. */
static int end_rw(struct super_block *sb)
{
	struct ext2_sb_info *si = EXT2_SB(sb);

	si->state = si->mount_state | (si->state & EXT2_ERROR_FS);
	return ext2_sync_fs(sb);
}

/* Mount options, Linux's ext2 names: errors=continue|remount-ro|panic,
 * and the ones whose behaviour here is the only one (bsddf, orlov...).
 * EINVAL for any other. */
static int parse_opts(struct ext2_sb_info *si, const char *data)
{
	static const char *const noops[] = {"bsddf", "orlov", "oldalloc", "nocheck", "check=none"};
	static const char *const errs[] = {"errors=continue", "errors=remount-ro", "errors=panic"};

	while (*data) {
		const char *end = strchr(data, ',');
		size_t len = end ? (size_t)(end - data) : strlen(data);
		bool known = !len;

		for (size_t i = 0; i < 5 && !known; i++)
			known = strlen(noops[i]) == len && !memcmp(data, noops[i], len);
		for (size_t i = 0; i < 3 && !known; i++)
			if (strlen(errs[i]) == len && !memcmp(data, errs[i], len)) {
				si->errors = EXT2_ERRORS_CONTINUE + i;
				known = true;
			}
		if (!known) {
			printk("ext2: unrecognized mount option \"%.*s\"\n", (int)len, data);
			return -EINVAL;
		}
		data += len + (end != NULL);
	}
	return 0;
}

/* The largest file (Linux's ext2_max_size): what the map reaches, less
 * what i_blocks (512-byte units, 32 bits) can count with the map's own
 * blocks. */
static uint64_t max_size(const struct ext2_sb_info *si)
{
	uint64_t ppb = si->addr_per_block, bs = si->block_size;
	uint64_t res = EXT2_NDIR + ppb + ppb * ppb + ppb * ppb * ppb;
	uint64_t upper = (((uint64_t)1 << 32) - 1) / (bs / 512), meta;

	meta = 1 + (1 + ppb) + (1 + ppb + ppb * ppb);
	if (res + meta > upper) {
		uint64_t left = upper - EXT2_NDIR - ppb;

		res = upper;
		meta = 1;
		if (left < ppb * ppb) {
			meta += 1 + (left + ppb - 1) / ppb;
		} else {
			meta += 1 + ppb;
			left -= ppb * ppb;
			meta += 1 + (left + ppb - 1) / ppb + (left + ppb * ppb - 1) / (ppb * ppb);
		}
		res -= meta;
	}
	return res * bs;
}

/*
 * The devices ext2 instances hold (ext2_sb_info.dev_link), under
 * ext2_devs_lock: a second mount of one is EBUSY before anything is read,
 * since two instances would allocate the same blocks and the new one's
 * block size change would drop the other's cached buffers (Linux shares
 * the first instance instead; here each mount has its own).
 */
static struct spinlock ext2_devs_lock = SPINLOCK_INIT("ext2_devs");
static struct list_head ext2_devs = LIST_HEAD_INIT(ext2_devs);

static int claim_dev(struct super_block *sb, struct ext2_sb_info *si)
{
	struct ext2_sb_info *o;
	int err = 0;

	spin_lock(&ext2_devs_lock);
	list_for_each_entry(o, &ext2_devs, dev_link) if (o->bdev == sb->bdev) err = -EBUSY;
	if (!err) {
		si->bdev = sb->bdev;
		list_add(&si->dev_link, &ext2_devs);
	}
	spin_unlock(&ext2_devs_lock);
	return err;
}

static void release_dev(struct ext2_sb_info *si)
{
	spin_lock(&ext2_devs_lock);
	if (si->bdev)
		list_del(&si->dev_link);
	spin_unlock(&ext2_devs_lock);
}

static int ext2_fill(struct super_block *sb, const char *data)
{
	struct ext2_sb_info *si;
	struct inode *root;
	int err;

	if (!(si = kzalloc(sizeof(*si))))
		return -ENOMEM;
	spin_init(&si->icache_lock, "ext2_icache");
	wait_queue_init(&si->icache_wq, "ext2_icache");
	mutex_init(&si->alloc_lock, "ext2_alloc");
	mutex_init(&si->ns_lock, "ext2_ns");
	mutex_init(&si->load_lock, "ext2_load");
	list_init(&si->icache);
	sb->fs_info = si; /* freed by put_super, whatever happens below */
	sb->icache = true;
	if ((err = claim_dev(sb, si)) || (err = read_super(sb, si)) ||
	    (err = parse_opts(si, data)) || (err = read_groups(sb, si)))
		return err;
	si->overhead = overhead(si);
	si->sync = sb->flags & SB_SYNCHRONOUS;
	sb->maxbytes = max_size(si);
	if ((err = ext2_iget(sb, EXT2_ROOT_INO, &root)))
		return err == -EIO ? -EINVAL : err;
	if (!S_ISDIR(root->mode)) {
		inode_put(root);
		return bad("root is not a directory");
	}
	if (!ext2_rdonly(sb) && (err = begin_rw(sb))) {
		inode_put(root);
		return err;
	}
	si->rw = !ext2_rdonly(sb);
	sb->root = root;
	return 0;
}

/* MS_REMOUNT: errors= may change; read-only to read-write marks the disk
 * not clean, read-write to read-only writes everything and marks it
 * clean again (the VFS refused first while files are open for writing). */
static int ext2_remount(struct super_block *sb, unsigned long flags, const char *data)
{
	struct ext2_sb_info *si = EXT2_SB(sb);
	struct ext2_sb_info opts = {.errors = si->errors};
	bool ro = flags & SB_RDONLY; /* mount(2)'s MS_RDONLY */
	int err = parse_opts(&opts, data);

	if (err)
		return err;
	if (!ro && ext2_rdonly(sb) && si->ro_only)
		return bad("unsupported read-only-compatible features: read-only only");
	if (!ro && bdev_read_only(sb->bdev))
		return -EACCES; /* Linux's reconfigure of a read-only device */
	si->errors = opts.errors;
	si->sync = flags & SB_SYNCHRONOUS;
	if (ro && si->rw) {
		__atomic_or_fetch(&sb->flags, SB_RDONLY, __ATOMIC_RELAXED);
		si->rw = false;
		return end_rw(sb);
	}
	if (!ro && !si->rw) {
		if ((err = begin_rw(sb)))
			return err;
		si->rw = true;
	}
	return 0;
}

static void ext2_kill_tree(struct inode *root)
{
	inode_put(root); /* the instance's: nothing else of the tree is held */
}

/* Every inode is gone: a read-write instance ends clean (everything
 * written, the state back), then the device closes. */
static void ext2_put_super(struct super_block *sb)
{
	struct ext2_sb_info *si = EXT2_SB(sb);

	if (si && si->rw)
		end_rw(sb);
	if (si) {
		release_dev(si);
		kfree(si->group);
	}
	kfree(si);
	filemap_drop_sb(sb); /* no inode is left: the files' pages go */
	/* Its blocks stay cached for the device's other users, as Linux's
	 * page cache of the block device keeps them. */
	bdev_close(sb->bdev);
}

static void ext2_statfs(struct super_block *sb, struct kstatfs *st)
{
	const struct ext2_sb_info *si = EXT2_SB(sb);
	uint32_t bfree = __atomic_load_n(&si->free_blocks, __ATOMIC_RELAXED);
	uint32_t ffree = __atomic_load_n(&si->free_inodes, __ATOMIC_RELAXED);

	st->bsize = si->block_size;
	st->blocks = si->blocks_count - si->overhead;
	st->bfree = bfree <= si->blocks_count ? bfree : 0;
	st->bavail = st->bfree > si->r_blocks ? st->bfree - si->r_blocks : 0;
	st->files = si->inodes_count;
	st->ffree = ffree <= si->inodes_count ? ffree : 0;
	st->namelen = EXT2_NAME_LEN;
}

/* As Linux's ext2_show_options: errors= when not the super block's. */
static void ext2_show_options(struct super_block *sb, char *buf, size_t size)
{
	static const char *const names[] = {"", ",errors=continue", ",errors=remount-ro",
					    ",errors=panic"};
	const struct ext2_sb_info *si = EXT2_SB(sb);

	strlcpy(buf, si->errors != si->def_errors ? names[si->errors] : "", size);
}

const struct super_operations ext2_super_ops = {
    .alloc_inode = ext2_alloc_inode,
    .free_inode = ext2_free_inode,
    .kill_tree = ext2_kill_tree,
    .put_super = ext2_put_super,
    .statfs = ext2_statfs,
    .sync_fs = ext2_sync_fs,
};

/* i_flags, chattr's flags, as Linux's ext2: all kept on the disk;
 * immutable and append-only enforced by the VFS, the others only kept. */
const struct fs_type ext2_type = {
    .attr_flags = FS_FL_USER_MODIFIABLE,
    .attr_flags_shown = FS_FL_USER_VISIBLE,
    .name = "ext2",
    .sops = &ext2_super_ops,
    .magic = EXT2_MAGIC,
    .fill = ext2_fill,
    .remount = ext2_remount,
    .show_options = ext2_show_options,
    .requires_dev = true,
};
