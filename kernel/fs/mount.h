/*
 * The mount table (docs/vfs.md, "Mounts").  A mount attaches a tree of
 * an instance (fs/super.h) over a directory or file of another mount,
 * its mount point: the instance's root for a new mount, any directory
 * or file of it for a bind mount (MS_BIND), so one instance may have
 * several mounts.  A walk holds (mount, inode) pairs (fs/path.h): it
 * crosses down where a mount of its current mount covers the inode and,
 * by "..", back up from a mount's root to its mount point.
 */
#ifndef FS_MOUNT_H
#define FS_MOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include "fs/inode.h"
#include "fs/path.h"
#include "lib/list.h"

struct super_block;
struct mnt_namespace;
struct fs_struct;
struct user_namespace;

/* Per-mount flags (Linux's MNT_* meaning, mount(2)'s MS_* values; the
 * first four and the next two are statfs's ST_* ones too, ST_RELATIME is
 * 0x1000, ST_NOSYMFOLLOW 0x2000). */
#define MNT_READONLY	1U
#define MNT_NOSUID	2U
#define MNT_NODEV	4U
#define MNT_NOEXEC	8U
#define MNT_NOSYMFOLLOW 0x100U /* path lookup follows no link on it: ELOOP */
/* How reads update atime (fs/atime.c): never, never for directories,
 * only when stale (Linux's relatime, the default); none of them is
 * strictatime, every access. */
#define MNT_NOATIME    0x400U
#define MNT_NODIRATIME 0x800U
#define MNT_RELATIME   0x200000U
#define MNT_ATIME_MASK (MNT_NOATIME | MNT_NODIRATIME | MNT_RELATIME)

struct mount {
	/*
	 * Atomic.  Held by the table while the mount is attached, by every
	 * struct path naming it (walks, working directories and roots, open
	 * files), and by each mount attached under it (its parent).  Once
	 * detached, the last put frees it and, if it was its instance's
	 * last mount, the instance's tree (a lazy umount's tree stays
	 * walkable until then).  umount without MNT_DETACH is EBUSY while
	 * anything but the table and the caller holds it.
	 */
	uint32_t refs;
	struct super_block *sb; /* referenced; constant */
	/* What it shows: the instance's root, or the directory or file a
	 * bind mount binds.  Referenced; constant. */
	struct inode *root;
	/* Where it is attached: the inode it covers (referenced, its
	 * mounted count up) in the mount parent (referenced).  Both NULL
	 * for the root mount and once detached.  Under mount_lock (MS_MOVE
	 * and pivot_root change them). */
	struct inode *mountpoint;
	struct mount *parent;
	unsigned int flags; /* MNT_*, under mount_lock, read without it as a hint */
	/*
	 * Atomic.  umount2(MNT_EXPIRE) found the mount unused and set it;
	 * the next such call unmounts it unless a use cleared it meanwhile:
	 * mnt_put, the end of a path a call held there (a lookup ending in
	 * it, a file closed, a working directory left), as Linux's
	 * mnt_expiry_mark and mntput.
	 */
	bool expiry_mark;
	/* Atomic: files opened for writing through it (remount,ro's EBUSY). */
	int writers;
	/* The namespace whose table it is in; NULL before it is attached
	 * and once detached.  Under mount_lock. */
	struct mnt_namespace *ns;
	int id;		       /* mountinfo's; constant */
	char *source;	       /* mount(2)'s source ("none", "proc"), kmalloc'd */
	struct list_head link; /* in the table while attached, under mount_lock, oldest first */
	/* In mount_hash's bucket of its mount point while it has one,
	 * under mount_lock: the crossings find it there. */
	struct list_head hash;
};

static inline void mnt_get(struct mount *m)
{
	if (m)
		__atomic_add_fetch(&m->refs, 1, __ATOMIC_RELAXED);
}
/* The last put of a detached mount frees it (mount.c). */
void mount_free(struct mount *m);
/* A put that is no use of the mount (Linux's mntput_no_expire): the
 * walk's own references (a crossing, as Linux's RCU walk takes none),
 * umount2's, the /proc lists'. */
static inline void mnt_put_keep_mark(struct mount *m)
{
	if (m && !__atomic_sub_fetch(&m->refs, 1, __ATOMIC_ACQ_REL))
		mount_free(m);
}
/* Every other put ends a use, which clears the expiry mark (Linux's
 * mntput); the load first keeps the line shared in the usual case. */
static inline void mnt_used(struct mount *m)
{
	if (m && __atomic_load_n(&m->expiry_mark, __ATOMIC_RELAXED))
		__atomic_store_n(&m->expiry_mark, false, __ATOMIC_RELAXED);
}
static inline void mnt_put(struct mount *m)
{
	mnt_used(m);
	mnt_put_keep_mark(m);
}

