/*
 * The mount table (see mount.h), the crossings path lookup makes, and
 * mount(2) and umount2(2) with Linux's checks in Linux's order
 * (fs/namespace.c's path_mount, do_new_mount, do_remount, can_umount,
 * do_umount).
 */
#include "fs/mount.h"
#include "arch/x86_64/uaccess.h"
#include "fs/inode.h"
#include "fs/root_cwd.h"
#include "fs/super.h"
#include "fs/upath.h"
#include "fs/vfs.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/layout.h"
#include "proc/cred.h"
#include "proc/proc.h"
#include "proc/task.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>

/*
 * mount_lock protects the table, each mount's flags, each instance's
 * mnt, root and flags while it is mounted, and each inode's mounted
 * count (written under the inode's lock too, read without either only as
 * a hint).  Lock order: an inode's lock, then mount_lock.
 */
static struct spinlock mount_lock = SPINLOCK_INIT("mount");
static struct list_head mounts = LIST_HEAD_INIT(mounts);
static int next_id = 1;		  /* under mount_lock */
static unsigned long live_mounts; /* atomic */
/* The mount with no mount point, whose root is "/" for the kernel's own
 * lookups and init's: under mount_lock (pivot_root changes it). */
static struct mount *root_mount;

unsigned long mount_count(void)
{
	return __atomic_load_n(&live_mounts, __ATOMIC_RELAXED);
}

struct inode *vfs_root(void)
{
	struct inode *root;

	spin_lock(&mount_lock);
	root = root_mount->sb->root;
	inode_get(root);
	spin_unlock(&mount_lock);
	return mount_down(root);
}

unsigned int sb_mount_flags(const struct super_block *sb)
{
	unsigned int flags;

	spin_lock(&mount_lock);
	flags = sb->mnt ? sb->mnt->flags : 0;
	spin_unlock(&mount_lock);
	return flags;
}

struct inode *mount_down_slow(struct inode *ip)
{
	while (__atomic_load_n(&ip->mounted, __ATOMIC_ACQUIRE)) {
		struct mount *m, *top = NULL;
		struct inode *root;

		spin_lock(&mount_lock);
		list_for_each_entry(m, &mounts, link) if (m->mountpoint == ip) top = m;
		if (!top) {
			spin_unlock(&mount_lock);
			break;
		}
		root = top->sb->root;
		inode_get(root);
		spin_unlock(&mount_lock);
		inode_put(ip);
		ip = root;
	}
	return ip;
}

struct inode *mount_up(struct inode *dir)
{
	for (;;) {
		struct super_block *sb = dir->sb;
		struct inode *mp = NULL;

		if (!sb->mnt) /* unlocked hint: a root instance is always mounted */
			return dir;
		spin_lock(&mount_lock);
		if (sb->mnt && sb->root == dir && (mp = sb->mnt->mountpoint))
			inode_get(mp);
		spin_unlock(&mount_lock);
		if (!mp)
			return dir;
		inode_put(dir);
		dir = mp;
	}
}

/* Under mount_lock: puts m in the table over mp (NULL: the root mount). */
static void attach(struct mount *m, struct super_block *sb, struct inode *mp)
{
	m->sb = sb;
	m->mountpoint = mp;
	m->parent = mp ? mp->sb->mnt : NULL;
	m->id = next_id++;
	sb->mnt = m;
	if (mp)
		__atomic_add_fetch(&mp->mounted, 1, __ATOMIC_RELEASE);
	list_add_tail(&m->link, &mounts);
	__atomic_add_fetch(&live_mounts, 1, __ATOMIC_RELAXED);
}

static struct mount *mount_alloc(const char *source)
{
	struct mount *m = kzalloc(sizeof(*m));

	if (m && !(m->source = kstrdup(source))) {
		kfree(m);
		return NULL;
	}
	return m;
}

/*
 * Mounts sb over the directory mp (referenced by the caller, which keeps
 * its reference until this returns): takes sb's reference.  -ENOENT if
 * mp was removed, -EINVAL if its own instance is no longer mounted
 * (detached), -ENOTDIR, -ENOMEM.
 */
