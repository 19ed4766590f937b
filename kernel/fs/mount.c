/*
 * The mount table (see mount.h): mounts' lifetimes, the crossings path
 * lookup makes, and the table's changes (attach, detach, move, pivot),
 * each under mount_lock.  The system calls that ask for them, with
 * Linux's argument checks, are sys_mount.c's; copies of trees (bind
 * mounts, namespaces) mount_tree.c's.
 */
#include "fs/mount.h"
#include "fs/notify/fsnotify.h"
#include "fs/mount_table.h"
#include "fs/mount_tree.h"
#include "fs/nsfs.h"
#include "fs/inode.h"
#include "fs/root_cwd.h"
#include "fs/super.h"
#include "fs/vfs.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "proc/task.h"
#include <uapi/errno.h>

/* What it protects and the lock order: mount_tree.h. */
struct spinlock mount_lock = SPINLOCK_INIT("mount");

struct mnt_namespace init_ns = {
    .ns = {NS_MNT_INIT_INUM, &mnt_ns_ops}, .refs = 1, .mounts = LIST_HEAD_INIT(init_ns.mounts)};
/* The attached mounts by mount point (their hash link), so that a
 * crossing looks at the few mounts on that inode, not the whole table. */
#define MOUNT_HASH_BITS 6
static struct list_head mount_hash[1 << MOUNT_HASH_BITS];
static int next_id = 1;		  /* under mount_lock */
static unsigned long live_mounts; /* atomic */

struct mnt_namespace *current_ns(void)
{
	struct task *t = current();

	return t && t->fs ? t->fs->mnt_ns : &init_ns;
}

unsigned long mount_count(void)
{
	return __atomic_load_n(&live_mounts, __ATOMIC_RELAXED);
}

/* An instance leaving its last mount (or never getting one): for a type
 * with an instance per mount, its inotify watches end (IN_UNMOUNT), its
 * tree goes (files still open keep their inodes); then the mount's
 * reference on it. */
static void sb_discard(struct super_block *sb)
{
	if (!sb->type->single) {
		fsnotify_sb_unmount(sb);
		struct inode *root = sb->root;
		sb->root = NULL;
		sb->op->kill_tree(root);
	}
	sb_put(sb);
}

void mount_free(struct mount *m)
{
	struct super_block *sb = m->sb;

	inode_put(m->root);
	kfree(m->source);
	kfree(m);
	__atomic_sub_fetch(&live_mounts, 1, __ATOMIC_RELAXED);
	if (__atomic_sub_fetch(&sb->mounts, 1, __ATOMIC_ACQ_REL))
		sb_put(sb);
	else
		sb_discard(sb);
}

struct mount *mount_alloc(struct super_block *sb, struct inode *root, const char *source,
			  unsigned int flags)
{
	struct mount *m = kzalloc(sizeof(*m));

	if (!m || !(m->source = kstrdup(source))) {
		kfree(m);
		return NULL;
	}
	m->refs = 1; /* the table's, once attached; mount_discard's before */
	m->sb = sb;
	m->root = root;
	m->flags = flags;
	__atomic_add_fetch(&sb->mounts, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&live_mounts, 1, __ATOMIC_RELAXED);
	return m;
}

void mount_discard(struct mount *m)
{
	mnt_put(m);
}

struct list_head *mount_bucket(const struct inode *mp)
{
	return &mount_hash[((uintptr_t)mp * 0x9E3779B97F4A7C15ULL) >> (64 - MOUNT_HASH_BITS)];
}

/*
 * Under mount_lock: m's place becomes (parent, mp), whose references it
 * takes over (NULLs: none); its old place, references and all, goes to
 * *old.  The mount points' mounted counts and the hash follow.
 */
static void place(struct mount *m, struct mount *parent, struct inode *mp, struct path *old)
{
	*old = (struct path){m->parent, m->mountpoint};
	if (old->inode) {
		__atomic_sub_fetch(&old->inode->mounted, 1, __ATOMIC_RELEASE);
		list_del(&m->hash);
	}
	m->parent = parent;
	m->mountpoint = mp;
	if (mp) {
		__atomic_add_fetch(&mp->mounted, 1, __ATOMIC_RELEASE);
		list_add_tail(&m->hash, mount_bucket(mp));
	}
}

