/*
 * Priority-inheritance futexes (Linux's futex/pi.c and the requeue-PI
 * half of futex/requeue.c): FUTEX_LOCK_PI(2), FUTEX_TRYLOCK_PI,
 * FUTEX_UNLOCK_PI, FUTEX_WAIT_REQUEUE_PI and FUTEX_CMP_REQUEUE_PI, the
 * lock operations under glibc's and musl's PTHREAD_PRIO_INHERIT mutexes.
 *
 * The word holds the owner's tid, FUTEX_WAITERS once someone waits in
 * the kernel (so the unlock comes here) and FUTEX_OWNER_DIED after an
 * owner exited holding it with the lock on its robust list.  While
 * anyone waits, a struct futex_pi_state says who the kernel thinks owns
 * it; the word must agree, or the operation is EINVAL, as Linux checks.
 * An unlock hands the lock to the first waiter: its tid is in the word
 * before it wakes.  The priority part is left out: the scheduler is
 * round-robin with no priorities to lend (docs/processes.md), so a waiter
 * waits in line; the ownership protocol is Linux's.
 */
#include "proc/futex.h"
#include "proc/futex_internal.h"
#include "arch/x86_64/uaccess.h"
#include "mm/frame.h"
#include "mm/heap.h"
#include "mm/layout.h"
#include "proc/proc.h"
#include "sched/sched.h"
#include "proc/pid_ns.h"
#include <uapi/errno.h>
#include <uapi/futex.h>

/*
 * A PI lock someone waits for.  Lifetime: refs counts the waiters holding
 * it (atomic: taken under the key's bucket lock, or by an exiting owner
 * under futex_pi_lock while it is still counted); the last put frees it.
 * So every queued waiter of a key shares one state, found through the
 * key's first waiter (Linux's top waiter).
 */
struct futex_pi_state {
	struct futex_key key; /* the word's; the key's frame reference is the state's */
	/* The task the kernel holds for the owner, or NULL once its owner
	 * exited with no waiter left to take it.  Changed under the key's
	 * bucket lock and futex_pi_lock together; read under either.  Valid
	 * while set: a task hands on or drops every state it owns
	 * (futex_pi_exit) before it can be freed. */
	struct task *owner;
	struct list_head owner_link; /* on owner->futex_pi_states (futex_pi_lock) */
	int refs;
};

/*
 * Protects every task's futex_pi_states list and futex_state, and the
 * states' owner_link.  Order: after a bucket lock and proc_lock.
 */
static struct spinlock futex_pi_lock = SPINLOCK_INIT("futex_pi");
static unsigned long live_states; /* atomic: the leak check's */

unsigned long futex_pi_state_count(void)
{
	return __atomic_load_n(&live_states, __ATOMIC_RELAXED);
}

#define PI_ACQUIRED 1 /* lock_pi_atomic took the lock */

/* Makes newowner (or NULL) s's owner (both locks taken here but the
 * bucket's, which the caller holds). */
static void set_owner(struct futex_pi_state *s, struct task *newowner)
{
	spin_lock(&futex_pi_lock);
	if (s->owner)
		list_del(&s->owner_link);
	s->owner = newowner;
	if (newowner)
		list_add_tail(&s->owner_link, &newowner->futex_pi_states);
	spin_unlock(&futex_pi_lock);
}

/* A new state for key owned by owner (whose futex_state the caller saw
 * OK under futex_pi_lock, held), made of *spare: one reference, the
 * caller's. */
static struct futex_pi_state *new_state_locked(struct futex_pi_state **spare,
					       const struct futex_key *key, struct task *owner)
{
	struct futex_pi_state *s = *spare;

	*spare = NULL;
	s->key = *key;
	if (s->key.frame)
		frame_ref(s->key.frame);
	s->refs = 1;
	s->owner = owner;
	list_add_tail(&s->owner_link, &owner->futex_pi_states);
	__atomic_add_fetch(&live_states, 1, __ATOMIC_RELAXED);
	return s;
}

static void state_put(struct futex_pi_state *s)
{
	if (!s || __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL))
		return;
	set_owner(s, NULL);
	futex_key_put(&s->key);
	kfree(s);
	__atomic_sub_fetch(&live_states, 1, __ATOMIC_RELAXED);
}

/* Compares the word at uaddr with old and stores new if equal: 0, -EAGAIN
 * if it held another value, -EFAULT if its page is gone (or read-only)
 * since the caller looked. */
