/*
 * Futexes (see futex.h): a hash of sleeping waiters keyed by the word they
 * wait on, and the futex(2) operations on it.  The priority-inheritance
 * operations are in futex_pi.c, the robust list and the exit hook in
 * futex_exit.c; futex_internal.h has what they share.
 *
 * A waiter checks the word and queues itself under its bucket's lock, and
 * a waker changes the word before it takes that lock (user space does so,
 * or WAKE_OP under the lock): a wake-up can never fall between the check
 * and the sleep (Linux's rule, futex/waitwake.c).
 */
#include "proc/futex.h"
#include "proc/futex_internal.h"
#include "arch/x86_64/timer.h"
#include "arch/x86_64/uaccess.h"
#include "mm/frame.h"
#include "mm/layout.h"
#include "mm/paging.h"
#include "sched/ktimer.h"
#include "proc/proc.h"
#include "sched/sched.h"
#include "sys/syscall.h"
#include "time/timens.h"
#include <uapi/errno.h>
#include <uapi/futex.h>
#include <uapi/time.h>

#define FUTEX_HASH_BITS 6
#define FUTEX_BUCKETS	(1 << FUTEX_HASH_BITS)
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

struct futex_bucket *futex_bucket_of(const struct futex_key *k)
{
	uint64_t h = ((uint64_t)k->vm ^ k->frame ^ k->offset) * 0x9e3779b97f4a7c15UL;

	return &buckets[h >> (64 - FUTEX_HASH_BITS)];
}

bool futex_key_equal(const struct futex_key *a, const struct futex_key *b)
{
	return a->vm == b->vm && a->frame == b->frame && a->offset == b->offset &&
	       a->shared_op == b->shared_op;
}

/*
 * Under the space's lock, not through a pointer kept from a translation:
 * on SMP another thread of the process could otherwise unmap the page
 * between the two (its frame freed and reused, say as a slab: the futex
 * write then corrupts the kernel, as a direct-map pointer is no TLB entry
 * that a shootdown drops), or fork and break its copy-on-write (the write
 * then lands in the frame the child keeps).  Linux does the access as a
 * user access with page faults disabled; the space's lock is taken under
 * the futex bucket locks already, so it costs no new lock order.
 */
int futex_word_access(uint64_t uaddr, struct futex_access *a)
{
	struct vm_space *vm = current()->vm;
	uint32_t *w = vm_user_word_lock(vm, uaddr, futex_access_writes(a));

	if (!w)
		return -EFAULT;
	switch (a->op) {
	case WORD_LOAD: /* a wait's: first */
		a->old = __atomic_load_n(w, __ATOMIC_ACQUIRE);
		break;
	case WORD_CMPXCHG:
		a->old = a->expect;
		__atomic_compare_exchange_n(w, &a->old, a->arg, false, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST);
		break;
	case WORD_SET:
		a->old = __atomic_exchange_n(w, a->arg, __ATOMIC_SEQ_CST);
		break;
	case WORD_ADD:
		a->old = __atomic_fetch_add(w, a->arg, __ATOMIC_SEQ_CST);
		break;
	case WORD_OR:
		a->old = __atomic_fetch_or(w, a->arg, __ATOMIC_SEQ_CST);
		break;
	case WORD_ANDN:
		a->old = __atomic_fetch_and(w, ~a->arg, __ATOMIC_SEQ_CST);
		break;
	case WORD_XOR:
		a->old = __atomic_fetch_xor(w, a->arg, __ATOMIC_SEQ_CST);
		break;
	}
	vm_user_word_unlock(vm);
	return 0;
}

/* Makes the word's page present, and writable for write, as a user access
 * would (stack growth, copy-on-write): 0 or -EFAULT. */
