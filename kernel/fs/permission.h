/*
 * File permissions, as Linux's generic_permission without ACLs: the
 * caller's fs ids against an inode's owner, group and mode bits, then
 * the capability overrides (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH,
 * CAP_FOWNER).  Every check the VFS makes goes through here
 * (docs/security.md lists where each is made).
 */
#ifndef FS_PERMISSION_H
#define FS_PERMISSION_H

#include <stdbool.h>
#include <stdint.h>
#include "fs/inode.h"

struct cred;
struct inode;

#define MAY_EXEC  1
#define MAY_WRITE 2
#define MAY_READ  4

/* Whether c may access ip as mask asks (MAY_* bits): 0 or -EACCES
 * (-EPERM to write an immutable inode, as Linux's inode_permission); the
 * same for a file of mode, uid and gid (a pipe's, which has no inode). */
int cred_permission(const struct cred *c, const struct inode *ip, int mask);
int cred_mode_permission(const struct cred *c, uint32_t mode, uint32_t uid, uint32_t gid, int mask);
/* The same for the caller.  Inline first: when the owner, group and
 * other bits all allow mask, everyone may and no credential is looked
 * at (a walk through 0755 directories; Linux's acl_permission_check
 * takes the same short cut). */
int inode_permission_slow(const struct inode *ip, int mask);
static inline int inode_permission(const struct inode *ip, int mask)
{
	uint32_t mode = __atomic_load_n(&ip->mode, __ATOMIC_RELAXED);

	if (__builtin_expect((mask & MAY_WRITE) && inode_immutable(ip), 0))
		return -EPERM;
	if (__builtin_expect(ip->op && ip->op->permission, 0))
		return ip->op->permission(ip, mask);
	if (!(mask & ~(mode & (mode >> 3) & (mode >> 6)) & 7))
		return 0;
	return inode_permission_slow(ip, mask);
}
/* Whether the caller owns ip or has CAP_FOWNER (chmod, utimes, sticky). */
bool inode_owner_or_capable(const struct inode *ip);
/*
 * Linux's may_delete's permission part: removing or renaming away victim
 * from dir needs write and search on dir and, in a sticky directory
 * (S_ISVTX, /tmp), ownership of the victim or the directory or
 * CAP_FOWNER.  0, -EACCES, -EPERM.
 */
int may_delete(const struct inode *dir, const struct inode *victim);
/* A new name in dir: write and search (-EACCES). */
int may_create(const struct inode *dir);
/* A new inode's owner: the caller's fs ids, or dir's group when dir is
 * set-group-ID (a directory then inherits the bit), as Linux's
 * inode_init_owner.  Before anyone else can see ip. */
void inode_init_owner(struct inode *ip, const struct inode *dir);

/*
 * The set-id bits a change by the caller drops, as ATTR_KILL_* bits for
 * setattr (Linux's setattr_should_drop_suidgid).  A write or truncate of
 * a regular file, without CAP_FSETID: set-user-ID, and set-group-ID when
 * the group may execute or the caller is outside the group.  A chown of
 * anything but a directory: set-user-ID even for root, set-group-ID as
 * for a write.  Read without the lock: a racing chmod comes before or
 * after.
 */
unsigned int setid_drop_on_chown(const struct inode *ip);
unsigned int setid_drop_on_write_slow(const struct inode *ip);
static inline unsigned int setid_drop_on_write(const struct inode *ip)
{
	if (!(__atomic_load_n(&ip->mode, __ATOMIC_RELAXED) & (S_ISUID | S_ISGID)))
		return 0;
	return setid_drop_on_write_slow(ip);
}

#endif
