/*
 * nsfs (nsfs.h): an unmounted ramfs-based instance with NSFS_MAGIC whose
 * inodes are made for one walk through a /proc/<pid>/ns link each and
 * freed with the last file opened through it: the inode number is the
 * namespace's (fstat's st_ino, what programs compare to tell two
 * namespaces apart), and the inode holds a reference on the namespace,
 * so that setns can enter it as long as the file is open.
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
#include "mm/heap.h"
#include "proc/cred.h"
#include "proc/user_namespace.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/nsfs.h>
#include <uapi/sched.h>

static struct super_block *nsfs_sb;

static const struct {
	const char *name;
	unsigned long clone_flag; /* NS_GET_NSTYPE's answer */
} kinds[NS_KINDS] = {
    [NS_IPC] = {"ipc", CLONE_NEWIPC},	 [NS_UTS] = {"uts", CLONE_NEWUTS},
    [NS_USER] = {"user", CLONE_NEWUSER}, [NS_PID] = {"pid", CLONE_NEWPID},
    [NS_NET] = {"net", CLONE_NEWNET},	 [NS_TIME] = {"time", CLONE_NEWTIME},
    [NS_MNT] = {"mnt", CLONE_NEWNS},
};

const char *nsfs_kind_name(enum ns_kind kind)
{
	return kinds[kind].name;
}

unsigned long nsfs_clone_flag(enum ns_kind kind)
{
	return kinds[kind].clone_flag;
}

static uint64_t next_inum = NS_INUM_NEXT;

uint64_t nsfs_alloc_inum(void)
{
	return __atomic_fetch_add(&next_inum, 1, __ATOMIC_RELAXED);
}

/* ---- the initial namespaces of the kinds that have no other ---- */

static void initial_ref(struct ns_common *ns)
{
	(void)ns;
}

/* Entering the one namespace of its kind changes nothing, after Linux's
 * check: CAP_SYS_ADMIN over it and the caller's user namespace. */
static int initial_install(struct ns_common *ns)
{
	return ns_may_install(ns) ? 0 : -EPERM;
}

#define INITIAL_OPS(k)                                                                             \
	{                                                                                          \
		.kind = k, .get = initial_ref, .put = initial_ref, .install = initial_install      \
	}
static const struct ns_ops initial_ops[] = {INITIAL_OPS(NS_NET), INITIAL_OPS(NS_TIME)};
static struct ns_common initial[] = {
    {NS_NET_INUM, &initial_ops[0]},
    {NS_TIME_INUM, &initial_ops[1]},
};

struct ns_common *nsfs_initial(enum ns_kind kind)
{
	for (size_t i = 0; i < sizeof(initial) / sizeof(initial[0]); i++)
		if (initial[i].ops->kind == kind)
			return &initial[i];
	panic("nsfs: no initial-only namespace of kind %d", kind);
}

/* ---- the files ---- */

struct nsfs_inode {
	struct ramfs_inode ri;
	struct ns_common *ns; /* referenced (ops->get) until the inode is freed */
};

static struct ns_common *ns_of(const struct inode *ip)
{
	return container_of(RAMFS_I(ip), struct nsfs_inode, ri)->ns;
}

/* NS_GET_USERNS, NS_GET_PARENT: a new fd (close-on-exec, as Linux's
 * open_related_ns) for ns (the inode takes its own reference). */
static long open_ns_fd(struct ns_common *ns)
{
	struct inode *ip = nsfs_inode(ns);
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

/* NS_GET_USERNS: the user namespace owning ns, for a user namespace its
 * parent; EPERM for the initial one's (none) or one outside the
 * caller's namespace (Linux's ns_get_owner). */
static long open_owner(struct ns_common *ns)
{
	struct user_namespace *owner =
	    ns->ops->kind == NS_USER ? to_user_ns(ns)->parent : ns_owner(ns);

	if (!owner || !user_ns_visible(owner))
		return -EPERM;
	return open_ns_fd(&owner->ns);
}

/* NS_GET_PARENT: a kind with a hierarchy answers through its parent
 * operation (pid and user namespaces); the other kinds have no
 * hierarchy (EINVAL). */
static long open_parent(struct ns_common *ns)
{
	struct ns_common *parent;
	int err;
	long fd;

	if (!ns->ops->parent)
		return -EINVAL;
	if (!(parent = ns->ops->parent(ns, &err)))
		return err;
	fd = open_ns_fd(parent);
	parent->ops->put(parent);
	return fd;
}

/*
 * Linux's ns_ioctl: a user namespace's owner is its parent, another
 * kind's the user namespace it was made in; the initial user namespace
 * has none; only a user namespace has an owner's uid, as the caller's
 * namespace shows it.
 */
static long ns_ioctl(struct file *f, unsigned long cmd, unsigned long arg)
{
	struct ns_common *ns = ns_of(f->inode);
	enum ns_kind kind = ns->ops->kind;
	uint32_t uid;

	switch (cmd) {
	case NS_GET_USERNS:
		return open_owner(ns);
	case NS_GET_PARENT:
		return open_parent(ns);
	case NS_GET_NSTYPE:
		return (long)kinds[kind].clone_flag;
	case NS_GET_OWNER_UID:
		if (kind != NS_USER)
			return -EINVAL;
		uid = from_kuid_munged(current_user_ns(), to_user_ns(ns)->owner);
		return copy_to_user((void *)arg, &uid, sizeof(uid)) ? -EFAULT : 0;
	}
	return -ENOTTY;
}

/* No read or write: EINVAL, as Linux's ns_file_operations. */
static const struct file_ops ns_file_ops = {
    .ioctl = ns_ioctl,
    .release = vfs_release_inode,
};

struct inode *nsfs_inode(struct ns_common *ns)
{
	struct inode *ip = inode_alloc(nsfs_sb, S_IFREG | 0444, 0);

	if (!ip)
		return NULL;
	ns->ops->get(ns);
	container_of(RAMFS_I(ip), struct nsfs_inode, ri)->ns = ns;
	ip->ino = ns->inum;
	ip->nlink = 1; /* Linux's: a file no directory holds */
	ip->fop = &ns_file_ops;
	return ip;
}

struct ns_common *nsfs_of_file(struct file *f)
{
	return f->ops == &ns_file_ops ? ns_of(f->inode) : NULL;
}

static struct inode *nsfs_alloc_inode(struct super_block *sb, uint32_t mode)
{
	struct nsfs_inode *ni = kzalloc(sizeof(*ni));

	(void)sb;
	if (!ni)
		return NULL;
	ramfs_inode_init(&ni->ri, mode);
	return &ni->ri.vfs;
}

static void nsfs_free_inode(struct inode *ip)
{
	struct nsfs_inode *ni = container_of(RAMFS_I(ip), struct nsfs_inode, ri);

	if (ni->ns)
		ni->ns->ops->put(ni->ns);
	ramfs_evict(ip);
	kfree(ni);
}

static const struct super_operations nsfs_super_ops = {
    .alloc_inode = nsfs_alloc_inode,
    .free_inode = nsfs_free_inode,
};

static int nsfs_fill(struct super_block *sb, const char *data)
{
	(void)data;
	return ramfs_make_root(sb, 0500) ? 0 : -ENOMEM;
}

static const struct fs_type nsfs_type = {
    .name = "nsfs",
    .sops = &nsfs_super_ops,
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
