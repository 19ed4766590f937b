/*
 * The mount table (docs/vfs.md, "Mounts").  A mount attaches an instance
 * (fs/super.h) over a directory of another, its mount point; path lookup
 * crosses down at the mount point and, by "..", back up from the
 * instance's root.  Mounts are keyed by their mount point inode, as in
 * V7 Unix: each instance is mounted at most once, so an inode alone says
 * where it is (bind mounts, which need a path of (mount, inode) pairs,
 * are not done yet: EINVAL, docs/vfs.md).
 */
#ifndef FS_MOUNT_H
#define FS_MOUNT_H

#include <stddef.h>
#include "fs/inode.h"
#include "lib/list.h"

struct inode;
struct super_block;

/* Per-mount flags (Linux's MNT_* meaning, MS_* values). */
#define MNT_NOSUID 2U
#define MNT_NODEV  4U
#define MNT_NOEXEC 8U

struct mount {
	struct super_block *sb; /* referenced; constant */
	/* The directory it covers, referenced (and its mounted count up);
	 * NULL for the root mount.  Constant. */
	struct inode *mountpoint;
	/* The mount the mount point belongs to: a mount with mounts under
	 * it cannot be unmounted (EBUSY) or, detached lazily, takes them
	 * with it, so the parent outlives every child.  NULL for the root. */
	struct mount *parent;
	unsigned int flags;    /* MNT_*, under mount_lock */
	int id;		       /* mountinfo's; constant */
	char *source;	       /* mount(2)'s source ("none", "proc"), kmalloc'd */
	struct list_head link; /* in the table, under mount_lock, oldest first */
};

/* Makes root_sb the root mount (vfs_init, before any path is walked). */
void mount_init(struct super_block *root_sb);
/* A boot mount of type over path, a directory made if missing (panics
 * on failure: boot cannot go on without it). */
void mount_boot(const char *type, const char *source, const char *path, const char *data,
		unsigned int mnt_flags);

/*
 * Path lookup's crossings.  mount_down: ip (referenced) or, if mounts
 * cover it, the root of the last one mounted there (referenced; ip put).
 * mount_up: dir (referenced) or, while it is the root of a mounted
 * instance, the mount point it covers (referenced; dir put), so that ".."
 * and getcwd go on from there.
 */
struct inode *mount_down_slow(struct inode *ip);
static inline struct inode *mount_down(struct inode *ip)
{
	return __atomic_load_n(&ip->mounted, __ATOMIC_ACQUIRE) ? mount_down_slow(ip) : ip;
}
struct inode *mount_up(struct inode *dir);

/* /proc/<pid>/mounts and mountinfo: the table's text (its length). */
long mounts_text(char *buf, size_t size);
long mountinfo_text(char *buf, size_t size);
/* The MNT_* flags of sb's mount, 0 if it has none (statfs). */
unsigned int sb_mount_flags(const struct super_block *sb);
/* Mounts alive (leak accounting). */
unsigned long mount_count(void);

#endif
