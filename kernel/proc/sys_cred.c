/*
 * Identity system calls: the get*id and set*id families, setfsuid and
 * setfsgid, getgroups and setgroups, with Linux's rules (kernel/sys.c)
 * for privileged (CAP_SETUID, CAP_SETGID) and unprivileged callers and
 * its capability changes on uid changes (capabilities(7), "Effect of
 * user ID changes on capabilities").  A change applies to every thread
 * of the process: credentials are per process here (proc/cred.h).
 * Ids cross through the caller's user namespace (proc/user_namespace.h):
 * the getters show unmapped ids as 65534, the setters refuse them
 * (EINVAL), and CAP_SETUID and CAP_SETGID count over that namespace,
 * whose mapped ids are all its creator could be.
 */
#include "arch/x86_64/uaccess.h"
#include "proc/cred.h"
#include "mm/heap.h"
#include "proc/user_namespace.h"
#include "sys/syscall.h"
#include <uapi/errno.h>

/* The file-system capabilities an fsuid of 0 carries (Linux's CAP_FS_SET). */
#define CAP_FS_SET                                                                                 \
	(CAP_TO_MASK(CAP_CHOWN) | CAP_TO_MASK(CAP_MKNOD) | CAP_TO_MASK(CAP_DAC_OVERRIDE) |         \
	 CAP_TO_MASK(CAP_DAC_READ_SEARCH) | CAP_TO_MASK(CAP_FOWNER) | CAP_TO_MASK(CAP_FSETID) |    \
	 CAP_TO_MASK(CAP_LINUX_IMMUTABLE) | CAP_TO_MASK(CAP_MAC_OVERRIDE))

/* Kernel id kid as the caller's namespace shows it. */
static uint32_t shown(uint32_t kid, bool uids)
{
	struct user_namespace *ns = current_user_ns();

	return uids ? from_kuid_munged(ns, kid) : from_kgid_munged(ns, kid);
}

/* The caller's id to a kernel id in *kid: ID_UNCHANGED stays; an id
 * its namespace does not map is EINVAL. */
static long to_kernel(uint32_t id, bool uids, uint32_t *kid)
{
	struct user_namespace *ns = current_user_ns();

	if (id == ID_UNCHANGED)
		return *kid = id, 0;
	*kid = uids ? make_kuid(ns, id) : make_kgid(ns, id);
	return *kid == INVALID_ID ? -EINVAL : 0;
}

/* CAP_SETUID (uids) or CAP_SETGID over the caller's namespace. */
static bool may_setid(bool uids)
{
	return ns_capable(current_user_ns(), uids ? CAP_SETUID : CAP_SETGID);
}

SYSCALL_DEFINE0(getuid)
{
	return shown(cred_current()->uid, true);
}

SYSCALL_DEFINE0(geteuid)
{
	return shown(cred_current()->euid, true);
}

SYSCALL_DEFINE0(getgid)
{
	return shown(cred_current()->gid, false);
}

SYSCALL_DEFINE0(getegid)
{
	return shown(cred_current()->egid, false);
}

static bool is_root(uint32_t root, uint32_t a, uint32_t b, uint32_t c)
{
	return a == root || b == root || c == root;
}

/*
 * Linux's cap_emulate_setxuid: leaving uid 0 in all of the real,
 * effective and saved ids loses the permitted and effective sets (unless
 * PR_SET_KEEPCAPS) and the ambient one; an effective uid leaving 0 loses
 * the effective set, one becoming 0 gets the permitted set.
 * SECBIT_NO_SETUID_FIXUP turns all this off.
 */
static void fix_caps_for_uids(struct cred *new, const struct cred *old)
{
	uint32_t root = cred_root_uid(old);

	if (new->securebits & SECBIT_NO_SETUID_FIXUP)
		return;
	if (is_root(root, old->uid, old->euid, old->suid) &&
	    !is_root(root, new->uid, new->euid, new->suid)) {
		if (!(new->securebits &SECBIT_KEEP_CAPS))
			new->cap_permitted = new->cap_effective = 0;
		new->cap_ambient = 0;
	}
	if (old->euid == root && new->euid != root)
		new->cap_effective = 0;
	if (old->euid != root && new->euid == root)
		new->cap_effective = new->cap_permitted;
}

/* Publishes new (from cred_prepare), after the uid changes' capability
 * changes when uids: 0. */
static long commit_ids(struct cred *new, const struct cred *old, bool uids)
{
	if (uids)
		fix_caps_for_uids(new, old);
	cred_commit(new);
	return 0;
}

/* A set*id call's prepared copy; old is what it was copied from (good
 * while cred_lock is held). */
#define PREPARE(new, old)                                                                          \
	struct cred *new = cred_prepare();                                                         \
	if (!new)                                                                                  \
		return -ENOMEM;                                                                    \
	const struct cred *old = cred_current()

