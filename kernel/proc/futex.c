/*
 * Futexes (see futex.h): a hash of sleeping waiters keyed by the word they
 * wait on, and the futex(2) operations on it.  The robust list and the
 * exit hook are in futex_exit.c.
 *
 * A waiter checks the word and queues itself under its bucket's lock, and
 * a waker changes the word before it takes that lock (user space does so,
 * or WAKE_OP under the lock): a wake-up can never fall between the check
 * and the sleep (Linux's rule, futex/waitwake.c).
 */
#include "proc/futex.h"
#include "arch/x86_64/timer.h"
#include "arch/x86_64/uaccess.h"
#include "mm/frame.h"
#include "mm/layout.h"
#include "mm/paging.h"
#include "proc/ktimer.h"
#include "proc/proc.h"
#include "sched/sched.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/futex.h>

#define FUTEX_HASH_BITS 6
#define FUTEX_BUCKETS	(1 << FUTEX_HASH_BITS)
#define NO_DEADLINE	UINT64_MAX /* an untimed wait */

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
	 * key holds a reference on it (key_get/key_put), so the frame cannot be
	 * freed and reused for another word while a waiter or a waker uses it. */
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
	 * waiter queued here.  Order: a bucket lock, then a second one of
	 * higher address (requeue, wake-op), then vm_space, frame and sched
	 * locks. */
	struct spinlock lock;
	struct list_head waiters;
};

/*
 * A task sleeping in FUTEX_WAIT or WAIT_BITSET.  It lives on the waiting
 * task's kernel stack: a waker touches it only under the lock of the bucket
 * it is queued on, and futex_wait takes that lock and unlinks it before it
 * returns, so no bucket ever points at a dead frame (and nothing is
 * allocated per waiter: waiters are bounded by tasks).
 */
struct futex_waiter {
	struct futex_key key; /* requeue moves it to another key; its frame ref too */
	uint32_t bitset;      /* WAIT_BITSET's mask; FUTEX_BITSET_MATCH_ANY for WAIT */
	struct task *task;
	struct list_head link;	     /* in bucket->waiters until woken or unqueued */
	struct futex_bucket *bucket; /* where it is queued: requeue changes it under both locks */
	bool woken;		     /* set by the waker, under the bucket lock */
};

static struct futex_bucket buckets[FUTEX_BUCKETS];
/* Waiters queued now, for /proc/kstat and the leak check (atomic: each
 * bucket's lock covers only its own). */
static unsigned long nwaiters;

unsigned long futex_waiter_count(void)
{
	return __atomic_load_n(&nwaiters, __ATOMIC_RELAXED);
}

void futex_init(void)
{
	for (int i = 0; i < FUTEX_BUCKETS; i++) {
		spin_init(&buckets[i].lock, "futex_bucket");
		list_init(&buckets[i].waiters);
	}
}

static struct futex_bucket *bucket_of(const struct futex_key *k)
{
	uint64_t h = ((uint64_t)k->vm ^ k->frame ^ k->offset) * 0x9e3779b97f4a7c15UL;

	return &buckets[h >> (64 - FUTEX_HASH_BITS)];
}

static bool key_equal(const struct futex_key *a, const struct futex_key *b)
{
	return a->vm == b->vm && a->frame == b->frame && a->offset == b->offset &&
	       a->shared_op == b->shared_op;
}

/*
 * The word at uaddr through the kernel's direct map, or NULL if its page is
 * not present (or, for a write, not writable) in the caller's space.  The
 * pointer is used at once, before anything can sleep: with one CPU and a
 * kernel that is not preempted nothing can unmap the page in between.
 * (SMP will need translate to take a frame reference under the space's
 * lock.)
 */
static uint32_t *user_word(uint64_t uaddr, bool write)
{
	uint64_t pa, flags;

	if (translate(current()->vm, uaddr, &pa, &flags) || !(flags & PTE_USER))
		return NULL;
	if (write && !(flags & PTE_WRITE))
		return NULL;
	return P2V(pa);
}

/* Makes the word's page present, and writable for write, as a user access
 * would (stack growth, copy-on-write): 0 or -EFAULT. */
static int fault_in(uint64_t uaddr, bool write)
{
	struct vm_space *vm = current()->vm;
	uint64_t flags;
	uint32_t v;

	if (copy_from_user(&v, (const void *)uaddr, sizeof(v)))
		return -EFAULT;
	if (!write || translate(vm, uaddr, NULL, &flags) || (flags & PTE_WRITE))
		return 0; /* a page gone again: the caller's retry sees it */
	if (!(flags & PTE_COW) || vm_resolve_cow(vm, PAGE_ALIGN_DOWN(uaddr)))
		return -EFAULT;
	return 0;
}