static int do_attach(struct super_block *sb, struct inode *mp, const char *source,
		     unsigned int mnt_flags)
{
	struct mount *m;
	int err = 0;

	if (!inode_is_dir(mp))
		return -ENOTDIR;
	if (!(m = mount_alloc(source)))
		return -ENOMEM;
	m->flags = mnt_flags;
	spin_lock(&mp->lock); /* against rmdir: it checks mounted under it */
	spin_lock(&mount_lock);
	if (mp->nlink == 0)
		err = -ENOENT;
	else if (!mp->sb->mnt)
		err = -EINVAL;
	else if (sb->mnt)
		err = -EBUSY; /* a single-instance type mounted already */
	else {
		inode_get(mp);
		attach(m, sb, mp);
	}
	spin_unlock(&mount_lock);
	spin_unlock(&mp->lock);
	if (err) {
		kfree(m->source);
		kfree(m);
	}
	return err;
}

/* Under mount_lock: m leaves the table; what it held goes to *gone. */
static void detach(struct mount *m, struct list_head *gone)
{
	list_del(&m->link);
	m->sb->mnt = NULL;
	__atomic_sub_fetch(&m->mountpoint->mounted, 1, __ATOMIC_RELEASE);
	list_add_tail(&m->link, gone);
}

/* An instance leaving its mount (or never getting one): for a type with
 * an instance per mount, its tree goes (files still open keep their
 * inodes; docs/vfs.md on lazy umount); then the caller's reference. */
static void sb_discard(struct super_block *sb)
{
	if (!sb->type->single) {
		struct inode *root = sb->root;
		sb->root = NULL;
		ramfs_kill_tree(root);
	}
	sb_put(sb);
}

/* After mount_lock: frees what detach took out. */
static void release(struct list_head *gone)
{
	struct mount *m, *n;

	list_for_each_entry_safe(m, n, gone, link)
	{
		inode_put(m->mountpoint);
		sb_discard(m->sb);
		kfree(m->source);
		kfree(m);
		__atomic_sub_fetch(&live_mounts, 1, __ATOMIC_RELAXED);
	}
}

void mount_init(struct super_block *root_sb)
{
	struct mount *m = mount_alloc("tmpfs"); /* not rootfs: busybox df skips those */

	if (!m)
		panic("vfs: no memory for the root mount");
	spin_lock(&mount_lock);
	attach(m, root_sb, NULL);
	root_mount = m;
	spin_unlock(&mount_lock);
}

/* A boot mount of type over path (a directory made if missing). */
void mount_boot(const char *type, const char *source, const char *path, const char *data,
		unsigned int mnt_flags)
{
	struct super_block *sb;
	struct inode *mp;
	int err;

	vfs_mkdir(NULL, path, 0755);
	if ((err = path_lookup(NULL, path, &mp)))
		panic("vfs: no %s to mount %s on (%d)", path, type, err);
	if (!(sb = sb_create(fs_type_find(type), data, &err)) ||
	    (err = do_attach(sb, mp, source, mnt_flags)))
		panic("vfs: cannot mount %s on %s (%d)", type, path, err);
	inode_put(mp);
}

/* ---- mount(2) ---- */

#define MS_RDONLY      1UL
#define MS_NOSUID      2UL
#define MS_NODEV       4UL
#define MS_NOEXEC      8UL
#define MS_REMOUNT     32UL
#define MS_BIND	       4096UL
#define MS_MOVE	       8192UL
#define MS_REC	       16384UL
#define MS_SILENT      32768UL
#define MS_UNBINDABLE  (1UL << 17)
#define MS_PRIVATE     (1UL << 18)
#define MS_SLAVE       (1UL << 19)
#define MS_SHARED      (1UL << 20)
#define MS_NOUSER      (1UL << 31)
#define MS_MGC_VAL     0xC0ED0000UL
#define MS_MGC_MSK     0xffff0000UL
#define MS_PROPAGATION (MS_SHARED | MS_SLAVE | MS_PRIVATE | MS_UNBINDABLE)

/* A string argument of mount(2): NULL stays NULL; at most a page. */
static int copy_mount_string(const char *u, char **out)
{
	long n;

	*out = NULL;
	if (!u)
		return 0;
	if (!(*out = kmalloc(PAGE_SIZE)))
		return -ENOMEM;
	n = strncpy_from_user(*out, u, PAGE_SIZE);
	if (n < 0 || n >= (long)PAGE_SIZE) {
		kfree(*out);
		*out = NULL;
		return n < 0 ? (int)n : -EINVAL;
	}
	return 0;
}

