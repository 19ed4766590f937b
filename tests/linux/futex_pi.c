/*
 * Priority-inheritance futexes through the raw system call, the protocol
 * of Linux's futex(2): FUTEX_LOCK_PI takes a free word (its tid) or waits,
 * setting FUTEX_WAITERS; EDEADLK on a lock it owns, ESRCH for an owner
 * tid that does not exist, ETIMEDOUT at an absolute timeout (LOCK_PI on
 * CLOCK_REALTIME, LOCK_PI2 on CLOCK_MONOTONIC unless FUTEX_CLOCK_REALTIME);
 * TRYLOCK_PI's EAGAIN; UNLOCK_PI's EPERM for a non-owner and its handover
 * (the first waiter's tid | FUTEX_WAITERS in the word); an owner that
 * exits hands its locks on (with FUTEX_OWNER_DIED when it had them on its
 * robust list); plain and PI waiters do not mix (EINVAL); WAIT_REQUEUE_PI
 * and CMP_REQUEUE_PI move a waiter from a condition word onto a PI lock,
 * taking it for the waiter when it is free; the lock across processes on
 * shared memory; and 4 threads x 2000 exact increments under it.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "../../kernel/uapi/futex.h" /* Linux's values; musl has no <linux/futex.h> */
#include "threads.h"
#define PRIV FUTEX_PRIVATE_FLAG

static long futex(uint32_t *uaddr, int op, uint32_t val, const void *timeout, uint32_t *uaddr2,
		  uint32_t val3)
{
	return syscall(SYS_futex, uaddr, op, val, timeout, uaddr2, val3);
}

static uint32_t tid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

static uint32_t load(uint32_t *w)
{
	return __atomic_load_n(w, __ATOMIC_ACQUIRE);
}

/* Waits (yielding) until *w has the bits of mask. */
static void await_bits(uint32_t *w, uint32_t mask)
{
	while ((load(w) & mask) != mask)
		sched_yield();
}

static uint32_t lock;
static volatile uint32_t waiter_tid;

static void test_basics(void)
{
	uint32_t me = tid();

	is_int(futex(&lock, FUTEX_LOCK_PI | PRIV, 0, NULL, NULL, 0), 0, "LOCK_PI of a free word");
	is_int(load(&lock), me, "the word holds the owner's tid");
	is_errno(futex(&lock, FUTEX_LOCK_PI | PRIV, 0, NULL, NULL, 0), EDEADLK,
		 "LOCK_PI of a lock it owns: EDEADLK");
	is_errno(futex(&lock, FUTEX_TRYLOCK_PI | PRIV, 0, NULL, NULL, 0), EDEADLK,
		 "TRYLOCK_PI of it: EDEADLK");
	is_int(futex(&lock, FUTEX_UNLOCK_PI | PRIV, 0, NULL, NULL, 0), 0, "UNLOCK_PI");
	is_int(load(&lock), 0, "leaves the word 0");
	is_errno(futex(&lock, FUTEX_UNLOCK_PI | PRIV, 0, NULL, NULL, 0), EPERM,
		 "UNLOCK_PI of a free word: EPERM");
	is_int(futex(&lock, FUTEX_TRYLOCK_PI | PRIV, 0, NULL, NULL, 0), 0,
	       "TRYLOCK_PI of a free word");
	is_int(load(&lock), me, "takes it");
	is_errno(futex(&lock, FUTEX_LOCK_PI | PRIV | FUTEX_CLOCK_REALTIME, 0, NULL, NULL, 0),
		 ENOSYS, "LOCK_PI with FUTEX_CLOCK_REALTIME: ENOSYS");
	futex(&lock, FUTEX_UNLOCK_PI | PRIV, 0, NULL, NULL, 0);
}

/* While main holds lock: what a second thread's attempts return. */
static void *contender(void *arg)
{
	long *res = arg;
	struct timespec rt = clock_after_ms(CLOCK_REALTIME, 20),
			mono = clock_after_ms(CLOCK_MONOTONIC, 20);

	res[0] = futex(&lock, FUTEX_TRYLOCK_PI | PRIV, 0, NULL, NULL, 0) ? errno : 0;
	res[1] = load(&lock);
	res[2] = futex(&lock, FUTEX_LOCK_PI | PRIV, 0, &rt, NULL, 0) ? errno : 0;
	res[3] = futex(&lock, FUTEX_LOCK_PI2 | PRIV, 0, &mono, NULL, 0) ? errno : 0;
	rt = clock_after_ms(CLOCK_REALTIME, 20);
	res[4] =
	    futex(&lock, FUTEX_LOCK_PI2 | PRIV | FUTEX_CLOCK_REALTIME, 0, &rt, NULL, 0) ? errno : 0;
	res[5] = futex(&lock, FUTEX_UNLOCK_PI | PRIV, 0, NULL, NULL, 0) ? errno : 0;
	return NULL;
}

