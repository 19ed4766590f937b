/*
 * select(2): which bits come back (read, write, both, bits at or above
 * nfds ignored), EBADF for a closed fd, the timeout (0, normalised
 * microseconds, updated with the time left as Linux does), sleeping until
 * another process writes, EINTR, and every errno; ppoll's own checks.
 */
#include "event_util.h"

#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/select.h>

static long tv_ms(const struct timeval *tv)
{
	return tv->tv_sec * 1000 + tv->tv_usec / 1000;
}

/* The time left of a 5 s timeout started at t0 (ms): less than 5 s, no less
 * than the time since explains (a 10 ms tick of rounding).  A bound from
 * the clock, not from a guess at the machine's speed. */
static bool left_of_5s(long left, long t0)
{
	return left < 5000 && left >= 5000 - (now_ms() - t0) - 10;
}

static void check_bits(void)
{
	int p[2], e = eventfd(1, 0), closed;
	fd_set r, w;
	struct timeval zero = {0, 0};

	require(pipe(p) == 0 && e >= 0, "pipe, eventfd");
	closed = next_fd();
	FD_ZERO(&r);
	FD_ZERO(&w);
	FD_SET(p[0], &r);
	FD_SET(p[1], &w);
	is_int(select(p[1] + 1, &r, &w, NULL, &zero), 1, "empty pipe: one bit (the write end)");
	ok(!FD_ISSET(p[0], &r) && FD_ISSET(p[1], &w),
	   "... the read end cleared, the write end set");
	FD_ZERO(&r);
	FD_ZERO(&w);
	FD_SET(e, &r);
	FD_SET(e, &w);
	is_int(select(e + 1, &r, &w, NULL, &zero), 2, "an eventfd at 1 in both sets: 2 bits");
	FD_ZERO(&r);
	FD_SET(p[0], &r);
	FD_SET(closed, &r);
	is_errno(select(closed + 1, &r, NULL, NULL, &zero), EBADF, "a closed fd in a set: EBADF");
	ok(FD_ISSET(closed, &r) && FD_ISSET(p[0], &r), "... the sets are left as they were");
	FD_ZERO(&r);
	FD_SET(e, &r);
	FD_SET(closed, &r);
	is_int(select(closed, &r, NULL, NULL, &zero), 1, "a closed fd at nfds is not looked at");
	ok(FD_ISSET(e, &r) && !FD_ISSET(closed, &r), "... and its bit comes back cleared");
	close(p[1]);
	FD_ZERO(&r);
	FD_ZERO(&w);
	FD_SET(p[0], &r);
	FD_SET(p[0], &w);
	is_int(select(p[0] + 1, &r, &w, NULL, &zero), 1, "writer gone: readable (EOF) only");
	FD_ZERO(&w);
	FD_SET(p[0], &w);
	is_int(select(p[0] + 1, NULL, &w, NULL, &zero), 0,
	       "... its POLLHUP does not make it writable");
	close(p[0]);
	close(e);
}

/* More fds than newlib's 64-bit fd_set: a set of WIDE_WORDS words. */
#define WIDE_FDS   100
#define WIDE_WORDS 4

static bool bit(const uint64_t *set, int fd)
{
	return set[fd / 64] >> (fd % 64) & 1;
}

static void check_wide(void)
{
	int idle = eventfd(0, 0), fds[WIDE_FDS], ready = -1, bits = 0;
	uint64_t set[WIDE_WORDS] = {0};
	struct timeval zero = {0, 0};

	for (int i = 0; i < WIDE_FDS; i++) {
		fds[i] = i == WIDE_FDS / 2 ? (ready = eventfd(1, 0)) : dup(idle);
		require(fds[i] >= 0 && fds[i] < WIDE_WORDS * 64 - 1, "fds for a wide set");
		set[fds[i] / 64] |= 1ULL << (fds[i] % 64);
	}
	is_int(select(fds[WIDE_FDS - 1] + 1, (fd_set *)set, NULL, NULL, &zero), 1,
	       "%d fds over %d words, one ready: 1", WIDE_FDS, (fds[WIDE_FDS - 1] + 64) / 64);
	for (int fd = 0; fd < WIDE_WORDS * 64; fd++)
		bits += bit(set, fd);
	ok(bits == 1 && bit(set, ready), "... only its bit (fd %d) is left", ready);
	close(fds[WIDE_FDS - 1]);
	set[fds[WIDE_FDS - 1] / 64] |= 1ULL << (fds[WIDE_FDS - 1] % 64);
	is_errno(select(fds[WIDE_FDS - 1] + 1, (fd_set *)set, NULL, NULL, &zero), EBADF,
		 "a closed fd in a later word: EBADF");
	for (int i = 0; i < WIDE_FDS - 1; i++)
		close(fds[i]);
	close(idle);
}

/* The raw ppoll (or pselect6) writes the time left to its timespec too;
 * p[0] has the 8 bytes of the last writer still unread. */
static void check_timespec_left(int p[2], bool pselect)
{
	struct timespec ts = {5, 0};
	struct pollfd pfd = {p[0], POLLIN, 0};
	fd_set r;
	uint64_t drain;
	long ret, left, t0;
	pid_t pid;

	read(p[0], &drain, sizeof drain);
	FD_ZERO(&r);
	FD_SET(p[0], &r);
	pid = later8(p[1], 50, 0);
	t0 = now_ms();
	ret = pselect ? syscall(__NR_pselect6, p[0] + 1, &r, NULL, NULL, &ts, NULL)
		      : syscall(__NR_ppoll, &pfd, 1, &ts, NULL, 8);
	left = ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	is_int(ret, 1, "%s sleeps until another process writes", pselect ? "pselect6" : "ppoll");
	ok(left_of_5s(left, t0), "... its timespec shows the time left (%ld ms)", left);
	waitpid(pid, NULL, 0);
}

