/*
 * sysfs: the file system /sys is (sysfs.h).  A ramfs instance that the
 * kernel fills at boot and then seals read-only: PCI's devices
 * (/sys/bus/pci, /sys/devices/pci0000:00) are the device model it shows;
 * nothing in it says what is not true (docs/vfs.md).
 */
#include "fs/sysfs/sysfs.h"
#include "fs/ramfs/ramfs.h"
#include "fs/mount_tree.h"
#include "fs/super.h"
#include "fs/vfs.h"
#include "fs/inode.h"
#include "lib/iov_iter.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "fs/file.h"
#include "mm/heap.h"
#include "lib/printk.h"
#include <uapi/dirent.h>
#include <uapi/errno.h>

static struct super_block *sysfs_sb;

/*
 * The generated files (sysfs_dyn_show), by inode number: an entry lives
 * from the file's creation to its removal by sysfs_dyn_remove (a number is
 * unique among live inodes, so a file is found by its own).  Under
 * show_lock.
 */
struct show_attr {
	struct list_head link;
	uint64_t ino;
	sysfs_show_fn show;
	uint32_t key;
};
static struct list_head show_attrs = LIST_HEAD_INIT(show_attrs);
static struct spinlock show_lock = SPINLOCK_INIT("sysfs_show");
#define SHOW_MAX 256 /* the longest text a show writes */

static int sysfs_fill(struct super_block *sb, const char *data)
{
	if (*data)
		return -EINVAL;
	if (!ramfs_make_root(sb, 0555))
		return -ENOMEM;
	return 0; /* read-only once sysfs_seal runs */
}

const struct fs_type sysfs_type = {
    .name = "sysfs",
    .sops = &ramfs_super_ops,
    .magic = 0x62656572, /* SYSFS_MAGIC */
    .fill = sysfs_fill,
    .single = &sysfs_sb,
};

int sysfs_mkdir(const char *path)
{
	return vfs_mkdir(NULL, path, 0755);
}

int sysfs_add_file(const char *path, uint32_t perm, const void *data, size_t len)
{
	struct inode *ip;
	int err = vfs_mknod(NULL, path, S_IFREG | perm, 0);

	if (err || (err = path_lookup(NULL, path, &ip)))
		return err;
	if (len && inode_write(ip, data, len, 0) != (long)len)
		err = -ENOSPC;
	inode_put(ip);
	return err;
}

int sysfs_add_link(const char *path, const char *target)
{
	return vfs_symlink(NULL, path, target);
}

void sysfs_seal(void)
{
	if (!sysfs_sb)
		return;
	spin_lock(&mount_lock); /* sb->flags' lock */
	sysfs_sb->flags |= SB_RDONLY;
	spin_unlock(&mount_lock);
}

/* ---- Entries made after boot (sysfs.h) ---- */

/* The directory holding the last component of rel, referenced, with that
 * component in *name / *len; NULL when a parent is missing. */
static struct inode *dyn_parent(const char *rel, const char **name, size_t *len)
{
	struct inode *dir = sysfs_sb ? sysfs_sb->root : NULL;
	const char *p = rel;

	if (!dir)
		return NULL;
	inode_get(dir);
	for (;;) {
		size_t n = 0;
		struct inode *next;

		while (p[n] && p[n] != '/')
			n++;

		if (!p[n]) {
			*name = p;
			*len = n;
			return dir;
		}
		next = n ? dir_lookup(dir, p, n) : NULL;
		inode_put(dir);
		if (!next)
			return NULL;
		dir = next;
		p += n + 1;
	}
}

/* The show and key of generated file ino: false if it has none. */
static bool show_find(uint64_t ino, sysfs_show_fn *show, uint32_t *key)
{
	struct show_attr *a, *found = NULL;

	spin_lock(&show_lock);
	list_for_each_entry(a, &show_attrs, link)
	{
		if (a->ino == ino)
			found = a;
	}
	if (found)
		*show = found->show, *key = found->key;
	spin_unlock(&show_lock);
	return found;
}

static void show_forget(uint64_t ino)
{
	struct show_attr *a, *tmp;

	spin_lock(&show_lock);
	list_for_each_entry_safe(a, tmp, &show_attrs, link)
	{
		if (a->ino == ino) {
			list_del(&a->link);
			kfree(a);
		}
	}
	spin_unlock(&show_lock);
}

