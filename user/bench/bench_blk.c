/* Raw sequential reads of a virtio disk, 4 KiB at a time: /dev/vda read
 * from its start with the block cache dropped first (BLKFLSBUF), so every
 * read goes to the device, as `dd if=/dev/vda bs=4k` on a cold cache.
 * ns per 4 KiB read (median of repetitions).  bench/run attaches the disk
 * to both guests; it is used only if its first sector carries the bench
 * disk's mark, so the host's own disk is never flushed or read on. */
#include <fcntl.h>
#include <fdkernel.h>
#include <unistd.h>

#include "bench.h"

#define BLKFLSBUF 0x1261 /* _IO(0x12, 97) */
#define BLOCKS	  1024	 /* 4 MiB a repetition */
#define REPS	  5
#define DISK_MARK "fdkernel bench disk\n"

static char block[4096];

static double blk_read_rep(const char *name, void *arg)
{
	int fd = *(int *)arg;
	uint64_t start;

	if (syscall(__NR_ioctl, fd, BLKFLSBUF, 0) < 0 || lseek(fd, 0, SEEK_SET) != 0) {
		bench_fail(name, "BLKFLSBUF: %s", strerror(errno));
		return -1;
	}
	start = bench_now_ns();
	for (int i = 0; i < BLOCKS; i++)
		if (read(fd, block, sizeof block) != sizeof block) {
			bench_fail(name, "read: %s", strerror(errno));
			return -1;
		}
	return bench_ns_per_op(start, BLOCKS);
}

int main(void)
{
	int fd;

	bench_begin("bench_blk", "blk_read_4KiB");
	fd = open("/dev/vda", O_RDONLY);
	if (fd < 0 || read(fd, block, sizeof block) != sizeof block ||
	    memcmp(block, DISK_MARK, strlen(DISK_MARK)))
		bench_skip("blk_read_4KiB", "no bench disk at /dev/vda");
	else
		bench_row("blk_read_4KiB", "ns", REPS, blk_read_rep, &fd);
	return bench_end();
}
