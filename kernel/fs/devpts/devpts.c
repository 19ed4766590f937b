/*
 * devpts: the file system /dev/pts is, one node per pseudo-terminal whose
 * master is open, made up at each lookup and listing from tty/pty.c's
 * node interface (pty_node, pty_next_node), never stored, as /proc/<pid>.
 * One instance, mounted at boot (Linux's single-instance devpts).
 * Lifetime rule: a node holds its pty's index (in rdev) and serial (in
 * its inode number) only, never a pointer; opening it finds the pty again
 * and refuses one that is gone or was replaced by a new pty with the
 * same index (EIO).
 */
#include "fs/devpts/devpts.h"
#include "fs/file.h"
#include "fs/inode.h"
#include "fs/mount.h"
#include "fs/proc/proc_pid.h"
#include "fs/ramfs/ramfs.h"
#include "fs/super.h"
#include "fs/vfs.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "tty/pty.h"
#include <uapi/errno.h>

/* Node inode numbers: the pty's serial above this, clear of the root's. */
#define DEVPTS_INO_BASE 1024

/* The instance (super.c sets it at the first mount; then constant). */
static struct super_block *devpts_sb;

int devpts_node(int index, struct inode **out)
{
	struct pty_node node;
	struct inode *ip;

	if (!devpts_sb || !pty_node(index, &node))
		return -ENOENT;
	if (!(ip = inode_alloc(devpts_sb, S_IFCHR | node.mode, MKDEV_WIDE(PTY_SLAVE_MAJOR, index))))
		return -ENOMEM;
	ip->ino = DEVPTS_INO_BASE + node.serial;
	ip->nlink = 1; /* named in /dev/pts while it is made */
	ip->uid = node.uid;
	ip->gid = node.gid;
	ip->mtime_ns = ip->ctime_ns = ip->atime_ns = node.ctime_ns;
	*out = ip;
	return 0;
}

int devpts_open(struct file *f, unsigned flags)
{
	struct inode *ip = f->inode;

	if (ip->sb != devpts_sb) /* a node made by mknod elsewhere: no pty behind it */
		return -ENXIO;
	return pty_slave_open(f, RDEV_MINOR(ip->rdev), ip->ino - DEVPTS_INO_BASE, flags);
}

int devpts_path(struct path *out)
{
	int err = path_lookup_path(NULL, "/dev/pts", 0, out);

	if (!err && (!devpts_sb || out->inode != devpts_sb->root)) {
		path_put(out);
		err = -ENOENT;
	}
	return err;
}

static int pts_lookup(struct inode *dir, const char *name, size_t len, struct inode **out)
{
	int index = proc_name_to_int(name, len);

	(void)dir;
	return index < 0 ? -ENOENT : devpts_node(index, out);
}

/* Nodes in index order: the cookie after index N is DIR_GEN_POS + N + 1. */
static void pts_iterate(struct inode *dir, uint64_t *pos, dir_emit_fn emit, void *ctx)
{
	struct pty_node node;
	char name[12];
	int index;

	(void)dir;
	while ((index = pty_next_node(*pos - DIR_GEN_POS)) >= 0) {
		int len = snprintk(name, sizeof(name), "%d", index);
		if (pty_node(index, &node) && !emit(ctx, name, len, DEVPTS_INO_BASE + node.serial,
						    S_IFCHR >> 12, DIR_GEN_POS + index + 1))
			return;
		*pos = DIR_GEN_POS + index + 1;
	}
}

/* "." and ".." (the root's own: ramfs_iterate_entries), then the nodes. */
static void pts_dir_iterate(struct inode *dir, uint64_t *pos, dir_emit_fn emit, void *ctx)
{
	if (!ramfs_iterate_entries(dir, pos, emit, ctx))
		return;
	if (*pos < DIR_GEN_POS)
		*pos = DIR_GEN_POS;
	pts_iterate(dir, pos, emit, ctx);
}

/* Names come from the ptys alone: nothing can be made (ENOENT) and the
 * ramfs root below stores no entry, so removing and renaming find none. */
static int pts_no_create(struct inode *dir, const char *name, size_t len, uint32_t mode,
			 uint32_t rdev, struct inode **out)
{
	(void)dir, (void)name, (void)len, (void)mode, (void)rdev, (void)out;
	return -ENOENT;
}

static int pts_no_symlink(struct inode *dir, const char *name, size_t len, const char *target,
			  size_t tlen)
{
	(void)dir, (void)name, (void)len, (void)target, (void)tlen;
	return -ENOENT;
}

static int pts_no_link(struct inode *dir, const char *name, size_t len, struct inode *ip)
{
	(void)dir, (void)name, (void)len, (void)ip;
	return -ENOENT;
}

/* The root's operations (its nodes keep the ramfs's); no O_TMPFILE. */
static const struct inode_operations pts_dir_iops = {
    .lookup = pts_lookup,
    .create = pts_no_create,
    .mknod = pts_no_create,
    .mkdir = pts_no_create,
    .symlink = pts_no_symlink,
    .link = pts_no_link,
    .unlink = ramfs_unlink,
    .rmdir = ramfs_rmdir,
    .rename = ramfs_rename,
    .iterate = pts_dir_iterate,
    .parent = ramfs_parent,
    .name_of = ramfs_name_of,
    .setattr = ramfs_setattr,
    .getattr = ramfs_getattr,
};

static int devpts_fill(struct super_block *sb, const char *data)
{
	struct inode *root;

	if (*data)
		return -EINVAL; /* no options (Linux's gid=, mode=, ptmxmode=) */
	if (!(root = ramfs_make_root(sb, 0755)))
		return -ENOMEM;
	root->ino = 1; /* Linux's devpts root */
	root->op = &pts_dir_iops;
	return 0;
}

const struct fs_type devpts_type = {
    .name = "devpts",
    .sops = &ramfs_super_ops,
    .magic = 0x1cd1, /* DEVPTS_SUPER_MAGIC */
    .fill = devpts_fill,
    .single = &devpts_sb,
};

void devpts_init(void)
{
	mount_boot("devpts", "devpts", "/dev/pts", "", MNT_NOSUID | MNT_NOEXEC);
}