SYSCALL_DEFINE1(setuid, uint32_t, id)
{
	uint32_t uid;

	if (id == ID_UNCHANGED || to_kernel(id, true, &uid))
		return -EINVAL;
	PREPARE(new, old);
	if (may_setid(true)) {
		new->uid = new->suid = uid;
	} else if (uid != old->uid && uid != old->suid) {
		cred_abort(new);
		return -EPERM;
	}
	new->euid = new->fsuid = uid;
	return commit_ids(new, old, true);
}

SYSCALL_DEFINE1(setgid, uint32_t, id)
{
	uint32_t gid;

	if (id == ID_UNCHANGED || to_kernel(id, false, &gid))
		return -EINVAL;
	PREPARE(new, old);
	if (may_setid(false)) {
		new->gid = new->sgid = gid;
	} else if (gid != old->gid && gid != old->sgid) {
		cred_abort(new);
		return -EPERM;
	}
	new->egid = new->fsgid = gid;
	return commit_ids(new, old, false);
}

/* The ids a set*reid or set*resid call works on: uid's or gid's. */
struct ids {
	uint32_t *r, *e, *s, *fs;
};

static struct ids uids_of(struct cred *c)
{
	return (struct ids){&c->uid, &c->euid, &c->suid, &c->fsuid};
}

static struct ids gids_of(struct cred *c)
{
	return (struct ids){&c->gid, &c->egid, &c->sgid, &c->fsgid};
}

/*
 * setreuid/setregid: the real id may become the real or effective one,
 * the effective id the real, effective or saved one, anything with the
 * capability; the saved id follows the effective one when the real id
 * is set or the effective one becomes other than the old real one.
 */
static long set_re(uint32_t ur, uint32_t ue, bool uids)
{
	uint32_t r, e;

	if (to_kernel(ur, uids, &r) || to_kernel(ue, uids, &e))
		return -EINVAL;
	PREPARE(new, old);
	struct ids n = uids ? uids_of(new) : gids_of(new);
	struct ids o = uids ? uids_of((struct cred *)old) : gids_of((struct cred *)old);
	bool priv = may_setid(uids);

	if ((r != ID_UNCHANGED && r != *o.r && r != *o.e && !priv) ||
	    (e != ID_UNCHANGED && e != *o.r && e != *o.e && e != *o.s && !priv)) {
		cred_abort(new);
		return -EPERM;
	}
	if (r != ID_UNCHANGED)
		*n.r = r;
	if (e != ID_UNCHANGED)
		*n.e = e;
	if (r != ID_UNCHANGED || (e != ID_UNCHANGED && e != *o.r))
		*n.s = *n.e;
	*n.fs = *n.e;
	return commit_ids(new, old, uids);
}

SYSCALL_DEFINE2(setreuid, uint32_t, ruid, uint32_t, euid)
{
	return set_re(ruid, euid, true);
}

SYSCALL_DEFINE2(setregid, uint32_t, rgid, uint32_t, egid)
{
	return set_re(rgid, egid, false);
}

/* Whether id (not ID_UNCHANGED) is none of the current real, effective
 * and saved ids: only the privileged may take it. */
static bool id_new(uint32_t id, struct ids o)
{
	return id != ID_UNCHANGED && id != *o.r && id != *o.e && id != *o.s;
}

/* setresuid/setresgid: each id may become any of the three, or anything
 * with the capability; the file-system id follows the effective one. */
static long set_res(uint32_t ur, uint32_t ue, uint32_t us, bool uids)
{
	uint32_t r, e, s;

	if (to_kernel(ur, uids, &r) || to_kernel(ue, uids, &e) || to_kernel(us, uids, &s))
		return -EINVAL;
	PREPARE(new, old);
	struct ids n = uids ? uids_of(new) : gids_of(new);
	struct ids o = uids ? uids_of((struct cred *)old) : gids_of((struct cred *)old);

	if ((id_new(r, o) || id_new(e, o) || id_new(s, o)) && !may_setid(uids)) {
		cred_abort(new);
		return -EPERM;
	}
	if (r != ID_UNCHANGED)
		*n.r = r;
	if (e != ID_UNCHANGED)
		*n.e = e;
	if (s != ID_UNCHANGED)
		*n.s = s;
	*n.fs = *n.e;
	return commit_ids(new, old, uids);
}

SYSCALL_DEFINE3(setresuid, uint32_t, ruid, uint32_t, euid, uint32_t, suid)
{
	return set_res(ruid, euid, suid, true);
}

SYSCALL_DEFINE3(setresgid, uint32_t, rgid, uint32_t, egid, uint32_t, sgid)
{
	return set_res(rgid, egid, sgid, false);
}

/* Linux's order: the first id that does not fit is EFAULT, the ones
 * before it written. */
