/*
 * What the futex files share (futex.c: keys, buckets, waits and wakes;
 * futex_pi.c: priority-inheritance locks; futex_exit.c: robust lists).
 * Not for the rest of the kernel: futex.h is.
 */
#ifndef PROC_FUTEX_INTERNAL_H
#define PROC_FUTEX_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include "lib/list.h"
#include "lib/spinlock.h"
#include <uapi/errno.h>

struct task;
struct vm_space;

#define NO_DEADLINE UINT64_MAX /* an untimed wait */

/*
 * What identifies a futex word (Linux's futex_key).  A private word (an op
 * with FUTEX_PRIVATE_FLAG, or any op on private memory) is an address in
 * one address space: vm and the user address.  A shared op on MAP_SHARED
 * memory keys on the word's place in physical memory, the same in every
 * process that maps the page: the frame and the offset in it.
 */
struct futex_key {
	/* Private key: the space.  Alive while a waiter keyed on it sleeps,
	 * since the waiter's task uses it; never dereferenced, only compared. */
	struct vm_space *vm;
	/* Shared key: the frame's physical address (0 for a private key).  A
	 * key holds a reference on it (futex_key_get/put), so the frame cannot
	 * be freed and reused for another word while a waiter or a waker uses
	 * it. */
	uint64_t frame;
	uint64_t offset; /* private key: the user address; shared: offset in the frame */
	/* Made by an op without FUTEX_PRIVATE_FLAG.  On private memory such a
	 * key differs from a private op's on the same word, as in Linux (its
	 * FUT_OFF_MMSHARED): the two kinds of op never meet. */
	bool shared_op;
};

/* A chain of waiters whose keys hash alike. */
struct futex_bucket {
	/* Protects waiters, and the link, key, bucket and woken fields of each
	 * waiter queued here, and the PI states of its keys (futex_pi.c).
	 * Order: a bucket lock, then a second one of higher address (requeue,
	 * wake-op), then futex_pi_lock, vm_space, frame and sched locks. */
	struct spinlock lock;
	struct list_head waiters;
};

struct futex_pi_state;

/*
 * A task sleeping in a futex wait.  It lives on the waiting task's kernel
 * stack: a waker touches it only under the lock of the bucket it is queued
 * on, and the waiter takes that lock and unlinks it before it returns, so
 * no bucket ever points at a dead frame (and nothing is allocated per
 * waiter: waiters are bounded by tasks).
 */
struct futex_waiter {
	struct futex_key key; /* requeue moves it to another key; its frame ref too */
	uint32_t bitset;      /* WAIT_BITSET's mask; FUTEX_BITSET_MATCH_ANY for WAIT */
	struct task *task;
	struct list_head link;	     /* in bucket->waiters until woken or unqueued */
	struct futex_bucket *bucket; /* where it is queued: requeue changes it under both locks */
	/* Set by the waker, under the bucket lock.  A PI waiter is woken only
	 * by being given the lock (its tid is in the word already). */
	bool woken;
	/* A PI lock's waiter (LOCK_PI, or WAIT_REQUEUE_PI once requeued): the
	 * lock's state, which it holds a reference on; NULL otherwise. */
	struct futex_pi_state *pi;
	/* WAIT_REQUEUE_PI: the PI word it waits to be moved to (referenced
	 * as any key), and that it may only be moved or woken by
	 * CMP_REQUEUE_PI (plain wakes and requeues give EINVAL, as Linux). */
	bool requeue_pi;
	struct futex_key pi_key;
};

bool futex_key_equal(const struct futex_key *a, const struct futex_key *b);
/* The key of the word at uaddr: -EINVAL if it is not 4-byte aligned,
 * -EFAULT outside user space or, for a shared op, unmapped.  Drop it with
 * futex_key_put. */
int futex_key_get(uint64_t uaddr, bool shared, struct futex_key *key);
void futex_key_put(struct futex_key *key);
struct futex_bucket *futex_bucket_of(const struct futex_key *k);
/* What futex_word_access does to a word: a load, a compare-and-exchange,
 * or FUTEX_WAKE_OP's operations (in FUTEX_OP_SET's order). */
