/* futex(2) between processes on MAP_SHARED memory: a shared op keys on the
 * page, so a waiter in one process is woken from another; a private op
 * keys on the address space and never crosses.  Wake counts, bitsets,
 * requeue and wake-op results, a waiter killed while it sleeps, and a
 * stress run of a futex mutex shared by many processes. */
#include <signal.h>

#include "futex_util.h"
#include "robust.h"

/* Waits for count children (exit codes) and returns how many exited with code. */
static int reap(const pid_t *pids, int count, int code)
{
	int n = 0;

	for (int i = 0; i < count; i++)
		n += child_code(pids[i]) == code;
	return n;
}

static void test_wake_counts(volatile uint32_t *w)
{
	struct kstat idle, busy;
	bool have_idle;
	pid_t pids[3];

	*w = 0;
	pids[0] = spawn_waiter(w, 0, 0, FUTEX_BITSET_MATCH_ANY, 0);
	ok(await_waiters(w, 0, 1), "a child sleeps on the shared word");
	ok(futex(w, FUTEX_WAKE, 1, NULL, NULL, 0) == 1, "FUTEX_WAKE from the parent wakes it: 1");
	ok(child_code(pids[0]) == 0, "the child's FUTEX_WAIT returned 0");

	have_idle = kstat_read(&idle);
	for (int i = 0; i < 3; i++)
		pids[i] = spawn_waiter(w, 0, 0, FUTEX_BITSET_MATCH_ANY, 0);
	ok(await_waiters(w, 0, 3), "three children sleep on it");
	if (have_idle && kstat_read(&busy))
		ok(busy.v[KS_FUTEX_WAITERS] - idle.v[KS_FUTEX_WAITERS] == 3,
		   "/proc/kstat counts them in futex_waiters");
	else
		skip("no " KSTAT_PATH, "/proc/kstat counts them in futex_waiters");
	ok(futex(w, FUTEX_WAKE, 2, NULL, NULL, 0) == 2, "FUTEX_WAKE 2: 2 woken");
	ok(futex_waiters(w, 0) == 1, "one left");
	ok(futex(w, FUTEX_WAKE, 0, NULL, NULL, 0) == 1, "FUTEX_WAKE 0 still wakes one (Linux)");
	ok(futex(w, FUTEX_WAKE, INT_MAX, NULL, NULL, 0) == 0, "then nobody is left: 0");
	ok(reap(pids, 3, 0) == 3, "all three returned 0");
}

/* A private waiter and a shared waker, or the reverse, never meet. */
static void test_private(volatile uint32_t *w)
{
	pid_t pid;

	*w = 0;
	pid = spawn_waiter(w, PRIV, 0, 0, 300);
	sleep_ms(50);
	ok(futex_waiters(w, 0) == 0, "a FUTEX_WAIT_PRIVATE waiter in a child is not on the page");
	ok(futex(w, FUTEX_WAKE | PRIV, INT_MAX, NULL, NULL, 0) == 0,
	   "FUTEX_WAKE_PRIVATE from another process on the same page: 0");
	ok(futex(w, FUTEX_WAKE, INT_MAX, NULL, NULL, 0) == 0, "FUTEX_WAKE (shared): 0 as well");
	ok(child_code(pid) == 1, "the private waiter times out (ETIMEDOUT)");

	pid = spawn_waiter(w, 0, 0, FUTEX_BITSET_MATCH_ANY, 0);
	ok(await_waiters(w, 0, 1), "a shared waiter sleeps");
	ok(futex(w, FUTEX_WAKE | PRIV, INT_MAX, NULL, NULL, 0) == 0,
	   "FUTEX_WAKE_PRIVATE does not wake a shared waiter: 0");
	ok(futex(w, FUTEX_WAKE, 1, NULL, NULL, 0) == 1 && child_code(pid) == 0, "FUTEX_WAKE does");
}

static void test_bitsets(volatile uint32_t *w)
{
	pid_t one, two, any;

	*w = 0;
	one = spawn_waiter(w, 0, 0, 0x1, 0);
	two = spawn_waiter(w, 0, 0, 0x6, 0);
	ok(await_waiters(w, 0, 2), "waiters with bitsets 0x1 and 0x6");
	ok(futex(w, FUTEX_WAKE_BITSET, INT_MAX, NULL, NULL, 0x8) == 0,
	   "FUTEX_WAKE_BITSET 0x8 meets neither: 0");
	ok(futex(w, FUTEX_WAKE_BITSET, INT_MAX, NULL, NULL, 0x4) == 1 && child_code(two) == 0,
	   "FUTEX_WAKE_BITSET 0x4 wakes the 0x6 waiter only");
	ok(futex_waiters(w, 0) == 1, "the 0x1 waiter still sleeps");
	any = spawn_waiter(w, 0, 0, FUTEX_BITSET_MATCH_ANY, 0);
	ok(await_waiters(w, 0, 2), "plus a waiter with every bit");
	ok(futex(w, FUTEX_WAKE_BITSET, INT_MAX, NULL, NULL, 0x80000000) == 1 &&
	       child_code(any) == 0,
	   "FUTEX_WAKE_BITSET 0x80000000 wakes the match-any waiter");
	ok(futex(w, FUTEX_WAKE, 1, NULL, NULL, 0) == 1 && child_code(one) == 0,
	   "plain FUTEX_WAKE (every bit) wakes the 0x1 waiter");
}