void attach(struct mount *m, struct mnt_namespace *ns, struct mount *parent, struct inode *mp)
{
	struct path none;

	place(m, parent, mp, &none);
	m->ns = ns;
	m->id = next_id++;
	list_add_tail(&m->link, &ns->mounts);
	if (!parent)
		ns->root = m;
	ns_changed(ns);
}

void ns_changed(struct mnt_namespace *ns)
{
	__atomic_add_fetch(&ns->event, 1, __ATOMIC_RELEASE);
	wake_up(&ns->poll);
}

bool in_current_ns(const struct path *p)
{
	return p->mnt && p->mnt->ns == current_ns();
}

int attach_check(const struct path *mp)
{
	if (mp->inode->nlink == 0)
		return -ENOENT;
	return in_current_ns(mp) ? 0 : -EINVAL;
}

int mount_attach(struct mount *m, const struct path *mp)
{
	int err;

	spin_lock(&mp->inode->lock); /* against rmdir: it checks mounted under it */
	spin_lock(&mount_lock);
	if (!(err = attach_check(mp))) {
		path_get(mp);
		attach(m, mp->mnt->ns, mp->mnt, mp->inode);
	}
	spin_unlock(&mount_lock);
	spin_unlock(&mp->inode->lock);
	return err;
}

void mount_init(struct super_block *root_sb)
{
	struct mount *m;

	for (size_t i = 0; i < sizeof(mount_hash) / sizeof(mount_hash[0]); i++)
		list_init(&mount_hash[i]);
	wait_queue_init(&init_ns.poll, "mnt_ns_poll");
	inode_get(root_sb->root);
	/* Named tmpfs, not rootfs: busybox df skips those. */
	if (!(m = mount_alloc(root_sb, root_sb->root, "tmpfs", MNT_RELATIME)))
		panic("vfs: no memory for the root mount");
	spin_lock(&mount_lock);
	attach(m, &init_ns, NULL, NULL);
	spin_unlock(&mount_lock);
}

void vfs_root_path(struct path *out)
{
	spin_lock(&mount_lock);
	*out = (struct path){init_ns.root, init_ns.root->root};
	path_get(out);
	spin_unlock(&mount_lock);
	mount_down(out);
}

/* Under mount_lock: the mount of p's mount over p's inode, or NULL. */
static struct mount *mount_at(const struct path *p)
{
	struct mount *m;

	list_for_each_entry(m, mount_bucket(p->inode), hash)
	{
		if (m->mountpoint == p->inode && m->parent == p->mnt)
			return m;
	}
	return NULL;
}

void mount_down_slow(struct path *p)
{
	while (__atomic_load_n(&p->inode->mounted, __ATOMIC_ACQUIRE)) {
		struct mount *top;

		spin_lock(&mount_lock);
		if ((top = mount_at(p)))
			path_get(&(struct path){top, top->root});
		spin_unlock(&mount_lock);
		if (!top)
			return;
		path_put_keep_mark(p); /* a crossing: no use of the mount (mount.h) */
		*p = (struct path){top, top->root};
	}
}

void mount_up(struct path *p)
{
	while (path_is_mount_root(p)) {
		struct path up = {NULL, NULL};

		spin_lock(&mount_lock);
		if (p->mnt->ns && p->mnt->mountpoint) {
			up = (struct path){p->mnt->parent, p->mnt->mountpoint};
			path_get(&up);
		}
		spin_unlock(&mount_lock);
		if (!up.inode)
			return;
		path_put_keep_mark(p);
		*p = up;
	}
}

int path_want_write(const struct path *p)
{
	if (path_mnt_flags(p) & MNT_READONLY)
		return -EROFS;
	return sb_want_write(p->inode->sb);
}