static long put_three(uint32_t *ur, uint32_t *ue, uint32_t *us, uint32_t r, uint32_t e, uint32_t s)
{
	if (copy_to_user(ur, &r, sizeof(r)) || copy_to_user(ue, &e, sizeof(e)) ||
	    copy_to_user(us, &s, sizeof(s)))
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE3(getresuid, uint32_t *, ruid, uint32_t *, euid, uint32_t *, suid)
{
	const struct cred *c = cred_get_current(); /* across the faults */
	long ret = put_three(ruid, euid, suid, shown(c->uid, true), shown(c->euid, true),
			     shown(c->suid, true));

	cred_put(c);
	return ret;
}

SYSCALL_DEFINE3(getresgid, uint32_t *, rgid, uint32_t *, egid, uint32_t *, sgid)
{
	const struct cred *c = cred_get_current();
	long ret = put_three(rgid, egid, sgid, shown(c->gid, false), shown(c->egid, false),
			     shown(c->sgid, false));

	cred_put(c);
	return ret;
}

/*
 * setfsuid/setfsgid never fail: they return the old id whatever happens.
 * The new one must be the real, effective, saved or current file-system
 * id, or the caller privileged.  An fsuid leaving 0 drops the
 * file-system capabilities from the effective set, one becoming 0 takes
 * them back from the permitted set.
 */
static long set_fs(uint32_t uid, bool uids)
{
	struct cred *new = cred_prepare();
	uint32_t prev, id;

	if (!new)
		return shown(uids ? cred_current()->fsuid : cred_current()->fsgid, uids);
	struct ids n = uids ? uids_of(new) : gids_of(new);
	uint32_t root = cred_root_uid(new);

	prev = *n.fs; /* new is old's copy */
	if (to_kernel(uid, uids, &id) || id == ID_UNCHANGED || id == prev ||
	    (id != *n.r && id != *n.e && id != *n.s && !may_setid(uids))) {
		cred_abort(new);
		return shown(prev, uids);
	}
	*n.fs = id;
	if (uids && !(new->securebits &SECBIT_NO_SETUID_FIXUP) && prev == root && id != root)
		new->cap_effective &= ~CAP_FS_SET;
	if (uids && !(new->securebits &SECBIT_NO_SETUID_FIXUP) && prev != root && id == root)
		new->cap_effective |= new->cap_permitted &CAP_FS_SET;
	cred_commit(new);
	return shown(prev, uids);
}

SYSCALL_DEFINE1(setfsuid, uint32_t, uid)
{
	return set_fs(uid, true);
}

SYSCALL_DEFINE1(setfsgid, uint32_t, gid)
{
	return set_fs(gid, false);
}

/* The count of supplementary groups; with size > 0 also the list, which
 * must fit (EINVAL). */
SYSCALL_DEFINE2(getgroups, int, size, uint32_t *, list)
{
	const struct cred *c;
	uint32_t *ids = NULL;
	long ret;

	if (size < 0)
		return -EINVAL;
	c = cred_get_current(); /* across the copy's faults */
	ret = c->groups->ngroups;
	if (size && ret > size)
		ret = -EINVAL;
	else if (size && ret && !(ids = kmalloc((size_t)ret * sizeof(uint32_t))))
		ret = -ENOMEM;
	else if (size) {
		for (long i = 0; i < ret; i++)
			ids[i] = from_kgid_munged(c->user_ns, c->groups->gid[i]);
		if (copy_to_user(list, ids, (size_t)ret * sizeof(uint32_t)))
			ret = -EFAULT;
	}
	kfree(ids);
	cred_put(c);
	return ret;
}

/* CAP_SETGID over the caller's namespace, in which setgroups is allowed
 * (EPERM), then the size (EINVAL), the list (EFAULT; EINVAL for an id
 * the namespace does not map), as Linux. */
SYSCALL_DEFINE2(setgroups, int, size, const uint32_t *, ulist)
{
	struct user_namespace *ns = current_user_ns();
	struct group_info *gi;
	struct cred *new;

	if (!may_setid(false) || !user_ns_may_setgroups(ns))
		return -EPERM;
	if ((unsigned int)size > NGROUPS_MAX)
		return -EINVAL;
	if (!(gi = groups_alloc(size)))
		return -ENOMEM;
	if (copy_from_user(gi->gid, ulist, (size_t)size * sizeof(uint32_t))) {
		groups_put(gi);
		return -EFAULT;
	}
	for (int i = 0; i < size; i++) {
		if ((gi->gid[i] = make_kgid(ns, gi->gid[i])) == INVALID_ID) {
			groups_put(gi);
			return -EINVAL;
		}
	}
	groups_sort(gi);
	if (!(new = cred_prepare())) {
		groups_put(gi);
		return -ENOMEM;
	}
	cred_set_groups(new, gi);
	cred_commit(new);
	return 0;
}