static void test_requeue(volatile uint32_t *w1, volatile uint32_t *w2)
{
	pid_t pids[4];

	*w1 = 0;
	*w2 = 0;
	for (int i = 0; i < 4; i++)
		pids[i] = spawn_waiter(w1, 0, 0, FUTEX_BITSET_MATCH_ANY, 0);
	ok(await_waiters(w1, 0, 4), "four children sleep on word 1");
	ok(futex(w1, FUTEX_REQUEUE, 1, VAL2(2), w2, 0) == 3,
	   "FUTEX_REQUEUE wake 1, move 2: returns 3");
	ok(futex_waiters(w1, 0) == 1 && futex_waiters(w2, 0) == 2,
	   "one left on word 1, two on word 2");
	is_errno(futex(w1, FUTEX_CMP_REQUEUE, 0, VAL2(INT_MAX), w2, 1), EAGAIN,
		 "FUTEX_CMP_REQUEUE with val3 != *uaddr: EAGAIN");
	ok(futex_waiters(w1, 0) == 1, "... and nobody moved");
	ok(futex(w1, FUTEX_CMP_REQUEUE, 0, VAL2(INT_MAX), w2, 0) == 1,
	   "FUTEX_CMP_REQUEUE wake 0, move all: returns 1");
	ok(futex(w1, FUTEX_WAKE, INT_MAX, NULL, NULL, 0) == 0, "a wake on word 1 finds nobody now");
	ok(futex(w2, FUTEX_WAKE, INT_MAX, NULL, NULL, 0) == 3, "a wake on word 2 wakes the three");
	ok(reap(pids, 4, 0) == 4, "every requeued wait returned 0");
}

/* FUTEX_WAKE_OP on words without waiters: the new value and result. */
static long wake_op(volatile uint32_t *w2, uint32_t before, uint32_t encoded, uint32_t *after)
{
	static uint32_t w1;
	long r;

	*w2 = before;
	r = futex(&w1, FUTEX_WAKE_OP | PRIV, 1, VAL2(1), w2, encoded);
	*after = *w2;
	return r;
}

static void test_wake_op_values(volatile uint32_t *w)
{
	uint32_t *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint32_t after;

	require(ro != MAP_FAILED, "mmap PROT_READ");
	ok(wake_op(w, 5, FUTEX_OP(FUTEX_OP_ADD, 3, FUTEX_OP_CMP_EQ, 5), &after) == 0 && after == 8,
	   "WAKE_OP ADD 3: 5 -> 8");
	ok(wake_op(w, 5, FUTEX_OP(FUTEX_OP_SET, -2, FUTEX_OP_CMP_EQ, 0), &after) == 0 &&
	       after == (uint32_t)-2,
	   "WAKE_OP SET -2: oparg is sign-extended");
	ok(wake_op(w, 0xff, FUTEX_OP(FUTEX_OP_ANDN, 0x0f, FUTEX_OP_CMP_EQ, 0), &after) == 0 &&
	       after == 0xf0,
	   "WAKE_OP ANDN 0x0f: 0xff -> 0xf0");
	ok(wake_op(w, 0x10, FUTEX_OP(FUTEX_OP_OR, 0x3, FUTEX_OP_CMP_EQ, 0), &after) == 0 &&
	       after == 0x13,
	   "WAKE_OP OR 3: 0x10 -> 0x13");
	ok(wake_op(w, 0x11, FUTEX_OP(FUTEX_OP_XOR, 0x1, FUTEX_OP_CMP_EQ, 0), &after) == 0 &&
	       after == 0x10,
	   "WAKE_OP XOR 1: 0x11 -> 0x10");
	ok(wake_op(w, 1, FUTEX_OP(FUTEX_OP_SET | FUTEX_OP_OPARG_SHIFT, 4, FUTEX_OP_CMP_EQ, 0),
		   &after) == 0 &&
	       after == 16,
	   "WAKE_OP SET with OPARG_SHIFT 4: 1 << 4");
	is_errno(wake_op(w, 9, FUTEX_OP(5, 1, FUTEX_OP_CMP_EQ, 0), &after), ENOSYS,
		 "WAKE_OP with operation 5: ENOSYS");
	ok(after == 9, "... and the word is unchanged");
	is_errno(wake_op(w, 9, FUTEX_OP(FUTEX_OP_ADD, 1, 6, 0), &after), ENOSYS,
		 "WAKE_OP with comparison 6: ENOSYS");
	ok(after == 10, "... after the operation was applied (Linux)");
	is_errno(futex(w, FUTEX_WAKE_OP, 1, VAL2(1), ro, 0), EFAULT,
		 "WAKE_OP on a read-only uaddr2: EFAULT");
	is_errno(futex(w, FUTEX_WAKE_OP, 1, VAL2(1), (uint32_t *)((char *)w + 2), 0), EINVAL,
		 "WAKE_OP on a misaligned uaddr2: EINVAL");
	is_errno(futex(w, FUTEX_WAKE_OP | PRIV, 1, VAL2(1), KERNEL_PTR, 0), EFAULT,
		 "WAKE_OP on a kernel uaddr2: EFAULT");
	munmap(ro, 4096);
}

