/*
 * timerfd: one-shot and interval timers, relative and absolute
 * (CLOCK_MONOTONIC, CLOCK_REALTIME, CLOCK_BOOTTIME), the expiration count,
 * settime's old value and gettime's time left, poll, every errno, and
 * teardown in hostile orders: closing an armed timer, closing while a
 * forked child still holds it, a blocked reader, a signal.
 */
#define _GNU_SOURCE /* CLOCK_BOOTTIME */
#include "event_util.h"

#include <sys/eventfd.h>
#include <sys/timerfd.h>

#define MS	     1000000L /* ns */
#define LCLOCK_CPU   2	      /* Linux's CLOCK_PROCESS_CPUTIME_ID */
#define LCLOCK_MONO  1
#define LCLOCK_ALARM 8 /* CLOCK_REALTIME_ALARM */

static struct itimerspec its(long value_ns, long interval_ns)
{
	return (struct itimerspec){{interval_ns / 1000000000L, interval_ns % 1000000000L},
				   {value_ns / 1000000000L, value_ns % 1000000000L}};
}

static long ns(const struct timespec *ts)
{
	return ts->tv_sec * 1000000000L + ts->tv_nsec;
}

static int arm(int fd, long value_ns, long interval_ns)
{
	struct itimerspec t = its(value_ns, interval_ns);

	return timerfd_settime(fd, 0, &t, NULL);
}

static void check_create(void)
{
	int fd;

	is_errno(syscall(__NR_timerfd_create, LCLOCK_CPU, 0), EINVAL,
		 "CLOCK_PROCESS_CPUTIME_ID: EINVAL");
	is_errno(syscall(__NR_timerfd_create, 12345, 0), EINVAL, "an unknown clock: EINVAL");
	is_errno(syscall(__NR_timerfd_create, -1, 0), EINVAL, "clock -1: EINVAL");
	is_errno(syscall(__NR_timerfd_create, LCLOCK_MONO, TFD_TIMER_ABSTIME), EINVAL,
		 "a settime flag at create: EINVAL");
	is_errno(timerfd_create(CLOCK_MONOTONIC, 0x10), EINVAL, "an unknown flag: EINVAL");
	fd = timerfd_create(CLOCK_REALTIME, 0);
	ok(fd >= 0 && fcntl(fd, F_GETFD) == 0 && (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDWR &&
	       !(fcntl(fd, F_GETFL) & O_NONBLOCK),
	   "CLOCK_REALTIME: read-write, blocking, no fd flag");
	close(fd);
	fd = timerfd_create(CLOCK_BOOTTIME, TFD_NONBLOCK | TFD_CLOEXEC);
	ok(fd >= 0 && (fcntl(fd, F_GETFL) & O_NONBLOCK) && fcntl(fd, F_GETFD) == FD_CLOEXEC,
	   "CLOCK_BOOTTIME, TFD_NONBLOCK | TFD_CLOEXEC");
	close(fd);
	if (fdk_only("TFD_CLOFORK")) {
		fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOFORK);
		is_int(fcntl(fd, F_GETFD), FD_CLOFORK, "TFD_CLOFORK: FD_CLOFORK");
		close(fd);
	}
}

