/*
 * procfs's inodes and their operations (docs/vfs.md).  A procfs directory
 * is a ramfs directory (the entries made at boot: /proc's files, sys,
 * sysvipc, and its "..") plus, for a generated one, entries made up at
 * each lookup and listing (struct dir_gen: /proc/<pid>, fd, task, sys...),
 * which take no new names.  Files and links are made at lookup, each a
 * struct proc_inode holding numbers, never pointers (proc_pid.c's rule).
 */
#include "fs/proc/proc_pid.h"
#include "fs/file.h"
#include "fs/permission.h"
#include "fs/super.h"
#include "fs/vfs.h"
#include "mm/heap.h"
#include "proc/pidfd.h"
#include <uapi/errno.h>

/* procfs has one instance, as Linux's for one pid namespace: every
 * mount of proc shows the same processes (set at the first mount, then
 * constant). */
struct super_block *proc_sb;

struct inode *proc_inode_alloc(uint32_t mode, uint32_t rdev)
{
	return inode_alloc(proc_sb, mode, rdev);
}

/* ---- the directories ---- */

/* The stored entries first: /proc's files shadow no process. */
static int proc_lookup(struct inode *dir, const char *name, size_t len, struct inode **out)
{
	const struct dir_gen *gen = PROC_I(dir)->gen;
	int err = ramfs_lookup(dir, name, len, out);

	return err == -ENOENT && gen ? gen->lookup(dir, name, len, out) : err;
}

static void proc_iterate(struct inode *dir, uint64_t *pos, dir_emit_fn emit, void *ctx)
{
	const struct dir_gen *gen = PROC_I(dir)->gen;

	if (!ramfs_iterate_entries(dir, pos, emit, ctx) || !gen)
		return;
	if (*pos < DIR_GEN_POS)
		*pos = DIR_GEN_POS;
	gen->iterate(dir, pos, emit, ctx);
}

/* A generated directory's own rule, else the mode bits. */
static int proc_dir_permission(const struct inode *dir, int mask)
{
	const struct dir_gen *gen = PROC_I(dir)->gen;

	return gen && gen->permission ? gen->permission(dir, mask)
				      : inode_permission_slow(dir, mask);
}

/* A generated directory takes no new names, so none can shadow a
 * process or self (Linux's answer, ENOENT). */
static int proc_dir_create(struct inode *dir, const char *name, size_t len, uint32_t mode,
			   uint32_t rdev, struct inode **out)
{
	return PROC_I(dir)->gen ? -ENOENT : ramfs_create(dir, name, len, mode, rdev, out);
}

static int proc_dir_symlink(struct inode *dir, const char *name, size_t len, const char *target,
			    size_t tlen)
{
	return PROC_I(dir)->gen ? -ENOENT : ramfs_symlink(dir, name, len, target, tlen);
}

static int proc_dir_link(struct inode *dir, const char *name, size_t len, struct inode *ip)
{
	return PROC_I(dir)->gen ? -ENOENT : ramfs_link(dir, name, len, ip);
}

/* No O_TMPFILE (EOPNOTSUPP): procfs makes no regular files. */
static const struct inode_operations proc_dir_iops = {
    .lookup = proc_lookup,
    .permission = proc_dir_permission,
    .create = proc_dir_create,
    .mknod = proc_dir_create,
    .mkdir = proc_dir_create,
    .symlink = proc_dir_symlink,
    .link = proc_dir_link,
    .unlink = ramfs_unlink,
    .rmdir = ramfs_rmdir,
    .rename = ramfs_rename,
    .iterate = proc_iterate,
    .parent = ramfs_parent,
    .name_of = ramfs_name_of,
    .setattr = ramfs_setattr,
    .getattr = ramfs_getattr,
};

/* ---- the instance ---- */

/* Files and links keep the ramfs's metadata operations. */
static struct inode *proc_alloc_inode(struct super_block *sb, uint32_t mode)
{
	struct proc_inode *pi = kzalloc(sizeof(*pi));

	(void)sb;
	if (!pi)
		return NULL;
	ramfs_inode_init(&pi->ri, mode);
	if (S_ISDIR(mode))
		pi->ri.vfs.op = &proc_dir_iops;
	return &pi->ri.vfs;
}

static void proc_free_inode(struct inode *ip)
{
	struct proc_inode *pi = PROC_I(ip);

	if (pi->ident)
		pid_ident_put(pi->ident);
	if (S_ISLNK(ip->mode) && pi->uncharged) {
		kfree(ip->link.target);
		if (ip->link.file)
			file_put(ip->link.file);
		if (ip->link.jump)
			inode_put(ip->link.jump);
	} else {
		ramfs_evict(ip);
	}
	kfree(pi);
}

static const struct super_operations proc_super_ops = {
    .alloc_inode = proc_alloc_inode,
    .free_inode = proc_free_inode,
};

/* The root: /proc's entries made at boot (fs/dev/devices.c's files,
 * sys, sysvipc), then, once proc_pid_init gives it its generated
 * entries, a directory per process made up at each lookup. */
static int proc_fill(struct super_block *sb, const char *data)
{
	if (*data)
		return -EINVAL;	    /* hidepid= and the like: not here */
	sb->flags |= SB_NODIRATIME; /* as Linux's proc_fill_super */
	return ramfs_make_root(sb, 0555) ? 0 : -ENOMEM;
}

const struct fs_type proc_type = {
    .name = "proc",
    .sops = &proc_super_ops,
    .magic = 0x9fa0, /* PROC_SUPER_MAGIC */
    .fill = proc_fill,
    .single = &proc_sb,
};