/* A copy-on-write word (private memory after fork) is made writable first. */
static void test_wake_op_cow(void)
{
	static uint32_t word = 1;
	static uint32_t other;
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		long r = futex(&other, FUTEX_WAKE_OP | PRIV, 1, VAL2(1), &word,
			       FUTEX_OP(FUTEX_OP_ADD, 1, FUTEX_OP_CMP_EQ, 0));
		_exit(r == 0 && word == 2 ? 0 : 1);
	}
	ok(child_code(pid) == 0 && word == 1,
	   "WAKE_OP on a copy-on-write word writes the child's copy only");
}

static void test_wake_op_waiters(volatile uint32_t *w1, volatile uint32_t *w2)
{
	pid_t a, b;

	*w1 = 0;
	*w2 = 0;
	a = spawn_waiter(w1, 0, 0, FUTEX_BITSET_MATCH_ANY, 0);
	b = spawn_waiter(w2, 0, 0, FUTEX_BITSET_MATCH_ANY, 0);
	ok(await_waiters(w1, 0, 1) && await_waiters(w2, 0, 1), "one waiter on each word");
	ok(futex(w1, FUTEX_WAKE_OP, 1, VAL2(1), w2,
		 FUTEX_OP(FUTEX_OP_SET, 7, FUTEX_OP_CMP_NE, 0)) == 1,
	   "WAKE_OP whose comparison fails (old 0 != 0): wakes word 1 only");
	ok(child_code(a) == 0 && futex_waiters(w2, 0) == 1 && *w2 == 7,
	   "word 2 is 7, its waiter sleeps");
	a = spawn_waiter(w1, 0, 0, FUTEX_BITSET_MATCH_ANY, 0);
	ok(await_waiters(w1, 0, 1), "a new waiter on word 1");
	ok(futex(w1, FUTEX_WAKE_OP, 1, VAL2(1), w2,
		 FUTEX_OP(FUTEX_OP_SET, -5, FUTEX_OP_CMP_GT, 6)) == 2,
	   "WAKE_OP whose comparison holds (old 7 > 6): wakes both, returns 2");
	ok(child_code(a) == 0 && child_code(b) == 0, "both waits returned 0");
	b = spawn_waiter(w2, 0, (uint32_t)-5, FUTEX_BITSET_MATCH_ANY, 0);
	ok(await_waiters(w2, 0, 1), "a waiter on word 2 (now -5)");
	ok(futex(w1, FUTEX_WAKE_OP, 1, VAL2(1), w2,
		 FUTEX_OP(FUTEX_OP_ADD, 0, FUTEX_OP_CMP_LT, -1)) == 1,
	   "signed comparison: -5 < -1 wakes word 2's waiter");
	ok(child_code(b) == 0, "... whose wait returned 0");
}

/* SIGKILL while sleeping: the waiter is gone from the hash, nothing leaks. */
static void test_killed_waiter(void)
{
	volatile uint32_t *w = shared_page();
	pid_t pid = spawn_waiter(w, 0, 0, FUTEX_BITSET_MATCH_ANY, 0);
	int status;

	ok(await_waiters(w, 0, 1), "a child sleeps on a page the parent then unmaps");
	munmap((void *)w, 4096);
	kill(pid, SIGKILL);
	ok(waitpid(pid, &status, 0) == pid && killed_by(status, SIGKILL), "SIGKILL ends its wait");
}

/* Waiters requeued to a second page, both pages unmapped by the parent,
 * then killed: the frames go with the last reference (the leak check). */
