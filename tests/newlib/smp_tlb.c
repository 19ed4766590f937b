/* Threads on two CPUs at once (the default unless smp=off, docs/smp.md): getcpu
 * names both CPUs, and a page unmapped or made read-only by one thread
 * faults at once in a thread that runs on the other CPU and had it in its
 * TLB (TLB shootdown).  The two threads of a check are bound to two CPUs
 * (sched_setaffinity).  Skipped where tasks run on one CPU. */
#include <fdkernel.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "thread.h"

#define NR_sched_setaffinity 203
#define NR_sched_getaffinity 204
#define NR_getcpu	     309

#define PATIENCE_NS 5000000000LL /* on a loaded host, threads may wait to spread */

static volatile char *page;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
static int changed, spinner_cpu = -1;
static uint64_t cpus; /* the CPUs tasks run on: two of them are used */

static int cpu_now(void)
{
	unsigned int cpu = ~0u;

	return thread_sys(NR_getcpu, &cpu, 0, 0) ? -1 : (int)cpu;
}

/* Binds the calling thread to the first CPU of cpus, or with second to the
 * next one: the two threads of a check then run on two CPUs at once even
 * where a loaded host's scheduler would keep them on one. */
static void bind_self(bool second)
{
	uint64_t mask = cpus & -cpus;

	if (second)
		mask = (cpus & ~mask) & -(cpus & ~mask);
	thread_sys(NR_sched_setaffinity, 0, sizeof mask, &mask);
}

/* Keeps the page in this CPU's TLB until the other thread changed it,
 * then touches it once more: reading (unmap) or writing (read-only). */
static int spinner(void *arg)
{
	long write = (long)arg;

	bind_self(true);
	spinner_cpu = cpu_now();
	while (!__atomic_load_n(&changed, __ATOMIC_ACQUIRE))
		(void)page[0];
	if (write)
		page[0] = 2;
	else
		(void)page[0];
	return 0; /* not reached if the CPU's stale entry was dropped */
}

/* In a child: the spinner on one CPU, this thread changes the page on the
 * other.  Exits 0 if the spinner went on through a stale entry, 3 if the
 * two threads never ran on different CPUs; SIGSEGV is the pass. */
static void child(long write)
{
	struct thread t;
	int mine = -1;

	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	page[0] = 1;
	bind_self(false);
	if (thread_start(&t, spinner, (void *)write) < 0)
		_exit(4);
	/* Wait until the spinner runs, on a CPU other than this one. */
	for (long long end = now_ns() + PATIENCE_NS; now_ns() < end;) {
		mine = cpu_now();
		if (__atomic_load_n(&spinner_cpu, __ATOMIC_RELAXED) >= 0 && spinner_cpu != mine)
			break;
		thread_sys(__NR_sched_yield, 0, 0, 0);
	}
	if (spinner_cpu < 0 || spinner_cpu == mine)
		_exit(3);
	if (write)
		mprotect((void *)page, 4096, PROT_READ);
	else
		munmap((void *)page, 4096);
	__atomic_store_n(&changed, 1, __ATOMIC_RELEASE);
	thread_join(&t);
	_exit(0);
}

static void check(long write, const char *what)
{
	int status = 0;
	pid_t pid = fork();

	if (pid == 0)
		child(write);
	waitpid(pid, &status, 0);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV,
	   "%s on one CPU: the thread on the other faults at once (status %#x)", what, status);
}

/* getcpu from two busy threads names two CPUs (each bound to its own, as
 * the checks' threads are: a loaded host may otherwise keep both on one). */
static int busy_stop, busy_cpu = -1;

static int busy(void *arg)
{
	(void)arg;
	bind_self(true);
	while (!__atomic_load_n(&busy_stop, __ATOMIC_RELAXED))
		busy_cpu = cpu_now();
	return 0;
}

int main(void)
{
	struct thread t;
	int seen = 0;

	if (syscall(NR_sched_getaffinity, 0, sizeof cpus, &cpus) < 0 ||
	    __builtin_popcountll(cpus) < 2)
		skip_all("tasks run on one CPU (make test runs this at -smp 2)");
	plan(3);
	bind_self(false);
	thread_start(&t, busy, NULL);
	for (long long end = now_ns() + PATIENCE_NS; now_ns() < end && seen != 3;) {
		int c = cpu_now(), other = __atomic_load_n(&busy_cpu, __ATOMIC_RELAXED);
		if (other >= 0 && other != c)
			seen = 3;
	}
	__atomic_store_n(&busy_stop, 1, __ATOMIC_RELAXED);
	thread_join(&t);
	ok(seen == 3, "getcpu: two threads run on two CPUs at once");
	check(0, "munmap");
	check(1, "mprotect(PROT_READ)");
	return done();
}