/*
 * The key of the word at uaddr: -EINVAL if it is not 4-byte aligned,
 * -EFAULT outside user space or, for a shared op, unmapped.  A private op
 * does not look at the page (Linux: a private FUTEX_WAKE on an unmapped
 * word just finds no waiter).  Drop it with key_put.
 */
static int key_get(uint64_t uaddr, bool shared, struct futex_key *key)
{
	uint64_t pa, flags;

	if (uaddr % sizeof(uint32_t))
		return -EINVAL;
	if (!user_range_ok(uaddr, sizeof(uint32_t)))
		return -EFAULT;
	*key = (struct futex_key){.vm = current()->vm, .offset = uaddr, .shared_op = shared};
	if (!shared)
		return 0;
	while (translate(key->vm, uaddr, &pa, &flags) || !(flags & PTE_USER))
		if (fault_in(uaddr, false))
			return -EFAULT;
	if (flags & PTE_SHARED) {
		*key = (struct futex_key){
		    .frame = pa & PTE_ADDR, .offset = uaddr & PAGE_MASK, .shared_op = true};
		frame_ref(key->frame);
	}
	return 0;
}

static void key_put(struct futex_key *key)
{
	if (key->frame)
		frame_unref(key->frame);
}

/* Locks two buckets, lower address first (one lock if they are the same). */
static void lock_pair(struct futex_bucket *a, struct futex_bucket *b)
{
	if (a > b) {
		struct futex_bucket *t = a;
		a = b;
		b = t;
	}
	spin_lock(&a->lock);
	if (b != a)
		spin_lock(&b->lock);
}

static void unlock_pair(struct futex_bucket *a, struct futex_bucket *b)
{
	spin_unlock(&a->lock);
	if (b != a)
		spin_unlock(&b->lock);
}

/* Takes w off its bucket and wakes its task (caller holds the bucket lock,
 * which keeps w's frame alive: see struct futex_waiter). */
static void wake_waiter(struct futex_waiter *w)
{
	list_del(&w->link);
	__atomic_store_n(&w->woken, true, __ATOMIC_RELEASE);
	sched_wake(w->task);
}

/*
 * Wakes waiters of key on b whose bitset meets bitset (caller holds b's
 * lock): at most nr, and at least one whatever nr says, as Linux counts.
 */
static int wake_keyed(struct futex_bucket *b, const struct futex_key *key, int nr, uint32_t bitset)
{
	struct futex_waiter *w, *next;
	int woken = 0;

	list_for_each_entry_safe(w, next, &b->waiters, link)
	{
		if (!key_equal(&w->key, key) || !(w->bitset & bitset))
			continue;
		wake_waiter(w);
		if (++woken >= nr)
			break;
	}
	return woken;
}

/* Takes w off whatever bucket it is on now (requeue may have moved it):
 * true if a waker took it off first. */
static bool unqueue(struct futex_waiter *w)
{
	struct futex_bucket *b;
	bool woken;

	for (;;) {
		b = __atomic_load_n(&w->bucket, __ATOMIC_ACQUIRE);
		spin_lock(&b->lock);
		if (b == w->bucket)
			break;
		spin_unlock(&b->lock);
	}
	list_del(&w->link);
	woken = w->woken;
	spin_unlock(&b->lock);
	__atomic_fetch_sub(&nwaiters, 1, __ATOMIC_RELAXED);
	return woken;
}

/*
 * Sleeps until w is woken (0), the deadline passes (-ETIMEDOUT) or a
 * signal comes.  An untimed wait is restarted after an SA_RESTART handler
 * (-ERESTARTSYS); a timed one fails with EINTR, as Linux's restart block
 * makes it after any handler.  A wake-up that races with the timeout or
 * the signal wins.
 */