static void test_busy(void)
{
	long res[6];
	uint32_t me = tid();

	require(futex(&lock, FUTEX_LOCK_PI | PRIV, 0, NULL, NULL, 0) == 0, "lock");
	pthread_join(start_thread(contender, res), NULL);
	is_int(res[0], EAGAIN, "TRYLOCK_PI of a lock another holds: EAGAIN");
	is_int(res[1], me | FUTEX_WAITERS, "and the word has FUTEX_WAITERS");
	is_int(res[2], ETIMEDOUT, "LOCK_PI with an absolute CLOCK_REALTIME timeout: ETIMEDOUT");
	is_int(res[3], ETIMEDOUT, "LOCK_PI2 with an absolute CLOCK_MONOTONIC timeout: ETIMEDOUT");
	is_int(res[4], ETIMEDOUT, "LOCK_PI2 | FUTEX_CLOCK_REALTIME: ETIMEDOUT");
	is_int(res[5], EPERM, "UNLOCK_PI by a thread that does not own it: EPERM");
	is_int(futex(&lock, FUTEX_UNLOCK_PI | PRIV, 0, NULL, NULL, 0), 0,
	       "the owner's UNLOCK_PI with no waiter left");
	is_int(load(&lock), 0, "clears the word, FUTEX_WAITERS too");
}

/* Takes lock (blocking), reports what it saw, gives it back. */
static void *blocking_locker(void *arg)
{
	long *res = arg;

	waiter_tid = tid();
	res[0] = futex(&lock, FUTEX_LOCK_PI | PRIV, 0, NULL, NULL, 0) ? errno : 0;
	res[1] = load(&lock) == (tid() | FUTEX_WAITERS);
	res[2] = futex(&lock, FUTEX_UNLOCK_PI | PRIV, 0, NULL, NULL, 0) ? errno : 0;
	return NULL;
}

static void test_handover(void)
{
	long res[3];
	pthread_t t;

	require(futex(&lock, FUTEX_LOCK_PI | PRIV, 0, NULL, NULL, 0) == 0, "lock");
	t = start_thread(blocking_locker, res);
	await_bits(&lock, FUTEX_WAITERS);
	is_errno(futex(&lock, FUTEX_WAKE | PRIV, 1, NULL, NULL, 0), EINVAL,
		 "FUTEX_WAKE of a PI lock's waiter: EINVAL");
	is_int(futex(&lock, FUTEX_UNLOCK_PI | PRIV, 0, NULL, NULL, 0), 0,
	       "UNLOCK_PI with a waiter");
	pthread_join(t, NULL);
	is_int(res[0], 0, "the waiter's LOCK_PI returns 0");
	ok(res[1], "with its tid | FUTEX_WAITERS in the word");
	is_int(res[2], 0, "and it unlocks");
	is_int(load(&lock), 0, "the word is 0 again");
}

/* ESRCH: the word names a thread that no longer exists. */
static void test_dead_owner(void)
{
	pid_t pid = fork();
	uint32_t dead;

	if (pid == 0)
		_exit(0);
	require(pid > 0 && waitpid(pid, NULL, 0) == pid, "fork and reap");
	dead = (uint32_t)pid;
	lock = dead;
	is_errno(futex(&lock, FUTEX_LOCK_PI | PRIV, 0, NULL, NULL, 0), ESRCH,
		 "LOCK_PI of a word naming a reaped process: ESRCH");
	is_int(load(&lock), dead | FUTEX_WAITERS, "which leaves FUTEX_WAITERS set, as Linux");
	is_errno(futex(&lock, FUTEX_TRYLOCK_PI | PRIV, 0, NULL, NULL, 0), ESRCH,
		 "TRYLOCK_PI of it: ESRCH");
	lock = 0;
}

struct robust_head {
	void *next;
	long offset;
	void *pending;
};

/* A robust-list entry with its lock word right after the pointer. */
struct robust_entry {
	void *next;
	uint32_t word;
};
static struct robust_entry entry;
static struct robust_head head;
static bool use_robust;

/* Takes entry.word, waits until someone waits for it, exits holding it. */
static void *dying_owner(void *arg)
{
	(void)arg;
	if (use_robust) {
		head.next = (void *)((uintptr_t)&entry | 1); /* bit 0: a PI lock */
		head.offset = (long)offsetof(struct robust_entry, word);
		entry.next = &head;
		syscall(SYS_set_robust_list, &head, sizeof head);
	}
	if (futex(&entry.word, FUTEX_LOCK_PI | PRIV, 0, NULL, NULL, 0))
		return NULL;
	waiter_tid = tid();
	await_bits(&entry.word, FUTEX_WAITERS);
	pthread_exit(NULL); /* the lock still held (libc knows nothing of it) */
}