/* A boot mount of type over path (a directory made if missing). */
void mount_boot(const char *type, const char *source, const char *path, const char *data,
		unsigned int mnt_flags)
{
	struct super_block *sb;
	struct mount *m;
	struct path mp;
	int err;

	vfs_mkdir(NULL, path, 0755);
	if ((err = path_lookup_path(NULL, path, 0, &mp)))
		panic("vfs: no %s to mount %s on (%d)", path, type, err);
	if (!(sb = sb_create(fs_type_find(type), data, &err)))
		panic("vfs: cannot make %s for %s (%d)", type, path, err);
	inode_get(sb->root);
	/* relatime, as mount(2)'s default */
	if (!(m = mount_alloc(sb, sb->root, source, mnt_flags | MNT_RELATIME)) ||
	    (err = mount_attach(m, &mp)))
		panic("vfs: cannot mount %s on %s (%d)", type, path, err);
	path_put(&mp);
}

/* ---- Changes of attached mounts ---- */

int mount_set_flags(const struct path *p, unsigned int flags, bool sb_too)
{
	struct super_block *sb = p->inode->sb;
	int err = 0;

	spin_lock(&mount_lock);
	if (!path_is_mount_root(p) || !in_current_ns(p))
		err = -EINVAL;
	else {
		p->mnt->flags = flags;
		ns_changed(p->mnt->ns);
		if (sb_too)
			sb->flags =
			    (sb->flags & ~SB_RDONLY) | (flags & MNT_READONLY ? SB_RDONLY : 0);
	}
	spin_unlock(&mount_lock);
	return err;
}

/* Under mount_lock: does a mount sit under m (attached)? */
static bool has_children(const struct mount *m)
{
	struct mount *c;

	list_for_each_entry(c, &m->ns->mounts, link) if (c->parent == m) return true;
	return false;
}

/* Under mount_lock: m leaves the table; what it held goes to *gone
 * (put after the lock: the mount point and the parent, which it keeps
 * until then, and the table's own reference). */
static void detach(struct mount *m, struct list_head *gone)
{
	struct path old;

	list_del(&m->link);
	m->ns = NULL;
	place(m, NULL, NULL, &old);
	m->parent = old.mnt;
	m->mountpoint = old.inode;
	list_add_tail(&m->link, gone);
}

void detach_tree(struct mount *top, struct list_head *gone)
{
	struct mnt_namespace *ns = top->ns;
	struct mount *m, *n;
	bool again = true;

	detach(top, gone);
	ns_changed(ns);
	while (again) { /* the table is flat: sweep until no orphan is left */
		again = false;
		list_for_each_entry_safe(m, n, &ns->mounts, link) if (m->parent && !m->parent->ns)
		{
			detach(m, gone);
			again = true;
		}
	}
}

void release(struct list_head *gone)
{
	struct mount *m, *n;

	list_for_each_entry_safe(m, n, gone, link)
	{
		struct path mp = {m->parent, m->mountpoint};
		m->parent = NULL;
		m->mountpoint = NULL;
		if (mp.inode)
			path_put_keep_mark(&mp);
		mnt_put_keep_mark(m);
	}
}

/*
 * Whether anything holds m beyond the table and the caller's path: the
 * paths through it (walks, working directories, roots, open files) and,
 * for an instance's last mount, anything holding one of its inodes
 * (mappings and running programs hold inodes, not mounts).
 */
static bool mount_busy(struct mount *m)
{
	if (__atomic_load_n(&m->refs, __ATOMIC_RELAXED) > 2)
		return true;
	return __atomic_load_n(&m->sb->mounts, __ATOMIC_RELAXED) == 1 && sb_busy(m->sb, m->root, 2);
}

int mount_umount(const struct path *p, int flags)
{
	struct list_head gone = LIST_HEAD_INIT(gone);
	struct mount *m = p->mnt;
	int err = 0;

	spin_lock(&mount_lock);
	if (!path_is_mount_root(p) || !in_current_ns(p))
		err = -EINVAL;
	else if (!m->parent)
		err = -EBUSY; /* the root stays (docs/vfs.md) */
	else if (!(flags & MNT_DETACH) && (has_children(m) || mount_busy(m)))
		err = -EBUSY;
	else if ((flags & MNT_EXPIRE) &&
		 !__atomic_exchange_n(&m->expiry_mark, true, __ATOMIC_RELAXED))
		err = -EAGAIN; /* marked now: the next call takes it unless it is used first */
	else
		detach_tree(m, &gone);
	spin_unlock(&mount_lock);
	release(&gone);
	return err;
}