static long show_read(struct file *f, struct iov_iter *to, uint64_t *pos)
{
	char text[SHOW_MAX];
	sysfs_show_fn show = NULL;
	uint32_t key = 0;
	size_t len;

	if (!show_find(f->inode->ino, &show, &key) || !show(key, text, sizeof text))
		return -ENODEV;
	len = strlen(text);
	if (*pos >= len)
		return 0;
	len = copy_to_iter(text + *pos, len - *pos, to);
	*pos += len;
	return len ? (long)len : -EFAULT;
}

static const struct file_ops show_ops = {
    .read_iter = show_read, .release = vfs_release_inode, .seekable = true};

static int dyn_create(const char *rel, uint32_t mode, struct inode **out)
{
	const char *name;
	size_t len;
	struct inode *dir = dyn_parent(rel, &name, &len);
	int err;

	*out = NULL;
	if (!dir)
		return -ENOENT;
	err = dir_create(dir, name, len, mode, 0, out);
	inode_put(dir);
	return err == -EEXIST && *out ? 0 : err;
}

int sysfs_dyn_mkdir(const char *rel)
{
	struct inode *ip;
	int err = dyn_create(rel, S_IFDIR | 0755, &ip);

	if (ip)
		inode_put(ip);
	return err;
}

int sysfs_dyn_set(const char *rel, const char *text)
{
	struct inode *ip;
	size_t len = strlen(text);
	int err = dyn_create(rel, S_IFREG | 0444, &ip);

	if (!err && (err = inode_truncate(ip, 0)) == 0 &&
	    inode_write(ip, text, len, 0) != (long)len)
		err = -ENOSPC;
	if (ip)
		inode_put(ip);
	return err;
}

int sysfs_dyn_show(const char *rel, sysfs_show_fn show, uint32_t key)
{
	struct show_attr *a = kmalloc(sizeof(*a));
	struct inode *ip;
	int err = a ? dyn_create(rel, S_IFREG | 0444, &ip) : -ENOMEM;

	if (err) {
		kfree(a);
		return err;
	}
	/* Before any open can find the name, but for one racing with the
	 * creation itself: that one reads the empty file. */
	ip->fop = &show_ops;
	*a = (struct show_attr){.ino = ip->ino, .show = show, .key = key};
	show_forget(ip->ino); /* a file made again under the name */
	spin_lock(&show_lock);
	list_add(&a->link, &show_attrs);
	spin_unlock(&show_lock);
	inode_put(ip);
	return 0;
}

/* getdents of a directory into names, for removal (the emit callback may
 * not sleep, the removal does). */
#define DYN_NAMES 32

struct dyn_names {
	char name[DYN_NAMES][32];
	uint64_t ino[DYN_NAMES];
	bool dir[DYN_NAMES];
	int n;
};

static bool dyn_emit(void *ctx, const char *name, size_t len, uint64_t ino, unsigned int dtype,
		     uint64_t next_pos)
{
	struct dyn_names *d = ctx;

	(void)next_pos;
	if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
		return true;
	if (d->n == DYN_NAMES || len >= sizeof(d->name[0]))
		return false;
	memcpy(d->name[d->n], name, len);
	d->name[d->n][len] = 0;
	d->ino[d->n] = ino;
	d->dir[d->n++] = dtype == DT_DIR;
	return true;
}

static void dyn_remove_in(struct inode *dir, int depth)
{
	struct dyn_names *names = kzalloc(sizeof(*names));
	uint64_t pos = 0;

	if (!names)
		return;
	dir_iterate(dir, &pos, dyn_emit, names);
	for (int i = 0; i < names->n; i++) {
		size_t len = strlen(names->name[i]);

		if (names->dir[i] && depth > 0) {
			struct inode *sub = dir_lookup(dir, names->name[i], len);
			if (sub) {
				dyn_remove_in(sub, depth - 1);
				inode_put(sub);
			}
		}
		dir_remove(dir, names->name[i], len, names->dir[i]);
		if (!names->dir[i])
			show_forget(names->ino[i]);
	}
	kfree(names);
}

void sysfs_dyn_remove(const char *rel)
{
	const char *name;
	size_t len;
	struct inode *parent = dyn_parent(rel, &name, &len), *dir;

	if (!parent)
		return;
	if ((dir = dir_lookup(parent, name, len))) {
		dyn_remove_in(dir, 1);
		inode_put(dir);
		dir_remove(parent, name, len, true);
	}
	inode_put(parent);
}
