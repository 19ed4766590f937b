/*
 * nsfs (nsfs.h): an unmounted ramfs instance with NSFS_MAGIC whose
 * inodes are made for one open each and freed with it: the inode number
 * is the namespace's (fstat's st_ino, what programs compare to tell two
 * namespaces apart), the kind is kept in rdev (a regular file has no
 * device).  No namespace object is referenced: the ones a file can name
 * other than mount namespaces live forever, and nothing here reads a
 * mount namespace (setns is not implemented).
 */
#include "fs/nsfs.h"
#include "arch/x86_64/uaccess.h"
#include "fd/fd_install.h"
#include "fs/file.h"
#include "fs/inode.h"
#include "fs/ramfs/ramfs.h"
#include "fs/super.h"
#include "fs/vfs.h"
#include "lib/printk.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/nsfs.h>
#include <uapi/sched.h>

static struct super_block *nsfs_sb;

static const struct {
	const char *name;
	uint32_t clone_flag; /* NS_GET_NSTYPE's answer */
	uint64_t inum;
} kinds[NS_KINDS] = {
    [NS_IPC] = {"ipc", CLONE_NEWIPC, 0xEFFFFFFFUL},
    [NS_UTS] = {"uts", CLONE_NEWUTS, 0xEFFFFFFEUL},
    [NS_USER] = {"user", CLONE_NEWUSER, 0xEFFFFFFDUL},
    [NS_PID] = {"pid", CLONE_NEWPID, 0xEFFFFFFCUL},
    [NS_NET] = {"net", CLONE_NEWNET, NS_NET_INUM},
    [NS_TIME] = {"time", CLONE_NEWTIME, 0xEFFFFFFAUL},
    [NS_MNT] = {"mnt", CLONE_NEWNS, 0},
};

const char *nsfs_kind_name(enum ns_kind kind)
{
	return kinds[kind].name;
}

uint64_t nsfs_inum(enum ns_kind kind)
{
	return kinds[kind].inum;
}

static enum ns_kind kind_of(const struct file *f)
{
	return (enum ns_kind)f->inode->rdev;
}

/* NS_GET_USERNS: a new fd (close-on-exec, as Linux's open_related_ns)
 * for the initial user namespace, which owns every namespace here. */
static long open_user_ns(void)
{
	struct inode *ip = nsfs_inode(NS_USER, kinds[NS_USER].inum);
	struct file *f;
	long fd;

	if (!ip)
		return -ENOMEM;
	if ((fd = vfs_open_inode(ip, O_RDONLY, &f))) {
		inode_put(ip);
		return fd;
	}
	if ((fd = fd_install_new(f, O_CLOEXEC)) < 0)
		file_put(f);
	return fd;
}

/*
 * Linux's ns_ioctl for initial namespaces: the initial user namespace
 * has no owner nor parent (EPERM), nor has the initial pid namespace a
 * parent (EPERM); the other kinds have no parent at all (EINVAL); only a
 * user namespace has an owner's uid (root's, 0).
 */
static long ns_ioctl(struct file *f, unsigned long cmd, unsigned long arg)
{
	enum ns_kind kind = kind_of(f);
	uint32_t uid = 0;

	switch (cmd) {
	case NS_GET_USERNS:
		return kind == NS_USER ? -EPERM : open_user_ns();
	case NS_GET_PARENT:
		return kind == NS_USER || kind == NS_PID ? -EPERM : -EINVAL;
	case NS_GET_NSTYPE:
		return kinds[kind].clone_flag;
	case NS_GET_OWNER_UID:
		if (kind != NS_USER)
			return -EINVAL;
		return copy_to_user((void *)arg, &uid, sizeof(uid)) ? -EFAULT : 0;
	}
	return -ENOTTY;
}

/* No read or write: EINVAL, as Linux's ns_file_operations. */
static const struct file_ops ns_file_ops = {
    .ioctl = ns_ioctl,
    .release = vfs_release_inode,
};

struct inode *nsfs_inode(enum ns_kind kind, uint64_t inum)
{
	struct inode *ip = inode_alloc(nsfs_sb, S_IFREG | 0444, 0);

	if (!ip)
		return NULL;
	ip->ino = inum;
	ip->rdev = kind;
	ip->nlink = 1; /* Linux's: a file no directory holds */
	ip->fop = &ns_file_ops;
	return ip;
}

static int nsfs_fill(struct super_block *sb, const char *data)
{
	(void)data;
	return ramfs_make_root(sb, 0500) ? 0 : -ENOMEM;
}

static const struct fs_type nsfs_type = {
    .name = "nsfs",
    .sops = &ramfs_super_ops,
    .magic = 0x6e736673, /* NSFS_MAGIC */
    .fill = nsfs_fill,
    .single = &nsfs_sb,
};

void nsfs_init(void)
{
	int err;

	if (!sb_create(&nsfs_type, "", &err))
		panic("nsfs: no instance (%d)", err);
}