static void check_errors(void)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK), efd = eventfd(0, 0), closed;
	struct itimerspec t = its(0, 0), bad[] = {{{0, 0}, {-1, 0}},
						  {{0, 0}, {0, 1000000000L}},
						  {{0, 0}, {0, -1}},
						  {{-1, 0}, {0, 0}},
						  {{0, 1000000000L}, {1, 0}}};
	uint32_t small;

	closed = next_fd();
	is_int(timerfd_gettime(fd, &t), 0, "gettime of a new timer");
	ok(ns(&t.it_value) == 0 && ns(&t.it_interval) == 0, "... disarmed: all zero");
	is_errno(read8(fd), EAGAIN, "unarmed, non-blocking read: EAGAIN");
	is_int(ready(fd, POLLIN | POLLOUT), 0, "unarmed: not readable (and never writable)");
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		is_errno(timerfd_settime(fd, 0, &bad[i], NULL), EINVAL,
			 "settime value %ld.%ld interval %ld.%ld: EINVAL",
			 (long)bad[i].it_value.tv_sec, bad[i].it_value.tv_nsec,
			 (long)bad[i].it_interval.tv_sec, bad[i].it_interval.tv_nsec);
	is_errno(timerfd_settime(fd, 4, &t, NULL), EINVAL, "settime with an unknown flag: EINVAL");
	is_errno(timerfd_settime(fd, 0, NULL, NULL), EFAULT, "settime of NULL: EFAULT");
	is_errno(timerfd_settime(fd, 0, KERNEL_PTR, NULL), EFAULT,
		 "... of a kernel address: EFAULT");
	is_errno(timerfd_settime(closed, 0, &t, NULL), EBADF, "settime on a closed fd: EBADF");
	is_errno(timerfd_settime(efd, 0, &t, NULL), EINVAL, "settime on an eventfd: EINVAL");
	is_errno(timerfd_settime(-1, 0, &bad[0], NULL), EINVAL,
		 "a bad value is EINVAL before the fd is looked at");
	is_errno(timerfd_gettime(closed, &t), EBADF, "gettime on a closed fd: EBADF");
	is_errno(timerfd_gettime(efd, &t), EINVAL, "gettime on an eventfd: EINVAL");
	is_errno(timerfd_gettime(fd, NULL), EFAULT, "gettime into NULL: EFAULT");
	is_errno(timerfd_settime(fd, 0, &t, KERNEL_PTR), EFAULT,
		 "old value to a kernel address: EFAULT");
	arm(fd, 1, 0);
	is_errno(read(fd, &small, 4), EINVAL, "a 4-byte read: EINVAL");
	is_errno(write8(fd, 1), EINVAL, "a write: EINVAL");
	close(fd);
	close(efd);
}

static void check_oneshot(void)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	struct itimerspec t, old;
	long t0 = now_ms();

	arm(fd, 50 * MS, 0);
	timerfd_gettime(fd, &t);
	ok(ns(&t.it_value) > 0 && ns(&t.it_value) <= 50 * MS && ns(&t.it_interval) == 0,
	   "armed for 50 ms: gettime shows the time left, no interval");
	is_int(read8(fd), 1, "a blocking read returns one expiration");
	ok(now_ms() - t0 >= 40, "... after the 50 ms");
	timerfd_gettime(fd, &t);
	ok(ns(&t.it_value) == 0, "expired one-shot: disarmed");
	arm(fd, 10000 * MS, 300 * MS);
	t = its(0, 0);
	is_int(timerfd_settime(fd, 0, &t, &old), 0, "disarming settime");
	ok(ns(&old.it_value) > 9000 * MS && ns(&old.it_value) <= 10000 * MS &&
	       ns(&old.it_interval) == 300 * MS,
	   "... returns the old value and interval");
	timerfd_gettime(fd, &t);
	ok(ns(&t.it_value) == 0, "... and the timer is disarmed");
	t = (struct itimerspec){{0, 0}, {INT64_MAX, 999999999}};
	timerfd_settime(fd, 0, &t, NULL);
	timerfd_gettime(fd, &t);
	ok(t.it_value.tv_sec > 200L * 365 * 86400, "a value of 2^63 s: armed for centuries");
	close(fd);
}

static void check_interval(void)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	struct itimerspec t;
	int64_t n;

	arm(fd, 20 * MS, 20 * MS);
	sleep_ms(100);
	n = read8(fd);
	ok(n >= 4, "20 ms interval, 100 ms later: at least 4 expirations (%lld)", (long long)n);
	timerfd_gettime(fd, &t);
	ok(ns(&t.it_value) > 0 && ns(&t.it_value) <= 20 * MS && ns(&t.it_interval) == 20 * MS,
	   "... still armed: the time to the next one, the interval");
	struct pollfd p = {fd, POLLIN, 0};
	is_int(poll(&p, 1, 2000), 1, "poll sleeps until the next expiration");
	/* An hour's interval: the next expiration cannot come between the
	 * read and the check however loaded the machine is. */
	arm(fd, 1 * MS, 3600000 * MS);
	is_int(poll(&p, 1, -1), 1, "an hourly timer's first expiration");
	is_int(read8(fd), 1, "... read: 1");
	is_int(ready(fd, POLLIN), 0, "... not readable right after the read");
	arm(fd, 10000 * MS, 0);
	is_errno(read8(fd), EAGAIN, "settime drops expirations not read yet");
	arm(fd, 1 * MS, 1);
	sleep_ms(50);
	n = read8(fd);
	ok(n >= 40000000, "a 1 ns interval: the read counts every period (%lld in 50 ms)",
	   (long long)n);
	close(fd);
}