/* The options page: up to a page, as much as is readable (Linux's
 * copy_mount_options), NUL-terminated; "" for NULL. */
static int copy_mount_options(const void *u, char **out)
{
	char *page = kzalloc(PAGE_SIZE);

	if (!(*out = page))
		return -ENOMEM;
	if (!u)
		return 0;
	for (size_t off = 0; off < PAGE_SIZE - 1;) {
		size_t chunk = PAGE_SIZE - ((uintptr_t)u + off) % PAGE_SIZE;
		if (chunk > PAGE_SIZE - 1 - off)
			chunk = PAGE_SIZE - 1 - off;
		if (copy_from_user(page + off, (const char *)u + off, chunk)) {
			if (off)
				break;
			kfree(page);
			*out = NULL;
			return -EFAULT;
		}
		off += chunk;
	}
	return 0;
}

static unsigned int mnt_flags_of(unsigned long flags)
{
	return flags & (MNT_NOSUID | MNT_NODEV | MNT_NOEXEC);
}

/* MS_REMOUNT: the instance's options and read-only flag, the mount's flags. */
static int do_remount(struct inode *ip, unsigned long flags, const char *data)
{
	struct super_block *sb = ip->sb;
	int err = 0;

	if (!sb->mnt || ip != sb->root)
		return -EINVAL;
	if ((flags & MS_RDONLY) && !(sb->flags & SB_RDONLY) && sb_has_writers(sb))
		return -EBUSY;
	/* With MS_BIND only the mount's flags change (Linux's
	 * do_reconfigure_mnt), its read-only one too: an instance has one
	 * mount here, so that is the instance's. */
	if (!(flags & MS_BIND) && sb->type->remount && (err = sb->type->remount(sb, data)))
		return err;
	spin_lock(&mount_lock);
	if (!sb->mnt)
		err = -EINVAL;
	else {
		sb->mnt->flags = mnt_flags_of(flags);
		sb->flags = (sb->flags & ~SB_RDONLY) | (flags & MS_RDONLY ? SB_RDONLY : 0);
	}
	spin_unlock(&mount_lock);
	return err;
}

/*
 * MS_MOVE: the mount whose root from names moves over to, as Linux's
 * do_move_mount: from must be a mount's root, to a directory (EINVAL),
 * not inside the moving mount (ELOOP: the root mount's every move), nor
 * removed (ENOENT).
 */
static int do_move(struct inode *to, const char *from_path)
{
	struct inode *from, *old_mp = NULL;
	struct mount *m, *p;
	int err;

	if (!from_path || !*from_path)
		return -EINVAL;
	if ((err = path_lookup(NULL, from_path, &from)))
		return err;
	spin_lock(&to->lock); /* against rmdir, as do_attach */
	spin_lock(&mount_lock);
	m = from->sb->mnt;
	if (!m || from != from->sb->root || !to->sb->mnt || !inode_is_dir(to))
		err = -EINVAL;
	for (p = to->sb->mnt; !err && p; p = p->parent)
		if (p == m)
			err = -ELOOP; /* the root mount's every move too, as Linux says */
	if (!err && !m->mountpoint)
		err = -EINVAL;
	else if (!err && to->nlink == 0)
		err = -ENOENT;
	if (!err) {
		old_mp = m->mountpoint;
		__atomic_sub_fetch(&old_mp->mounted, 1, __ATOMIC_RELEASE);
		inode_get(to);
		__atomic_add_fetch(&to->mounted, 1, __ATOMIC_RELEASE);
		m->mountpoint = to;
		m->parent = to->sb->mnt;
	}
	spin_unlock(&mount_lock);
	spin_unlock(&to->lock);
	if (old_mp)
		inode_put(old_mp);
	inode_put(from);
	return err;
}

/* MS_SHARED/SLAVE/PRIVATE/UNBINDABLE: exactly one; there is no
 * propagation here, so every mount is private already and shared or
 * slave ones cannot be made (docs/vfs.md). */
static int do_change_type(struct inode *ip, unsigned long flags)
{
	unsigned long type = flags & MS_PROPAGATION;

	if (!ip->sb->mnt || ip != ip->sb->root)
		return -EINVAL;
	if (type & (type - 1))
		return -EINVAL;
	return type & (MS_SHARED | MS_SLAVE) ? -EINVAL : 0;
}

