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
#include "lib/printk.h"
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