static long sleep_queued(struct futex_waiter *w, uint64_t deadline)
{
	struct task *t = current();
	long ret;

	for (;;) {
		if (deadline != NO_DEADLINE)
			sched_arm_deadline(deadline);
		else
			sched_set_state(t, TASK_SLEEPING);
		if (__atomic_load_n(&w->woken, __ATOMIC_ACQUIRE)) {
			ret = 0;
			break;
		}
		if (deadline != NO_DEADLINE && clock_monotonic_ns() >= deadline) {
			ret = -ETIMEDOUT;
			break;
		}
		if (signal_pending()) {
			ret = deadline == NO_DEADLINE ? -ERESTARTSYS : -EINTR;
			break;
		}
		schedule();
	}
	if (deadline != NO_DEADLINE)
		sched_disarm_deadline();
	else
		sched_set_state(t, TASK_RUNNABLE);
	return unqueue(w) ? 0 : ret;
}

/* FUTEX_WAIT(_BITSET): sleeps if the word at uaddr still holds val. */
static long futex_wait(uint64_t uaddr, bool shared, uint32_t val, uint64_t deadline,
		       uint32_t bitset)
{
	struct futex_waiter w = {.bitset = bitset, .task = current()};
	struct futex_bucket *b;
	uint32_t *word;
	long ret;

	if (!bitset)
		return -EINVAL;
	if ((ret = key_get(uaddr, shared, &w.key)))
		return ret;
	list_init(&w.link);
	b = bucket_of(&w.key);
	for (;;) {
		spin_lock(&b->lock);
		if ((word = user_word(uaddr, false)))
			break;
		spin_unlock(&b->lock);
		if ((ret = fault_in(uaddr, false)))
			goto out;
	}
	if (__atomic_load_n(word, __ATOMIC_ACQUIRE) != val) {
		spin_unlock(&b->lock);
		ret = -EAGAIN;
		goto out;
	}
	w.bucket = b;
	list_add_tail(&w.link, &b->waiters);
	__atomic_fetch_add(&nwaiters, 1, __ATOMIC_RELAXED);
	spin_unlock(&b->lock);
	ret = sleep_queued(&w, deadline);
out:
	key_put(&w.key); /* requeue may have changed it: it is ours again now */
	return ret;
}

long futex_wake(uint64_t uaddr, bool shared, int nr, uint32_t bitset)
{
	struct futex_key key;
	struct futex_bucket *b;
	long ret;

	if (!bitset)
		return -EINVAL;
	if ((ret = key_get(uaddr, shared, &key)))
		return ret;
	b = bucket_of(&key);
	spin_lock(&b->lock);
	ret = wake_keyed(b, &key, nr, bitset);
	spin_unlock(&b->lock);
	key_put(&key);
	return ret;
}

/* Moves w from b1 to key2 on b2 (caller holds both locks); the reference
 * on key2's frame passes to w, the one on its old frame is dropped (the
 * requeuer's own key keeps that frame alive until it returns). */
static void requeue_waiter(struct futex_waiter *w, struct futex_bucket *b2,
			   const struct futex_key *key2)
{
	if (key2->frame)
		frame_ref(key2->frame);
	key_put(&w->key);
	w->key = *key2;
	if (w->bucket != b2) {
		list_del(&w->link);
		list_add_tail(&w->link, &b2->waiters);
		__atomic_store_n(&w->bucket, b2, __ATOMIC_RELEASE);
	}
}

/*
 * The two words of a requeue or wake-op: their keys (referenced) and
 * buckets.  pair_get takes both keys or, failing, none; pair_put drops
 * them.
 */
struct futex_pair {
	struct futex_key key1, key2;
	struct futex_bucket *b1, *b2;
};

static long pair_get(struct futex_pair *p, uint64_t uaddr1, uint64_t uaddr2, bool shared)
{
	long ret = key_get(uaddr1, shared, &p->key1);

	if (ret)
		return ret;
	if ((ret = key_get(uaddr2, shared, &p->key2))) {
		key_put(&p->key1);
		return ret;
	}
	p->b1 = bucket_of(&p->key1);
	p->b2 = bucket_of(&p->key2);
	return 0;
}

static void pair_put(struct futex_pair *p)
{
	key_put(&p->key2);
	key_put(&p->key1);
}

/*
 * Locks both buckets with the word at uaddr mapped, faulting it in with
 * the locks dropped as often as needed; without need, no word.  0 with
 * the buckets locked (and *word set when needed), or -errno unlocked.
 */
static long pair_lock_word(struct futex_pair *p, uint64_t uaddr, bool write, bool need,
			   uint32_t **word)
{
	for (;;) {
		long ret;

		lock_pair(p->b1, p->b2);
		if (!need || (*word = user_word(uaddr, write)))
			return 0;
		unlock_pair(p->b1, p->b2);
		if ((ret = fault_in(uaddr, write)))
			return ret;
	}
}

