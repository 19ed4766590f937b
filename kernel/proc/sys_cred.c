/*
 * Credentials: fdkernel has one user, root (uid and gid 0, no
 * supplementary groups), and answers every identity call consistently
 * with that.  Setting an id to 0 (or leaving it, -1) succeeds; becoming
 * anyone else is refused with EPERM, as for a process without CAP_SETUID,
 * since nothing could honour it.  getuid is in sys_proc.c.
 */
#include "arch/x86_64/uaccess.h"
#include "sys/syscall.h"
#include <uapi/errno.h>

#define ID_UNCHANGED ((uint32_t)-1)
#define NGROUPS_MAX  65536

/* An id a set*id call may take: 0, or -1 where "unchanged" is allowed. */
static long id_ok(uint32_t id, bool unchanged_ok)
{
	if (id == ID_UNCHANGED)
		return unchanged_ok ? 0 : -EINVAL;
	return id == 0 ? 0 : -EPERM;
}

SYSCALL_DEFINE0(geteuid)
{
	return 0;
}

SYSCALL_DEFINE0(getgid)
{
	return 0;
}

SYSCALL_DEFINE0(getegid)
{
	return 0;
}

SYSCALL_DEFINE1(setuid, uint32_t, uid)
{
	return id_ok(uid, false);
}

SYSCALL_DEFINE1(setgid, uint32_t, gid)
{
	return id_ok(gid, false);
}

static long set_two(uint32_t r, uint32_t e)
{
	long err = id_ok(r, true);

	return err ? err : id_ok(e, true);
}

SYSCALL_DEFINE2(setreuid, uint32_t, ruid, uint32_t, euid)
{
	return set_two(ruid, euid);
}

SYSCALL_DEFINE2(setregid, uint32_t, rgid, uint32_t, egid)
{
	return set_two(rgid, egid);
}

static long set_three(uint32_t r, uint32_t e, uint32_t s)
{
	long err = set_two(r, e);

	return err ? err : id_ok(s, true);
}

SYSCALL_DEFINE3(setresuid, uint32_t, ruid, uint32_t, euid, uint32_t, suid)
{
	return set_three(ruid, euid, suid);
}

SYSCALL_DEFINE3(setresgid, uint32_t, rgid, uint32_t, egid, uint32_t, sgid)
{
	return set_three(rgid, egid, sgid);
}

static long get_three(uint32_t *r, uint32_t *e, uint32_t *s)
{
	uint32_t zero = 0;

	if (copy_to_user(r, &zero, sizeof(zero)) || copy_to_user(e, &zero, sizeof(zero)) ||
	    copy_to_user(s, &zero, sizeof(zero)))
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE3(getresuid, uint32_t *, ruid, uint32_t *, euid, uint32_t *, suid)
{
	return get_three(ruid, euid, suid);
}

SYSCALL_DEFINE3(getresgid, uint32_t *, rgid, uint32_t *, egid, uint32_t *, sgid)
{
	return get_three(rgid, egid, sgid);
}

/* setfsuid/setfsgid never fail: they return the old id (always 0). */
SYSCALL_DEFINE1(setfsuid, uint32_t, uid)
{
	(void)uid;
	return 0;
}

SYSCALL_DEFINE1(setfsgid, uint32_t, gid)
{
	(void)gid;
	return 0;
}

/* No supplementary groups: the count is 0 whatever the buffer. */
SYSCALL_DEFINE2(getgroups, int, size, uint32_t *, list)
{
	(void)list;
	return size < 0 ? -EINVAL : 0;
}

/* Accepted when it names no group but root's own (nothing to store). */
SYSCALL_DEFINE2(setgroups, int, size, const uint32_t *, ulist)
{
	uint32_t gid;

	if (size < 0 || size > NGROUPS_MAX)
		return -EINVAL;
	for (int i = 0; i < size; i++) {
		if (copy_from_user(&gid, ulist + i, sizeof(gid)))
			return -EFAULT;
		if (gid == ID_UNCHANGED)
			return -EINVAL;
		if (gid != 0)
			return -EPERM;
	}
	return 0;
}