static int do_new_mount(struct inode *mp, const char *type, const char *source, unsigned long flags,
			const char *data)
{
	const struct fs_type *fst;
	struct super_block *sb;
	int err;

	if (!type)
		return -EINVAL;
	if (!(fst = fs_type_find(type)))
		return -ENODEV;
	if (!inode_is_dir(mp))
		return -ENOTDIR;
	if (!(sb = sb_create(fst, data, &err)))
		return err;
	if (fst->single && (flags & MS_RDONLY) != (sb->flags & SB_RDONLY))
		err = -EBUSY; /* one instance: its flags are its mount's */
	else {
		if (flags & MS_RDONLY)
			sb->flags |= SB_RDONLY;
		err = do_attach(sb, mp, source ? source : "none", mnt_flags_of(flags));
	}
	if (err)
		sb_discard(sb); /* its root too, which no mount holds */
	return err;
}

static long path_mount(const char *source, const char *target, const char *type,
		       unsigned long flags, const char *data)
{
	struct inode *ip;
	long err;

	if ((flags & MS_MGC_MSK) == MS_MGC_VAL)
		flags &= ~MS_MGC_MSK;
	if ((err = upath_lookup(AT_FDCWD, target, false, &ip)))
		return err;
	if (flags & MS_NOUSER)
		err = -EINVAL;
	else if (!capable(CAP_SYS_ADMIN)) /* after the lookup's errors, as Linux */
		err = -EPERM;
	else if (flags & MS_REMOUNT)
		err = do_remount(ip, flags, data);
	else if (flags & MS_BIND)
		err = -EINVAL; /* not yet: docs/vfs.md */
	else if (flags & MS_MOVE)
		err = do_move(ip, source);
	else if (flags & MS_PROPAGATION)
		err = do_change_type(ip, flags);
	else
		err = do_new_mount(ip, type, source, flags, data);
	inode_put(ip);
	return err;
}

SYSCALL_DEFINE5(mount, const char *, usource, const char *, utarget, const char *, utype,
		unsigned long, flags, const void *, udata)
{
	char *type, *source = NULL, *data = NULL;
	long err = copy_mount_string(utype, &type);

	if (!err)
		err = copy_mount_string(usource, &source);
	if (!err)
		err = copy_mount_options(udata, &data);
	if (!err)
		err = path_mount(source, utarget, type, flags, data);
	kfree(data);
	kfree(source);
	kfree(type);
	return err;
}

/* ---- umount2(2) ---- */

#define MNT_FORCE	0x1
#define MNT_DETACH	0x2
#define MNT_EXPIRE	0x4
#define UMOUNT_NOFOLLOW 0x8

/* Under mount_lock: does a mount sit on an inode of sb? */
static bool has_children(const struct super_block *sb)
{
	struct mount *m;

	list_for_each_entry(m, &mounts, link) if (m->parent && m->parent->sb == sb) return true;
	return false;
}

/* Under mount_lock: m and, for a lazy umount, every mount below it. */
static void detach_tree(struct mount *top, struct list_head *gone)
{
	struct mount *m, *n;
	bool again = true;

	detach(top, gone);
	while (again) { /* the table is flat: sweep until no orphan is left */
		again = false;
		list_for_each_entry_safe(m, n, &mounts, link) if (m->parent && !m->parent->sb->mnt)
		{
			detach(m, gone);
			again = true;
		}
	}
}

static long do_umount(struct inode *root, int flags)
{
	struct super_block *sb = root->sb;
	struct list_head gone = LIST_HEAD_INIT(gone);
	long err = 0;

	spin_lock(&mount_lock);
	if (!sb->mnt || sb->root != root)
		err = -EINVAL;
	else if (!sb->mnt->parent)
		err = -EBUSY; /* the root stays (docs/vfs.md) */
	else if (flags & MNT_EXPIRE)
		err = -EAGAIN; /* expiry marks it; nothing here clears marks */
	else if (!(flags & MNT_DETACH) && (has_children(sb) || sb_busy(sb, 1)))
		err = -EBUSY;
	else
		detach_tree(sb->mnt, &gone);
	spin_unlock(&mount_lock);
	release(&gone);
	return err;
}