/* Either way the waiter's word gets FUTEX_OWNER_DIED: from the robust
 * list walk, or from the handover of a lock whose owner is gone (Linux's
 * fixup_pi_state_owner). */
static void owner_exits(bool robust, const char *what)
{
	pthread_t t;
	long r;

	entry.word = 0;
	waiter_tid = 0;
	use_robust = robust;
	t = start_thread(dying_owner, NULL);
	while (!waiter_tid)
		sched_yield();
	r = futex(&entry.word, FUTEX_LOCK_PI | PRIV, 0, NULL, NULL, 0);
	is_int(r, 0, "%s: the waiter gets the lock", what);
	is_int(load(&entry.word), tid() | FUTEX_WAITERS | FUTEX_OWNER_DIED,
	       "%s: word tid | WAITERS | OWNER_DIED", what);
	futex(&entry.word, FUTEX_UNLOCK_PI | PRIV, 0, NULL, NULL, 0);
	pthread_join(t, NULL);
}

static uint32_t cond;

/* A FUTEX_WAIT waiter on cond, for the mixing check. */
static void *plain_waiter(void *arg)
{
	(void)arg;
	waiter_tid = tid();
	futex(&cond, FUTEX_WAIT | PRIV, load(&cond), NULL, NULL, 0);
	return NULL;
}

static void test_mixing(void)
{
	pthread_t t;

	cond = 0x3fff0000; /* a tid no one has */
	waiter_tid = 0;
	t = start_thread(plain_waiter, NULL);
	while (!waiter_tid || !thread_sleeping(waiter_tid))
		sched_yield();
	is_errno(futex(&cond, FUTEX_LOCK_PI | PRIV, 0, NULL, NULL, 0), EINVAL,
		 "LOCK_PI of a word with a FUTEX_WAIT waiter: EINVAL");
	while (futex(&cond, FUTEX_WAKE | PRIV, 1, NULL, NULL, 0) < 1)
		sched_yield();
	pthread_join(t, NULL);
}

/* WAIT_REQUEUE_PI on cond (value 0) toward lock; what it returned, the
 * word's bits besides its tid, its unlock's result. */
static void *requeue_waiter(void *arg)
{
	long *res = arg;

	waiter_tid = tid();
	res[0] = futex(&cond, FUTEX_WAIT_REQUEUE_PI | PRIV, 0, NULL, &lock, 0) ? errno : 0;
	res[1] = load(&lock) ^ tid(); /* the bits besides its tid */
	res[2] = futex(&lock, FUTEX_UNLOCK_PI | PRIV, 0, NULL, NULL, 0) ? errno : 0;
	return NULL;
}

/* CMP_REQUEUE_PI until it finds the waiter: its count. */
static long requeue_until_found(int nr_requeue)
{
	long n;

	while ((n = futex(&cond, FUTEX_CMP_REQUEUE_PI | PRIV, 1, (void *)(long)nr_requeue, &lock,
			  0)) == 0)
		sched_yield();
	return n;
}

