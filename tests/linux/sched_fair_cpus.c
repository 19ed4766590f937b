/* The fair class across CPUs: a CPU-bound process on one CPU does not
 * starve a task woken there because another CPU ran new tasks placed far
 * ahead in virtual time (a nice 19 one starts a tick of its weight, 68
 * nice 0 ticks, ahead); and a storm of wake-ups across CPUs, each a
 * signal to a thread asleep in sigwaitinfo, ends.  Nothing here depends
 * on speed: the first compares the hog's CPU time with the rounds the
 * woken task made meanwhile, the second only has to end. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "threads.h"
#include "sched_attr.h"

#define FORKS  20 /* children of a nice 19 process on the other CPU */
#define ROUNDS 20 /* pipe round trips of the woken task */
/* The hog's CPU time while they last: a tick or two a round at most when
 * the woken task gets its turn; FORKS * 680 ms if it waits for the hog's
 * virtual time to catch up with the other CPU's. */
#define HOG_MS_MAX 2000
#define RING	   4   /* threads passing the signal on */
#define LAPS	   300 /* times round the ring */

static int cpu_a, cpu_b;
static cpu_set_t all_cpus; /* this process's mask at the start */

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	require(sched_setaffinity(0, sizeof set, &set) == 0, "sched_setaffinity");
}

/* The first two CPUs this process may run on; false if it has one. */
static bool two_cpus(void)
{
	int found = 0;

	require(sched_getaffinity(0, sizeof all_cpus, &all_cpus) == 0, "sched_getaffinity");
	for (int cpu = 0; cpu < CPU_SETSIZE && found < 2; cpu++)
		if (CPU_ISSET(cpu, &all_cpus))
			*(found++ ? &cpu_b : &cpu_a) = cpu;
	return found == 2;
}

/* A child on cpu_a that spins until killed. */
static pid_t fork_hog(void)
{
	pid_t pid = fork();

	require(pid >= 0, "fork");
	if (pid == 0) {
		pin(cpu_a);
		for (;;)
			;
	}
	return pid;
}

/* A child on cpu_b at nice 19 that forks FORKS children one at a time,
 * each of which exits at once; its status. */
static int nice_forker(void)
{
	pid_t pid = fork();

	require(pid >= 0, "fork");
	if (pid == 0) {
		pin(cpu_b);
		if (setpriority(PRIO_PROCESS, 0, 19))
			_exit(1);
		for (int i = 0; i < FORKS; i++) {
			pid_t child = fork();
			if (child == 0)
				_exit(0);
			if (child < 0 || !exited_with(reap(child), 0))
				_exit(1);
		}
		_exit(0);
	}
	return reap(pid);
}

/* A child on cpu_b that sends back the ROUNDS bytes it reads. */
static pid_t fork_echo(int in, int out)
{
	pid_t pid = fork();
	char c;

	require(pid >= 0, "fork");
	if (pid == 0) {
		pin(cpu_b);
		for (int i = 0; i < ROUNDS; i++)
			if (read(in, &c, 1) != 1 || write(out, &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	return pid;
}

/* A hog on cpu_a; a nice 19 process forking on cpu_b; then this process
 * moves to cpu_a, beside the hog, and makes ROUNDS round
 * trips through the echo on cpu_b, woken on cpu_a each time. */
static void hog_and_waker(void)
{
	int to[2], back[2], rounds = 0;
	char c = 'x';

	pid_t hog = fork_hog();
	require(exited_with(nice_forker(), 0), "the nice 19 process and its children");
	require(pipe(to) == 0 && pipe(back) == 0, "pipe");
	pid_t echo = fork_echo(to[0], back[1]);
	long hog_ms = cpu_ms(hog);
	pin(cpu_a);
	while (rounds < ROUNDS && write(to[1], &c, 1) == 1 && read(back[0], &c, 1) == 1)
		rounds++;
	hog_ms = cpu_ms(hog) - hog_ms;
	kill(hog, SIGKILL);
	reap(hog);
	int status = reap(echo);
	for (int i = 0; i < 2; i++)
		close(to[i]), close(back[i]);
	ok(rounds == ROUNDS && exited_with(status, 0) && hog_ms < HOG_MS_MAX,
	   "a task woken beside a hog gets its CPU at once, whatever other CPUs ran "
	   "(%d round trips while the hog ran %ld ms)",
	   rounds, hog_ms);
}

static pid_t ring_tid[RING];
static volatile int passes;

/* Ring member i: waits for SIGUSR1 in sigwaitinfo, passes it on. */
static void *ring_member(void *arg)
{
	int i = (int)(intptr_t)arg;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	__atomic_store_n(&ring_tid[i], (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	for (int lap = 0; lap < LAPS; lap++) {
		if (sigwaitinfo(&set, NULL) != SIGUSR1)
			return (void *)1;
		__atomic_add_fetch(&passes, 1, __ATOMIC_RELAXED);
		/* The last member's last pass has no one left to wake. */
		if ((i < RING - 1 || lap < LAPS - 1) &&
		    syscall(SYS_tgkill, getpid(), ring_tid[(i + 1) % RING], SIGUSR1))
			return (void *)2;
	}
	return NULL;
}

/* RING threads, on any of this process's CPUs, beside a hog on cpu_a: a signal goes round
 * LAPS times, each pass a wake-up of a thread asleep in sigwaitinfo. */
static void signal_ring(void)
{
	pthread_t t[RING];
	sigset_t set;
	int bad = 0;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	require(sigprocmask(SIG_BLOCK, &set, NULL) == 0, "sigprocmask");
	require(sched_setaffinity(0, sizeof all_cpus, &all_cpus) == 0, "sched_setaffinity");
	pid_t hog = fork_hog();
	for (int i = 0; i < RING; i++)
		t[i] = start_thread(ring_member, (void *)(intptr_t)i);
	for (int i = 0; i < RING; i++)
		while (!__atomic_load_n(&ring_tid[i], __ATOMIC_ACQUIRE))
			sched_yield();
	require(syscall(SYS_tgkill, getpid(), ring_tid[0], SIGUSR1) == 0, "tgkill");
	for (int i = 0; i < RING; i++) {
		void *ret;
		pthread_join(t[i], &ret);
		bad += ret != NULL;
	}
	kill(hog, SIGKILL);
	reap(hog);
	ok(!bad && passes == RING * LAPS,
	   "a signal passed %d times round %d threads asleep in sigwaitinfo, beside a hog", passes,
	   RING);
}

int main(void)
{
	if (!two_cpus())
		skip_all("one CPU");
	plan(2);
	hog_and_waker();
	signal_ring();
	return done();
}
