/*
 * Super blocks (see super.h): their life, device numbers, limits and the
 * busy check umount asks.  The types themselves are in their folders
 * (ramfs/tmpfs.c, proc/, dev/).
 */
#include "fs/super.h"
#include "block/blkdev.h"
#include "fs/devpts/devpts.h"
#include "fs/inode.h"
#include "lib/string.h"
#include "mm/frame.h"
#include "mm/heap.h"
#include <uapi/errno.h>

static const struct fs_type *const types[] = {&sysfs_type, &tmpfs_type,	 &devtmpfs_type,
					      &proc_type,  &devpts_type, &ext2_type};

const struct fs_type *fs_type_at(size_t i)
{
	return i < sizeof(types) / sizeof(types[0]) ? types[i] : NULL;
}

const struct fs_type *fs_type_find(const char *name)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(types[i]->name, name))
			return types[i];
	return NULL;
}

/*
 * Device numbers: major 0 and a minor each, as Linux's anonymous ones,
 * taken from a bitmap under dev_lock.  Minors below 16 are never given
 * (Linux keeps 0), so 240 instances exist at most: EMFILE past that, as
 * Linux's get_anon_bdev when its range is spent.
 */
#define DEV_FIRST 16
#define DEV_COUNT 256
static uint64_t dev_used[DEV_COUNT / 64];
static struct spinlock dev_lock = SPINLOCK_INIT("sb_dev");
static unsigned long live_sbs; /* atomic */

static int dev_alloc(void)
{
	int dev = -EMFILE;

	spin_lock(&dev_lock);
	for (int i = DEV_FIRST; i < DEV_COUNT; i++)
		if (!(dev_used[i / 64] & (1UL << (i % 64)))) {
			dev_used[i / 64] |= 1UL << (i % 64);
			dev = i;
			break;
		}
	spin_unlock(&dev_lock);
	return dev;
}

static void dev_free(uint32_t dev)
{
	spin_lock(&dev_lock);
	dev_used[dev / 64] &= ~(1UL << (dev % 64));
	spin_unlock(&dev_lock);
}

static struct super_block *sb_alloc(const struct fs_type *type, int *err)
{
	struct super_block *sb = kzalloc(sizeof(*sb));
	int dev = sb ? dev_alloc() : -ENOMEM;

	if (dev < 0) {
		kfree(sb);
		*err = dev;
		return NULL;
	}
	sb->type = type;
	sb->op = type->sops;
	sb->refs = 1;
	sb->dev = dev;
	sb->pages_max = sb->inodes_max = SIZE_MAX;
	spin_init(&sb->inodes_lock, "sb_inodes");
	list_init(&sb->inodes);
	__atomic_add_fetch(&live_sbs, 1, __ATOMIC_RELAXED);
	return sb;
}

struct super_block *sb_create_bdev(const struct fs_type *type, struct block_device *bdev,
				   unsigned int sb_flags, const char *data, int *err)
{
	struct super_block *sb = sb_alloc(type, err);

	if (!sb) {
		bdev_close(bdev);
		return NULL;
	}
	sb->bdev = bdev; /* closed by put_super at the instance's end */
	sb->flags = sb_flags;
	if ((*err = type->fill(sb, data))) {
		sb_put(sb);
		return NULL;
	}
	return sb;
}

struct super_block *sb_create(const struct fs_type *type, const char *data, int *err)
{
	struct super_block *sb;

	if (type->single && *type->single) {
		sb_get(*type->single);
		return *type->single;
	}
	if (!(sb = sb_alloc(type, err)))
		return NULL;
	if ((*err = type->fill(sb, data))) {
		sb_put(sb);
		return NULL;
	}
	if (type->single) {
		sb_get(sb); /* the type's own: the instance outlives its mounts */
		*type->single = sb;
	}
	return sb;
}

void sb_get(struct super_block *sb)
{
	__atomic_add_fetch(&sb->refs, 1, __ATOMIC_RELAXED);
}

void sb_put(struct super_block *sb)
{
	if (__atomic_sub_fetch(&sb->refs, 1, __ATOMIC_ACQ_REL))
		return;
	if (sb->op->put_super)
		sb->op->put_super(sb);
	dev_free(sb->dev);
	__atomic_sub_fetch(&live_sbs, 1, __ATOMIC_RELAXED);
	kfree(sb);
}

unsigned long sb_count(void)
{
	return __atomic_load_n(&live_sbs, __ATOMIC_RELAXED);
}

static size_t all_pages; /* atomic: pages charged in every instance */

bool sb_charge_pages(struct super_block *sb, size_t n)
{
	if (__atomic_add_fetch(&sb->pages_used, n, __ATOMIC_RELAXED) >
		__atomic_load_n(&sb->pages_max, __ATOMIC_RELAXED) ||
	    !frame_spare(n)) {
		__atomic_sub_fetch(&sb->pages_used, n, __ATOMIC_RELAXED);
		return false;
	}
	__atomic_add_fetch(&all_pages, n, __ATOMIC_RELAXED);
	return true;
}

void sb_uncharge_pages(struct super_block *sb, size_t n)
{
	__atomic_sub_fetch(&sb->pages_used, n, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&all_pages, n, __ATOMIC_RELAXED);
}

size_t sb_pages_all(void)
{
	return __atomic_load_n(&all_pages, __ATOMIC_RELAXED);
}

int sb_want_write(const struct super_block *sb)
{
	return __atomic_load_n(&sb->flags, __ATOMIC_RELAXED) & SB_RDONLY ? -EROFS : 0;
}

/*
 * The references an inode's own tree holds on it: one per entry naming
 * it and, for a directory, one from each child directory's ".." (its
 * nlink less its own "." and its entry), and the instance's on its root.
 * A removed directory (nlink 0) is held by nothing of the tree.
 */
static uint32_t tree_refs(const struct super_block *sb, const struct inode *ip)
{
	if (sb->icache) /* nothing of the tree holds an inode */
		return ip == sb->root;
	if (!S_ISDIR(ip->mode))
		return ip->nlink;
	if (ip == sb->root)
		return ip->nlink - 1; /* the instance's, and children's ".." */
	return ip->nlink ? ip->nlink - 1 : 0;
}

bool sb_busy(struct super_block *sb, const struct inode *held, unsigned int extra)
{
	struct inode *ip;
	bool busy = false;

	spin_lock(&sb->inodes_lock);
	list_for_each_entry(ip, &sb->inodes, sb_link)
	{
		uint32_t refs = __atomic_load_n(&ip->refcount, __ATOMIC_RELAXED);

		if (ip == held)
			refs -= extra;
		if (__atomic_load_n(&ip->watches, __ATOMIC_RELAXED))
			refs--; /* its watches' (fs/inode.h): they end at umount */
		if (refs > tree_refs(sb, ip) || __atomic_load_n(&ip->mounted, __ATOMIC_RELAXED)) {
			busy = true;
			break;
		}
	}
	spin_unlock(&sb->inodes_lock);
	return busy;
}

bool sb_has_writers(struct super_block *sb)
{
	struct inode *ip;
	bool writers = false;

	spin_lock(&sb->inodes_lock);
	list_for_each_entry(ip, &sb->inodes,
			    sb_link) if (__atomic_load_n(&ip->writecount, __ATOMIC_RELAXED) > 0)
	{
		writers = true;
		break;
	}
	spin_unlock(&sb->inodes_lock);
	return writers;
}