static void test_requeue_pi(void)
{
	struct timespec mono = clock_after_ms(CLOCK_MONOTONIC, 20);
	long res[3], n;
	pthread_t t;

	cond = 0;
	lock = 0;
	is_errno(futex(&cond, FUTEX_WAIT_REQUEUE_PI | PRIV, 0, NULL, &cond, 0), EINVAL,
		 "WAIT_REQUEUE_PI onto its own word: EINVAL");
	is_errno(futex(&cond, FUTEX_WAIT_REQUEUE_PI | PRIV, 1, NULL, &lock, 0), EAGAIN,
		 "WAIT_REQUEUE_PI with a changed value: EAGAIN");
	is_errno(futex(&cond, FUTEX_WAIT_REQUEUE_PI | PRIV, 0, &mono, &lock, 0), ETIMEDOUT,
		 "WAIT_REQUEUE_PI's absolute timeout: ETIMEDOUT");
	is_errno(futex(&cond, FUTEX_CMP_REQUEUE_PI | PRIV, 2, (void *)1L, &lock, 0), EINVAL,
		 "CMP_REQUEUE_PI waking 2: EINVAL");
	is_errno(futex(&cond, FUTEX_CMP_REQUEUE_PI | PRIV, 1, (void *)1L, &lock, 7), EAGAIN,
		 "CMP_REQUEUE_PI with another value: EAGAIN");
	is_errno(futex(&cond, FUTEX_CMP_REQUEUE_PI | PRIV, 1, (void *)1L, &cond, 0), EINVAL,
		 "CMP_REQUEUE_PI onto the same word: EINVAL");

	t = start_thread(requeue_waiter, res);
	n = requeue_until_found(0);
	pthread_join(t, NULL);
	is_int(n, 1, "CMP_REQUEUE_PI of a free lock takes it for the waiter (1)");
	if (!ok(res[0] == 0 && res[1] == 0 && res[2] == 0,
		"which returns 0 owning it (its tid alone: nobody else to requeue)"))
		diag("returned %ld, other bits %#lx, unlock %ld", res[0], res[1], res[2]);

	require(futex(&lock, FUTEX_LOCK_PI | PRIV, 0, NULL, NULL, 0) == 0, "lock");
	waiter_tid = 0;
	t = start_thread(requeue_waiter, res);
	while (!waiter_tid)
		sched_yield();
	while (futex(&cond, FUTEX_WAKE | PRIV, 1, NULL, NULL, 0) == 0)
		sched_yield();
	is_errno(futex(&cond, FUTEX_WAKE | PRIV, 1, NULL, NULL, 0), EINVAL,
		 "FUTEX_WAKE of a WAIT_REQUEUE_PI waiter: EINVAL");
	n = requeue_until_found(1);
	is_int(n, 1, "CMP_REQUEUE_PI of a held lock moves the waiter to it (1)");
	is_int(load(&lock), tid() | FUTEX_WAITERS, "the lock word gets FUTEX_WAITERS");
	is_int(futex(&cond, FUTEX_WAKE | PRIV, 1, NULL, NULL, 0), 0, "no waiter is left on cond");
	is_int(futex(&lock, FUTEX_UNLOCK_PI | PRIV, 0, NULL, NULL, 0), 0,
	       "UNLOCK_PI hands the lock to it");
	pthread_join(t, NULL);
	ok(res[0] == 0 && res[1] == FUTEX_WAITERS && res[2] == 0,
	   "its WAIT_REQUEUE_PI returns 0 owning the lock (tid | WAITERS)");
}

/* The PI lock of the fast path: user space takes a free word itself. */
static void pi_lock(uint32_t *w, int priv)
{
	uint32_t zero = 0;

	if (!__atomic_compare_exchange_n(w, &zero, tid(), false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		require(futex(w, FUTEX_LOCK_PI | priv, 0, NULL, NULL, 0) == 0, "LOCK_PI");
}

static void pi_unlock(uint32_t *w, int priv)
{
	uint32_t me = tid();

	if (!__atomic_compare_exchange_n(w, &me, 0, false, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		require(futex(w, FUTEX_UNLOCK_PI | priv, 0, NULL, NULL, 0) == 0, "UNLOCK_PI");
}

static long counter;

static void *incrementer(void *arg)
{
	(void)arg;
	for (int i = 0; i < 2000; i++) {
		pi_lock(&lock, PRIV);
		long v = counter;
		if (i % 100 == 0)
			sched_yield();
		counter = v + 1;
		pi_unlock(&lock, PRIV);
	}
	return NULL;
}

static void test_counting(void)
{
	pthread_t t[4];

	lock = 0;
	for (int i = 0; i < 4; i++)
		t[i] = start_thread(incrementer, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	is_int(counter, 8000, "4 threads x 2000 increments under a PI lock");
	is_int(load(&lock), 0, "the lock ends free");
}

/* The lock on a MAP_SHARED page between two processes (no PRIVATE flag). */
static void test_shared(void)
{
	uint32_t *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int status;
	pid_t pid;

	require(w != MAP_FAILED, "mmap");
	pi_lock(w, 0);
	if ((pid = fork()) == 0) {
		long r = futex(w, FUTEX_LOCK_PI, 0, NULL, NULL, 0);

		_exit(r == 0 && load(w) == (tid() | FUTEX_WAITERS) ? 0 : 1);
	}
	require(pid > 0, "fork");
	await_bits(w, FUTEX_WAITERS);
	is_int(futex(w, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0), 0,
	       "shared: UNLOCK_PI with a waiter in another process");
	waitpid(pid, &status, 0);
	ok(exited_with(status, 0), "which gets the lock, its tid in the word");
	munmap(w, 4096);
}

int main(void)
{
	plan(10 + 8 + 6 + 3 + 4 + 1 + 6 + 2 + 6 + 2 + 2);
	test_basics();
	test_busy();
	test_handover();
	test_dead_owner();
	owner_exits(true, "robust owner exits");
	owner_exits(false, "owner exits");
	test_mixing();
	test_requeue_pi();
	test_counting();
	test_shared();
	return done();
}
