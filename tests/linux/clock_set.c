/* Setting the clock: clock_settime(CLOCK_REALTIME) and settimeofday seen
 * at once by the vDSO's clock_gettime, gettimeofday and time and by the
 * system calls, CLOCK_MONOTONIC unmoved; a real time before the monotonic
 * one refused; the time zone read back; adjtimex's state and an inserted
 * leap second (STA_INS at midnight UTC: 23:59:59 twice, TIME_OOP then
 * TIME_WAIT); the clock disciplined: ADJ_TICK and ADJ_FREQUENCY change
 * CLOCK_MONOTONIC's rate against CLOCK_MONOTONIC_RAW's, adjtime and the
 * PLL's ADJ_OFFSET slew it.  Every bad argument's errno, as root and as an ordinary
 * user (EPERM), runs on the host too; what sets the clock runs only in
 * fdkernel: the host's clock is the machine's, shared. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/timex.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#define NS 1000000000LL

static long sys(long nr, long a, long b)
{
	long r = syscall(nr, a, b);
	return r < 0 ? -errno : r;
}

static int64_t ns_of(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts); /* the vDSO */
	return ts.tv_sec * NS + ts.tv_nsec;
}

static int64_t sys_ns_of(clockid_t clk)
{
	struct timespec ts;
	syscall(SYS_clock_gettime, clk, &ts);
	return ts.tv_sec * NS + ts.tv_nsec;
}

/* CLOCK_REALTIME - CLOCK_MONOTONIC, from reads no more than 10 ms apart
 * (a read pair split by a long preemption is taken again). */
static int64_t realtime_offset(void)
{
	for (;;) {
		int64_t r1 = ns_of(CLOCK_REALTIME), m = ns_of(CLOCK_MONOTONIC);
		int64_t r2 = ns_of(CLOCK_REALTIME);
		if (r2 - r1 < NS / 100)
			return r1 - m;
	}
}

static int set_real(int64_t ns)
{
	struct timespec ts = {ns / NS, ns % NS};
	return (int)sys(SYS_clock_settime, CLOCK_REALTIME, (long)&ts);
}

