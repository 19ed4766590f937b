/*
 * Memory overcommit as Linux's default heuristic (vm.overcommit_memory 0):
 * private writable mappings are charged to Committed_AS when made, not
 * refused unless one alone is larger than RAM + swap; their pages come on
 * first touch.  55 threads with 8 MiB stacks (LTP futex_wake02) start in
 * a 512 MiB guest; MAP_NORESERVE is never charged, PROT_READ only when
 * mprotect makes it writable; fork charges the child's copy.  Strict mode
 * (2) and mode 1 are tried in fdkernel when /proc/sys/vm/overcommit_memory
 * exists (never on the host: it would change the whole machine).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/mman.h>

#include "testutil.h"

#define MiB	   (1UL << 20)
#define THREADS	   55
#define OVERCOMMIT "/proc/sys/vm/overcommit_memory"

/* A /proc/meminfo figure in bytes, or -1. */
static long meminfo_bytes(const char *key)
{
	long kb = meminfo_kb(key);

	return kb < 0 ? -1 : kb * 1024;
}

/* The policy: the knob's value, or 0 in fdkernel without the knob (its
 * default), -1 when it cannot be read on the host. */
static int overcommit_mode(void)
{
	char buf[16];

	if (read_text(OVERCOMMIT, buf, sizeof buf) > 0)
		return atoi(buf);
	return on_fdkernel() ? 0 : -1;
}

static bool set_mode(int mode)
{
	FILE *f = fopen(OVERCOMMIT, "w");
	bool ok = f && fprintf(f, "%d\n", mode) > 0;

	return f && fclose(f) == 0 && ok;
}

static void *map(size_t len, int prot, int flags)
{
	return mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
}

/* RAM + swap, page aligned: what the heuristic compares one mapping with. */
static size_t ram_and_swap(void)
{
	return (size_t)(meminfo_bytes("MemTotal") + meminfo_bytes("SwapTotal")) & ~(size_t)4095;
}

static pthread_barrier_t all_up;

static void *stack_thread(void *arg)
{
	volatile char big[64 * 1024]; /* some of the 8 MiB in use */

	big[0] = (char)(long)arg;
	pthread_barrier_wait(&all_up);
	return (void *)(long)big[0];
}

/* futex_wake02's shape: 55 threads with 8 MiB stacks, all alive at once. */
static void test_thread_stacks(void)
{
	pthread_t th[THREADS];
	pthread_attr_t a;
	int made = 0, err = 0;

	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 8 * MiB);
	pthread_barrier_init(&all_up, NULL, THREADS + 1);
	for (; made < THREADS; made++)
		if ((err = pthread_create(&th[made], &a, stack_thread, (void *)(long)made)))
			break;
	if (!is_int(made, THREADS, "%d threads with 8 MiB stacks start together", THREADS))
		diag("pthread_create: %s", strerror(err));
	require(made == THREADS, "threads (the barrier needs them all)");
	pthread_barrier_wait(&all_up);
	for (int i = 0; i < made; i++)
		pthread_join(th[i], NULL);
	pthread_attr_destroy(&a);
}

/* Mode 0: mappings adding up to twice RAM + swap, one of RAM + swap plus
 * 64 MiB refused, unless MAP_NORESERVE or read-only. */
static void test_heuristic(void)
{
	size_t total = ram_and_swap(), half = total / 2 & ~(size_t)4095, big = total + 64 * MiB;
	void *p[4], *q;
	int made = 0;

	for (; made < 4; made++)
		if ((p[made] = map(half, PROT_READ | PROT_WRITE, 0)) == MAP_FAILED)
			break;
	is_int(made, 4, "4 untouched mappings of half of RAM + swap each");
	if (made > 0) {
		for (size_t off = 0; off < 16 * MiB; off += 4096)
			((char *)p[0])[off] = 1;
		ok(((char *)p[0])[16 * MiB - 4096] == 1, "16 MiB of one of them touched");
	} else {
		ok(0, "16 MiB of one of them touched");
	}
	while (made > 0)
		munmap(p[--made], half);
	is_errno((long)map(big, PROT_READ | PROT_WRITE, 0), ENOMEM,
		 "one writable mapping larger than RAM + swap: ENOMEM");
	q = map(big, PROT_READ | PROT_WRITE, MAP_NORESERVE);
	ok(q != MAP_FAILED, "the same with MAP_NORESERVE is made");
	if (q != MAP_FAILED)
		munmap(q, big);
	q = map(big, PROT_READ, 0);
	require(q != MAP_FAILED, "read-only mapping larger than RAM + swap");
	is_errno(mprotect(q, big, PROT_READ | PROT_WRITE), ENOMEM,
		 "mprotect(PROT_WRITE) of all of a read-only one: ENOMEM");
	ok(mprotect(q, MiB, PROT_READ | PROT_WRITE) == 0 && (((char *)q)[4096] = 7) == 7,
	   "of 1 MiB of it: made writable and written");
	munmap(q, big);
}

/* Committed_AS moves by about len while ACT's mapping lives (others run
 * on the host: tried up to 20 times). */