/*
 * FUTEX_REQUEUE and FUTEX_CMP_REQUEUE (cmpval): wakes nr_wake waiters of
 * uaddr1 and moves up to nr_requeue more to uaddr2, bitsets ignored, as
 * Linux.  Returns how many were woken or moved.
 */
static long futex_requeue(uint64_t uaddr1, bool shared, uint64_t uaddr2, int nr_wake,
			  int nr_requeue, const uint32_t *cmpval)
{
	struct futex_pair p;
	struct futex_waiter *w, *next;
	uint32_t *word = NULL;
	long ret, count = 0;

	if (nr_wake < 0 || nr_requeue < 0)
		return -EINVAL;
	if ((ret = pair_get(&p, uaddr1, uaddr2, shared)))
		return ret;
	if ((ret = pair_lock_word(&p, uaddr1, false, cmpval != NULL, &word)))
		goto out;
	if (cmpval && __atomic_load_n(word, __ATOMIC_ACQUIRE) != *cmpval) {
		ret = -EAGAIN;
		goto unlock;
	}
	list_for_each_entry_safe(w, next, &p.b1->waiters, link)
	{
		if (count - nr_wake >= nr_requeue)
			break;
		if (!key_equal(&w->key, &p.key1))
			continue;
		if (++count <= nr_wake)
			wake_waiter(w);
		else
			requeue_waiter(w, p.b2, &p.key2);
	}
	ret = count;
unlock:
	unlock_pair(p.b1, p.b2);
out:
	pair_put(&p);
	return ret;
}

/*
 * FUTEX_WAKE_OP's operation on *word: the old value compared with the
 * encoded argument (0 or 1), or -ENOSYS for an unknown operation (nothing
 * changed) or comparison (after the change), as Linux.
 */
static int wake_op_apply(uint32_t *word, uint32_t encoded)
{
	unsigned op = (encoded >> 28) & 7, cmp = (encoded >> 24) & 15;
	int32_t oparg = (int32_t)(encoded << 8) >> 20, cmparg = (int32_t)(encoded << 20) >> 20;
	int32_t old;

	if (encoded & (FUTEX_OP_OPARG_SHIFT << 28))
		oparg = (int32_t)(1U << (oparg & 31)); /* Linux masks a bad shift too */
	switch (op) {
	case FUTEX_OP_SET:
		old = (int32_t)__atomic_exchange_n(word, (uint32_t)oparg, __ATOMIC_SEQ_CST);
		break;
	case FUTEX_OP_ADD:
		old = (int32_t)__atomic_fetch_add(word, (uint32_t)oparg, __ATOMIC_SEQ_CST);
		break;
	case FUTEX_OP_OR:
		old = (int32_t)__atomic_fetch_or(word, (uint32_t)oparg, __ATOMIC_SEQ_CST);
		break;
	case FUTEX_OP_ANDN:
		old = (int32_t)__atomic_fetch_and(word, ~(uint32_t)oparg, __ATOMIC_SEQ_CST);
		break;
	case FUTEX_OP_XOR:
		old = (int32_t)__atomic_fetch_xor(word, (uint32_t)oparg, __ATOMIC_SEQ_CST);
		break;
	default:
		return -ENOSYS;
	}
	switch (cmp) {
	case FUTEX_OP_CMP_EQ:
		return old == cmparg;
	case FUTEX_OP_CMP_NE:
		return old != cmparg;
	case FUTEX_OP_CMP_LT:
		return old < cmparg;
	case FUTEX_OP_CMP_LE:
		return old <= cmparg;
	case FUTEX_OP_CMP_GT:
		return old > cmparg;
	case FUTEX_OP_CMP_GE:
		return old >= cmparg;
	default:
		return -ENOSYS;
	}
}

/* An operation Linux knows, so the word is worth faulting in. */
static bool wake_op_known(uint32_t encoded)
{
	return ((encoded >> 28) & 7) <= FUTEX_OP_XOR;
}

/*
 * FUTEX_WAKE_OP: applies the encoded operation to *uaddr2 atomically,
 * wakes nr_wake waiters of uaddr1 and, if the comparison held, nr_wake2 of
 * uaddr2 (condition variables: unlock the mutex and signal in one call).
 */