static void errors(void)
{
	struct timespec ts = {1, NS};
	struct timeval tv = {0, -1};
	struct timezone tz = {16 * 60, 0};
	struct timex tx;

	is_int(sys(SYS_clock_settime, CLOCK_REALTIME, (long)&ts), -EINVAL, "tv_nsec 1e9: EINVAL");
	ts.tv_sec = -1, ts.tv_nsec = 0;
	is_int(sys(SYS_clock_settime, CLOCK_REALTIME, (long)&ts), -EINVAL, "tv_sec -1: EINVAL");
	ts.tv_sec = 1;
	is_int(sys(SYS_clock_settime, CLOCK_REALTIME, (long)&ts), -EINVAL,
	       "a real time before the monotonic clock: EINVAL");
	is_int(sys(SYS_clock_settime, CLOCK_MONOTONIC, (long)&ts), -EINVAL,
	       "CLOCK_MONOTONIC: EINVAL");
	is_int(sys(SYS_clock_settime, 10, (long)&ts), -EINVAL, "clock 10: EINVAL");
	is_int(sys(SYS_clock_settime, CLOCK_PROCESS_CPUTIME_ID, (long)&ts), -EINVAL,
	       "CLOCK_PROCESS_CPUTIME_ID: EINVAL");
	clockid_t cpu;
	clock_getcpuclockid(0, &cpu);
	is_int(sys(SYS_clock_settime, cpu, (long)&ts), -EPERM, "a process's CPU clock: EPERM");
	is_int(sys(SYS_clock_settime, CLOCK_REALTIME, 8), -EFAULT, "a bad pointer: EFAULT");
	is_int(sys(SYS_settimeofday, (long)&tv, 0), -EINVAL, "settimeofday tv_usec -1: EINVAL");
	is_int(sys(SYS_settimeofday, 0, (long)&tz), -EINVAL, "a zone 16 hours west: EINVAL");
	is_int(sys(SYS_settimeofday, 0, 8), -EFAULT, "a bad zone pointer: EFAULT");

	memset(&tx, 0, sizeof tx);
	tx.modes = ADJ_TICK, tx.tick = 5000;
	is_int(sys(SYS_adjtimex, (long)&tx, 0), -EINVAL, "adjtimex ADJ_TICK 5000: EINVAL");
	tx.modes = 0x8000; /* ADJ_ADJTIME without ADJ_OFFSET */
	is_int(sys(SYS_adjtimex, (long)&tx, 0), -EINVAL, "ADJ_ADJTIME alone: EINVAL");
	tx.modes = ADJ_FREQUENCY, tx.freq = INT64_MAX / 1000;
	is_int(sys(SYS_adjtimex, (long)&tx, 0), -EINVAL, "an ADJ_FREQUENCY that overflows: EINVAL");
	tx.modes = ADJ_SETOFFSET, tx.time.tv_usec = 1000000;
	is_int(sys(SYS_adjtimex, (long)&tx, 0), -EINVAL, "ADJ_SETOFFSET of 1e6 us: EINVAL");
	is_int(sys(SYS_adjtimex, 8, 0), -EFAULT, "adjtimex of a bad pointer: EFAULT");
	memset(&tx, 0, sizeof tx);
	is_int(sys(SYS_clock_adjtime, CLOCK_MONOTONIC, (long)&tx), -EOPNOTSUPP,
	       "clock_adjtime(CLOCK_MONOTONIC): EOPNOTSUPP");
	is_int(sys(SYS_clock_adjtime, 10, (long)&tx), -EINVAL, "clock_adjtime(10): EINVAL");

	pid_t pid = fork();
	if (pid == 0) {
		struct timespec now;
		struct timex t = {.modes = ADJ_STATUS};
		clock_gettime(CLOCK_REALTIME, &now);
		if (setresuid(65534, 65534, 65534))
			_exit(99);
		int bad = (sys(SYS_clock_settime, CLOCK_REALTIME, (long)&now) != -EPERM) |
			  (sys(SYS_settimeofday, 0, (long)&(struct timezone){0}) != -EPERM) << 1 |
			  (sys(SYS_adjtimex, (long)&t, 0) != -EPERM) << 2;
		t.modes = 0;
		bad |= (sys(SYS_adjtimex, (long)&t, 0) < 0) << 3;
		_exit(bad);
	}
	int status;
	waitpid(pid, &status, 0);
	ok(exited_with(status, 0), "uid 65534: setting is EPERM, reading adjtimex is not (%#x)",
	   WIFEXITED(status) ? WEXITSTATUS(status) : status);
}

static void read_state(void)
{
	struct timex tx;
	struct timeval tv;

	memset(&tx, 0, sizeof tx);
	int state = (int)sys(SYS_adjtimex, (long)&tx, 0);
	gettimeofday(&tv, NULL);
	ok(state >= TIME_OK && state <= TIME_ERROR && tx.tick == 10000 && tx.precision == 1 &&
	       tx.tolerance == 500 << 16 && tx.maxerror >= 0 && tx.time.tv_sec <= tv.tv_sec &&
	       tx.time.tv_sec >= tv.tv_sec - 1,
	   "adjtimex reads the state (%d), tick 10000, tolerance 500 ppm and the time", state);
	memset(&tx, 0, sizeof tx);
	ok(sys(SYS_clock_adjtime, CLOCK_REALTIME, (long)&tx) >= 0 && tx.tick == 10000,
	   "clock_adjtime(CLOCK_REALTIME) reads it too");
}

