/*
 * select, pselect6 and ppoll: argument checking and translation onto the
 * one poll core (poll_kernel in fs/event/poll.c).  select's fd sets become a
 * poll array and back; the signal masks of pselect6 and ppoll are applied
 * as syscall_indirect's SYSIND_SIGMASK is (signal_set_temporary_mask), so
 * each is exactly syscall_indirect(SYSIND_SIGMASK, mask, select or poll).
 */
#include "arch/x86_64/timer.h"
#include "arch/x86_64/uaccess.h"
#include "fd/fdtable.h"
#include "fs/event/poll.h"
#include "mm/heap.h"
#include "sched/ktimer.h"
#include "proc/signal.h"
#include "proc/task.h"
#include "sched/wait.h"
#include "sys/syscall.h"
#include <uapi/personality.h>
#include <uapi/errno.h>

/* Linux's select sets (fs/event/select.c): what readiness marks each set. */
#define IN_SET	(POLLIN | POLLRDNORM | POLLRDBAND | POLLHUP | POLLERR)
#define OUT_SET (POLLOUT | POLLWRNORM | POLLWRBAND | POLLERR)
#define EX_SET	POLLPRI

#define USEC_PER_SEC 1000000L
#define WORD_BITS    64

struct timeval_k {
	int64_t tv_sec, tv_usec;
};

/* pselect6's sixth argument: the mask and its size, in one struct. */
struct sigset_argpack {
	const uint64_t *set;
	uint64_t size;
};

/* --- Timeouts: a deadline in, the time left out (poll_select_finish). --- */

/* The deadline of a timeout of sec + nsec from now: 0 for a zero timeout
 * (check once), or -EINVAL when negative or nsec is out of [0, 1e9). */
static long deadline_after(int64_t sec, int64_t nsec, uint64_t *deadline)
{
	if (sec < 0 || nsec < 0 || nsec >= NSEC_PER_SEC)
		return -EINVAL;
	/* now + KTIME_MAX cannot overflow (ktimer.h) */
	*deadline = !sec && !nsec ? 0 : clock_monotonic_ns() + (uint64_t)ktime_from(sec, nsec);
	return 0;
}

long poll_timespec_deadline(const struct timespec_k *uts, uint64_t *deadline)
{
	struct timespec_k ts;

	*deadline = POLL_FOREVER;
	if (!uts)
		return 0;
	if (copy_from_user(&ts, uts, sizeof(ts)))
		return -EFAULT;
	return deadline_after(ts.tv_sec, ts.tv_nsec, deadline);
}

/* select normalises tv_usec first, as Linux does: 1 s + 1,500,000 us is
 * 2.5 s, and only what stays negative is EINVAL (so is a sum that
 * overflows, which Linux wraps to garbage). */
static long timeval_deadline(const struct timeval_k *utv, uint64_t *deadline)
{
	struct timeval_k tv;
	int64_t sec;

	*deadline = POLL_FOREVER;
	if (!utv)
		return 0;
	if (copy_from_user(&tv, utv, sizeof(tv)))
		return -EFAULT;
	if (__builtin_add_overflow(tv.tv_sec, tv.tv_usec / USEC_PER_SEC, &sec))
		return -EINVAL;
	return deadline_after(sec, tv.tv_usec % USEC_PER_SEC * NSEC_PER_USEC, deadline);
}

/*
 * Writes the time left before deadline to the user's timeout, as Linux
 * does for select, pselect6 and ppoll (not for a zero timeout or none).
 * If that fails an interrupted call is not restarted (its timeout could
 * not be kept): EINTR.
 */

static long timeout_finish(uint64_t deadline, void *utimeout, bool timeval, long ret)
{
	uint64_t now = clock_monotonic_ns(), left = deadline > now ? deadline - now : 0;
	struct timespec_k ts = {left / NSEC_PER_SEC, left % NSEC_PER_SEC};
	struct timeval_k tv = {ts.tv_sec, ts.tv_nsec / NSEC_PER_USEC};
	int err;

	if (!utimeout || !deadline)
		return ret;
	/* personality(STICKY_TIMEOUTS): the timeout is left as given, and so
	 * the call cannot restart with it (Linux's poll_select_finish). */
	if (current()->personality & STICKY_TIMEOUTS)
		return ret == -ERESTARTNOHAND ? -EINTR : ret;
	err = timeval ? copy_to_user(utimeout, &tv, sizeof(tv))
		      : copy_to_user(utimeout, &ts, sizeof(ts));
	return err && ret == -ERESTARTNOHAND ? -EINTR : ret;
}

/* --- select: fd sets <-> a poll array. --- */

/* The three fd sets of a select, n bits each: in[] as given, out[] ready. */
struct fd_sets {
	uint64_t *in[3], *out[3];
	size_t words;
};

static const short set_events[3] = {IN_SET, OUT_SET, EX_SET};

/* Copies the user sets in (a NULL one reads as empty); bits >= n are
 * ignored, as Linux's. */
static long sets_read(struct fd_sets *s, uint64_t *const usets[3], int n)
{
	for (int i = 0; i < 3; i++) {
		if (usets[i] && copy_from_user(s->in[i], usets[i], s->words * 8))
			return -EFAULT;
		if (n % WORD_BITS)
			s->in[i][s->words - 1] &= (1ULL << (n % WORD_BITS)) - 1;
	}
	return 0;
}

/* The fds of word w in any set, as bits. */
static uint64_t word_any(const struct fd_sets *s, size_t w)
{
	return s->in[0][w] | s->in[1][w] | s->in[2][w];
}

