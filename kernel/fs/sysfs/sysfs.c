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
#include "lib/string.h"
#include "mm/heap.h"
#include "lib/printk.h"
#include <uapi/dirent.h>
#include <uapi/errno.h>

static struct super_block *sysfs_sb;

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

/* getdents of a directory into names, for removal (the emit callback may
 * not sleep, the removal does). */
#define DYN_NAMES 32

struct dyn_names {
	char name[DYN_NAMES][32];
	bool dir[DYN_NAMES];
	int n;
};

static bool dyn_emit(void *ctx, const char *name, size_t len, uint64_t ino, unsigned int dtype,
		     uint64_t next_pos)
{
	struct dyn_names *d = ctx;

	(void)ino, (void)next_pos;
	if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
		return true;
	if (d->n == DYN_NAMES || len >= sizeof(d->name[0]))
		return false;
	memcpy(d->name[d->n], name, len);
	d->name[d->n][len] = 0;
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
