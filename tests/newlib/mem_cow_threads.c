/* Copy-on-write under threads (a directed stress for issue 34's stack
 * corruption, docs/robustness.md): three threads keep a page-sized
 * pattern on their own stacks across system calls, and the callee-saved
 * registers across getpid, while the main thread forks 400 children
 * (each writes its copy of the threads' data and exits, or now and then
 * lives on while the parent goes on) and starts and joins short-lived
 * threads.  A fork whose write-protection misses one CPU, or a
 * copy-on-write break that copies a page another CPU still writes
 * through a stale entry, shows as a stack word gone back to an older
 * value. */
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"
#include "thread.h"

#define THREADS	    3
#define FORKS	    400
#define STACK_WORDS 512 /* a whole 4 KiB page of each thread's stack */

static struct worker {
	struct thread t;
	int id;
	long rounds, bad_words, bad_regs;
	uint64_t first_bad, first_want;
} workers[THREADS];
static int stop;

/* getpid with rbx, rbp and r12..r15 set to values of seed: the number of
 * them found changed after the call. */
static int regs_survive(uint64_t seed)
{
	uint64_t in[6], out[6];
	long nr = __NR_getpid;

	for (int i = 0; i < 6; i++)
		in[i] = seed * 0x9e3779b97f4a7c15ULL + (uint64_t)i;
	/* Below the red zone, where in and out may lie. */
	__asm__ volatile("sub $128, %%rsp\n\t"
			 "push %%rbp\n\t"
			 "push %%rbx\n\t"
			 "push %%r12\n\t"
			 "push %%r13\n\t"
			 "push %%r14\n\t"
			 "push %%r15\n\t"
			 "push %%rsi\n\t" /* out */
			 "mov 0(%%rdi), %%rbx\n\t"
			 "mov 8(%%rdi), %%rbp\n\t"
			 "mov 16(%%rdi), %%r12\n\t"
			 "mov 24(%%rdi), %%r13\n\t"
			 "mov 32(%%rdi), %%r14\n\t"
			 "mov 40(%%rdi), %%r15\n\t"
			 "syscall\n\t"
			 "pop %%rsi\n\t"
			 "mov %%rbx, 0(%%rsi)\n\t"
			 "mov %%rbp, 8(%%rsi)\n\t"
			 "mov %%r12, 16(%%rsi)\n\t"
			 "mov %%r13, 24(%%rsi)\n\t"
			 "mov %%r14, 32(%%rsi)\n\t"
			 "mov %%r15, 40(%%rsi)\n\t"
			 "pop %%r15\n\t"
			 "pop %%r14\n\t"
			 "pop %%r13\n\t"
			 "pop %%r12\n\t"
			 "pop %%rbx\n\t"
			 "pop %%rbp\n\t"
			 "add $128, %%rsp"
			 : "+a"(nr)
			 : "D"(in), "S"(out)
			 : "rcx", "r11", "memory");
	int changed = 0;
	for (int i = 0; i < 6; i++)
		changed += in[i] != out[i];
	return changed;
}

/* One round: the page of words written, a system call, the words read. */
static void round_on_stack(struct worker *w, volatile uint64_t *words, uint64_t round)
{
	for (int i = 0; i < STACK_WORDS; i++)
		words[i] = round << 16 | (uint64_t)w->id << 12 | (uint64_t)i;
	thread_sys(__NR_sched_yield, 0, 0, 0);
	for (int i = 0; i < STACK_WORDS; i++) {
		uint64_t want = round << 16 | (uint64_t)w->id << 12 | (uint64_t)i;
		if (words[i] != want && w->bad_words++ == 0) {
			w->first_bad = words[i];
			w->first_want = want;
		}
	}
}

static int worker_body(void *arg)
{
	struct worker *w = arg;
	volatile uint64_t words[STACK_WORDS];

	for (uint64_t round = 1; !__atomic_load_n(&stop, __ATOMIC_ACQUIRE); round++) {
		round_on_stack(w, words, round);
		w->bad_regs += regs_survive(round ^ (uint64_t)w->id << 32) != 0;
		w->rounds++;
	}
	return 0;
}

static int short_body(void *arg)
{
	(void)arg;
	return 0;
}

/* A child writes its copy of the stacks (breaking copy-on-write on its
 * side) and exits at once, or now and then lives a little while the
 * parent's threads write theirs. */
static void fork_one(int n)
{
	pid_t pid = fork();

	require(pid >= 0, "fork");
	if (pid == 0) {
		for (int i = 0; i < THREADS; i++)
			workers[i].rounds = -1;
		if (n % 4 == 0)
			for (int i = 0; i < 1000; i++)
				thread_sys(__NR_sched_yield, 0, 0, 0);
		_exit(0);
	}
	if (n % 2) { /* a thread born and gone: kernel stacks freed and reused */
		struct thread t;
		require(thread_start(&t, short_body, NULL) > 0, "thread_start");
		thread_join(&t);
	}
	if (n % 4 != 1)
		require(waitpid(pid, NULL, 0) == pid, "waitpid");
	else
		require(waitpid(pid, NULL, WNOHANG) >= 0, "waitpid");
}

int main(void)
{
	long rounds = 0, bad_words = 0, bad_regs = 0;

	plan(3);
	for (int i = 0; i < THREADS; i++) {
		workers[i].id = i + 1;
		require(thread_start(&workers[i].t, worker_body, &workers[i]) > 0, "thread_start");
	}
	for (int n = 0; n < FORKS; n++)
		fork_one(n);
	while (waitpid(-1, NULL, 0) > 0)
		;
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < THREADS; i++) {
		thread_join(&workers[i].t);
		rounds += workers[i].rounds;
		bad_words += workers[i].bad_words;
		bad_regs += workers[i].bad_regs;
		if (workers[i].bad_words)
			diag("thread %d: a stack word read %#llx, written %#llx", i + 1,
			     (unsigned long long)workers[i].first_bad,
			     (unsigned long long)workers[i].first_want);
	}
	diag("%ld rounds of %d threads over %d forks", rounds, THREADS, FORKS);
	ok(rounds >= THREADS, "the threads ran while the main thread forked");
	is_int(bad_words, 0, "no stack word of a thread went back across a fork");
	is_int(bad_regs, 0, "no callee-saved register changed across a system call");
	return done();
}
