/*
 * Capabilities from user space: capget and capset (Linux's three header
 * versions and their negotiation) and the prctl options on capabilities
 * and no_new_privs.  The sets live in the credentials (proc/cred.h);
 * capable() there is the one test of them.
 */
#include "arch/x86_64/uaccess.h"
#include "proc/cred.h"
#include "proc/proc.h"
#include "proc/task.h"
#include "sys/syscall.h"
#include "proc/pid_ns.h"
#include <uapi/errno.h>

/*
 * How many data structs the header's version carries (1 or 2); an
 * unknown version is EINVAL after the preferred one (v3) is written back
 * (EFAULT if it cannot be), which is how libcap asks.
 */
static long header_words(struct cap_user_header *uh, int *words)
{
	uint32_t version;

	if (copy_from_user(&version, &uh->version, sizeof(version)))
		return -EFAULT;
	switch (version) {
	case LINUX_CAPABILITY_VERSION_1:
		*words = 1;
		return 0;
	case LINUX_CAPABILITY_VERSION_2:
	case LINUX_CAPABILITY_VERSION_3:
		*words = 2;
		return 0;
	}
	version = LINUX_CAPABILITY_VERSION_3;
	if (copy_to_user(&uh->version, &version, sizeof(version)))
		return -EFAULT;
	return -EINVAL;
}

static long header_pid(struct cap_user_header *uh, int *pid)
{
	return copy_from_user(pid, &uh->pid, sizeof(*pid)) ? -EFAULT : 0;
}

/* The three sets of thread pid's process (0: the caller's): 0 or ESRCH. */
static long sets_of(int pid, uint64_t sets[3])
{
	struct task *t = task_find_or_self(pid); /* referenced: its group stays */
	const struct cred *c;

	if (!t)
		return -ESRCH;
	c = task_cred(t); /* no sleep until the copy below */
	sets[0] = c->cap_effective, sets[1] = c->cap_permitted, sets[2] = c->cap_inheritable;
	task_put(t);
	return 0;
}

/* A NULL data pointer with an unknown version is the version query: 0. */
SYSCALL_DEFINE2(capget, struct cap_user_header *, uh, struct cap_user_data *, udata)
{
	struct cap_user_data data[2];
	uint64_t sets[3];
	int words, pid;
	long err = header_words(uh, &words);

	if (!udata || err)
		return !udata && err == -EINVAL ? 0 : err;
	if ((err = header_pid(uh, &pid)))
		return err;
	if (pid < 0)
		return -EINVAL;
	if ((err = sets_of(pid, sets)))
		return err;
	for (int i = 0; i < 2; i++)
		data[i] = (struct cap_user_data){(uint32_t)(sets[0] >> (32 * i)),
						 (uint32_t)(sets[1] >> (32 * i)),
						 (uint32_t)(sets[2] >> (32 * i))};
	return copy_to_user(udata, data, (size_t)words * sizeof(data[0])) ? -EFAULT : 0;
}

/*
 * Linux's cap_capset: the new inheritable set stays within the old
 * inheritable and permitted sets (unless CAP_SETPCAP) and within the old
 * inheritable and bounding sets; permitted only shrinks; effective stays
 * within the new permitted set.  Ambient keeps what is still both
 * permitted and inheritable.
 */
static long capset_apply(uint64_t eff, uint64_t perm, uint64_t inh)
{
	struct cred *new = cred_prepare();

	if (!new)
		return -ENOMEM;
	if ((!capable(CAP_SETPCAP) && (inh & ~(new->cap_inheritable | new->cap_permitted))) ||
	    (inh & ~(new->cap_inheritable | new->cap_bset)) || (perm & ~new->cap_permitted) ||
	    (eff & ~perm)) {
		cred_abort(new);
		return -EPERM;
	}
	new->cap_effective = eff, new->cap_permitted = perm, new->cap_inheritable = inh;
	new->cap_ambient &= perm &inh;
	cred_commit(new);
	return 0;
}

/* Only the caller's own sets may change (pid 0 or its own tid): EPERM. */
SYSCALL_DEFINE2(capset, struct cap_user_header *, uh, const struct cap_user_data *, udata)
{
	struct cap_user_data data[2] = {0};
	uint64_t eff, perm, inh;
	int words, pid;
	long err = header_words(uh, &words);

	if (err || (err = header_pid(uh, &pid)))
		return err;
	if (pid != 0 && pid != task_nr(current()))
		return -EPERM;
	if (copy_from_user(data, udata, (size_t)words * sizeof(data[0])))
		return -EFAULT;
	eff = (data[0].effective | (uint64_t)data[1].effective << 32) & CAP_VALID_MASK;
	perm = (data[0].permitted | (uint64_t)data[1].permitted << 32) & CAP_VALID_MASK;
	inh = (data[0].inheritable | (uint64_t)data[1].inheritable << 32) & CAP_VALID_MASK;
	return capset_apply(eff, perm, inh);
}