SYSCALL_DEFINE2(umount2, const char *, utarget, int, flags)
{
	struct inode *ip;
	long err;

	if (flags & ~(MNT_FORCE | MNT_DETACH | MNT_EXPIRE | UMOUNT_NOFOLLOW))
		return -EINVAL;
	if ((flags & MNT_EXPIRE) && (flags & (MNT_FORCE | MNT_DETACH)))
		return -EINVAL;
	if ((err = upath_lookup(AT_FDCWD, utarget, flags & UMOUNT_NOFOLLOW, &ip)))
		return err;
	ip = mount_down(ip); /* the top mount there (pivot_root's ". ." leaves one on "/") */
	err = capable(CAP_SYS_ADMIN) ? do_umount(ip, flags) : -EPERM;
	inode_put(ip);
	return err;
}

/* ---- pivot_root(2) ---- */

/* Whether walking up from dir (through mount points) meets top. */
static bool reachable(struct inode *dir, const struct inode *top)
{
	struct inode *cur = dir, *parent;
	bool found = false;

	inode_get(cur);
	for (;;) {
		if (cur == top) {
			found = true;
			break;
		}
		cur = mount_up(cur);
		if (cur == top) {
			found = true;
			break;
		}
		parent = dir_parent(cur);
		if (parent == cur) {
			inode_put(parent);
			break;
		}
		inode_put(cur);
		cur = parent;
	}
	inode_put(cur);
	return found;
}

struct pivot {
	struct inode *old, *new; /* the old root's root, the new one's */
	int puts;		 /* references to old that fs_replace_dir dropped */
};

static bool pivot_task(struct task *t, void *arg)
{
	struct pivot *p = arg;

	if (t->fs)
		p->puts += fs_replace_dir(t->fs, p->old, p->new);
	return true;
}

/*
 * Linux's checks, in its order: both directories (ENOTDIR...), the new
 * root and put_old not on the caller's root mount (EBUSY), the caller's
 * root a mount's root (EINVAL), new_root a mount's root (EINVAL), put_old
 * at or under new_root and new_root under the root (EINVAL).  Then the
 * root mount moves to put_old and new_root's mount takes its place; every
 * process whose root or working directory was the old root's gets the
 * new one (Linux's chroot_fs_refs).  Unlike Linux, the first root mount
 * (Linux's rootfs, EINVAL) may be pivoted away: here it is a tmpfs like
 * any other, which umount can then take.
 */
static long do_pivot_root(struct inode *new, struct inode *old, struct inode *root)
{
	struct mount *nm, *rm, *om;
	struct inode *ex_mp;
	struct pivot p = {.old = root, .new = new};

	if (!inode_is_dir(new) || !inode_is_dir(old))
		return -ENOTDIR;
	if (new->nlink == 0)
		return -ENOENT;
	if (new->sb == root->sb || old->sb == root->sb)
		return -EBUSY;
	if (root != root->sb->root || new != new->sb->root)
		return -EINVAL;
	if (!reachable(old, new) || !reachable(new, root))
		return -EINVAL;
	spin_lock(&mount_lock);
	nm = new->sb->mnt;
	rm = root->sb->mnt;
	om = old->sb->mnt;
	if (!nm || !rm || !om || !nm->mountpoint) {
		spin_unlock(&mount_lock);
		return -EINVAL;
	}
	ex_mp = nm->mountpoint; /* its reference is dropped below */
	__atomic_sub_fetch(&ex_mp->mounted, 1, __ATOMIC_RELEASE);
	nm->mountpoint = rm->mountpoint; /* rm's reference and count pass to nm */
	nm->parent = rm->parent;
	inode_get(old);
	__atomic_add_fetch(&old->mounted, 1, __ATOMIC_RELEASE);
	rm->mountpoint = old;
	rm->parent = om;
	if (root_mount == rm)
		root_mount = nm;
	list_del(&nm->link); /* the new root first in the table, as in a walk */
	list_add(&nm->link, &mounts);
	spin_unlock(&mount_lock);
	inode_put(ex_mp);
	task_for_each(pivot_task, &p);
	while (p.puts--)
		inode_put(root);
	return 0;
}

