/* Every CPU shoots the others down at once: one thread per CPU (bound to
 * it) maps, writes, mprotects and unmaps pages of the process in a loop,
 * each change a TLB shootdown of the other CPUs, while two more threads
 * fork children that write their copy of the memory (copy-on-write) and
 * exit, each fork a write-protect of the whole space.  Every thread ends
 * (no two CPUs wait for each other for ever), each mapping holds what its
 * thread wrote at every step, and each child sees its parent's memory as
 * it was at the fork.  On one CPU it runs the same, with no other CPU. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "threads.h"

#define MAPPERS_MAX 8
#define ROUNDS	    100
#define PAGES	    8
#define FORKERS	    2
#define FORKS	    10
#define PAGE	    4096
#define WORDS	    (PAGE / sizeof(uint64_t))

static int ncpus, cpu_ids[MAPPERS_MAX];
/* Written by the forkers between forks, read by their children. */
static uint64_t cow_area[FORKERS][4 * WORDS] __attribute__((aligned(PAGE)));

static uint64_t tag(long who, long round, long page)
{
	return (uint64_t)who << 40 | (uint64_t)round << 16 | (uint64_t)page;
}

static void fill(uint64_t *p, int pages, uint64_t t)
{
	for (int i = 0; i < pages; i++)
		for (size_t w = 0; w < WORDS; w += 64)
			p[i * WORDS + w] = t + (uint64_t)i;
}

/* Pages of p that do not hold t (+ their index) where fill put it. */
static int wrong(const uint64_t *p, int first, int pages, uint64_t t)
{
	int bad = 0;

	for (int i = first; i < first + pages; i++)
		for (size_t w = 0; w < WORDS; w += 64)
			bad += p[i * WORDS + w] != t + (uint64_t)i;
	return bad;
}

static void bind_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

/* Rounds of map, write, protect, check, unmap a page, unmap all; returns
 * the number of words found wrong, or -1 for a call that failed. */
static void *mapper(void *arg)
{
	long me = (long)arg, bad = 0;

	bind_to(cpu_ids[me % ncpus]);
	for (long r = 0; r < ROUNDS; r++) {
		uint64_t *p = mmap(NULL, PAGES * PAGE, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return (void *)-1L;
		fill(p, PAGES, tag(me, r, 0));
		if (mprotect(p, PAGES / 2 * PAGE, PROT_READ))
			return (void *)-1L;
		bad += wrong(p, 0, PAGES, tag(me, r, 0));
		if (mprotect(p, PAGES / 2 * PAGE, PROT_READ | PROT_WRITE) ||
		    munmap(p + WORDS, PAGE)) /* its second page */
			return (void *)-1L;
		fill(p, 1, tag(me, r, 1)); /* page 0 writable again */
		bad += wrong(p, 0, 1, tag(me, r, 1)) + wrong(p, 2, PAGES - 2, tag(me, r, 0));
		if (munmap(p, PAGES * PAGE))
			return (void *)-1L;
	}
	return (void *)bad;
}

/* A child writes its copy of the area and checks what the fork gave it. */
static int forker_child(long me, long round)
{
	uint64_t *a = cow_area[me];

	if (wrong(a, 0, 4, tag(me, round, 0)))
		return 1;
	fill(a, 4, tag(me, round, 7)); /* breaks copy-on-write in the child */
	return wrong(a, 0, 4, tag(me, round, 7)) ? 2 : 0;
}

/* Forks children one after another, rewriting the area between forks;
 * returns how many children did not exit 0. */
static void *forker(void *arg)
{
	long me = (long)arg, failed = 0;

	bind_to(cpu_ids[(me + 1) % ncpus]);
	for (long r = 0; r < FORKS; r++) {
		int status = 0;

		fill(cow_area[me], 4, tag(me, r, 0));
		pid_t pid = fork();
		if (pid == 0)
			_exit(forker_child(me, r));
		fill(cow_area[me], 4, tag(me, r, 3)); /* breaks it in the parent */
		failed += pid < 0 || waitpid(pid, &status, 0) != pid || !exited_with(status, 0) ||
			  wrong(cow_area[me], 0, 4, tag(me, r, 3));
	}
	return (void *)failed;
}

int main(void)
{
	pthread_t mappers[MAPPERS_MAX], forkers[FORKERS];
	long bad = 0, failed_calls = 0, failed_children = 0;
	cpu_set_t set;

	require(sched_getaffinity(0, sizeof set, &set) == 0, "sched_getaffinity");
	for (int c = 0; c < CPU_SETSIZE && ncpus < MAPPERS_MAX; c++)
		if (CPU_ISSET(c, &set))
			cpu_ids[ncpus++] = c;
	plan(3);
	diag("%d mappers, one per CPU, and %d forkers", ncpus, FORKERS);
	for (long i = 0; i < ncpus; i++)
		mappers[i] = start_thread(mapper, (void *)i);
	for (long i = 0; i < FORKERS; i++)
		forkers[i] = start_thread(forker, (void *)i);
	for (int i = 0; i < ncpus; i++) {
		void *ret;
		pthread_join(mappers[i], &ret);
		if ((long)ret < 0)
			failed_calls++;
		else
			bad += (long)ret;
	}
	for (int i = 0; i < FORKERS; i++) {
		void *ret;
		pthread_join(forkers[i], &ret);
		failed_children += (long)ret;
	}
	is_int(failed_calls, 0, "%d threads: %d rounds of mmap, mprotect and munmap each", ncpus,
	       ROUNDS);
	is_int(bad, 0, "every page held what its thread wrote, across the other CPUs' changes");
	is_int(failed_children, 0,
	       "%d forks beside them: each child saw its parent's memory as at the fork",
	       FORKERS * FORKS);
	return done();
}
