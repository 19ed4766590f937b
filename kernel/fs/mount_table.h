/*
 * The mount table's changes, for mount(2), umount2(2) and pivot_root(2)
 * (sys_mount.c) and the /proc mount lists (proc_mounts.c): each takes
 * mount_lock itself (mount.c), so callers hold no lock.
 */
#ifndef FS_MOUNT_TABLE_H
#define FS_MOUNT_TABLE_H

#include <stdbool.h>
#include <stdint.h>
#include "fs/mount.h"

/*
 * A mount of sb showing root (both references taken over: the caller's
 * from sb_create, or its own sb_get and inode_get for a bind mount),
 * with source's copy and MNT_* flags, not yet attached; NULL without
 * memory (the references then still the caller's).
 */
struct mount *mount_alloc(struct super_block *sb, struct inode *root, const char *source,
			  unsigned int flags);
/* mount(2)'s read-only flag (sys_mount.c has the others). */
#define MS_RDONLY 1UL
/*
 * A new instance of type (on the device source names, for a type that
 * requires one) mounted over the directory p with mount(2)'s flags and
 * options data: mount(2)'s new mount, and the root's (mount_root.c).
 * 0, or mount(2)'s errors (ENODEV, ENOTDIR, EROFS, ENOTBLK, ENXIO...).
 */
int do_new_mount(const struct path *p, const char *type, const char *source, unsigned long flags,
		 const char *data);
/* A mount that was never attached goes (its instance's tree too, if it
 * had no other mount). */
void mount_discard(struct mount *m);
/* Attaches m over mp: -ENOENT (mp removed), -EINVAL (mp's mount
 * detached); m is then still the caller's. */
int mount_attach(struct mount *m, const struct path *mp);
/*
 * MS_BIND: a copy of from's mount showing from's inode, with its flags,
 * goes over to (Linux's do_loopback); with rec (MS_REC) the mounts below
 * from go along, copied, as Linux's copy_tree.  0, -ENOMEM, or
 * mount_attach's errors (nothing attached then).
 */
int mount_bind(const struct path *from, const struct path *to, bool rec);
/* Sets the flags of the mount whose root p is (-EINVAL if none) and,
 * with sb_too, its instance's read-only flag as MNT_READONLY says. */
int mount_set_flags(const struct path *p, unsigned int flags, bool sb_too);
/* umount2(2)'s flags. */
#define MNT_FORCE	0x1
#define MNT_DETACH	0x2
#define MNT_EXPIRE	0x4
#define UMOUNT_NOFOLLOW 0x8
/*
 * umount: the mount whose root p is leaves the table: -EINVAL (no
 * mount's root), -EBUSY (the root mount; held or with mounts under it,
 * unless MNT_DETACH, which takes those along).  With MNT_EXPIRE only if
 * its expiry mark was set and no use cleared it since; else the mark is
 * set, -EAGAIN (Linux's do_umount).
 */
int mount_umount(const struct path *p, int flags);
/* MS_MOVE: the mount whose root from is goes over to (-EINVAL,
 * -ELOOP into itself, -ENOENT). */
int mount_move(const struct path *from, const struct path *to);
/* pivot_root's move, its checks made: new's mount takes root's mount's
 * place and root's mount goes over old.  0 or -EINVAL. */
int mount_pivot(const struct path *new, const struct path *old, const struct path *root);
/* Whether p lies on a mount of the caller's namespace (Linux's
 * check_mnt: a detached tree's or another namespace's is EINVAL). */
bool mount_in_current_ns(const struct path *p);
/* Whether walking up from p through mount points meets top. */
bool path_reaches(const struct path *p, const struct path *top);

/* One mount as the /proc lists show it, copied under mount_lock. */
struct mount_snap {
	int id, parent_id;
	uint32_t dev;
	const char *type; /* the type's name: static */
	struct path at;	  /* the mount and its root, referenced */
	unsigned int flags;
	bool sb_rdonly;
	char source[96];
	char sb_opts[96]; /* the type's show_options */
};
/* Copies up to cap mounts of ns's table, oldest first: their number. */
size_t mount_snapshot(const struct mnt_namespace *ns, struct mount_snap *snap, size_t cap);

#endif
