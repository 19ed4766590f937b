/*
 * getrandom(2), /dev/random and /dev/urandom: the kernel's generator
 * (lib/random.c) handed out in CHUNK steps, Linux's random ioctls and
 * entropy count.  Bytes written to the devices are mixed into the state,
 * as Linux mixes them into its pool.
 */
#include "arch/x86_64/uaccess.h"
#include "fs/dev/dev_ops.h"
#include "fs/file.h"
#include "fs/proc/proc_sys.h"
#include "fs/vfs.h"
#include "lib/iov_iter.h"
#include "lib/random.h"
#include "lib/string.h"
#include "mm/layout.h"
#include "sched/wait.h"
#include "sys/syscall.h"
#include "proc/cred.h"
#include <uapi/errno.h>

#define GRND_NONBLOCK 0x1
#define GRND_RANDOM   0x2
#define GRND_INSECURE 0x4
#define CHUNK	      RANDOM_CHUNK
#define COUNT_MAX     0x1ffffff /* Linux's most bytes per call (32 MiB - 1) */

/*
 * The devices' transfers, in CHUNK steps, as Linux's: a fault part-way
 * returns the bytes moved (-EFAULT if none); a pending signal ends a long
 * transfer at a page boundary with what was done.
 */
static long random_transfer(struct iov_iter *it, bool to_user)
{
	uint8_t chunk[CHUNK];
	size_t done = 0, total = iov_iter_count(it);

	while (done < total) {
		size_t n = total - done < CHUNK ? total - done : CHUNK, moved;
		if (done && done % PAGE_SIZE == 0 && signal_pending())
			break;
		if (to_user) {
			random_fill(chunk, n);
			moved = copy_to_iter(chunk, n, it);
		} else {
			moved = copy_from_iter(chunk, n, it);
			random_mix(chunk, moved);
		}
		done += moved;
		if (moved < n)
			break;
	}
	memset(chunk, 0, sizeof(chunk));
	return done || !total ? (long)done : -EFAULT;
}

static long random_read(struct file *f, struct iov_iter *to, uint64_t *pos)
{
	(void)f, (void)pos;
	return random_transfer(to, true);
}

static long random_write(struct file *f, struct iov_iter *from, uint64_t *pos)
{
	(void)f, (void)pos;
	return random_transfer(from, false);
}

/* ---- Linux's random ioctls and entropy count ---- */

/* Linux's RND* ioctls ('R'): <linux/random.h>. */
#define RNDGETENTCNT	0x80045200 /* _IOR('R', 0, int) */
#define RNDADDTOENTCNT	0x40045201 /* _IOW('R', 1, int) */
#define RNDADDENTROPY	0x40085203 /* _IOW('R', 3, int[2]) + the bytes */
#define RNDZAPENTCNT	0x5204
#define RNDCLEARPOOL	0x5206
#define RNDRESEEDCRNG	0x5207
#define POOL_READY_BITS 256 /* Linux's POOL_BITS: a seeded generator's count */

/* The bits of seed credited to the generator (Linux's input_pool.init_bits,
 * shown by RNDGETENTCNT and entropy_avail).  Ours is seeded at its first
 * use, from the TSC, and getrandom never waits: it counts as seeded from
 * boot, which Linux shows as POOL_READY_BITS.  Constant; credits (root's
 * RNDADDTOENTCNT, RNDADDENTROPY) cannot raise it past that. */
static const int seed_bits = POOL_READY_BITS;

/* RNDADDENTROPY's struct rand_pool_info: a credit, a length, the bytes,
 * mixed in as a write; EFAULT unless every byte was (Linux's rule). */
static long add_entropy(const int32_t *uarg)
{
	int32_t head[2]; /* entropy_count, buf_size */
	struct iovec v;
	struct iov_iter it;

	if (copy_from_user(&head[0], uarg, sizeof(head[0])))
		return -EFAULT;
	if (head[0] < 0)
		return -EINVAL;
	if (copy_from_user(&head[1], uarg + 1, sizeof(head[1])))
		return -EFAULT;
	if (head[1] < 0 || (size_t)head[1] > MAX_RW_COUNT)
		return -EFAULT;
	v = (struct iovec){.iov_base = (void *)(uarg + 2), .iov_len = (size_t)head[1]};
	iov_iter_init(&it, &v, 1, v.iov_len);
	return random_transfer(&it, false) == head[1] ? 0 : -EFAULT;
}

/* Linux's random_ioctl: every request but RNDGETENTCNT needs
 * CAP_SYS_ADMIN (EPERM, first); unknown ones EINVAL. */
static long random_ioctl(struct file *f, unsigned long cmd, unsigned long arg)
{
	bool privileged = cmd == RNDADDTOENTCNT || cmd == RNDADDENTROPY || cmd == RNDZAPENTCNT ||
			  cmd == RNDCLEARPOOL || cmd == RNDRESEEDCRNG;
	int32_t n;

	(void)f;
	if (privileged && !capable(CAP_SYS_ADMIN))
		return -EPERM;
	switch (cmd) {
	case RNDGETENTCNT:
		n = seed_bits;
		return copy_to_user((void *)arg, &n, sizeof(n)) ? -EFAULT : 0;
	case RNDADDTOENTCNT:
		if (copy_from_user(&n, (const void *)arg, sizeof(n)))
			return -EFAULT;
		return n < 0 ? -EINVAL : 0; /* the count is full already */
	case RNDADDENTROPY:
		return add_entropy((const int32_t *)arg);
	case RNDZAPENTCNT:
	case RNDCLEARPOOL:
		return 0; /* no effect since Linux 5.18 either */
	case RNDRESEEDCRNG:
		random_reseed(); /* always seeded: never ENODATA */
		return 0;
	default:
		return -EINVAL;
	}
}

PROC_SYS_ROW(entropy_avail_row, .path = "kernel/random/entropy_avail", .mode = 0444,
	     .show = proc_sys_int_show, .data = (void *)&seed_bits);
static const int pool_bits = POOL_READY_BITS;
PROC_SYS_ROW(poolsize_row, .path = "kernel/random/poolsize", .mode = 0444,
	     .show = proc_sys_int_show, .data = (void *)&pool_bits);

/* /dev/random and /dev/urandom: the same generator, never blocking (Linux's
 * since 5.6 once its generator is seeded, which ours always is). */
const struct file_ops random_ops = {
    .read_iter = random_read,
    .write_iter = random_write,
    .ioctl = random_ioctl,
    .release = vfs_release_inode,
};

/* Returns count bytes (at most COUNT_MAX) at ubuf, or what was copied
 * before a fault (-EFAULT if nothing).  EINVAL for unknown flags and for
 * GRND_INSECURE with GRND_RANDOM.  Never blocks: the generator is always
 * ready, so GRND_NONBLOCK changes nothing. */
SYSCALL_DEFINE3(getrandom, uint8_t *, ubuf, size_t, count, unsigned int, flags)
{
	uint8_t chunk[CHUNK];
	size_t done = 0;

	if (flags & ~(GRND_NONBLOCK | GRND_RANDOM | GRND_INSECURE))
		return -EINVAL;
	if ((flags & GRND_INSECURE) && (flags & GRND_RANDOM))
		return -EINVAL;
	if (count > COUNT_MAX)
		count = COUNT_MAX;
	while (done < count) {
		size_t n = count - done < CHUNK ? count - done : CHUNK;
		random_fill(chunk, n);
		if (copy_to_user(ubuf + done, chunk, n))
			return done ? (long)done : -EFAULT;
		done += n;
	}
	memset(chunk, 0, sizeof(chunk));
	return done;
}
