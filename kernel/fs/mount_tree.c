/*
 * Copies of mount trees, Linux's copy_tree: a bind mount copies the mount
 * it binds from (and, with MS_REC, the mounts below), a new namespace
 * copies its parent's whole table; and the namespaces themselves (see
 * mount.h): their lifetimes, and the mounts of other namespaces an rmdir
 * here takes away.  The table's locking is mount_tree.h's.
 */
#include "fs/mount_table.h"
#include "fs/mount_tree.h"
#include "fs/nsfs.h"
#include "fs/inode.h"
#include "fs/root_cwd.h"
#include "fs/super.h"
#include "mm/heap.h"
#include "proc/cred.h"
#include "proc/task.h"
#include "proc/user_namespace.h"
#include <uapi/errno.h>

static unsigned long live_ns = 1; /* atomic: init_ns and every copy */

/* ---- Copies of mount trees: bind mounts and namespaces ---- */

/* One mount of a tree being copied (Linux's copy_tree). */
struct tree_copy {
	struct mount *m;    /* the original, referenced */
	struct mount *copy; /* its copy; NULL when skipped or out of memory */
	struct path at;	    /* where m is attached, referenced; none for the top */
	/* The copy went into a table (set under mount_lock), and the list
	 * holds a reference of its own on it: an rmdir elsewhere may detach
	 * it at once (mount_detach_at), so its ns says nothing then. */
	bool placed;
};

/* The copy standing for m in list, or NULL. */
static struct mount *copy_in(const struct tree_copy *list, size_t n, const struct mount *m)
{
	for (size_t i = 0; i < n; i++)
		if (list[i].m == m)
			return list[i].copy;
	return NULL;
}

/* Under mount_lock: from's mount, then with rec the mounts below it in
 * its namespace, oldest first, each referenced: their number. */
static size_t collect_tree(const struct path *from, bool rec, struct tree_copy *list, size_t cap)
{
	struct mount *m;
	size_t n = 1;

	list[0] = (struct tree_copy){from->mnt, NULL, {NULL, NULL}, false};
	mnt_get(from->mnt);
	if (!rec || !from->mnt->ns)
		return n;
	list_for_each_entry(m, &from->mnt->ns->mounts,
			    link) if (m != from->mnt && n < cap && mount_under(m, from->mnt))
	{
		list[n] = (struct tree_copy){m, NULL, {m->parent, m->mountpoint}, false};
		mnt_get(m);
		path_get(&list[n++].at);
	}
	return n;
}

/*
 * The tree from shows, copied: entry 0 is a copy of from's mount showing
 * from's inode; with rec, copies of the mounts below it that are attached
 * at or under that inode follow (the others are skipped, and so is all
 * below them).  Each copy keeps its original's flags and source.  The
 * entries in *out, their number returned; *err -ENOMEM when a copy could
 * not be made (the list is still freed with tree_copy_free).
 */
static size_t copy_tree(const struct path *from, bool rec, struct tree_copy **out, int *err)
{
	size_t cap = rec ? mount_count() + 8 : 1, n;
	struct tree_copy *list = kzalloc(cap * sizeof(*list));

	*out = list;
	*err = list ? 0 : -ENOMEM;
	if (!list)
		return 0;
	spin_lock(&mount_lock);
	n = collect_tree(from, rec, list, cap);
	spin_unlock(&mount_lock);
	for (size_t i = 0; i < n && !*err; i++) {
		struct mount *o = list[i].m;
		struct inode *root = i ? o->root : from->inode;
		if (i && list[i].at.mnt == from->mnt && !path_reaches(&list[i].at, from))
			continue; /* beside the copied directory, not under it */
		sb_get(o->sb);
		inode_get(root);
		if (!(list[i].copy = mount_alloc(o->sb, root, o->source, o->flags))) {
			inode_put(root);
			sb_put(o->sb);
			*err = -ENOMEM;
		}
	}
	return n;
}

/* Under mount_lock: c's copy goes into ns over (parent, mp), whose
 * references it takes (NULLs: as ns's root). */