/* Inline: a walk takes and drops a path at every step. */
static inline void path_get(const struct path *p)
{
	mnt_get(p->mnt);
	inode_get(p->inode);
}

static inline void path_put_keep_mark(struct path *p)
{
	inode_put(p->inode);
	mnt_put_keep_mark(p->mnt);
	*p = (struct path){NULL, NULL};
}

static inline void path_put(struct path *p)
{
	mnt_used(p->mnt);
	path_put_keep_mark(p);
}

/*
 * Mount namespaces (Linux's CLONE_NEWNS): each has a table of its own,
 * and every fs_struct points at one (fs->mnt_ns; CLONE_FS shares both,
 * so unshare(CLONE_NEWNS) unshares the fs_struct first).  refs counts
 * those fs_structs; the last put detaches the namespace's every mount,
 * as a lazy umount would.  mnt_ns_copy gives fs a copy of its
 * namespace's tree, every mount copied with its flags, and moves fs's
 * root and cwd to the copies: 0 or -ENOMEM.
 */
struct mnt_namespace *mnt_ns_init(void); /* the first one, referenced */
void mnt_ns_get(struct mnt_namespace *ns);
void mnt_ns_put(struct mnt_namespace *ns);
int mnt_ns_copy(struct fs_struct *fs, struct user_namespace *owner);
/* What nsfs and setns know of it (fs/nsfs.h): its number, and its
 * operations (setns enters it: the caller's fs_struct, shared with no
 * other task, moves into it, its root and cwd to the namespace's root). */
struct ns_common *mnt_ns_common(struct mnt_namespace *ns);
extern const struct ns_ops mnt_ns_ops;
/* Namespaces alive (leak accounting). */
unsigned long mnt_ns_count(void);

/* Makes root_sb the root mount (vfs_init, before any path is walked). */
void mount_init(struct super_block *root_sb);
/* A boot mount of type over path, a directory made if missing (panics
 * on failure: boot cannot go on without it). */
void mount_boot(const char *type, const char *source, const char *path, const char *data,
		unsigned int mnt_flags);
/* The root of the tree ("/" of the kernel's own lookups and init's). */
void vfs_root_path(struct path *out);

/*
 * Path lookup's crossings, on a referenced path changed in place.
 * mount_down: while a mount of p's mount covers p's inode, the root of
 * the last one mounted there.  mount_up: while p is the root of an
 * attached mount, the mount point it covers, so that ".." and getcwd go
 * on from there.
 */
void mount_down_slow(struct path *p);
static inline void mount_down(struct path *p)
{
	if (__atomic_load_n(&p->inode->mounted, __ATOMIC_ACQUIRE))
		mount_down_slow(p);
}
void mount_up(struct path *p);

/* Whether p is the root of its mount (where ".." climbs to the mount
 * point, and what umount and remount name). */
static inline bool path_is_mount_root(const struct path *p)
{
	return p->mnt && p->inode == p->mnt->root;
}

/* The mount flags that apply to p (0 without a mount). */
static inline unsigned int path_mnt_flags(const struct path *p)
{
	return p->mnt ? __atomic_load_n(&p->mnt->flags, __ATOMIC_RELAXED) : 0;
}
/*
 * Whether a mount of the caller's namespace covers ip: rmdir, unlink and
 * rename refuse it (EBUSY); mounts of other namespaces there do not
 * count, and mount_detach_at takes them off (lazily) once the name is
 * gone, as Linux's is_local_mountpoint and detach_mounts.  Callable
 * under ip's lock; mount_detach_at under none.
 */
bool mount_is_local(const struct inode *ip);
void mount_detach_at(struct inode *ip);
/* Whether a write through p is refused: -EROFS (the mount or its
 * instance read-only) or 0. */
int path_want_write(const struct path *p);

/* /proc/<pid>/mounts and mountinfo (proc_mounts.c): the table of fs's
 * namespace as seen from fs's root. */
long mounts_text(struct fs_struct *fs, char *buf, size_t size);
struct poll_table;
struct file;
/* The poll of a /proc/<pid>/mounts or mountinfo file f reading ns (Linux's
 * mounts_poll): always readable, and POLLPRI | POLLERR once for each
 * change of ns's table since *seen, the change count the file last saw,
 * which it updates. */
unsigned mounts_poll(struct file *f, struct ns_common *ns, uint32_t *seen, struct poll_table *pt);
/* The change count now of ns, a mount namespace. */
uint32_t mounts_event(struct ns_common *ns);
long mountinfo_text(struct fs_struct *fs, char *buf, size_t size);
/* Mounts alive (leak accounting). */
unsigned long mount_count(void);

#endif