int futex_fault_in(uint64_t uaddr, bool write)
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
int futex_key_get(uint64_t uaddr, bool shared, struct futex_key *key)
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
		if (futex_fault_in(uaddr, false))
			return -EFAULT;
	if (flags & PTE_SHARED) {
		*key = (struct futex_key){
		    .frame = pa & PTE_ADDR, .offset = uaddr & PAGE_MASK, .shared_op = true};
		frame_ref(key->frame);
	}
	return 0;
}

void futex_key_put(struct futex_key *key)
{
	if (key->frame)
		frame_unref(key->frame);
}

/* Locks two buckets, lower address first (one lock if they are the same). */
void futex_lock_pair(struct futex_bucket *a, struct futex_bucket *b)
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

void futex_unlock_pair(struct futex_bucket *a, struct futex_bucket *b)
{
	spin_unlock(&a->lock);
	if (b != a)
		spin_unlock(&b->lock);
}

/* Takes w off its bucket and wakes its task (caller holds the bucket lock,
 * which keeps w's frame alive: see struct futex_waiter). */
void futex_wake_waiter(struct futex_waiter *w)
{
	list_del(&w->link);
	__atomic_store_n(&w->woken, true, __ATOMIC_RELEASE);
	sched_wake(w->task);
}

void futex_queue(struct futex_waiter *w, struct futex_bucket *b)
{
	w->bucket = b;
	list_add_tail(&w->link, &b->waiters);
	__atomic_fetch_add(&nwaiters, 1, __ATOMIC_RELAXED);
}

struct futex_waiter *futex_top_waiter(struct futex_bucket *b, const struct futex_key *key)
{
	struct futex_waiter *w;

	list_for_each_entry(w, &b->waiters, link) if (futex_key_equal(&w->key, key)) return w;
	return NULL;
}

/* A waiter only the PI operations may wake or move (Linux: pi_state or
 * rt_waiter set). */
static bool pi_only(const struct futex_waiter *w)
{
	return w->pi || w->requeue_pi;
}

/*
 * Wakes waiters of key on b whose bitset meets bitset (caller holds b's
 * lock): at most nr, and at least one whatever nr says, as Linux counts.
 * -EINVAL at a PI waiter of the word, as Linux (those before it woken).
 */