static long futex_wake_op(uint64_t uaddr1, bool shared, uint64_t uaddr2, int nr_wake, int nr_wake2,
			  uint32_t encoded)
{
	struct futex_pair p;
	uint32_t *word = NULL;
	long ret;
	int cond;

	if ((ret = pair_get(&p, uaddr1, uaddr2, shared)))
		return ret;
	if ((ret = pair_lock_word(&p, uaddr2, true, wake_op_known(encoded), &word)))
		goto out;
	cond = word ? wake_op_apply(word, encoded) : -ENOSYS;
	if (cond < 0) {
		ret = cond;
	} else {
		ret = wake_keyed(p.b1, &p.key1, nr_wake, FUTEX_BITSET_MATCH_ANY);
		if (cond)
			ret += wake_keyed(p.b2, &p.key2, nr_wake2, FUTEX_BITSET_MATCH_ANY);
	}
	unlock_pair(p.b1, p.b2);
out:
	pair_put(&p);
	return ret;
}

int futex_cmpxchg_user(uint64_t uaddr, uint32_t old, uint32_t new, uint32_t *cur)
{
	uint32_t *word;

	if (uaddr % sizeof(uint32_t) || !user_range_ok(uaddr, sizeof(uint32_t)))
		return -EFAULT;
	while (!(word = user_word(uaddr, true)))
		if (fault_in(uaddr, true))
			return -EFAULT;
	__atomic_compare_exchange_n(word, &old, new, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	*cur = old; /* the value found: new was stored if it equals old */
	return 0;
}

/*
 * The monotonic deadline of a wait's timeout at utimeout: FUTEX_WAIT's is
 * relative, WAIT_BITSET's absolute on CLOCK_MONOTONIC or, with
 * FUTEX_CLOCK_REALTIME, CLOCK_REALTIME.  0 or -EFAULT / -EINVAL.
 */
static int wait_deadline(uint64_t utimeout, int cmd, bool realtime, uint64_t *deadline)
{
	struct timespec_k ts;
	int64_t ns, offset = realtime ? clock_realtime_offset_ns() : 0;

	if (copy_from_user(&ts, (const void *)utimeout, sizeof(ts)))
		return -EFAULT;
	if ((ns = timespec_to_ns(&ts)) < 0)
		return (int)ns;
	if (cmd == FUTEX_WAIT)
		*deadline = clock_monotonic_ns() + (uint64_t)ns; /* ns <= KTIME_MAX: no wrap */
	else
		*deadline = ns > offset ? (uint64_t)(ns - offset) : 0; /* 0: already past */
	return 0;
}

/*
 * futex(uaddr, op, val, timeout or val2, uaddr2, val3).  The fourth
 * argument is a timeout pointer for the waits and a count (val2) for
 * requeue and wake-op.  The priority-inheritance operations are not
 * implemented: ENOSYS, as for unknown ones.
 */
SYSCALL_DEFINE6(futex, uint64_t, uaddr, int, op, uint32_t, val, uint64_t, utimeout, uint64_t,
		uaddr2, uint32_t, val3)
{
	int cmd = op & FUTEX_CMD_MASK;
	bool shared = !(op & FUTEX_PRIVATE_FLAG), realtime = op & FUTEX_CLOCK_REALTIME;
	uint64_t deadline = NO_DEADLINE;
	int val2 = (int)(uint32_t)utimeout, err;

	/* Linux's order: the timeout first, then the clock flag. */
	if (utimeout && (cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET) &&
	    (err = wait_deadline(utimeout, cmd, realtime, &deadline)))
		return err;
	if (realtime && cmd != FUTEX_WAIT_BITSET)
		return -ENOSYS;
	switch (cmd) {
	case FUTEX_WAIT:
		return futex_wait(uaddr, shared, val, deadline, FUTEX_BITSET_MATCH_ANY);
	case FUTEX_WAIT_BITSET:
		return futex_wait(uaddr, shared, val, deadline, val3);
	case FUTEX_WAKE:
		return futex_wake(uaddr, shared, (int)val, FUTEX_BITSET_MATCH_ANY);
	case FUTEX_WAKE_BITSET:
		return futex_wake(uaddr, shared, (int)val, val3);
	case FUTEX_REQUEUE:
		return futex_requeue(uaddr, shared, uaddr2, (int)val, val2, NULL);
	case FUTEX_CMP_REQUEUE:
		return futex_requeue(uaddr, shared, uaddr2, (int)val, val2, &val3);
	case FUTEX_WAKE_OP:
		return futex_wake_op(uaddr, shared, uaddr2, (int)val, val2, val3);
	default:
		return -ENOSYS;
	}
}
