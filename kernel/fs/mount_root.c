/*
 * The root file system on a block device, as Linux mounts it without an
 * initramfs (init/do_mounts.c): with root=/dev/NAME on the command line,
 * vfs_init leaves the initrd packed, so the boot's first root is an empty
 * tmpfs holding only the mount points of proc, sysfs, devtmpfs and /tmp.
 * Once the drivers have registered their disks (kmain, after pci_init),
 * the device's file system is mounted over that root, read-only unless
 * the word "rw" is given (Linux's default), and the boot mounts move onto
 * its directories of the same names, as an initramfs's switch_root moves
 * them.  docs/vfs.md, "Boot".
 */
#include "block/blkdev.h"
#include "cmdline.h"
#include "fs/mount_table.h"
#include "fs/super.h"
#include "fs/vfs.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/heap.h"
#include <uapi/errno.h>

/* What vfs_init mounted on the first root, moved onto the device's. */
static const char *const boot_mounts[] = {"/proc", "/sys", "/dev", "/tmp"};
#define NBOOT_MOUNTS (sizeof(boot_mounts) / sizeof(boot_mounts[0]))

/* Linux's words for a root that cannot be mounted, with the block
 * devices there are, so a wrong root= is told at once, never a hang. */
static __attribute__((noreturn)) void root_panic(int err)
{
	size_t size = 4096;
	char *buf = kmalloc(size);

	printk("VFS: Cannot open root device \"%s\": error %d\n", kopts.root, err);
	printk(
	    "Please append a correct \"root=\" boot option; here are the available partitions:\n");
	if (buf) {
		partitions_text(buf, size);
		for (char *line = buf, *end; *line; line = end + 1) {
			if (!(end = strchr(line, '\n')))
				break;
			*end = '\0';
			printk("%s\n", line);
		}
	}
	panic("VFS: Unable to mount root fs on %s", kopts.root);
}

/* The device mounted over root as rootfstype=, or as each type on a
 * device in turn until one knows it (EINVAL: not this type), as Linux's
 * mount_root_generic: 0 or the error of the last try. */
static int mount_types(const struct path *root, unsigned long flags)
{
	const struct fs_type *fst;
	int err = -ENODEV;

	if (kopts.rootfstype[0])
		return do_new_mount(root, kopts.rootfstype, kopts.root, flags, kopts.rootflags);
	for (size_t i = 0; (fst = fs_type_at(i)); i++) {
		if (!fst->requires_dev)
			continue;
		err = do_new_mount(root, fst->name, kopts.root, flags, kopts.rootflags);
		if (err != -EINVAL)
			break;
	}
	return err;
}

/* The boot mount at from (its mount's root, referenced, put here) goes
 * onto the same path of the new root, or away when that has none. */
static void move_boot_mount(struct path *from, const char *name)
{
	struct path to;
	int err = path_lookup_path(NULL, name, 0, &to);

	if (!err) {
		err = inode_is_dir(to.inode) ? mount_move(from, &to) : -ENOTDIR;
		path_put(&to);
	}
	if (err) {
		printk("VFS: %s not mounted: no directory %s on the root (%d)\n", name, name, err);
		mount_umount(from, MNT_DETACH);
	}
	path_put(from);
}

void vfs_mount_root(void)
{
	unsigned long flags = kopts.root_rw ? 0 : MS_RDONLY;
	struct path root, boot[NBOOT_MOUNTS];
	int err;

	if (!kopts.root[0])
		return;
	if (kopts.root[0] != '/')
		root_panic(-ENOENT); /* a path of a /dev node is what is known */
	for (size_t i = 0; i < NBOOT_MOUNTS; i++)
		if ((err = path_lookup_path(NULL, boot_mounts[i], 0, &boot[i])))
			panic("vfs: no %s to move onto the root (%d)", boot_mounts[i], err);
	vfs_root_path(&root);
	err = mount_types(&root, flags);
	/* A read-only device: EACCES from the read-write open (Linux's),
	 * EROFS from a file system that cannot write. */
	if ((err == -EROFS || err == -EACCES) && !(flags & MS_RDONLY)) {
		printk("VFS: %s is write-protected, mounting read-only\n", kopts.root);
		err = mount_types(&root, flags |= MS_RDONLY);
	}
	path_put(&root);
	if (err)
		root_panic(err);
	vfs_root_path(&root);
	printk("VFS: Mounted root (%s filesystem)%s on device %s.\n", root.inode->sb->type->name,
	       (flags & MS_RDONLY) ? " readonly" : "", kopts.root);
	path_put(&root);
	for (size_t i = 0; i < NBOOT_MOUNTS; i++)
		move_boot_mount(&boot[i], boot_mounts[i]);
}