static int wake_keyed(struct futex_bucket *b, const struct futex_key *key, int nr, uint32_t bitset)
{
	struct futex_waiter *w, *next;
	int woken = 0;

	list_for_each_entry_safe(w, next, &b->waiters, link)
	{
		if (!futex_key_equal(&w->key, key))
			continue;
		if (pi_only(w))
			return -EINVAL;
		if (!(w->bitset & bitset))
			continue;
		futex_wake_waiter(w);
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

/* Whether a waker took one of w[0..n) off its bucket. */
static inline bool any_woken(const struct futex_waiter *w, int n)
{
	for (int i = 0; i < n; i++)
		if (__atomic_load_n(&w[i].woken, __ATOMIC_ACQUIRE))
			return true;
	return false;
}

static inline long unqueue_all(struct futex_waiter *w, int n)
{
	long woken = -1;

	for (int i = 0; i < n; i++)
		if (unqueue(&w[i]))
			woken = i;
	return woken;
}

long futex_unqueue_all(struct futex_waiter *w, int n)
{
	return unqueue_all(w, n);
}

/* futex_sleep_queued_v's body, inlined in each caller so that the single
 * waits (n = 1: FUTEX_WAIT, the PI waits) have no loops and no calls. */
static inline __attribute__((always_inline)) long sleep_queued(struct futex_waiter *w, int n,
							       uint64_t deadline, long intr)
{
	struct task *t = current();
	long ret, woken;

	for (;;) {
		if (deadline != NO_DEADLINE)
			sched_arm_deadline(deadline);
		else
			sched_set_state(t, TASK_SLEEPING);
		if (any_woken(w, n)) {
			ret = 0;
			break;
		}
		if (deadline != NO_DEADLINE && clock_monotonic_ns() >= deadline) {
			ret = -ETIMEDOUT;
			break;
		}
		if (signal_pending()) {
			ret = intr;
			break;
		}
		schedule();
	}
	if (deadline != NO_DEADLINE)
		sched_disarm_deadline();
	else
		sched_set_state(t, TASK_RUNNABLE);
	woken = unqueue_all(w, n);
	return woken >= 0 ? woken : ret;
}

long futex_sleep_queued_v(struct futex_waiter *w, int n, uint64_t deadline, long intr)
{
	return sleep_queued(w, n, deadline, intr);
}

long futex_sleep_queued(struct futex_waiter *w, uint64_t deadline, long intr)
{
	return sleep_queued(w, 1, deadline, intr);
}

/* FUTEX_WAIT(_BITSET): sleeps if the word at uaddr still holds val. */
static long futex_wait(uint64_t uaddr, bool shared, uint32_t val, uint64_t deadline,
		       uint32_t bitset)
{
	struct futex_waiter w = {.bitset = bitset, .task = current()};
	struct futex_bucket *b;
	struct futex_access a = {.op = WORD_LOAD};
	long ret;

	if (!bitset)
		return -EINVAL;
	if ((ret = futex_key_get(uaddr, shared, &w.key)))
		return ret;
	list_init(&w.link);
	b = futex_bucket_of(&w.key);
	if ((ret = futex_lock_word(b, uaddr, &a)))
		goto out;
	if (a.old != val) {
		spin_unlock(&b->lock);
		ret = -EAGAIN;
		goto out;
	}
	futex_queue(&w, b);
	spin_unlock(&b->lock);
	/* An untimed wait is restarted after an SA_RESTART handler; a timed
	 * one fails with EINTR, as Linux's restart block makes it after any
	 * handler. */
	ret = sleep_queued(&w, 1, deadline, deadline == NO_DEADLINE ? -ERESTARTSYS : -EINTR);
out:
	futex_key_put(&w.key); /* requeue may have changed it: it is ours again now */
	return ret;
}

long futex_wake(uint64_t uaddr, bool shared, int nr, uint32_t bitset)
{
	struct futex_key key;
	struct futex_bucket *b;
	long ret;

	if (!bitset)
		return -EINVAL;
	if ((ret = futex_key_get(uaddr, shared, &key)))
		return ret;
	b = futex_bucket_of(&key);
	spin_lock(&b->lock);
	ret = wake_keyed(b, &key, nr, bitset);
	spin_unlock(&b->lock);
	futex_key_put(&key);
	return ret;
}

/* Moves w from b1 to key2 on b2 (caller holds both locks); the reference
 * on key2's frame passes to w, the one on its old frame is dropped (the
 * requeuer's own key keeps that frame alive until it returns). */
void futex_requeue_waiter(struct futex_waiter *w, struct futex_bucket *b2,
			  const struct futex_key *key2)
{
	if (key2->frame)
		frame_ref(key2->frame);
	futex_key_put(&w->key);
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
	long ret = futex_key_get(uaddr1, shared, &p->key1);

	if (ret)
		return ret;
	if ((ret = futex_key_get(uaddr2, shared, &p->key2))) {
		futex_key_put(&p->key1);
		return ret;
	}
	p->b1 = futex_bucket_of(&p->key1);
	p->b2 = futex_bucket_of(&p->key2);
	return 0;
}

static void pair_put(struct futex_pair *p)
{
	futex_key_put(&p->key2);
	futex_key_put(&p->key1);
}

/*
 * Locks both buckets and does a (if any) to the word at uaddr, faulting
 * it in with the locks dropped as often as needed.  0 with the buckets
 * locked, or -errno unlocked.
 */
static long pair_lock_word(struct futex_pair *p, uint64_t uaddr, struct futex_access *a)
{
	for (;;) {
		long ret;

		futex_lock_pair(p->b1, p->b2);
		if (!a || !futex_word_access(uaddr, a))
			return 0;
		futex_unlock_pair(p->b1, p->b2);
		if ((ret = futex_fault_in(uaddr, futex_access_writes(a))))
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
	struct futex_access a = {.op = WORD_LOAD};
	long ret, count = 0;

	if (nr_wake < 0 || nr_requeue < 0)
		return -EINVAL;
	if ((ret = pair_get(&p, uaddr1, uaddr2, shared)))
		return ret;
	if ((ret = pair_lock_word(&p, uaddr1, cmpval ? &a : NULL)))
		goto out;
	if (cmpval && a.old != *cmpval) {
		ret = -EAGAIN;
		goto unlock;
	}
	list_for_each_entry_safe(w, next, &p.b1->waiters, link)
	{
		if (count - nr_wake >= nr_requeue)
			break;
		if (!futex_key_equal(&w->key, &p.key1))
			continue;
		if (pi_only(w)) { /* CMP_REQUEUE_PI's alone (as Linux) */
			count = -EINVAL;
			break;
		}
		if (++count <= nr_wake)
			futex_wake_waiter(w);
		else
			futex_requeue_waiter(w, p.b2, &p.key2);
	}
	ret = count;
unlock:
	futex_unlock_pair(p.b1, p.b2);
out:
	pair_put(&p);
	return ret;
}

/*
 * FUTEX_WAKE_OP's operation as an access to the word: false for one
 * Linux does not know (nothing is done to the word, the call fails).
 */
static bool wake_op_access(uint32_t encoded, struct futex_access *a)
{
	unsigned op = (encoded >> 28) & 7;
	int32_t oparg = (int32_t)(encoded << 8) >> 20;

	if (op > FUTEX_OP_XOR)
		return false;
	if (encoded & (FUTEX_OP_OPARG_SHIFT << 28))
		oparg = (int32_t)(1U << (oparg & 31)); /* Linux masks a bad shift too */
	*a = (struct futex_access){.op = WORD_SET + op, .arg = (uint32_t)oparg};
	return true;
}

/* FUTEX_WAKE_OP's comparison of the word's old value with the encoded
 * argument: 0 or 1, or -ENOSYS for an unknown one (after the change), as
 * Linux. */
static int wake_op_compare(uint32_t encoded, int32_t old)
{
	int32_t cmparg = (int32_t)(encoded << 20) >> 20;

	switch ((encoded >> 24) & 15) {
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

/*
 * FUTEX_WAKE_OP: applies the encoded operation to *uaddr2 atomically,
 * wakes nr_wake waiters of uaddr1 and, if the comparison held, nr_wake2 of
 * uaddr2 (condition variables: unlock the mutex and signal in one call).
 */
static long futex_wake_op(uint64_t uaddr1, bool shared, uint64_t uaddr2, int nr_wake, int nr_wake2,
			  uint32_t encoded)
{
	struct futex_pair p;
	struct futex_access a;
	bool known = wake_op_access(encoded, &a);
	long ret;
	int cond;

	if ((ret = pair_get(&p, uaddr1, uaddr2, shared)))
		return ret;
	if ((ret = pair_lock_word(&p, uaddr2, known ? &a : NULL)))
		goto out;
	cond = known ? wake_op_compare(encoded, (int32_t)a.old) : -ENOSYS;
	if (cond < 0) {
		ret = cond;
	} else {
		ret = wake_keyed(p.b1, &p.key1, nr_wake, FUTEX_BITSET_MATCH_ANY);
		if (ret >= 0 && cond) {
			int more = wake_keyed(p.b2, &p.key2, nr_wake2, FUTEX_BITSET_MATCH_ANY);

			ret = more < 0 ? more : ret + more;
		}
	}
	futex_unlock_pair(p.b1, p.b2);
out:
	pair_put(&p);
	return ret;
}

int futex_cmpxchg_user(uint64_t uaddr, uint32_t old, uint32_t new, uint32_t *cur)
{
	struct futex_access a = {.op = WORD_CMPXCHG, .arg = new, .expect = old};

	if (uaddr % sizeof(uint32_t) || !user_range_ok(uaddr, sizeof(uint32_t)))
		return -EFAULT;
	while (futex_word_access(uaddr, &a))
		if (futex_fault_in(uaddr, true))
			return -EFAULT;
	*cur = a.old; /* the value found: new was stored if it equals old */
	return 0;
}

/*
 * The monotonic deadline of a wait's timeout at utimeout: FUTEX_WAIT's is
 * relative, the others' absolute on CLOCK_MONOTONIC or, when realtime,
 * CLOCK_REALTIME.  0 or -EFAULT / -EINVAL.
 */
static int wait_deadline(uint64_t utimeout, int cmd, bool realtime, uint64_t *deadline)
{
	struct timespec_k ts;
	int64_t ns, offset = realtime ? clock_realtime_offset_ns() : timens_offset(CLOCK_MONOTONIC);

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

/* The operations with a timeout (Linux's futex_cmd_has_timeout). */
static bool has_timeout(int cmd)
{
	return cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET || cmd == FUTEX_LOCK_PI ||
	       cmd == FUTEX_LOCK_PI2 || cmd == FUTEX_WAIT_REQUEUE_PI;
}

/* Those whose clock FUTEX_CLOCK_REALTIME may choose (others: ENOSYS);
 * FUTEX_LOCK_PI's timeout is on CLOCK_REALTIME always. */
static bool clock_choosable(int cmd)
{
	return cmd == FUTEX_WAIT_BITSET || cmd == FUTEX_WAIT_REQUEUE_PI || cmd == FUTEX_LOCK_PI2;
}

/* The priority-inheritance operations (futex_pi.c). */
static long futex_pi_op(int cmd, uint64_t uaddr, bool shared, uint32_t val, uint64_t deadline,
			uint64_t uaddr2, int val2, uint32_t val3)
{
	switch (cmd) {
	case FUTEX_LOCK_PI:
	case FUTEX_LOCK_PI2:
		return futex_lock_pi(uaddr, shared, deadline, false);
	case FUTEX_TRYLOCK_PI:
		return futex_lock_pi(uaddr, shared, NO_DEADLINE, true);
	case FUTEX_UNLOCK_PI:
		return futex_unlock_pi(uaddr, shared);
	case FUTEX_WAIT_REQUEUE_PI:
		return futex_wait_requeue_pi(uaddr, shared, val, deadline, uaddr2);
	case FUTEX_CMP_REQUEUE_PI:
		return futex_cmp_requeue_pi(uaddr, shared, uaddr2, (int)val, val2, val3);
	default:
		return -ENOSYS;
	}
}

/*
 * futex(uaddr, op, val, timeout or val2, uaddr2, val3).  The fourth
 * argument is a timeout pointer for the waits and a count (val2) for
 * requeue and wake-op.
 */
SYSCALL_DEFINE6(futex, uint64_t, uaddr, int, op, uint32_t, val, uint64_t, utimeout, uint64_t,
		uaddr2, uint32_t, val3)
{
	int cmd = op & FUTEX_CMD_MASK;
	bool shared = !(op & FUTEX_PRIVATE_FLAG), realtime = op & FUTEX_CLOCK_REALTIME;
	uint64_t deadline = NO_DEADLINE;
	int val2 = (int)(uint32_t)utimeout, err;

	/* Linux's order: the timeout first, then the clock flag. */
	if (utimeout && has_timeout(cmd) &&
	    (err = wait_deadline(utimeout, cmd, realtime || cmd == FUTEX_LOCK_PI, &deadline)))
		return err;
	if (realtime && !clock_choosable(cmd))
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
		return futex_pi_op(cmd, uaddr, shared, val, deadline, uaddr2, val2, val3);
	}
}