static void check_abstime(void)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	struct timespec now;
	struct itimerspec t;
	long t0 = now_ms();

	clock_gettime(CLOCK_MONOTONIC, &now);
	t = its(ns(&now) + 50 * MS, 0);
	is_int(timerfd_settime(fd, TFD_TIMER_ABSTIME, &t, NULL), 0, "absolute monotonic deadline");
	is_int(read8(fd), 1, "... a read returns 1");
	ok(now_ms() - t0 >= 40, "... at the deadline");
	close(fd);
	fd = timerfd_create(CLOCK_REALTIME, 0);
	clock_gettime(CLOCK_REALTIME, &now);
	t = its(ns(&now) - 10500 * MS, 1000 * MS);
	timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &t, NULL);
	is_int(read8(fd), 11, "a real-time deadline 10.5 s ago, 1 s interval: 11 expirations");
	t = its(1, 0);
	is_int(timerfd_settime(fd, TFD_TIMER_ABSTIME, &t, NULL), 0, "deadline 1 ns after 1970");
	is_int(read8(fd), 1, "... has expired: 1");
	close(fd);
}

/* Children of the teardown checks: a blocking read that must see an
 * expiration (exit 0). */
static void read_one(int fd)
{
	_exit(read8(fd) >= 1 ? 0 : 1);
}

static void check_teardown(void)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	pid_t pid;

	uint64_t n;

	arm(fd, 10 * MS, 10 * MS);
	close(fd);
	/* Its successor most likely takes its number and its memory: a
	 * tick of the closed timer would show as an expiration here. */
	fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	arm(fd, 3600000 * MS, 0);
	sleep_ms(30);
	is_errno(read(fd, &n, sizeof n), EAGAIN,
		 "closing an armed interval timer: its ticks stop with it");
	close(fd);
	fd = timerfd_create(CLOCK_MONOTONIC, 0);
	arm(fd, 50 * MS, 0);
	fflush(stdout);
	if ((pid = fork()) == 0)
		read_one(fd);
	close(fd);
	ok(reaped_ok(pid), "a forked child holding the last reference still gets the expiration");
	fd = timerfd_create(CLOCK_MONOTONIC, 0);
	fflush(stdout);
	if ((pid = fork()) == 0)
		read_one(fd);
	sleep_ms(30);
	arm(fd, 30 * MS, 0); /* armed by the parent while the child sleeps */
	close(fd);
	ok(reaped_ok(pid), "a blocked reader is woken by an arm made after it slept");
	fd = timerfd_create(CLOCK_MONOTONIC, 0);
	arm(fd, 10000 * MS, 0);
	pid = signal_later(50);
	is_errno(read8(fd), EINTR, "a signal ends a blocked read: EINTR");
	waitpid(pid, NULL, 0);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		arm(fd, 20 * MS, 20 * MS);
		_exit(0); /* exits holding an armed timer the parent shares */
	}
	waitpid(pid, NULL, 0);
	ok(read8(fd) >= 1, "a timer armed by a child that exited still runs for the parent");
	close(fd);
}

int main(void)
{
	int before = next_fd();

	plan(8 + 21 + 8 + 8 + 6 + 5 + 1);
	check_create();
	check_errors();
	check_oneshot();
	check_interval();
	check_abstime();
	check_teardown();
	is_int(next_fd(), before, "no fd left open");
	return done();
}
