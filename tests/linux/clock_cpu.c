/* CPU-time clocks and clock resolutions as Linux gives them: the process
 * and thread CPU clocks (static ids and the encoded ones of
 * clock_getcpuclockid/pthread_getcpuclockid) advance with work, never go
 * back, and refuse other processes' threads; the coarse clocks report the
 * tick as their resolution, the others that of their timers; clock_nanosleep refuses the thread CPU
 * clock (EOPNOTSUPP raw, EINVAL for the caller's own encoded thread clock) and unknown clocks
 * (EINVAL). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

static long long ns(struct timespec ts)
{
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long cpu_ns(clockid_t c)
{
	struct timespec ts;

	return clock_gettime(c, &ts) ? -1 : ns(ts);
}

/* Spins until clock c moved past start (at most a few seconds of CPU). */
static long long spin_until_moved(clockid_t c, long long start)
{
	long long now = start;

	for (long i = 0; i < 4000000000L && now == start; i++)
		if (!(i & 0xffff))
			now = cpu_ns(c);
	return now;
}

static long raw_nanosleep(clockid_t c, int flags, const struct timespec *req)
{
	return syscall(SYS_clock_nanosleep, c, flags, req, NULL) ? errno : 0;
}

int main(void)
{
	struct timespec res, req = {0, 1000000};
	clockid_t pc, tc;
	long long p0, t0;

	plan(14);
	/* The thread's first: a tick between the two reads then counts in
	 * p0, so the process clock moving past p0 means a later tick, which
	 * the thread clock has too (read the other way, it may not). */
	t0 = cpu_ns(CLOCK_THREAD_CPUTIME_ID);
	p0 = cpu_ns(CLOCK_PROCESS_CPUTIME_ID);
	ok(p0 >= 0 && t0 >= 0, "process and thread CPU clocks read");
	ok(spin_until_moved(CLOCK_PROCESS_CPUTIME_ID, p0) > p0,
	   "the process CPU clock advances with work");
	ok(cpu_ns(CLOCK_THREAD_CPUTIME_ID) > t0, "so does the thread CPU clock");
	t0 = cpu_ns(CLOCK_THREAD_CPUTIME_ID);
	ok(cpu_ns(CLOCK_PROCESS_CPUTIME_ID) >= t0, "the process has at least its thread's time");

	ok(clock_getcpuclockid(0, &pc) == 0 && cpu_ns(pc) >= p0,
	   "clock_getcpuclockid(0) names the process clock");
	ok(pthread_getcpuclockid(pthread_self(), &tc) == 0 && cpu_ns(tc) >= t0,
	   "pthread_getcpuclockid names the thread clock");
	pid_t child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	clockid_t cc;
	ok(clock_getcpuclockid(child, &cc) == 0 && cpu_ns(cc) >= 0,
	   "another process's CPU clock reads");
	/* A thread clock of another process's thread is no clock of ours. */
	clockid_t foreign = (clockid_t)((~(unsigned)child << 3) | 4 | 2);
	errno = 0;
	is_errno(clock_gettime(foreign, &res), EINVAL, "another process's thread clock: EINVAL");
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);

	struct timespec coarse = {-1, -1}, mono = {-1, -1}, real = {-1, -1}, boot = {-1, -1};
	int err = clock_getres(CLOCK_MONOTONIC_COARSE, &coarse);
	ok(err == 0 && coarse.tv_sec == 0 && coarse.tv_nsec > 1000 && coarse.tv_nsec <= 10000000,
	   "CLOCK_MONOTONIC_COARSE's resolution is the tick (%ld ns)", coarse.tv_nsec);
	/* The other clocks report the resolution of the timers armed on them:
	 * 1 ns with Linux's high-resolution timers, the tick in its
	 * low-resolution mode and in fdkernel, whose timers fire on the tick. */
	err = clock_getres(CLOCK_MONOTONIC, &mono) | clock_getres(CLOCK_REALTIME, &real) |
	      clock_getres(CLOCK_BOOTTIME, &boot);
	ok(err == 0 && mono.tv_sec == 0 && mono.tv_nsec > 0 && mono.tv_nsec <= coarse.tv_nsec &&
	       real.tv_nsec == mono.tv_nsec && boot.tv_nsec == mono.tv_nsec,
	   "MONOTONIC, REALTIME and BOOTTIME share a timer resolution, at most the tick (%ld ns)",
	   mono.tv_nsec);
	if (on_fdkernel())
		is_int(mono.tv_nsec, coarse.tv_nsec,
		       "fdkernel's timers fire on the tick: their resolution");
	else
		skip("Linux", "fdkernel's timers fire on the tick: their resolution");

	is_int(raw_nanosleep(CLOCK_THREAD_CPUTIME_ID, 0, &req), EOPNOTSUPP,
	       "clock_nanosleep(CLOCK_THREAD_CPUTIME_ID): EOPNOTSUPP");
	is_int(raw_nanosleep(tc, 0, &req), EINVAL,
	       "clock_nanosleep on the caller's own encoded thread clock: EINVAL");
	is_int(raw_nanosleep(12345, 0, &req), EINVAL, "clock_nanosleep on no clock: EINVAL");
	return done();
}