static int word_cas(uint64_t uaddr, uint32_t old, uint32_t new)
{
	struct futex_access a = {.op = WORD_CMPXCHG, .arg = new, .expect = old};
	int err = futex_word_access(uaddr, &a);

	return err ? err : a.old == old ? 0 : -EAGAIN;
}

/* The word's owner is gone or going (Linux's handle_exit_race): -EBUSY
 * to wait for an exit still under way, -EAGAIN if the word changed,
 * else -ESRCH (no such owner, and nothing will change that). */
static int exit_race(uint64_t uaddr, uint32_t uval, const struct task *p)
{
	struct futex_access a = {.op = WORD_LOAD};

	if (p && p->futex_state != FUTEX_STATE_DEAD)
		return -EBUSY;
	/* a page gone counts as a change: the retry faults it in */
	return futex_word_access(uaddr, &a) || a.old != uval ? -EAGAIN : -ESRCH;
}

/* The first waiter: attach to the owner named by uval (FUTEX_WAITERS set
 * already) with a new state in *ps.  0 or -errno (see exit_race). */
static int attach_to_owner(uint64_t uaddr, uint32_t uval, const struct futex_key *key,
			   struct futex_pi_state **spare, struct futex_pi_state **ps)
{
	struct task *p;
	int ret = 0;

	spin_lock(&proc_lock); /* p stays listed, so allocated, until unlocked */
	/* The word holds tids as the threads number themselves (gettid). */
	p = task_find_locked_vnr((int)(uval & FUTEX_TID_MASK));
	if (!p) {
		ret = exit_race(uaddr, uval, NULL);
	} else {
		spin_lock(&futex_pi_lock);
		if (p->futex_state != FUTEX_STATE_OK)
			ret = exit_race(uaddr, uval, p);
		else
			*ps = new_state_locked(spare, key, p);
		spin_unlock(&futex_pi_lock);
	}
	spin_unlock(&proc_lock);
	return ret;
}

/* Attach to the lock's state, that of top, the first waiter: Linux's
 * checks that the word agrees with it.  0 or -EINVAL. */
static int attach_to_state(uint32_t uval, struct futex_waiter *top, struct futex_pi_state **ps)
{
	struct futex_pi_state *s = top->pi;
	uint32_t pid = uval & FUTEX_TID_MASK;

	if (!s)
		return -EINVAL; /* a plain waiter on a PI word */
	if (uval & FUTEX_OWNER_DIED) {
		if (!s->owner && pid)
			return -EINVAL;
		if (!s->owner || !pid)
			goto attach; /* the owner died; whoever takes it fixes the word */
	} else if (!s->owner) {
		return -EINVAL;
	}
	if (pid != (uint32_t)task_nr(s->owner))
		return -EINVAL;
attach:
	__atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
	*ps = s;
	return 0;
}

/*
 * Linux's futex_lock_pi_atomic, b locked: takes the lock at uaddr, whose
 * word held uval when looked at under b's lock, for t
 * (PI_ACQUIRED; set_waiters: with FUTEX_WAITERS and a state in *ps, for a
 * requeue) or attaches *ps to its owner's state (0).  -EDEADLK if t owns
 * it, -EAGAIN if the word changed, -EBUSY while its owner exits, -ESRCH
 * if its owner does not exist, -EINVAL if word and state disagree.
 */
static int lock_pi_atomic(struct futex_bucket *b, const struct futex_key *key, uint64_t uaddr,
			  uint32_t uval, struct task *t, bool set_waiters,
			  struct futex_pi_state **spare, struct futex_pi_state **ps)
{
	uint32_t newval;
	struct futex_waiter *top;

	if ((uval & FUTEX_TID_MASK) == (uint32_t)task_nr(t))
		return -EDEADLK;
	if ((top = futex_top_waiter(b, key)))
		return attach_to_state(uval, top, ps);
	if (!(uval & FUTEX_TID_MASK)) { /* free: ours, keeping OWNER_DIED */
		newval = (uval & FUTEX_OWNER_DIED) | (uint32_t)task_nr(t);
		if (set_waiters)
			newval |= FUTEX_WAITERS;
		if (word_cas(uaddr, uval, newval)) /* changed, or gone: the retry faults it in */
			return -EAGAIN;
		if (set_waiters) {
			spin_lock(&futex_pi_lock);
			*ps = new_state_locked(spare, key, t);
			spin_unlock(&futex_pi_lock);
		}
		return PI_ACQUIRED;
	}
	newval = uval | FUTEX_WAITERS; /* its unlock must come to the kernel */
	if (word_cas(uaddr, uval, newval))
		return -EAGAIN;
	return attach_to_owner(uaddr, newval, key, spare, ps);
}