static void place_copy(struct tree_copy *c, struct mnt_namespace *ns, struct mount *parent,
		       struct inode *mp)
{
	if (mp)
		path_get(&(struct path){parent, mp});
	attach(c->copy, ns, parent, mp);
	mnt_get(c->copy);
	c->placed = true;
}

/* Under mount_lock: the top copy goes over (parent, mp) in ns (NULLs: as
 * its root), every other under its parent's copy once that is in (a
 * moved mount may be older than its parent). */
static void attach_tree(struct mnt_namespace *ns, struct tree_copy *list, size_t n,
			struct mount *parent, struct inode *mp)
{
	place_copy(&list[0], ns, parent, mp);
	for (size_t round = 0; round < n; round++)
		for (size_t i = 1; i < n; i++) {
			struct mount *up = copy_in(list, n, list[i].at.mnt);
			if (list[i].copy && !list[i].placed && up && up->ns == ns)
				place_copy(&list[i], ns, up, list[i].at.inode);
		}
}

/* Drops the list: copies never placed go (their trees with them). */
static void tree_copy_free(struct tree_copy *list, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (list[i].placed)
			mnt_put(list[i].copy);
		else if (list[i].copy)
			mount_discard(list[i].copy);
		if (list[i].at.inode)
			path_put_keep_mark(&list[i].at); /* a copy is no use of the source */
		mnt_put_keep_mark(list[i].m);
	}
	kfree(list);
}

int mount_bind(const struct path *from, const struct path *to, bool rec)
{
	struct tree_copy *list;
	int err;
	size_t n = copy_tree(from, rec, &list, &err);

	if (!err) {
		spin_lock(&to->inode->lock); /* against rmdir, as mount_attach */
		spin_lock(&mount_lock);
		if (!(err = attach_check(to)))
			attach_tree(to->mnt->ns, list, n, to->mnt, to->inode);
		spin_unlock(&mount_lock);
		spin_unlock(&to->inode->lock);
	}
	tree_copy_free(list, n);
	return err;
}

/* ---- Namespaces ---- */

bool mount_in_current_ns(const struct path *p)
{
	bool in;

	spin_lock(&mount_lock);
	in = in_current_ns(p);
	spin_unlock(&mount_lock);
	return in;
}

struct mnt_namespace *mnt_ns_init(void)
{
	mnt_ns_get(&init_ns);
	return &init_ns;
}

void mnt_ns_get(struct mnt_namespace *ns)
{
	__atomic_add_fetch(&ns->refs, 1, __ATOMIC_RELAXED);
}

unsigned long mnt_ns_count(void)
{
	return __atomic_load_n(&live_ns, __ATOMIC_RELAXED);
}

/* The last process of ns is gone: its tree goes, as a lazy umount of its
 * root (what is still held elsewhere stays until let go). */
void mnt_ns_put(struct mnt_namespace *ns)
{
	struct list_head gone = LIST_HEAD_INIT(gone);

	if (__atomic_sub_fetch(&ns->refs, 1, __ATOMIC_ACQ_REL))
		return;
	spin_lock(&mount_lock);
	detach_tree(ns->root, &gone);
	spin_unlock(&mount_lock);
	release(&gone);
	user_ns_put(ns->owner);
	kfree(ns);
	__atomic_sub_fetch(&live_ns, 1, __ATOMIC_RELAXED);
}

/* fs's path p moves to the copy of its mount, if there is one. */
static void move_to_copy(struct path *p, const struct tree_copy *list, size_t n)
{
	struct mount *copy = copy_in(list, n, p->mnt);

	if (copy) {
		mnt_get(copy);
		mnt_put(p->mnt);
		p->mnt = copy;
	}
}

struct ns_common *mnt_ns_common(struct mnt_namespace *ns)
{
	return &ns->ns;
}

static struct mnt_namespace *to_mnt_ns(struct ns_common *ns)
{
	return container_of(ns, struct mnt_namespace, ns);
}

static void mnt_ns_get_common(struct ns_common *ns)
{
	mnt_ns_get(to_mnt_ns(ns));
}

static void mnt_ns_put_common(struct ns_common *ns)
{
	mnt_ns_put(to_mnt_ns(ns));
}