enum futex_word_op { WORD_LOAD, WORD_CMPXCHG, WORD_SET, WORD_ADD, WORD_OR, WORD_ANDN, WORD_XOR };
struct futex_access {
	enum futex_word_op op;
	uint32_t arg;	 /* the value stored (CMPXCHG's if old equals expect), or the operand */
	uint32_t expect; /* CMPXCHG's */
	bool write;	 /* a load whose page must be writable: a write follows */
	uint32_t old;	 /* out: the value found */
};
/* Does a to the word at uaddr in the caller's space, translating it and
 * touching it under the space's lock (vm_user_word_lock), so that no CPU
 * unmaps the page or breaks its copy-on-write in between: 0, or -EFAULT
 * if the page is not present (or not writable for a write).  Never
 * sleeps; the caller may hold any lock before vm_space's in the order. */
int futex_word_access(uint64_t uaddr, struct futex_access *a);
/* Makes the word's page present (writable for write) as a user access
 * would: 0 or -EFAULT.  No lock held. */
int futex_fault_in(uint64_t uaddr, bool write);
/* Whether a needs the word's page writable. */
static inline bool futex_access_writes(const struct futex_access *a)
{
	return a->write || a->op != WORD_LOAD;
}
/* Locks b and does a to the word at uaddr, faulting it in with the lock
 * dropped as often as needed: 0 with b locked, or -EFAULT unlocked. */
static inline int futex_lock_word(struct futex_bucket *b, uint64_t uaddr, struct futex_access *a)
{
	for (;;) {
		spin_lock(&b->lock);
		if (!futex_word_access(uaddr, a))
			return 0;
		spin_unlock(&b->lock);
		if (futex_fault_in(uaddr, futex_access_writes(a)))
			return -EFAULT;
	}
}
void futex_lock_pair(struct futex_bucket *a, struct futex_bucket *b);
void futex_unlock_pair(struct futex_bucket *a, struct futex_bucket *b);
/* Queues w (key, task, bitset set) on b, whose lock the caller holds. */
void futex_queue(struct futex_waiter *w, struct futex_bucket *b);
/* Takes w off its bucket and wakes its task (caller holds the lock). */
void futex_wake_waiter(struct futex_waiter *w);
/* Moves w to key2 on b2 (both locks held); its key reference follows. */
void futex_requeue_waiter(struct futex_waiter *w, struct futex_bucket *b2,
			  const struct futex_key *key2);
/*
 * Sleeps until w is woken (0), the deadline passes (-ETIMEDOUT) or a
 * signal comes (intr), then unqueues it; a wake-up that races with the
 * timeout or the signal wins.
 */
long futex_sleep_queued(struct futex_waiter *w, uint64_t deadline, long intr);
/* The same for the n waiters w[0..n) of one task (futex_waitv): until any
 * is woken, then all are unqueued; the index of one a waker took off (the
 * last), or the error. */
long futex_sleep_queued_v(struct futex_waiter *w, int n, uint64_t deadline, long intr);
/* Unqueues w[0..n): the index of the last a waker took off first, or -1. */
long futex_unqueue_all(struct futex_waiter *w, int n);
/* The first waiter of key on b (its lock held), or NULL: Linux's
 * futex_top_waiter. */
struct futex_waiter *futex_top_waiter(struct futex_bucket *b, const struct futex_key *key);

/* A task's futex_state (Linux's): whether a PI state may still attach to
 * it as its owner.  EXITING from the start of its exit's (or exec's)
 * release, DEAD when it ends for an exit, OK again for an exec. */
#define FUTEX_STATE_OK	    0
#define FUTEX_STATE_EXITING 1
#define FUTEX_STATE_DEAD    2

/* The PI operations (futex_pi.c). */
long futex_lock_pi(uint64_t uaddr, bool shared, uint64_t deadline, bool trylock);
long futex_unlock_pi(uint64_t uaddr, bool shared);
long futex_wait_requeue_pi(uint64_t uaddr, bool shared, uint32_t val, uint64_t deadline,
			   uint64_t uaddr2);
long futex_cmp_requeue_pi(uint64_t uaddr1, bool shared, uint64_t uaddr2, int nr_wake,
			  int nr_requeue, uint32_t cmpval);
/* t (current) exits or execs: the PI locks it owns go to their first
 * waiters; then its futex_state is end_state. */
void futex_pi_exit(struct task *t, int end_state);

#endif