/* Gives the lock of s to w, its waiter, whose tid the word holds now;
 * b locked. */
static void give(struct futex_pi_state *s, struct futex_waiter *w)
{
	set_owner(s, w->task);
	futex_wake_waiter(w);
}

long futex_lock_pi(uint64_t uaddr, bool shared, uint64_t deadline, bool trylock)
{
	struct futex_waiter w = {.bitset = FUTEX_BITSET_MATCH_ANY, .task = current()};
	struct futex_pi_state *spare = kzalloc(sizeof(*spare));
	struct futex_access a = {.op = WORD_LOAD, .write = true};
	struct futex_bucket *b;
	long ret;

	if (!spare)
		return -ENOMEM;
	list_init(&w.link);
retry:
	if ((ret = futex_key_get(uaddr, shared, &w.key)))
		goto out;
	b = futex_bucket_of(&w.key);
	if ((ret = futex_lock_word(b, uaddr, &a)))
		goto out_key;
	ret = lock_pi_atomic(b, &w.key, uaddr, a.old, current(), false, &spare, &w.pi);
	if (ret == -EAGAIN || ret == -EBUSY) { /* a changed word, an owner exiting */
		spin_unlock(&b->lock);
		futex_key_put(&w.key);
		sched_yield();
		goto retry;
	}
	if (ret || trylock) {
		state_put(w.pi);
		spin_unlock(&b->lock);
		ret = ret == PI_ACQUIRED ? 0 : ret ? ret : -EWOULDBLOCK;
		goto out_key;
	}
	futex_queue(&w, b);
	spin_unlock(&b->lock);
	/* Woken only by being given the lock; a signal restarts the call
	 * whatever the handler, as Linux. */
	ret = futex_sleep_queued(&w, deadline, -ERESTARTNOINTR);
	state_put(w.pi);
out_key:
	futex_key_put(&w.key);
out:
	kfree(spare);
	return ret;
}

/* The unlock with waiters, b locked: hands the lock to the first.
 * 0, -EINVAL (word and state disagree), -EAGAIN (the word changed),
 * -EFAULT (its page is gone). */
static long unlock_to_waiter(struct futex_waiter *top, uint64_t uaddr, uint32_t uval)
{
	struct futex_pi_state *s = top->pi;
	long ret;

	if (!s || s->owner != current())
		return -EINVAL;
	if ((ret = word_cas(uaddr, uval, FUTEX_WAITERS | (uint32_t)task_nr(top->task))))
		return ret;
	give(s, top);
	return 0;
}

long futex_unlock_pi(uint64_t uaddr, bool shared)
{
	struct futex_key key;
	struct futex_bucket *b;
	struct futex_waiter *top;
	struct futex_access a = {.op = WORD_LOAD, .write = true}; /* the page made writable */
	uint32_t uval;
	long ret;

retry:
	if (copy_from_user(&uval, (const void *)uaddr, sizeof(uval)))
		return -EFAULT;
	if ((uval & FUTEX_TID_MASK) != (uint32_t)task_nr(current()))
		return -EPERM; /* only the owner unlocks */
	if ((ret = futex_key_get(uaddr, shared, &key)))
		return ret;
	b = futex_bucket_of(&key);
	if ((ret = futex_lock_word(b, uaddr, &a)))
		goto out;
	if ((top = futex_top_waiter(b, &key)))
		ret = unlock_to_waiter(top, uaddr, uval);
	else /* nobody in the kernel: clear it all, as Linux; a changed word is user space's */
		ret = word_cas(uaddr, uval, 0);
	spin_unlock(&b->lock);
	if (ret == -EFAULT || (ret == -EAGAIN && top)) { /* the retry faults the page in */
		futex_key_put(&key);
		goto retry;
	}
out:
	futex_key_put(&key);
	return ret;
}

