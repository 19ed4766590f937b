/*
 * ramfs inodes: their memory (ramfs_super_ops, for every instance of
 * tmpfs, devtmpfs, sysfs, devpts and the internal one), the operation
 * tables each type of inode gets, and metadata (setattr, getattr).
 * setattr checks nothing (the VFS asked already: sys_attr.c, with
 * fs/permission.h); each change takes the inode lock and sets ctime, as
 * Linux's notify_change does (the inotify events are sys_attr.c's: it
 * knows the name the change came by).
 */
#include "fs/ramfs/ramfs.h"
#include "fs/permission.h"
#include "fs/ramfs/ramfs_priv.h"
#include "fs/ramfs/memfd.h"
#include "fs/super.h"
#include "fs/vfs.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/layout.h"
#include <uapi/errno.h>


/* Directories: every operation (rename is ramfs_rename.c's). */
const struct inode_operations ramfs_dir_iops = {
    .lookup = ramfs_lookup,
    .create = ramfs_create,
    .mknod = ramfs_create,
    .mkdir = ramfs_create,
    .symlink = ramfs_symlink,
    .link = ramfs_link,
    .unlink = ramfs_unlink,
    .rmdir = ramfs_rmdir,
    .rename = ramfs_rename,
    .tmpfile = ramfs_tmpfile,
    .iterate = ramfs_iterate,
    .parent = ramfs_parent,
    .name_of = ramfs_name_of,
    .setattr = ramfs_setattr,
    .getattr = ramfs_getattr,
};

/* Regular files: their data in pages (ramfs_file.c, ramfs_falloc.c). */
const struct inode_operations ramfs_file_iops = {
    .setattr = ramfs_setattr,
    .getattr = ramfs_getattr,
    .read_iter = ramfs_read_iter,
    .write_iter = ramfs_write_iter,
    .page_ref = ramfs_page_ref,
    .fallocate = ramfs_fallocate,
    .seek_hole_data = ramfs_seek_hole_data,
    .resident_pages = ramfs_resident_pages,
};

/* Links (their target is the core's), devices, FIFOs, sockets. */
static const struct inode_operations ramfs_other_iops = {
    .setattr = ramfs_setattr,
    .getattr = ramfs_getattr,
};

void ramfs_inode_init(struct ramfs_inode *ri, uint32_t mode)
{
	ri->vfs.op = &ramfs_other_iops;
	if (S_ISDIR(mode)) {
		ri->vfs.op = &ramfs_dir_iops;
		ri->vfs.fop = &vfs_dir_ops;
		list_init(&ri->dir.entries);
		ri->dir.next_pos = 2; /* 0 and 1 are "." and ".." */
	} else if (S_ISREG(mode)) {
		ri->vfs.op = &ramfs_file_iops;
		ri->vfs.fop = &vfs_file_ops;
	}
}

static struct inode *ramfs_alloc_inode(struct super_block *sb, uint32_t mode)
{
	struct ramfs_inode *ri = kzalloc(sizeof(*ri));

	(void)sb;
	if (!ri)
		return NULL;
	ramfs_inode_init(ri, mode);
	return &ri->vfs;
}

/* A link's target is charged as one page (ramfs_symlink). */
void ramfs_evict(struct inode *ip)
{
	if (S_ISDIR(ip->mode))
		ramfs_free_dir(ip);
	else if (S_ISREG(ip->mode))
		ramfs_free_data(ip);
	else if (S_ISLNK(ip->mode)) {
		kfree(ip->link.target);
		sb_uncharge_pages(ip->sb, 1);
	}
}

static void ramfs_free_inode(struct inode *ip)
{
	ramfs_evict(ip);
	kfree(RAMFS_I(ip));
}

const struct super_operations ramfs_super_ops = {
    .alloc_inode = ramfs_alloc_inode,
    .free_inode = ramfs_free_inode,
    .kill_tree = ramfs_kill_tree,
};

struct inode *ramfs_make_root(struct super_block *sb, uint32_t mode)
{
	struct inode *root = inode_alloc(sb, S_IFDIR | mode, 0);

	if (!root)
		return NULL;
	root->nlink = 2;
	RAMFS_I(root)->dir.parent = root; /* its own parent, unreferenced */
	sb->root = root;
	sb->maxbytes = RAMFS_MAX_FILE;
	return root;
}

/* Nobody else has the inode until it is returned. */
int ramfs_tmpfile(struct inode *dir, uint32_t mode, bool linkable, struct inode **out)
{
	struct inode *ip = inode_alloc(dir->sb, S_IFREG | (mode & 07777), 0);

	if (!ip)
		return -ENOSPC; /* nr_inodes=, or no memory */
	inode_init_owner(ip, dir);
	RAMFS_I(ip)->file.linkable = linkable;
	*out = ip;
	return 0;
}

/* ---- Metadata ---- */

static void set_one_time(uint64_t *field, uint64_t ns, uint64_t now)
{
	if (ns == INODE_TIME_NOW)
		*field = now;
	else if (ns != INODE_TIME_OMIT)
		*field = ns;
}

/* Under ip->lock. */
static void set_owner(struct inode *ip, const struct iattr *a)
{
	if ((a->valid & ATTR_UID) && a->uid != (uint32_t)-1)
		ip->uid = a->uid;
	if ((a->valid & ATTR_GID) && a->gid != (uint32_t)-1)
		ip->gid = a->gid;
}

/* A size change is a truncate (regular files only: the VFS checks);
 * chmod keeps the type bits and obeys a memfd's F_SEAL_EXEC. */
int ramfs_setattr(struct inode *ip, const struct iattr *a)
{
	uint64_t now = inode_now_ns();
	int err = 0;

	if ((a->valid & ATTR_SIZE) && (err = ramfs_truncate(ip, a->size)))
		return err;
	if (!(a->valid & ~ATTR_SIZE))
		return 0;
	spin_lock(&ip->lock);
	if ((a->valid & ATTR_MODE) && S_ISREG(ip->mode))
		err = seals_deny_chmod(ip, a->mode);
	if (!err) {
		if (a->valid & ATTR_MODE)
			ip->mode = (ip->mode & S_IFMT) | (a->mode & 07777);
		if (a->valid & (ATTR_UID | ATTR_GID))
			set_owner(ip, a);
		iattr_drop_setid(ip, a->valid);
		if (a->valid & ATTR_ATIME)
			set_one_time(&ip->atime_ns, a->atime_ns, now);
		if (a->valid & ATTR_MTIME)
			set_one_time(&ip->mtime_ns, a->mtime_ns, now);
		if (a->valid & ATTR_FLAGS)
			__atomic_store_n(&ip->attr_flags, a->attr_flags, __ATOMIC_RELAXED);
		if (!(a->valid & ATTR_TOUCH))
			ip->ctime_ns = now;
	}
	spin_unlock(&ip->lock);
	return err;
}

/* st_blocks: what the file holds, holes left out and fallocate's pages
 * past the end counted, as tmpfs. */
void ramfs_getattr(struct inode *ip, struct uapi_stat *st)
{
	spin_lock(&ip->lock);
	inode_fill_stat(ip, st);
	if (S_ISREG(ip->mode))
		st->st_blocks = RAMFS_I(ip)->file.used * (PAGE_SIZE / 512);
	spin_unlock(&ip->lock);
}