/*
 * setns into ns (Linux's mntns_install): CAP_SYS_ADMIN and
 * CAP_SYS_CHROOT (EPERM), an fs_struct no other task shares (EINVAL);
 * then the caller's root and working directory are the namespace's root,
 * what is mounted on it crossed.
 */
static int mnt_ns_install(struct ns_common *common)
{
	struct mnt_namespace *ns = to_mnt_ns(common), *old;
	struct fs_struct *fs = current()->fs;
	struct path root, cwd;

	if (!capable(CAP_SYS_ADMIN) || !capable(CAP_SYS_CHROOT))
		return -EPERM;
	if (__atomic_load_n(&fs->refs, __ATOMIC_ACQUIRE) != 1)
		return -EINVAL;
	spin_lock(&mount_lock);
	root = (struct path){ns->root, ns->root->root}; /* ns referenced: its tree attached */
	path_get(&root);
	spin_unlock(&mount_lock);
	mount_down(&root);
	cwd = root;
	path_get(&cwd);
	mnt_ns_get(ns);
	spin_lock_task(&fs->lock);
	old = fs->mnt_ns;
	fs->mnt_ns = ns;
	spin_unlock_task(&fs->lock);
	fs_set_root(fs, &root);
	fs_set_cwd(fs, &cwd);
	mnt_ns_put(old);
	return 0;
}

static struct user_namespace *mnt_ns_owner(struct ns_common *ns)
{
	return to_mnt_ns(ns)->owner;
}

const struct ns_ops mnt_ns_ops = {
    .kind = NS_MNT,
    .get = mnt_ns_get_common,
    .put = mnt_ns_put_common,
    .install = mnt_ns_install,
    .owner = mnt_ns_owner,
};

int mnt_ns_copy(struct fs_struct *fs, struct user_namespace *owner)
{
	struct mnt_namespace *ns = kzalloc(sizeof(*ns)), *old = fs->mnt_ns;
	struct tree_copy *list = NULL;
	struct path root;
	int err = -ENOMEM;
	size_t n = 0;

	spin_lock(&mount_lock);
	root = (struct path){old->root, old->root->root};
	path_get(&root);
	spin_unlock(&mount_lock);
	if (ns)
		n = copy_tree(&root, true, &list, &err);
	if (!err) {
		ns->refs = 1;
		list_init(&ns->mounts);
		ns->ns = (struct ns_common){nsfs_alloc_inum(), &mnt_ns_ops};
		user_ns_get(ns->owner = owner);
		wait_queue_init(&ns->poll, "mnt_ns_poll");
		spin_lock(&mount_lock);
		attach_tree(ns, list, n, NULL, NULL);
		spin_unlock(&mount_lock);
		spin_lock_task(&fs->lock);
		move_to_copy(&fs->root, list, n);
		move_to_copy(&fs->cwd, list, n);
		fs->mnt_ns = ns;
		spin_unlock_task(&fs->lock);
		__atomic_add_fetch(&live_ns, 1, __ATOMIC_RELAXED);
		mnt_ns_put(old);
	}
	if (list)
		tree_copy_free(list, n);
	path_put(&root);
	if (err)
		kfree(ns);
	return err;
}

bool mount_is_local(const struct inode *ip)
{
	struct mnt_namespace *ns = current_ns();
	struct mount *m;
	bool local = false;

	if (!__atomic_load_n(&ip->mounted, __ATOMIC_ACQUIRE))
		return false;
	spin_lock(&mount_lock);
	list_for_each_entry(m, mount_bucket(ip), hash)
	{
		if (m->mountpoint == ip && m->ns == ns) {
			local = true;
			break;
		}
	}
	spin_unlock(&mount_lock);
	return local;
}

void mount_detach_at(struct inode *ip)
{
	struct list_head gone = LIST_HEAD_INIT(gone);
	struct mount *m;
	bool again = true;

	if (!__atomic_load_n(&ip->mounted, __ATOMIC_ACQUIRE))
		return;
	spin_lock(&mount_lock);
	while (again) { /* a detach takes mounts off the bucket: look again */
		again = false;
		list_for_each_entry(m, mount_bucket(ip), hash) if (m->mountpoint == ip)
		{
			detach_tree(m, &gone);
			again = true;
			break;
		}
	}
	spin_unlock(&mount_lock);
	release(&gone);
}