long futex_wait_requeue_pi(uint64_t uaddr, bool shared, uint32_t val, uint64_t deadline,
			   uint64_t uaddr2)
{
	struct futex_waiter w = {
	    .bitset = FUTEX_BITSET_MATCH_ANY, .task = current(), .requeue_pi = true};
	struct futex_bucket *b;
	struct futex_access a = {.op = WORD_LOAD};
	long ret;

	if (uaddr == uaddr2)
		return -EINVAL;
	if ((ret = futex_key_get(uaddr2, shared, &w.pi_key)))
		return ret;
	if ((ret = futex_key_get(uaddr, shared, &w.key)))
		goto out_key2;
	list_init(&w.link);
	b = futex_bucket_of(&w.key);
	if ((ret = futex_lock_word(b, uaddr, &a)))
		goto out;
	if (a.old != val)
		ret = -EAGAIN;
	else if (futex_key_equal(&w.key, &w.pi_key))
		ret = -EINVAL; /* two addresses of one shared word */
	else
		futex_queue(&w, b);
	spin_unlock(&b->lock);
	if (ret)
		goto out;
	/* 0: the lock at uaddr2 is ours (taken for us by the requeue, or
	 * given after it).  A signal restarts the wait before the requeue;
	 * after it, the word at uaddr has changed, so Linux saves the
	 * restart and says EWOULDBLOCK. */
	ret = futex_sleep_queued(&w, deadline, -ERESTARTNOINTR);
	if (ret == -ERESTARTNOINTR && w.pi)
		ret = -EWOULDBLOCK;
	state_put(w.pi);
out:
	futex_key_put(&w.key);
out_key2:
	futex_key_put(&w.pi_key);
	return ret;
}

/* Whether w may be moved to key2 by CMP_REQUEUE_PI: a WAIT_REQUEUE_PI
 * waiter not yet requeued, waiting for that very word. */
static bool requeue_pi_ok(const struct futex_waiter *w, const struct futex_key *key2)
{
	return w->requeue_pi && !w->pi && futex_key_equal(&w->pi_key, key2);
}

/*
 * CMP_REQUEUE_PI's work, both buckets locked: takes the PI lock for the
 * first waiter of key1 if it is free (waking it), then moves up to
 * nr_requeue more onto key2 as that lock's waiters.  The count, or
 * -errno (lock_pi_atomic's, -EINVAL for a waiter of the wrong kind),
 * -EBUSY to start again.
 */
static long requeue_pi_locked(struct futex_bucket *b1, const struct futex_key *key1,
			      struct futex_bucket *b2, const struct futex_key *key2,
			      uint64_t uaddr2, uint32_t uval2, int nr_requeue,
			      struct futex_pi_state **spare)
{
	struct futex_waiter *w = futex_top_waiter(b1, key1), *next;
	struct futex_pi_state *s = NULL;
	long ret, count = 0;

	if (!w)
		return 0;
	if (!requeue_pi_ok(w, key2))
		return -EINVAL;
	/* FUTEX_WAITERS only if more may follow it (Linux's): else its
	 * unlock need not come to the kernel. */
	ret = lock_pi_atomic(b2, key2, uaddr2, uval2, w->task, nr_requeue > 0, spare, &s);
	if (ret < 0)
		return ret == -EAGAIN ? -EBUSY : ret; /* the PI word changed: try again */
	if (ret == PI_ACQUIRED) {
		futex_wake_waiter(w);
		count = 1;
	}
	ret = 0;
	list_for_each_entry_safe(w, next, &b1->waiters, link)
	{
		if (count - 1 >= nr_requeue) /* nr_wake is 1 */
			break;
		if (!futex_key_equal(&w->key, key1))
			continue;
		if (!requeue_pi_ok(w, key2)) {
			ret = -EINVAL;
			break;
		}
		__atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
		w->pi = s;
		futex_requeue_waiter(w, b2, key2);
		count++;
	}
	state_put(s);
	return ret ? ret : count;
}