bool mount_under(const struct mount *m, const struct mount *top)
{
	for (; m; m = m->parent)
		if (m == top)
			return true;
	return false;
}

int mount_move(const struct path *from, const struct path *to)
{
	struct mount *m = from->mnt;
	struct path old = {NULL, NULL};
	int err = 0;

	spin_lock(&to->inode->lock); /* against rmdir, as mount_attach */
	spin_lock(&mount_lock);
	if (!path_is_mount_root(from) || !in_current_ns(from) || !in_current_ns(to))
		err = -EINVAL;
	else if (mount_under(to->mnt, m))
		err = -ELOOP; /* the root mount's every move too, as Linux says */
	else if (!m->parent)
		err = -EINVAL;
	else if (to->inode->nlink == 0)
		err = -ENOENT;
	if (!err) {
		path_get(to);
		place(m, to->mnt, to->inode, &old);
		ns_changed(m->ns);
	}
	spin_unlock(&mount_lock);
	spin_unlock(&to->inode->lock);
	if (old.inode)
		path_put_keep_mark(&old);
	return err;
}

/* Whether walking up from p (through mount points) meets top. */
bool path_reaches(const struct path *p, const struct path *top)
{
	struct path cur = *p;
	bool found;

	path_get(&cur);
	for (;;) {
		if ((found = path_equal(&cur, top)))
			break;
		mount_up(&cur);
		if ((found = path_equal(&cur, top)) || path_is_mount_root(&cur))
			break;
		struct inode *parent = dir_parent(cur.inode);
		inode_put(cur.inode);
		cur.inode = parent;
	}
	path_put_keep_mark(&cur);
	return found;
}

int mount_pivot(const struct path *new, const struct path *old, const struct path *root)
{
	struct mount *nm = new->mnt, *rm = root->mnt;
	struct path ex = {NULL, NULL}, rm_place;
	int err = 0;

	spin_lock(&mount_lock);
	if (!in_current_ns(new) || !in_current_ns(root) || !in_current_ns(old) || !nm->parent) {
		err = -EINVAL;
	} else {
		/* nm leaves its mount point for the root's place, whose
		 * references pass from rm to it; rm goes over old. */
		place(rm, NULL, NULL, &rm_place);
		place(nm, rm_place.mnt, rm_place.inode, &ex);
		path_get(old);
		place(rm, old->mnt, old->inode, &rm_place);
		if (nm->ns->root == rm)
			nm->ns->root = nm;
		list_del(&nm->link); /* the new root first in the table, as in a walk */
		list_add(&nm->link, &nm->ns->mounts);
		ns_changed(nm->ns);
	}
	spin_unlock(&mount_lock);
	if (ex.inode)
		path_put_keep_mark(&ex);
	return err;
}

size_t mount_snapshot(const struct mnt_namespace *ns, struct mount_snap *snap, size_t cap)
{
	size_t count = 0;
	struct mount *m;

	spin_lock(&mount_lock);
	list_for_each_entry(m, &ns->mounts, link)
	{
		struct mount_snap *s = &snap[count];
		if (count == cap)
			break;
		*s = (struct mount_snap){.id = m->id,
					 .parent_id = m->parent ? m->parent->id : m->id,
					 .dev = m->sb->dev,
					 .type = m->sb->type->name,
					 .at = {m, m->root},
					 .flags = m->flags,
					 .sb_rdonly = m->sb->flags & SB_RDONLY};
		path_get(&s->at);
		strlcpy(s->source, m->source, sizeof(s->source));
		if (m->sb->type->show_options)
			m->sb->type->show_options(m->sb, s->sb_opts, sizeof(s->sb_opts));
		count++;
	}
	spin_unlock(&mount_lock);
	return count;
}
