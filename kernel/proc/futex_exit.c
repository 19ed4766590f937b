/*
 * What a thread leaves behind for futex waiters when it exits (or execs):
 * the locks on its robust list are marked FUTEX_OWNER_DIED, and its
 * clear_child_tid word is zeroed with a wake-up (pthread_join).  Also the
 * set_robust_list and get_robust_list calls.  Linux's exit_robust_list
 * and mm_release.
 */
#include <stddef.h>
#include "arch/x86_64/uaccess.h"
#include "proc/futex.h"
#include "proc/futex_internal.h"
#include "mm/uvm.h"
#include "proc/proc.h"
#include "sys/syscall.h"
#include "proc/cred.h"
#include "proc/pid_ns.h"
#include <uapi/errno.h>
#include <uapi/futex.h>

/* The robust-list pointer at uptr: the entry and its PI mark (bit 0). */
static int fetch_entry(uint64_t uptr, uint64_t *entry, bool *pi)
{
	uint64_t v;

	if (copy_from_user(&v, (const void *)uptr, sizeof(v)))
		return -EFAULT;
	*entry = v & ~1UL;
	*pi = v & 1;
	return 0;
}

/*
 * The lock word at uaddr of a thread tid that is gone: if tid owns it,
 * keep FUTEX_WAITERS, set FUTEX_OWNER_DIED and wake one waiter, who then
 * takes the lock and learns its owner died.  pending: the lock was being
 * taken or released; one whose owner part is 0 was just released, and its
 * waiter is woken in case the releaser died before waking it (Linux's
 * handle_futex_death).  PI locks get the bit but no wake-up: their waiters
 * are given the lock by futex_pi_exit, which runs next.
 * 0, or -1 if the list cannot be trusted further.
 */
static int owner_died(uint64_t uaddr, int tid, bool pi, bool pending)
{
	uint32_t uval, found;

	if (uaddr % sizeof(uint32_t))
		return -1;
	for (;;) {
		if (copy_from_user(&uval, (const void *)uaddr, sizeof(uval)))
			return -1;
		if (pending && !pi && !(uval & FUTEX_TID_MASK)) {
			futex_wake(uaddr, true, 1, FUTEX_BITSET_MATCH_ANY);
			return 0;
		}
		if ((uval & FUTEX_TID_MASK) != (uint32_t)tid)
			return 0;
		if (futex_cmpxchg_user(uaddr, uval, (uval & FUTEX_WAITERS) | FUTEX_OWNER_DIED,
				       &found))
			return -1;
		if (found == uval)
			break; /* else it changed under us: look again */
	}
	if (!pi && (uval & FUTEX_WAITERS))
		futex_wake(uaddr, true, 1, FUTEX_BITSET_MATCH_ANY);
	return 0;
}

/* Walks the current thread's robust list at head: at most
 * ROBUST_LIST_LIMIT entries, so a looping list cannot hold the exit. */
static void exit_robust_list(uint64_t head, int tid)
{
	uint64_t entry, next, pending;
	bool pi, next_pi, pending_pi;
	int64_t offset;
	int limit = ROBUST_LIST_LIMIT, rc;

	if (fetch_entry(head + offsetof(struct robust_list_head_k, next), &entry, &pi) ||
	    copy_from_user(&offset,
			   (const void *)(head + offsetof(struct robust_list_head_k, futex_offset)),
			   sizeof(offset)) ||
	    fetch_entry(head + offsetof(struct robust_list_head_k, list_op_pending), &pending,
			&pending_pi))
		return;
	while (entry != head) {
		/* The next entry first: the lock's owner-died wake-up lets the
		 * waiter run and reuse this one. */
		rc = fetch_entry(entry, &next, &next_pi);
		if (entry != pending && owner_died(entry + (uint64_t)offset, tid, pi, false))
			return;
		if (rc)
			return;
		entry = next;
		pi = next_pi;
		if (!--limit)
			break;
	}
	if (pending)
		owner_died(pending + (uint64_t)offset, tid, pending_pi, true);
}

/* True if a task other than t uses t's memory (a thread, a vfork parent). */
static bool uvm_shared(const struct task *t)
{
	return t->uvm && __atomic_load_n(&t->uvm->users, __ATOMIC_ACQUIRE) > 1;
}

/* futex_exit_release and futex_exec_release; end_state: t's futex_state
 * after (proc/futex_internal.h). */
static void release(struct task *t, int end_state)
{
	uint32_t zero = 0;

	if (t->robust_list)
		exit_robust_list(t->robust_list, task_nr(t)); /* the tid the thread knows */
	t->robust_list = 0;
	futex_pi_exit(t, end_state);
	/*
	 * As Linux's mm_release: only when someone else still uses the space
	 * (the thread's joiner); a process's last thread leaves the word as it
	 * is.  Faults are ignored: a bad pointer is the program's problem.
	 */
	if (t->clear_child_tid && uvm_shared(t)) {
		copy_to_user((void *)t->clear_child_tid, &zero, sizeof(zero));
		futex_wake(t->clear_child_tid, true, 1, FUTEX_BITSET_MATCH_ANY);
	}
	t->clear_child_tid = 0;
}

void futex_exit_release(struct task *t)
{
	release(t, FUTEX_STATE_DEAD);
}

void futex_exec_release(struct task *t)
{
	release(t, FUTEX_STATE_OK);
}

/* The head is not read here, only at exit: any pointer is accepted. */
SYSCALL_DEFINE2(set_robust_list, uint64_t, head, uint64_t, len)
{
	if (len != sizeof(struct robust_list_head_k))
		return -EINVAL;
	current()->robust_list = head;
	return 0;
}

SYSCALL_DEFINE3(get_robust_list, int, pid, uint64_t *, uhead, uint64_t *, ulen)
{
	uint64_t head, len = sizeof(struct robust_list_head_k);
	struct task *t;
	bool allowed;

	if (!(t = task_find_or_self(pid))) /* referenced: t stays until task_put */
		return -ESRCH;
	spin_lock(&proc_lock);
	head = t->robust_list;
	allowed = ptrace_may_access_locked(t, false); /* Linux's READ_REALCREDS */
	spin_unlock(&proc_lock);
	task_put(t);
	if (!allowed)
		return -EPERM;
	if (copy_to_user(ulen, &len, sizeof(len)) || copy_to_user(uhead, &head, sizeof(head)))
		return -EFAULT;
	return 0;
}