long futex_cmp_requeue_pi(uint64_t uaddr1, bool shared, uint64_t uaddr2, int nr_wake,
			  int nr_requeue, uint32_t cmpval)
{
	struct futex_pi_state *spare = NULL;
	struct futex_key key1, key2;
	struct futex_bucket *b1, *b2;
	struct futex_access a1 = {.op = WORD_LOAD}, a2 = {.op = WORD_LOAD, .write = true};
	long ret;

	if (nr_wake < 0 || nr_requeue < 0 || uaddr1 == uaddr2 || nr_wake != 1)
		return -EINVAL;
	if (!(spare = kzalloc(sizeof(*spare))))
		return -ENOMEM;
retry:
	if ((ret = futex_key_get(uaddr1, shared, &key1)))
		goto out;
	if ((ret = futex_key_get(uaddr2, shared, &key2)))
		goto out_key1;
	b1 = futex_bucket_of(&key1);
	b2 = futex_bucket_of(&key2);
	for (;;) {
		futex_lock_pair(b1, b2);
		if (!futex_word_access(uaddr2, &a2) && !futex_word_access(uaddr1, &a1))
			break;
		futex_unlock_pair(b1, b2);
		if ((ret = futex_fault_in(uaddr2, true)) || (ret = futex_fault_in(uaddr1, false)))
			goto out_keys;
	}
	if (futex_key_equal(&key1, &key2))
		ret = -EINVAL;
	else if (a1.old != cmpval)
		ret = -EAGAIN;
	else
		ret = requeue_pi_locked(b1, &key1, b2, &key2, uaddr2, a2.old, nr_requeue, &spare);
	futex_unlock_pair(b1, b2);
	if (ret == -EBUSY) { /* the PI word changed, or its owner is exiting */
		futex_key_put(&key2);
		futex_key_put(&key1);
		sched_yield();
		goto retry;
	}
out_keys:
	futex_key_put(&key2);
out_key1:
	futex_key_put(&key1);
out:
	kfree(spare);
	return ret;
}

/*
 * Stores v in the word of key for an exiting owner, b locked: through the
 * direct map for a shared key (whose frame reference keeps the frame, and
 * a shared page is never copied on write); for a private one, in the
 * exiting task's own space, which is the key's (a waiter of a private
 * word shares it), if the page is there.  0, or -EFAULT.
 */
static int exit_word_set(const struct futex_key *key, uint32_t v)
{
	struct futex_access a = {.op = WORD_SET, .arg = v};

	if (key->frame) {
		__atomic_store_n((uint32_t *)P2V(key->frame + key->offset), v, __ATOMIC_SEQ_CST);
		return 0;
	}
	if (key->vm != current()->vm)
		return -EFAULT; /* the word named a task of another space: unreachable */
	return futex_word_access(key->offset, &a);
}

/*
 * The exiting owner t (current) gives s to its first waiter, the word set
 * to its tid | FUTEX_WAITERS | FUTEX_OWNER_DIED (robust list or not: the
 * owner is gone), or drops it when nobody waits (Linux's
 * exit_pi_state_list, the waiter's fixup_pi_state_owner done here).  A word the task cannot reach
 * keeps its value; the lock is handed on all the same.
 */
static void exit_hand_over(struct task *t, struct futex_pi_state *s)
{
	struct futex_bucket *b = futex_bucket_of(&s->key);
	struct futex_waiter *top;
	bool can_fault = !s->key.frame && s->key.vm == t->vm;
	uint32_t died;

	for (;;) {
		spin_lock(&b->lock);
		top = futex_top_waiter(b, &s->key);
		if (s->owner != t || !top || top->pi != s)
			break;
		died = FUTEX_OWNER_DIED | FUTEX_WAITERS | (uint32_t)task_nr(top->task);
		if (exit_word_set(&s->key, died) && can_fault) {
			spin_unlock(&b->lock);
			can_fault = !futex_fault_in(s->key.offset, true);
			continue;
		}
		give(s, top);
		spin_unlock(&b->lock);
		return;
	}
	if (s->owner == t)
		set_owner(s, NULL);
	spin_unlock(&b->lock);
}

/* A reference on s unless its last one is gone (its putter unlinks it). */
static bool state_tryget(struct futex_pi_state *s)
{
	int old = __atomic_load_n(&s->refs, __ATOMIC_RELAXED);

	do {
		if (!old)
			return false;
	} while (!__atomic_compare_exchange_n(&s->refs, &old, old + 1, true, __ATOMIC_ACQUIRE,
					      __ATOMIC_RELAXED));
	return true;
}

void futex_pi_exit(struct task *t, int end_state)
{
	struct futex_pi_state *s;

	spin_lock(&futex_pi_lock);
	t->futex_state = FUTEX_STATE_EXITING; /* no new state attaches to t */
	for (;;) {
		if (list_empty(&t->futex_pi_states))
			break;
		s = list_entry(t->futex_pi_states.next, struct futex_pi_state, owner_link);
		if (!state_tryget(s)) { /* its last waiter is unlinking it */
			spin_unlock(&futex_pi_lock);
			sched_yield();
			spin_lock(&futex_pi_lock);
			continue;
		}
		spin_unlock(&futex_pi_lock);
		exit_hand_over(t, s);
		state_put(s);
		spin_lock(&futex_pi_lock);
	}
	t->futex_state = end_state;
	spin_unlock(&futex_pi_lock);
}
