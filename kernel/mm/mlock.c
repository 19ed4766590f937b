/*
 * Memory locks: mlock, mlock2, munlock, mlockall, munlockall.  A locked
 * vma (VMA_LOCKED, mm/vma.h) is populated at once, or as it is touched
 * with MLOCK_ONFAULT / MCL_ONFAULT, and its pages stay: there is no swap,
 * and madvise cannot drop them (EINVAL).  /proc/<pid>/status's VmLck adds
 * the locked vmas up.  Locks are not inherited by fork and end with exec.
 *
 * RLIMIT_MEMLOCK binds a process without CAP_IPC_LOCK, as Linux: with a
 * limit of 0 it may lock nothing (EPERM), else its locked bytes stay
 * within the limit (ENOMEM; mlockall(MCL_CURRENT): everything it maps).
 * What MCL_FUTURE locks later is not held to it yet.
 */
#include "proc/cred.h"
#include "proc/group.h"
#include "proc/rlimit.h"
#include "proc/task.h"
#include "mm/uvm.h"
#include "mm/vma.h"
#include "mm/layout.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/mman.h>

/*
 * The page range of (addr, len) as Linux's do_mlock computes it: the
 * start rounded down, the length rounded up with it (a length that wraps
 * to 0 is no range).  0 with an empty range in *end == *start, or -EINVAL
 * when the end wraps.
 */
static int lock_range(uint64_t addr, uint64_t len, uint64_t *start, uint64_t *end)
{
	len = PAGE_ALIGN_UP(len + (addr & PAGE_MASK));
	*start = PAGE_ALIGN_DOWN(addr);
	*end = *start + len;
	return *end < *start ? -EINVAL : 0;
}

/*
 * Sets the lock bits of [start, end) and, for a lock that is not on
 * fault, maps its pages.  Linux's answers: ENOMEM for a hole (the part
 * before it changed) and for a part nothing may touch (PROT_NONE: locked
 * all the same, but it cannot be populated); EAGAIN when memory runs out.
 */
/* The caller's RLIMIT_MEMLOCK, or UINT64_MAX with CAP_IPC_LOCK. */
static uint64_t lock_limit(void)
{
	return capable(CAP_IPC_LOCK) ? UINT64_MAX : rlimit_soft(current()->group, RLIMIT_MEMLOCK);
}

/* Under u->lock: whether locking [start, end) keeps u's locked bytes
 * (those already locked in the range counted once) within limit. */
static bool lock_fits(struct uvm *u, uint64_t start, uint64_t end, uint64_t limit)
{
	uint64_t locked = end - start;
	struct vma *v;

	if (limit == UINT64_MAX)
		return true;
	list_for_each_entry(v, &u->vt->vmas, node)
	{
		if (!(v->flags & VMA_LOCKED))
			continue;
		uint64_t lo = v->start > start ? v->start : start, hi = v->end < end ? v->end : end;
		locked += (v->end - v->start) - (hi > lo ? hi - lo : 0);
	}
	return locked <= limit;
}

static long apply_lock(uint64_t start, uint64_t end, unsigned int lock)
{
	struct uvm *u = current()->uvm;
	uint64_t limit = lock ? lock_limit() : UINT64_MAX;
	bool inaccessible;
	long err;

	if (end == start)
		return 0;
	spin_lock(&u->lock);
	if (!lock_fits(u, start, end, limit)) {
		spin_unlock(&u->lock);
		return -ENOMEM;
	}
	err = vma_set_bits(u, start, end, VMA_LOCKED | VMA_LOCKONFAULT, lock, false);
	if (lock)
		u->ever_locked = true;
	inaccessible = !err && lock && !vma_range_accessible(u, start, end);
	spin_unlock(&u->lock);
	if (err || !lock || (lock & VMA_LOCKONFAULT))
		return err;
	if (uvm_populate(u, start, end))
		return -EAGAIN;
	return inaccessible ? -ENOMEM : 0;
}

static long do_mlock(uint64_t addr, uint64_t len, unsigned int lock)
{
	uint64_t start, end;
	long err;

	if (lock && !lock_limit()) /* Linux's can_do_mlock, first */
		return -EPERM;
	err = lock_range(addr, len, &start, &end);

	return err ? err : apply_lock(start, end, lock);
}

SYSCALL_DEFINE2(mlock, uint64_t, addr, uint64_t, len)
{
	return do_mlock(addr, len, VMA_LOCKED);
}

SYSCALL_DEFINE3(mlock2, uint64_t, addr, uint64_t, len, unsigned int, flags)
{
	if (flags & ~MLOCK_ONFAULT)
		return -EINVAL;
	return do_mlock(addr, len, VMA_LOCKED | (flags & MLOCK_ONFAULT ? VMA_LOCKONFAULT : 0));
}

SYSCALL_DEFINE2(munlock, uint64_t, addr, uint64_t, len)
{
	return do_mlock(addr, len, 0);
}

/*
 * MCL_CURRENT locks what is mapped now (populating it unless MCL_ONFAULT),
 * MCL_FUTURE what gets mapped later (uvm->lock_future); each call sets
 * both anew, as Linux's apply_mlockall_flags.  MCL_ONFAULT alone, no flag
 * or an unknown one: EINVAL.
 */
SYSCALL_DEFINE1(mlockall, int, flags)
{
	unsigned int lock = VMA_LOCKED | (flags & MCL_ONFAULT ? VMA_LOCKONFAULT : 0);
	struct uvm *u = current()->uvm;
	long err = 0;

	if (!flags || (flags & ~(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT)) || flags == MCL_ONFAULT)
		return -EINVAL;
	if (!lock_limit())
		return -EPERM;
	if ((flags & MCL_CURRENT) && uvm_mapped_bytes(u, 0) > lock_limit())
		return -ENOMEM; /* Linux's total_vm test */
	spin_lock(&u->lock);
	u->lock_future = flags & MCL_FUTURE ? lock : 0;
	u->ever_locked = true;
	if (flags & MCL_CURRENT)
		err = vma_set_lock_all(u, lock);
	spin_unlock(&u->lock);
	if (!err && (flags & MCL_CURRENT) && !(flags & MCL_ONFAULT) && uvm_populate(u, 0, USER_END))
		err = -EAGAIN;
	return err;
}

SYSCALL_DEFINE0(munlockall)
{
	struct uvm *u = current()->uvm;
	long err;

	spin_lock(&u->lock);
	u->lock_future = 0;
	err = vma_set_lock_all(u, 0);
	spin_unlock(&u->lock);
	return err;
}
