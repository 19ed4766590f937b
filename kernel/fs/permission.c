/* File permissions (see permission.h). */
#include "fs/permission.h"
#include "fs/inode.h"
#include "proc/cred.h"
#include "proc/user_namespace.h"
#include <uapi/errno.h>

/* Files are the initial user namespace's: capabilities over it only. */
static bool cred_capable(const struct cred *c, int cap)
{
	return cred_ns_capable(c, &init_user_ns, cap);
}

int cred_mode_permission(const struct cred *c, uint32_t fmode, uint32_t uid, uint32_t gid, int mask)
{
	uint32_t mode = fmode;

	mask &= MAY_READ | MAY_WRITE | MAY_EXEC;
	if (c->fsuid == uid)
		mode >>= 6;
	else if (cred_in_group(c, gid))
		mode >>= 3;
	if (!(mask & ~mode & 7))
		return 0;
	if (S_ISDIR(fmode)) {
		if (!(mask & MAY_WRITE) && cred_capable(c, CAP_DAC_READ_SEARCH))
			return 0;
		return cred_capable(c, CAP_DAC_OVERRIDE) ? 0 : -EACCES;
	}
	if (mask == MAY_READ && cred_capable(c, CAP_DAC_READ_SEARCH))
		return 0;
	/* Root runs only what someone may run: one execute bit at least. */
	if ((!(mask & MAY_EXEC) || (fmode & 0111)) && cred_capable(c, CAP_DAC_OVERRIDE))
		return 0;
	return -EACCES;
}

int cred_permission(const struct cred *c, const struct inode *ip, int mask)
{
	if ((mask & MAY_WRITE) && inode_immutable(ip))
		return -EPERM;
	/* A chmod may race with the check: either mode is an answer. */
	return cred_mode_permission(c, __atomic_load_n(&ip->mode, __ATOMIC_RELAXED), ip->uid,
				    ip->gid, mask);
}

int inode_permission_slow(const struct inode *ip, int mask)
{
	return cred_permission(cred_current(), ip, mask);
}

bool inode_owner_or_capable(const struct inode *ip)
{
	return cred_current()->fsuid == ip->uid || capable(CAP_FOWNER);
}

int may_create(const struct inode *dir)
{
	return inode_permission(dir, MAY_WRITE | MAY_EXEC);
}

int may_delete(const struct inode *dir, const struct inode *victim)
{
	const struct cred *c = cred_current();
	int err = cred_permission(c, dir, MAY_WRITE | MAY_EXEC);

	if (err)
		return err;
	if (inode_append_only(dir))
		return -EPERM; /* names are only added to it */
	if ((dir->mode & S_ISVTX) && c->fsuid != victim->uid && c->fsuid != dir->uid &&
	    !cred_capable(c, CAP_FOWNER))
		return -EPERM;
	return inode_immutable(victim) || inode_append_only(victim) ? -EPERM : 0;
}

void inode_init_owner(struct inode *ip, const struct inode *dir)
{
	const struct cred *c = cred_current();

	ip->uid = c->fsuid;
	ip->gid = c->fsgid;
	if (dir && (dir->mode & S_ISGID)) {
		ip->gid = dir->gid;
		if (S_ISDIR(ip->mode))
			ip->mode |= S_ISGID;
	}
}

static unsigned int drop_sgid(const struct inode *ip, uint32_t mode)
{
	if (!(mode & S_ISGID))
		return 0;
	if ((mode & S_IXGRP) || (!cred_in_group(cred_current(), ip->gid) && !capable(CAP_FSETID)))
		return ATTR_KILL_SGID;
	return 0;
}

unsigned int setid_drop_on_write_slow(const struct inode *ip)
{
	uint32_t mode = __atomic_load_n(&ip->mode, __ATOMIC_RELAXED);
	unsigned int kill = (mode & S_ISUID ? ATTR_KILL_SUID : 0) | drop_sgid(ip, mode);

	return kill && S_ISREG(mode) && !capable(CAP_FSETID) ? kill : 0;
}

unsigned int setid_drop_on_chown(const struct inode *ip)
{
	uint32_t mode = __atomic_load_n(&ip->mode, __ATOMIC_RELAXED);

	if (S_ISDIR(mode))
		return 0;
	return (mode & S_ISUID ? ATTR_KILL_SUID : 0) | drop_sgid(ip, mode);
}