static void test_killed_requeued(void)
{
	volatile uint32_t *a = shared_page(), *b = shared_page();
	pid_t pids[2];
	int status, killed = 0;

	for (int i = 0; i < 2; i++)
		pids[i] = spawn_waiter(a, 0, 0, FUTEX_BITSET_MATCH_ANY, 0);
	ok(await_waiters(a, 0, 2) && futex(a, FUTEX_REQUEUE, 0, VAL2(2), b, 0) == 2,
	   "two waiters requeued to another page");
	munmap((void *)a, 4096);
	munmap((void *)b, 4096);
	for (int i = 0; i < 2; i++) {
		kill(pids[i], SIGKILL);
		killed += waitpid(pids[i], &status, 0) == pids[i] && killed_by(status, SIGKILL);
	}
	ok(killed == 2, "both killed in their requeued wait");
}

/* Drepper's mutex ("Futexes are tricky", mutex2): 0 free, 1 locked, 2 locked
 * with waiters. */
static void mutex_lock(volatile uint32_t *m)
{
	uint32_t c = 0;

	if (__atomic_compare_exchange_n(m, &c, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	if (c != 2)
		c = __atomic_exchange_n(m, 2, __ATOMIC_ACQUIRE);
	while (c != 0) {
		futex(m, FUTEX_WAIT, 2, NULL, NULL, 0);
		c = __atomic_exchange_n(m, 2, __ATOMIC_ACQUIRE);
	}
}

static void mutex_unlock(volatile uint32_t *m)
{
	if (__atomic_fetch_sub(m, 1, __ATOMIC_RELEASE) != 1) {
		__atomic_store_n(m, 0, __ATOMIC_RELEASE);
		futex(m, FUTEX_WAKE, 1, NULL, NULL, 0);
	}
}

#define STRESS_PROCS 8
#define STRESS_LOOPS 300

/* Many processes take one futex mutex; a lost wake-up would hang them. */
static void test_stress(void)
{
	volatile uint32_t *page = shared_page(), *m = page, *counter = page + 1;
	pid_t pids[STRESS_PROCS];

	for (int i = 0; i < STRESS_PROCS; i++) {
		fflush(stdout);
		if ((pids[i] = fork()) == 0) {
			for (int n = 0; n < STRESS_LOOPS; n++) {
				mutex_lock(m);
				uint32_t v = *counter;
				if (n % 8 == 0)
					syscall(__NR_sched_yield); /* let the others pile up */
				*counter = v + 1;
				mutex_unlock(m);
			}
			_exit(0);
		}
	}
	ok(reap(pids, STRESS_PROCS, 0) == STRESS_PROCS, "%d processes x %d lock/unlock finish",
	   STRESS_PROCS, STRESS_LOOPS);
	ok(*counter == STRESS_PROCS * STRESS_LOOPS && *m == 0,
	   "the counter is %u (no lost update), the mutex is free", *counter);
	ok(futex_waiters(m, 0) == 0, "nobody is left waiting");
	munmap((void *)page, 4096);
}

#define RACE_PROCS 4
#define RACE_WAITS 50

/* Short timed waits racing with a stream of wake-ups: every wait ends in 0
 * or ETIMEDOUT, and none stays queued. */
static void test_timeout_races(void)
{
	volatile uint32_t *w = shared_page();
	struct timespec ts = {0, 1000000};
	pid_t pids[RACE_PROCS];
	int left = RACE_PROCS, good = 0, status;

	for (int i = 0; i < RACE_PROCS; i++) {
		fflush(stdout);
		if ((pids[i] = fork()) == 0) {
			int bad = 0;
			for (int n = 0; n < RACE_WAITS; n++)
				if (futex(w, FUTEX_WAIT, 0, &ts, NULL, 0) != 0 &&
				    errno != ETIMEDOUT)
					bad++;
			_exit(bad ? 1 : 0);
		}
	}
	while (left > 0) {
		futex(w, FUTEX_WAKE, 1, NULL, NULL, 0);
		for (int i = 0; i < RACE_PROCS; i++)
			if (pids[i] > 0 && waitpid(pids[i], &status, WNOHANG) == pids[i]) {
				good += exited_with(status, 0);
				pids[i] = 0;
				left--;
			}
	}
	ok(good == RACE_PROCS, "%d x %d 1 ms waits against wake-ups: each ends in 0 or ETIMEDOUT",
	   RACE_PROCS, RACE_WAITS);
	ok(futex_waiters(w, 0) == 0, "no waiter is left queued");
	munmap((void *)w, 4096);
}

int main(void)
{
	struct kstat before;
	bool have_before = kstat_read(&before);
	volatile uint32_t *page = shared_page();

	plan(66);
	test_wake_counts(page);
	test_private(page);
	test_bitsets(page);
	test_requeue(page, page + 16);
	test_wake_op_values(page);
	test_wake_op_cow();
	test_wake_op_waiters(page, page + 16);
	test_killed_waiter();
	test_killed_requeued();
	test_stress();
	test_timeout_races();
	munmap((void *)page, 4096);
	kstat_unchanged(&before, have_before,
			"nothing leaked (frames, heap, tasks, futex waiters)");
	return done();
}