SYSCALL_DEFINE2(pivot_root, const char *, unew, const char *, uold)
{
	struct inode *new, *old, *root;
	long err = capable(CAP_SYS_ADMIN) ? upath_lookup(AT_FDCWD, unew, false, &new) : -EPERM;

	if (err)
		return err;
	if ((err = upath_lookup(AT_FDCWD, uold, false, &old))) {
		inode_put(new);
		return err;
	}
	root = fs_get_root(current()->fs);
	err = do_pivot_root(new, old, root);
	inode_put(root);
	inode_put(old);
	inode_put(new);
	return err;
}

/* ---- /proc/<pid>/mounts and mountinfo ---- */

/* Under mount_lock: the options mountinfo and mounts show for m. */
static void format_opts(const struct mount *m, char *buf, size_t size)
{
	size_t n = strlcpy(buf, m->sb->flags & SB_RDONLY ? "ro" : "rw", size);

	if (m->flags & MNT_NOSUID)
		n += snprintk(buf + n, size - n, ",nosuid");
	if (m->flags & MNT_NODEV)
		n += snprintk(buf + n, size - n, ",nodev");
	if (m->flags & MNT_NOEXEC)
		n += snprintk(buf + n, size - n, ",noexec");
	if (m->sb->type->show_options && n < size)
		m->sb->type->show_options(m->sb, buf + n, size - n);
}

/*
 * The table's lines.  The mount points' paths are found with mount_lock
 * dropped (vfs_getcwd takes directory locks), so the table is copied
 * first, each copy holding its mount's root: a concurrent umount then
 * changes nothing the lines are made from.
 */
struct mount_snap {
	int id, parent_id;
	uint32_t dev;
	const char *type; /* the type's name: static */
	struct inode *root;
	char source[96];
	char opts[96];
	bool rdonly;
};

typedef long (*mount_line_fn)(const struct mount_snap *s, const char *where, char *buf,
			      size_t size);

static long mounts_format(mount_line_fn line, char *buf, size_t size)
{
	size_t n = 0, count = 0, cap = mount_count() + 8;
	struct mount_snap *snap = kzalloc(cap * sizeof(*snap));
	char *where = kmalloc(PATH_MAX);
	struct inode *root;
	struct mount *m;

	if (!snap || !where)
		goto out;
	spin_lock(&mount_lock);
	list_for_each_entry(m, &mounts, link)
	{
		struct mount_snap *s = &snap[count];
		if (count == cap)
			break;
		*s = (struct mount_snap){.id = m->id,
					 .parent_id = m->parent ? m->parent->id : m->id,
					 .dev = m->sb->dev,
					 .type = m->sb->type->name,
					 .root = m->sb->root,
					 .rdonly = m->sb->flags & SB_RDONLY};
		inode_get(s->root);
		strlcpy(s->source, m->source, sizeof(s->source));
		format_opts(m, s->opts, sizeof(s->opts));
		count++;
	}
	spin_unlock(&mount_lock);
	root = current() && current()->fs ? fs_get_root(current()->fs) : NULL;
	for (size_t i = 0; i < count && n < size; i++) {
		/* As Linux: the reader's root is "/", mounts outside it are not shown. */
		long len = vfs_getcwd_at(root, snap[i].root, where, PATH_MAX);
		if (len > 0 && where[0] == '/')
			n += line(&snap[i], where, buf + n, size - n);
	}
	if (root)
		inode_put(root);
out:
	for (size_t i = 0; i < count; i++)
		inode_put(snap[i].root);
	kfree(snap);
	kfree(where);
	return n < size ? (long)n : (long)size;
}

static long mounts_line(const struct mount_snap *s, const char *where, char *buf, size_t size)
{
	return snprintk(buf, size, "%s %s %s %s 0 0\n", s->source, where, s->type, s->opts);
}

long mounts_text(char *buf, size_t size)
{
	return mounts_format(mounts_line, buf, size);
}

static long mountinfo_line(const struct mount_snap *s, const char *where, char *buf, size_t size)
{
	return snprintk(buf, size, "%d %d 0:%u / %s %s - %s %s %s\n", s->id, s->parent_id, s->dev,
			where, s->opts, s->type, s->source, s->rdonly ? "ro" : "rw");
}

long mountinfo_text(char *buf, size_t size)
{
	return mounts_format(mountinfo_line, buf, size);
}