/* How many fds are in any set (bits >= n are already cleared). */
static unsigned long sets_count(const struct fd_sets *s)
{
	unsigned long count = 0;

	for (size_t w = 0; w < s->words; w++)
		for (uint64_t any = word_any(s, w); any; any &= any - 1) /* no libgcc popcount */
			count++;
	return count;
}

/* The poll events the three set words ask for at bit b. */
static short bit_events(const uint64_t word[3], int b)
{
	return (short)((word[0] >> b & 1 ? IN_SET : 0) | (word[1] >> b & 1 ? OUT_SET : 0) |
		       (word[2] >> b & 1 ? EX_SET : 0));
}

/* Fills pfds with every fd in a set, a word of each set at a time. */
static void sets_to_poll(const struct fd_sets *s, struct pollfd *pfds)
{
	for (size_t w = 0; w < s->words; w++) {
		const uint64_t word[3] = {s->in[0][w], s->in[1][w], s->in[2][w]};

		for (uint64_t any = word[0] | word[1] | word[2]; any; any &= any - 1) {
			int b = __builtin_ctzll(any);

			*pfds++ = (struct pollfd){.fd = (int)(w * WORD_BITS) + b,
						  .events = bit_events(word, b)};
		}
	}
}

/* Marks the ready fds in the out sets: the number of bits set, or -EBADF
 * if an fd in a set is not open (Linux checks that first; an fd that is
 * not open is "ready" at once for the core, so nothing waited). */
static long poll_to_sets(struct fd_sets *s, const struct pollfd *pfds, unsigned long count)
{
	long bits = 0;

	for (unsigned long i = 0; i < count; i++) {
		if (!pfds[i].revents) /* most of them */
			continue;
		if (pfds[i].revents & POLLNVAL)
			return -EBADF;
		for (int j = 0; j < 3; j++) {
			if (!(pfds[i].revents & pfds[i].events & set_events[j]))
				continue;
			s->out[j][pfds[i].fd / WORD_BITS] |= 1ULL << (pfds[i].fd % WORD_BITS);
			bits++;
		}
	}
	return bits;
}

static long sets_write(const struct fd_sets *s, uint64_t *const usets[3])
{
	for (int i = 0; i < 3; i++)
		if (usets[i] && copy_to_user(usets[i], s->out[i], s->words * 8))
			return -EFAULT;
	return 0;
}

/* Polls the sets' fds: the ready bit count, or -errno (the sets untouched). */
static long select_poll(struct fd_sets *s, uint64_t *const usets[3], uint64_t deadline)
{
	unsigned long count = sets_count(s);
	struct pollfd *pfds = kmalloc(count * sizeof(*pfds) + 1);
	long ret;

	if (!pfds)
		return -ENOMEM;
	sets_to_poll(s, pfds);
	ret = poll_kernel(pfds, count, 0, deadline);
	if (ret >= 0)
		ret = poll_to_sets(s, pfds, count);
	if (ret >= 0 && sets_write(s, usets))
		ret = -EFAULT;
	kfree(pfds);
	return ret;
}

/*
 * select's core (Linux's core_sys_select): n < 0 is EINVAL; n is capped at
 * RLIMIT_NOFILE, as Linux caps it at its fd table (fds above it are never
 * open in the sequential area; the non-sequential area is poll's).
 */
static long select_core(int n, uint64_t *const usets[3], uint64_t deadline)
{
	struct fd_sets s;
	uint64_t *bits;
	long ret;

	if (n < 0)
		return -EINVAL;
	if ((unsigned int)n > files_get_nofile(current()->files))
		n = (int)files_get_nofile(current()->files);
	s.words = ((size_t)n + WORD_BITS - 1) / WORD_BITS;
	bits = kzalloc(6 * s.words * 8 + 1);
	if (!bits)
		return -ENOMEM;
	for (int i = 0; i < 3; i++) {
		s.in[i] = bits + i * s.words;
		s.out[i] = bits + (3 + i) * s.words;
	}
	ret = sets_read(&s, usets, n);
	if (!ret)
		ret = select_poll(&s, usets, deadline);
	kfree(bits);
	return ret;
}

SYSCALL_DEFINE5(select, int, n, uint64_t *, inp, uint64_t *, outp, uint64_t *, exp,
		struct timeval_k *, tvp)
{
	uint64_t *const usets[3] = {inp, outp, exp};
	uint64_t deadline;
	long ret = timeval_deadline(tvp, &deadline);

	if (ret)
		return ret;
	return timeout_finish(deadline, tvp, true, select_core(n, usets, deadline));
}

SYSCALL_DEFINE6(pselect6, int, n, uint64_t *, inp, uint64_t *, outp, uint64_t *, exp,
		struct timespec_k *, tsp, const struct sigset_argpack *, usig)
{
	uint64_t *const usets[3] = {inp, outp, exp};
	struct sigset_argpack sig = {NULL, 0};
	uint64_t deadline;
	long ret;

	if (usig && copy_from_user(&sig, usig, sizeof(sig)))
		return -EFAULT;
	if ((ret = poll_timespec_deadline(tsp, &deadline)) ||
	    (ret = signal_set_user_mask(sig.set, sig.size)))
		return ret;
	return timeout_finish(deadline, tsp, false, select_core(n, usets, deadline));
}

SYSCALL_DEFINE5(ppoll, struct pollfd *, ufds, unsigned long, nfds, struct timespec_k *, tsp,
		const uint64_t *, umask, uint64_t, sigsetsize)
{
	uint64_t deadline;
	long ret;

	if ((ret = poll_timespec_deadline(tsp, &deadline)) ||
	    (ret = signal_set_user_mask(umask, sigsetsize)))
		return ret;
	return timeout_finish(deadline, tsp, false, poll_user(ufds, nfds, deadline));
}