static bool cap_valid(unsigned long cap)
{
	return cap <= CAP_LAST_CAP;
}

/* PR_SET_KEEPCAPS (0 or 1; EPERM once locked). */
static long set_keepcaps(unsigned long on)
{
	struct cred *new;

	if (on > 1)
		return -EINVAL;
	if (cred_current()->securebits & (SECBIT_KEEP_CAPS << 1))
		return -EPERM;
	if (!(new = cred_prepare()))
		return -ENOMEM;
	new->securebits =
	    on ? new->securebits | SECBIT_KEEP_CAPS : new->securebits & ~SECBIT_KEEP_CAPS;
	cred_commit(new);
	return 0;
}

/*
 * PR_SET_SECUREBITS: Linux's rules -- no change to a locked bit, no
 * unlocking, no unknown bit, and CAP_SETPCAP for anything (EPERM for
 * each).
 */
static long set_securebits(unsigned long bits)
{
	struct cred *new = cred_prepare();
	unsigned int old;

	if (!new)
		return -ENOMEM;
	old = new->securebits;
	if ((((old & SECBIT_ALL_LOCKS) >> 1) & (old ^ bits)) || (old & SECBIT_ALL_LOCKS & ~bits) ||
	    (bits & ~(unsigned long)(SECBIT_ALL_LOCKS | SECBIT_ALL_BITS)) ||
	    !capable(CAP_SETPCAP)) {
		cred_abort(new);
		return -EPERM;
	}
	new->securebits = (unsigned int)bits;
	cred_commit(new);
	return 0;
}

/* PR_CAPBSET_DROP: CAP_SETPCAP first, then the number. */
static long bset_drop(unsigned long cap)
{
	struct cred *new;

	if (!capable(CAP_SETPCAP))
		return -EPERM;
	if (!cap_valid(cap))
		return -EINVAL;
	if (!(new = cred_prepare()))
		return -ENOMEM;
	new->cap_bset &= ~CAP_TO_MASK(cap);
	cred_commit(new);
	return 0;
}

/* PR_CAP_AMBIENT: raising needs the capability permitted and inheritable
 * and no SECBIT_NO_CAP_AMBIENT_RAISE. */
static long ambient(unsigned long op, unsigned long cap, unsigned long a4, unsigned long a5)
{
	const struct cred *c = cred_current();
	struct cred *new;

	if (op == PR_CAP_AMBIENT_CLEAR_ALL) {
		if (cap || a4 || a5)
			return -EINVAL;
	} else if (!cap_valid(cap) || a4 || a5) {
		return -EINVAL;
	} else if (op == PR_CAP_AMBIENT_IS_SET) {
		return !!(c->cap_ambient & CAP_TO_MASK(cap));
	} else if (op != PR_CAP_AMBIENT_RAISE && op != PR_CAP_AMBIENT_LOWER) {
		return -EINVAL;
	} else if (op == PR_CAP_AMBIENT_RAISE &&
		   (!(c->cap_permitted & c->cap_inheritable & CAP_TO_MASK(cap)) ||
		    (c->securebits & SECBIT_NO_CAP_AMBIENT_RAISE))) {
		return -EPERM;
	}
	if (!(new = cred_prepare()))
		return -ENOMEM;
	if (op == PR_CAP_AMBIENT_CLEAR_ALL)
		new->cap_ambient = 0;
	else if (op == PR_CAP_AMBIENT_RAISE)
		new->cap_ambient |= CAP_TO_MASK(cap) & new->cap_permitted &new->cap_inheritable;
	else
		new->cap_ambient &= ~CAP_TO_MASK(cap);
	cred_commit(new);
	return 0;
}

long prctl_cred(int option, unsigned long a2, unsigned long a3, unsigned long a4, unsigned long a5)
{
	struct task *t = current();

	switch (option) {
	case PR_GET_KEEPCAPS:
		return !!(cred_current()->securebits & SECBIT_KEEP_CAPS);
	case PR_GET_SECUREBITS:
		return cred_current()->securebits;
	case PR_SET_SECUREBITS:
		return set_securebits(a2);
	case PR_SET_KEEPCAPS:
		return set_keepcaps(a2);
	case PR_CAPBSET_READ:
		return cap_valid(a2) ? !!(cred_current()->cap_bset & CAP_TO_MASK(a2)) : -EINVAL;
	case PR_CAPBSET_DROP:
		return bset_drop(a2);
	case PR_CAP_AMBIENT:
		return ambient(a2, a3, a4, a5);
	case PR_SET_NO_NEW_PRIVS: /* one way: it cannot be cleared */
		if (a2 != 1 || a3 || a4 || a5)
			return -EINVAL;
		t->no_new_privs = true;
		return 0;
	case PR_GET_NO_NEW_PRIVS:
		return a2 || a3 || a4 || a5 ? -EINVAL : t->no_new_privs;
	}
	return -EINVAL;
}
