/* A signal for a thread or process computing in user mode on another CPU
 * arrives at once, not at that CPU's next timer tick: the kernel interrupts
 * the CPU (Linux: kick_process, a reschedule IPI).  Each round reads the
 * target CPU's reschedule-interrupt count (the RES row of /proc/interrupts)
 * before the signal is sent and after its handler ran: a kicked delivery
 * moves it.  This counts the mechanism, not the time it takes, so a loaded
 * host cannot fail it (it once raced the target CPU's timer tick).  In
 * fdkernel a round goes unkicked only when the target was switched out
 * at the moment of the send (a kernel thread or another process took CPU 1
 * for a tick: seen once in 21 rounds on a loaded host), and without kicks
 * no round moves the count, so two rounds in three must be kicked; on the
 * host Linux the target may not be running when the signal is sent (the
 * host may deschedule it), so one kicked round is the test.
 * Needs two CPUs: the sender is bound to CPU 0, the target to CPU 1. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "threads.h"

#define ROUNDS 21

static volatile long handled_ns;
static volatile unsigned long spins;
static volatile int spinner_cpu = -1;
static volatile int ask_cpu; /* the spinner reads its CPU, then clears it */
static volatile int stop;

static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* CPU cpu's reschedule interrupts (the RES row of /proc/interrupts), or
 * -1 if there is no such row or column. */
static long resched_interrupts(int cpu)
{
	static char buf[16384];
	char *p, *end;
	long n;

	if (read_text("/proc/interrupts", buf, sizeof buf) < 0 || !(p = strstr(buf, "RES:")))
		return -1;
	p += 4;
	for (int i = 0; (n = strtol(p, &end, 10)) >= 0 && end != p; p = end, i++)
		if (i == cpu)
			return n;
	return -1;
}

static void on_signal(int sig)
{
	(void)sig;
	handled_ns = now_ns();
}

/* Binds the calling thread to cpu. */
static void bind_to(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	sched_setaffinity(0, sizeof s, &s);
}

/* Computes in user mode on CPU 1, entering the kernel only when asked for
 * its CPU: a system call's way out would take the signal without a kick. */
static void *spinner(void *arg)
{
	(void)arg;
	bind_to(1); /* the main thread is on CPU 0: two CPUs even on a loaded host */
	while (!stop) {
		spins++;
		if (ask_cpu) {
			spinner_cpu = sched_getcpu();
			ask_cpu = 0;
		}
	}
	return NULL;
}

/* Waits until the spinner computes (its count moves) on another CPU than
 * this thread: true if it did within ten seconds (a loaded host may keep a
 * CPU of the guest from running for a while). */
static bool spinner_elsewhere(void)
{
	long end = now_ns() + 10000000000L;

	while (now_ns() < end) {
		ask_cpu = 1;
		while (ask_cpu && now_ns() < end)
			;
		unsigned long before = spins;
		long until = now_ns() + 200000;

		while (now_ns() < until)
			;
		if (spins != before && spinner_cpu != sched_getcpu())
			return true;
	}
	return false;
}

struct rounds {
	int kicked;	 /* the target's CPU took a reschedule interrupt meanwhile */
	const char *bad; /* why the rounds could not be played, or NULL */
};

/* How many kicked rounds of ROUNDS the test asks for (see the top). */
static int kicks_wanted(void)
{
	return on_fdkernel() ? 2 * ROUNDS / 3 : 1;
}

/* ROUNDS signals sent by send(arg), each while the spinner computes on
 * another CPU. */
static struct rounds play(void (*send)(void *), void *arg)
{
	struct rounds r = {0, NULL};

	for (int i = 0; i < ROUNDS; i++) {
		if (!spinner_elsewhere())
			return (struct rounds){0, "the threads never ran on two CPUs at once"};
		int cpu = spinner_cpu;
		long kicks = resched_interrupts(cpu);

		handled_ns = 0;
		send(arg);
		while (!handled_ns) /* a hang here is a lost signal: runtests' timeout */
			;
		r.kicked += resched_interrupts(cpu) != kicks;
	}
	return r;
}

static void check(struct rounds r, const char *what)
{
	if (r.bad && !strcmp(r.bad, "the threads never ran on two CPUs at once"))
		skip(r.bad, what); /* a loaded host's Linux may keep both on one */
	else
		ok(!r.bad && r.kicked >= kicks_wanted(),
		   "%s: its CPU was interrupted in %d of %d rounds (at least %d wanted)%s%s", what,
		   r.kicked, ROUNDS, kicks_wanted(), r.bad ? ": " : "", r.bad ? r.bad : "");
}

static void send_thread(void *arg)
{
	pthread_kill(*(pthread_t *)arg, SIGUSR1);
}

static void send_process(void *arg)
{
	(void)arg;
	kill(getpid(), SIGUSR2); /* only the spinner leaves SIGUSR2 unblocked */
}

/* What a child computing on CPU 1 shows its parent (a shared page). */
struct child_state {
	volatile unsigned long spins;
	volatile int cpu;
};

/* Waits until the child computes (its count moves) on CPU 1: true if it did
 * within ten seconds (see spinner_elsewhere). */
static bool child_computes(struct child_state *c)
{
	long end = now_ns() + 10000000000L;

	while (now_ns() < end) {
		unsigned long before = c->spins;
		long until = now_ns() + 200000;

		while (now_ns() < until)
			;
		if (c->cpu == 1 && c->spins != before)
			return true;
	}
	return false;
}

/* A child computes on CPU 1; SIGKILL ends it.  A round is kicked when CPU 1
 * took a reschedule interrupt from the kill to the reaping.  Rounds where
 * the child was not seen computing there are not played. */
static void check_kill(void)
{
	struct child_state *c =
	    mmap(NULL, sizeof *c, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int kicked = 0, played = 0;

	require(c != MAP_FAILED, "mmap");
	for (int i = 0; i < ROUNDS; i++) {
		c->cpu = -1;
		pid_t pid = fork();
		int status;

		if (pid == 0) {
			bind_to(1); /* this process stays on CPU 0 */
			c->cpu = sched_getcpu();
			for (;;)
				c->spins++;
		}
		require(pid > 0, "fork");
		bool computes = child_computes(c);
		long kicks = resched_interrupts(1);
		kill(pid, SIGKILL);
		if (waitpid(pid, &status, 0) != pid || !WIFSIGNALED(status))
			break;
		played += computes;
		kicked += computes && resched_interrupts(1) != kicks;
	}
	munmap(c, sizeof *c);
	if (!played)
		skip("the child never computed on CPU 1", "SIGKILL to a process on another CPU");
	else
		ok(kicked >= (on_fdkernel() ? played : 1),
		   "SIGKILL to a process computing on another CPU: its CPU was interrupted in %d "
		   "of %d rounds",
		   kicked, played);
}

int main(void)
{
	cpu_set_t cpus;
	sigset_t usr2;
	pthread_t t;

	if (sched_getaffinity(0, sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) < 2)
		skip_all("one CPU");
	if (resched_interrupts(1) < 0)
		skip_all("no RES count for CPU 1 in /proc/interrupts");
	plan(3);
	signal(SIGUSR1, on_signal);
	signal(SIGUSR2, on_signal);
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	bind_to(0);
	t = start_thread(spinner, NULL);
	pthread_sigmask(SIG_BLOCK, &usr2, NULL); /* after the spinner inherited the mask */
	check(play(send_thread, &t), "pthread_kill to a thread computing on another CPU");
	check(play(send_process, NULL), "kill to its process, which only that thread takes");
	stop = 1;
	pthread_join(t, NULL);
	check_kill();
	return done();
}
