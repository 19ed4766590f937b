/*
 * sysfs: the file system /sys is.  Linux shows its device model there;
 * fdkernel has no device model to show yet, so the instance is an empty
 * read-only directory: programs that look for /sys find it, and nothing
 * in it says what is not true (docs/vfs.md).
 */
#include "fs/ramfs/ramfs.h"
#include "fs/super.h"
#include <uapi/errno.h>

static struct super_block *sysfs_sb;

static int sysfs_fill(struct super_block *sb, const char *data)
{
	if (*data)
		return -EINVAL;
	if (!ramfs_make_root(sb, 0555))
		return -ENOMEM;
	sb->flags |= SB_RDONLY;
	return 0;
}

const struct fs_type sysfs_type = {
    .name = "sysfs",
    .sops = &ramfs_super_ops,
    .magic = 0x62656572, /* SYSFS_MAGIC */
    .fill = sysfs_fill,
    .single = &sysfs_sb,
};