static bool committed_moves(size_t len, int prot, int flags, long expect)
{
	for (int i = 0; i < 20; i++) {
		long before = meminfo_bytes("Committed_AS");
		void *p = map(len, prot, flags);
		long during = meminfo_bytes("Committed_AS");

		if (p == MAP_FAILED)
			return false;
		munmap(p, len);
		long after = meminfo_bytes("Committed_AS"), up = during - before,
		     down = during - after;
		long slack = (long)len / 8;

		if (labs(up - expect) < slack && labs(down - expect) < slack)
			return true;
		diag("Committed_AS %ld, %ld, %ld", before, during, after);
	}
	return false;
}

/* What a fork adds to Committed_AS while its child lives. */
static long fork_charge(void)
{
	long before = meminfo_bytes("Committed_AS"), during;
	int go[2];
	pid_t pid;
	char c;

	require(pipe(go) == 0, "pipe");
	if ((pid = fork()) == 0) {
		close(go[1]);
		_exit(read(go[0], &c, 1) == 0 ? 0 : 1);
	}
	require(pid > 0, "fork");
	during = meminfo_bytes("Committed_AS");
	close(go[0]);
	close(go[1]);
	waitpid(pid, NULL, 0);
	return during - before;
}

/* A fork's child is charged its copy: a mapping of len bytes in the
 * parent makes the fork's charge len larger (the rest of the process,
 * glibc's cache of thread stacks say, is in both figures). */
static bool fork_charges(size_t len)
{
	bool seen = false;

	for (int i = 0; i < 20 && !seen; i++) {
		long without = fork_charge(), with;
		char *p = map(len, PROT_READ | PROT_WRITE, 0);

		if (p == MAP_FAILED)
			return false;
		with = fork_charge();
		munmap(p, len);
		seen = labs(with - without - (long)len) < (long)len / 8;
		if (!seen)
			diag("a fork charged %ld, with a %zu-byte mapping %ld", without, len, with);
	}
	return seen;
}

static void test_accounting(void)
{
	size_t len = ram_and_swap() / 8 & ~(size_t)4095;
	long limit = meminfo_bytes("CommitLimit"), ratio = 50;
	char buf[16];

	if (read_text("/proc/sys/vm/overcommit_ratio", buf, sizeof buf) > 0)
		ratio = atol(buf);
	ok(labs(limit - (meminfo_bytes("MemTotal") * ratio / 100 + meminfo_bytes("SwapTotal"))) <=
	       4096,
	   "CommitLimit is %ld%% of RAM plus swap", ratio);
	ok(committed_moves(len, PROT_READ | PROT_WRITE, 0, (long)len),
	   "Committed_AS rises by a private writable mapping and falls at munmap");
	ok(committed_moves(len, PROT_READ | PROT_WRITE, MAP_NORESERVE, 0),
	   "a MAP_NORESERVE mapping is not charged");
	ok(committed_moves(len, PROT_READ, 0, 0), "a read-only mapping is not charged");
	ok(fork_charges(len), "a fork charges the child's copy");
}

/* fdkernel only, with the knob: strict mode's limit, then mode 1. */
static void test_modes(void)
{
	const int n = 6;

	if (!on_fdkernel() || access(OVERCOMMIT, W_OK) != 0) {
		for (int i = 0; i < n; i++)
			skip(on_fdkernel() ? "no " OVERCOMMIT : "would change the host's policy",
			     "overcommit modes 1 and 2");
		return;
	}
	require(set_mode(2), "overcommit_memory 2");
	long room = meminfo_bytes("CommitLimit") - meminfo_bytes("Committed_AS");
	void *p;

	is_errno((long)map((size_t)room + 16 * MiB, PROT_READ | PROT_WRITE, 0), ENOMEM,
		 "mode 2: a mapping past CommitLimit: ENOMEM");
	is_errno((long)map((size_t)room + 16 * MiB, PROT_READ | PROT_WRITE, MAP_NORESERVE), ENOMEM,
		 "mode 2: MAP_NORESERVE is charged too");
	p = map(MiB, PROT_READ | PROT_WRITE, 0);
	ok(p != MAP_FAILED, "mode 2: 1 MiB within the limit is made");
	if (p != MAP_FAILED)
		munmap(p, MiB);
	p = map((size_t)room / 2 + MiB, PROT_READ | PROT_WRITE, 0);
	if (p != MAP_FAILED) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		is_errno(pid, ENOMEM, "mode 2: a fork whose copy passes the limit: ENOMEM");
		if (pid > 0)
			waitpid(pid, NULL, 0);
		munmap(p, (size_t)room / 2 + MiB);
	} else {
		ok(0, "mode 2: a mapping of half the room");
	}
	require(set_mode(1), "overcommit_memory 1");
	p = map(4 * ram_and_swap(), PROT_READ | PROT_WRITE, 0);
	ok(p != MAP_FAILED, "mode 1: a mapping of 4 x RAM + swap is made");
	if (p != MAP_FAILED)
		munmap(p, 4 * ram_and_swap());
	require(set_mode(0), "overcommit_memory 0");
	is_errno((long)map(2 * ram_and_swap(), PROT_READ | PROT_WRITE, 0), ENOMEM,
		 "back in mode 0: 2 x RAM + swap refused");
}

int main(void)
{
	int mode = overcommit_mode();

	plan(1 + 6 + 5 + 6);
	test_thread_stacks();
	if (mode == 0)
		test_heuristic();
	else
		for (int i = 0; i < 6; i++)
			skip("overcommit_memory is not 0", "heuristic mode");
	test_accounting();
	test_modes();
	return done();
}