static void set_and_see(void)
{
	int64_t mono0 = ns_of(CLOCK_MONOTONIC), target = 2000000000LL * NS + 250000000;
	struct itimerspec far = {.it_value = {4000000000LL, 0}};
	struct timeval tv;
	struct timezone tz;
	uint64_t ticks;
	int tfd = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK),
	    plain = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK);

	require(tfd >= 0 && plain >= 0, "timerfd_create");
	timerfd_settime(tfd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &far, NULL);
	timerfd_settime(plain, TFD_TIMER_ABSTIME, &far, NULL);

	is_int(set_real(target), 0, "clock_settime to 2033-05-18 03:33:20.25");
	int64_t v = ns_of(CLOCK_REALTIME), s = sys_ns_of(CLOCK_REALTIME),
		mono1 = ns_of(CLOCK_MONOTONIC);
	ok(v >= target && v < target + 10 * NS && s >= v && s < target + 10 * NS,
	   "the vDSO's clock_gettime and the system call read it (%lld, %lld)", (long long)v,
	   (long long)s);
	ok(time(NULL) >= 2000000000 && time(NULL) < 2000000010, "time() reads it");
	ok(ns_of(CLOCK_REALTIME_COARSE) >= target - NS / 10, "so does CLOCK_REALTIME_COARSE");
	ok(mono1 >= mono0 && mono1 - mono0 < 1000 * NS, "CLOCK_MONOTONIC did not move with it");
	ok(read(tfd, &ticks, 8) == -1 && errno == ECANCELED && read(tfd, &ticks, 8) == -1 &&
	       errno == EAGAIN,
	   "a TFD_TIMER_CANCEL_ON_SET timerfd reads ECANCELED once");
	ok(read(plain, &ticks, 8) == -1 && errno == EAGAIN, "one without the flag is not canceled");
	close(tfd), close(plain);

	tv.tv_sec = 1900000000, tv.tv_usec = 500000;
	tz.tz_minuteswest = -60, tz.tz_dsttime = 0;
	is_int(sys(SYS_settimeofday, (long)&tv, (long)&tz), 0, "settimeofday with a zone");
	memset(&tz, 0x55, sizeof tz);
	syscall(SYS_gettimeofday, &tv, &tz); /* glibc leaves a zone alone */
	ok(tv.tv_sec >= 1900000000 && tv.tv_sec < 1900000010 && tz.tz_minuteswest == -60 &&
	       tz.tz_dsttime == 0,
	   "gettimeofday reads the time and the zone back (%ld, %d)", (long)tv.tv_sec,
	   tz.tz_minuteswest);
	tz.tz_minuteswest = 0;
	sys(SYS_settimeofday, 0, (long)&tz);
}

static int adj_status(int status, struct timex *tx)
{
	memset(tx, 0, sizeof *tx);
	tx->modes = ADJ_STATUS, tx->status = status;
	return (int)sys(SYS_adjtimex, (long)tx, 0);
}

/* STA_INS: the real time repeats 23:59:59, so it ends a second behind the
 * monotonic clock, and adjtimex goes TIME_INS, TIME_OOP, TIME_WAIT. */
static void leap_second(void)
{
	int64_t midnight = (2000000000LL / 86400 + 1) * 86400;
	bool seen[6] = {false};
	struct timex tx;

	set_real((midnight - 3) * NS);
	int64_t before = realtime_offset();
	adj_status(STA_PLL, &tx);
	adj_status(0, &tx);
	adj_status(STA_INS, &tx);
	ok(tx.status & STA_INS, "STA_INS is set");
	int64_t give_up = ns_of(CLOCK_MONOTONIC) + 20 * NS;
	while (ns_of(CLOCK_REALTIME) < (midnight + 1) * NS && ns_of(CLOCK_MONOTONIC) < give_up) {
		int state = adj_status(STA_INS, &tx);
		if (state >= 0 && state <= TIME_ERROR)
			seen[state] = true;
		usleep(100000);
	}
	int64_t lost = before - realtime_offset();
	ok(lost > NS - NS / 10 && lost < NS + NS / 10,
	   "the real time fell a second behind the monotonic one (%lld ns)", (long long)lost);
	ok(seen[TIME_INS] && seen[TIME_OOP] && seen[TIME_WAIT],
	   "adjtimex went TIME_INS, TIME_OOP, TIME_WAIT (%d %d %d)", seen[TIME_INS], seen[TIME_OOP],
	   seen[TIME_WAIT]);
	adj_status(STA_PLL, &tx);
	is_int(adj_status(0, &tx), TIME_OK, "leaving STA_PLL resets the state: TIME_OK");
}

/* CLOCK_MONOTONIC - CLOCK_MONOTONIC_RAW, from reads no more than 20 us
 * apart (a pair split by a preemption is taken again). */
static int64_t disciplined_gap(void)
{
	for (;;) {
		int64_t r1 = sys_ns_of(CLOCK_MONOTONIC_RAW), m = sys_ns_of(CLOCK_MONOTONIC);
		int64_t r2 = sys_ns_of(CLOCK_MONOTONIC_RAW);
		if (r2 - r1 < 20000)
			return m - r1;
	}
}

static long adjtime_us(long modes, long offset)
{
	struct timex tx = {.modes = modes, .offset = offset};
	return sys(SYS_adjtimex, (long)&tx, 0) < 0 ? LONG_MIN : tx.offset;
}

