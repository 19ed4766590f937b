/*
 * Time: clocks (clock ids translated), sleeping, alarm, the interval
 * timers and times().  struct timespec, timeval, itimerval and tms have
 * Linux's layout in newlib, and ITIMER_* Linux's values.
 */
#include <errno.h>
#include <sys/time.h>
#include <sys/times.h>
#include <time.h>
#include <unistd.h>

#include "syscall.h"
#include "translate.h"

int gettimeofday(struct timeval *tv, void *tz)
{
	return sys_call(__NR_gettimeofday, tv, tz);
}

int clock_gettime(clockid_t clock, struct timespec *ts)
{
	long lclock = clock_to_linux(clock);

	if (lclock < 0) {
		errno = EINVAL;
		return -1;
	}
	return sys_call(__NR_clock_gettime, lclock, ts);
}

clock_t times(struct tms *buf)
{
	return sys_call(__NR_times, buf);
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
	return sys_call(__NR_nanosleep, req, rem);
}

/* Returns the seconds left when a signal cut the sleep short. */
unsigned sleep(unsigned seconds)
{
	struct timespec req = {seconds, 0}, rem;

	if (nanosleep(&req, &rem) < 0 && errno == EINTR)
		return rem.tv_sec + (rem.tv_nsec > 0);
	return 0;
}

int usleep(useconds_t usec)
{
	struct timespec req = {usec / 1000000, (long)(usec % 1000000) * 1000};

	return nanosleep(&req, NULL);
}

unsigned alarm(unsigned seconds)
{
	return sys_raw(__NR_alarm, seconds);
}

int getitimer(int which, struct itimerval *value)
{
	return sys_call(__NR_getitimer, which, value);
}

int setitimer(int which, const struct itimerval *value, struct itimerval *old)
{
	return sys_call(__NR_setitimer, which, value, old);
}