static void check_timeouts(void)
{
	int p[2];
	fd_set r;
	struct timeval tv = {0, 100000}, odd = {0, 1500000}, neg_sec = {-1, 2000000};
	long t0 = now_ms();
	pid_t pid;

	require(pipe(p) == 0, "pipe");
	FD_ZERO(&r);
	FD_SET(p[0], &r);
	is_int(select(p[0] + 1, &r, NULL, NULL, &tv), 0, "nothing ready in 100 ms: 0");
	ok(now_ms() - t0 >= 90 && !FD_ISSET(p[0], &r), "... after 100 ms, the set cleared");
	ok(tv.tv_sec == 0 && tv.tv_usec == 0, "... the timeout updated to 0 left");
	tv = (struct timeval){0, 50000};
	t0 = now_ms();
	is_int(select(0, NULL, NULL, NULL, &tv), 0, "select of no fds sleeps for the timeout");
	ok(now_ms() - t0 >= 40, "... 50 ms");
	write(p[1], "x", 1);
	FD_SET(p[0], &r);
	is_int(select(p[0] + 1, &r, NULL, NULL, &odd), 1,
	       "tv_usec 1,500,000 is normalised (1.5 s), not EINVAL");
	FD_SET(p[0], &r);
	is_int(select(p[0] + 1, &r, NULL, NULL, &neg_sec), 1, "... so is {-1 s, 2,000,000 us}");
	read(p[0], &tv, 1);
	tv = (struct timeval){5, 0};
	pid = later8(p[1], 50, 0);
	FD_SET(p[0], &r);
	t0 = now_ms();
	is_int(select(p[0] + 1, &r, NULL, NULL, &tv), 1,
	       "select sleeps until another process writes");
	ok(left_of_5s(tv_ms(&tv), t0), "... the timeout shows the time left (%ld ms)", tv_ms(&tv));
	waitpid(pid, NULL, 0);
	check_timespec_left(p, false);
	check_timespec_left(p, true);
	close(p[0]);
	close(p[1]);
}

static void check_eintr(void)
{
	int p[2];
	fd_set r;
	pid_t pid;

	require(pipe(p) == 0, "pipe");
	FD_ZERO(&r);
	FD_SET(p[0], &r);
	pid = signal_later(50);
	is_errno(select(p[0] + 1, &r, NULL, NULL, NULL), EINTR, "a signal ends select: EINTR");
	ok(got_signal && FD_ISSET(p[0], &r), "... after its handler, the set untouched");
	waitpid(pid, NULL, 0);
	close(p[0]);
	close(p[1]);
}

static void check_errors(void)
{
	struct timeval bad[] = {{0, -1}, {-1, 0}, {-1, 999999}};
	struct timespec badts = {0, 1000000000L}, ts = {0, 0};
	struct pollfd pfd = {0, POLLIN, 0};
	struct rlimit rl;
	uint64_t mask = 0;
	fd_set r;

	FD_ZERO(&r);
	is_errno(select(-1, &r, NULL, NULL, NULL), EINVAL, "nfds -1: EINVAL");
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		is_errno(select(1, &r, NULL, NULL, &bad[i]), EINVAL, "timeout {%ld, %ld}: EINVAL",
			 (long)bad[i].tv_sec, (long)bad[i].tv_usec);
	is_errno(select(1, KERNEL_PTR, NULL, NULL, NULL), EFAULT, "a kernel-address set: EFAULT");
	is_errno(select(1, &r, NULL, NULL, KERNEL_PTR), EFAULT, "a kernel-address timeout: EFAULT");
	is_errno(syscall(__NR_ppoll, &pfd, 1, &badts, NULL, 8), EINVAL,
		 "ppoll with tv_nsec 1e9: EINVAL");
	is_errno(syscall(__NR_ppoll, &pfd, 1, &ts, &mask, 4), EINVAL,
		 "ppoll, sigsetsize 4: EINVAL");
	is_errno(syscall(__NR_ppoll, &pfd, 1, &ts, KERNEL_PTR, 8), EFAULT,
		 "ppoll, a kernel-address mask: EFAULT");
	getrlimit(RLIMIT_NOFILE, &rl);
	is_errno(syscall(__NR_ppoll, &pfd, rl.rlim_cur + 1, &ts, NULL, 8), EINVAL,
		 "ppoll, nfds > RLIMIT_NOFILE: EINVAL");
	is_errno(syscall(__NR_pselect6, 1, &r, NULL, NULL, &ts, KERNEL_PTR), EFAULT,
		 "pselect6, a kernel-address mask pack: EFAULT");
	is_errno(syscall(__NR_pselect6, 1, &r, NULL, NULL, &ts,
			 (unsigned long[2]){(unsigned long)&mask, 4}),
		 EINVAL, "pselect6, sigsetsize 4: EINVAL");
	is_int(syscall(__NR_pselect6, 1, &r, NULL, NULL, &ts, (unsigned long[2]){0, 4}), 0,
	       "pselect6, no mask: the size is not looked at");
}

int main(void)
{
	int before = next_fd();

	plan(9 + 3 + 13 + 2 + 13 + 1);
	check_bits();
	check_wide();
	check_timeouts();
	check_eintr();
	check_errors();
	is_int(next_fd(), before, "no fd left open");
	return done();
}