/* How much faster CLOCK_MONOTONIC runs than CLOCK_MONOTONIC_RAW, in ppm,
 * over at least a second of raw time (each gap is within 20 us). */
static int64_t rate_ppm(void)
{
	int64_t raw0 = sys_ns_of(CLOCK_MONOTONIC_RAW), gap0 = disciplined_gap();
	usleep(1000000);
	int64_t raw1 = sys_ns_of(CLOCK_MONOTONIC_RAW), gap1 = disciplined_gap();
	return (gap1 - gap0) * 1000000 / (raw1 - raw0);
}

static struct timex adj(int modes, long value)
{
	struct timex tx = {.modes = modes};
	if (modes & ADJ_TICK)
		tx.tick = value;
	if (modes & ADJ_FREQUENCY)
		tx.freq = value;
	if (modes & ADJ_OFFSET)
		tx.offset = value;
	if (modes & ADJ_STATUS)
		tx.status = (int)value;
	tx.modes = modes;
	sys(SYS_adjtimex, (long)&tx, 0);
	return tx;
}

/* The discipline: the rate follows ADJ_TICK and ADJ_FREQUENCY at once;
 * adjtime slews 500 us a second; the PLL slews a share of its offset a
 * second; the raw clock never moves with any of it. */
static void discipline(void)
{
	int64_t ppm = rate_ppm();
	ok(ppm > -100 && ppm < 100,
	   "undisciplined, CLOCK_MONOTONIC runs at the raw rate (%lld ppm)", (long long)ppm);
	struct timex tx = adj(ADJ_TICK, 11000);
	ppm = rate_ppm();
	ok(tx.tick == 11000 && ppm > 99000 && ppm < 101000,
	   "ADJ_TICK 11000: it runs 10%% fast (%lld ppm)", (long long)ppm);
	adj(ADJ_TICK, 10000);
	tx = adj(ADJ_FREQUENCY, -300L * 65536);
	ppm = rate_ppm();
	ok(tx.freq == -300L * 65536 && ppm > -450 && ppm < -150,
	   "ADJ_FREQUENCY -300 ppm: it runs slow (%lld ppm)", (long long)ppm);
	is_int(adj(ADJ_FREQUENCY, 1000L << 16).freq, 500L << 16,
	       "a frequency past 500 ppm: clamped");
	adj(ADJ_FREQUENCY, 0);

	int64_t gap0 = disciplined_gap();
	is_int(adjtime_us(ADJ_OFFSET_SINGLESHOT, 200000), 0, "adjtime 200 ms: none was pending");
	usleep(2100000); /* at least two second boundaries: one chunk slewed whole */
	long left = adjtime_us(ADJ_OFFSET_SS_READ, 0);
	int64_t slewed = disciplined_gap() - gap0, due = (200000 - left) * 1000LL;
	ok(left < 200000 && left % 500 == 0 && slewed >= due - 500000 - 100000 &&
	       slewed <= due + 100000,
	   "adjtime slews 500 us a second: %ld us left, %lld ns slewed", left, (long long)slewed);
	is_int(adjtime_us(ADJ_OFFSET_SINGLESHOT, 0), left,
	       "adjtime 0 cancels it, returning what was left");

	adj(ADJ_STATUS, STA_PLL);
	tx = adj(ADJ_OFFSET, 100000);
	ok(tx.offset > 90000 && tx.offset <= 100000, "the PLL takes ADJ_OFFSET 100 ms (%ld)",
	   tx.offset);
	usleep(1200000);
	tx = adj(0, 0);
	ok(tx.offset > 0 && tx.offset < 100000, "and slews it away a share a second (%ld left)",
	   tx.offset);
	adj(ADJ_OFFSET, 0);
	adj(ADJ_FREQUENCY, 0);
	adj(ADJ_STATUS, 0);
}

int main(void)
{
	plan(on_fdkernel() ? 44 : 21);
	errors();
	read_state();
	if (!on_fdkernel())
		return done();
	int64_t real0 = ns_of(CLOCK_REALTIME), mono0 = ns_of(CLOCK_MONOTONIC);
	set_and_see();
	leap_second();
	discipline();
	/* the time it would be had nobody set it */
	is_int(set_real(real0 + ns_of(CLOCK_MONOTONIC) - mono0), 0, "the clock set back");
	return done();
}
