/* Sequential reads of a block device: /dev/loopN over an 8 MiB file in
 * /tmp, read whole in 64 KiB reads.  loop_read_cached: the device's
 * blocks stay cached between repetitions (the buffer cache here, the page
 * cache on Linux); loop_read_cold: BLKFLSBUF drops them before each
 * repetition, so every block goes through the loop driver to the file.
 * Skipped where there is no /dev/loop-control (a Linux without the loop
 * module loaded). */
#include <fcntl.h>
#include <fdkernel.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "../../kernel/uapi/blkdev.h"

#define REPS 7
#define SIZE (8 << 20)
#define CHUNK (64 * 1024)

static char buf[CHUNK];
static const char *backing = "/tmp/bench_loop";

struct blk_case {
	int dev;
	bool cold;
};

static double read_rep(const char *name, void *arg)
{
	struct blk_case *c = arg;
	uint64_t start;

	if (c->cold && syscall(__NR_ioctl, c->dev, BLKFLSBUF, 0L) < 0) {
		bench_fail(name, "BLKFLSBUF: %s", strerror(errno));
		return -1;
	}
	start = bench_now_ns();
	for (off_t off = 0; off < SIZE; off += CHUNK)
		if (pread(c->dev, buf, CHUNK, off) != CHUNK) {
			bench_fail(name, "pread: %s", strerror(errno));
			return -1;
		}
	return (double)SIZE * 1000 / (double)(bench_now_ns() - start); /* MB/s */
}

/* The backing file, SIZE bytes: its fd, or -1. */
static int make_backing(void)
{
	int fd = open(backing, O_RDWR | O_CREAT | O_TRUNC, 0600);

	memset(buf, 'b', sizeof buf);
	for (int i = 0; fd >= 0 && i < SIZE / CHUNK; i++)
		if (write(fd, buf, CHUNK) != CHUNK) {
			close(fd);
			return -1;
		}
	return fd;
}

int main(void)
{
	static const char rows[] = "loop_read_cached,loop_read_cold";
	struct blk_case c = {-1, false};
	char path[32];
	int ctl, n, back;

	bench_begin("bench_loop", rows);
	ctl = open("/dev/loop-control", O_RDWR);
	if (ctl < 0) {
		bench_skip("loop_read_cached", "no /dev/loop-control");
		bench_skip("loop_read_cold", "no /dev/loop-control");
		return bench_end();
	}
	n = syscall(__NR_ioctl, ctl, LOOP_CTL_ADD, -1L);
	snprintf(path, sizeof path, "/dev/loop%d", n);
	back = make_backing();
	c.dev = n >= 0 ? open(path, O_RDONLY) : -1;
	if (back < 0 || c.dev < 0 || syscall(__NR_ioctl, c.dev, LOOP_SET_FD, (long)back) < 0) {
		bench_fail("loop_read_cached", "setting up %s: %s", path, strerror(errno));
		bench_fail("loop_read_cold", "setting up %s: %s", path, strerror(errno));
	} else {
		bench_row("loop_read_cached", "MB/s", REPS, read_rep, &c);
		c.cold = true;
		bench_row("loop_read_cold", "MB/s", REPS, read_rep, &c);
		syscall(__NR_ioctl, c.dev, LOOP_CLR_FD, 0L);
	}
	if (c.dev >= 0)
		close(c.dev);
	if (back >= 0)
		close(back);
	unlink(backing);
	if (n >= 0)
		syscall(__NR_ioctl, ctl, LOOP_CTL_REMOVE, (long)n);
	close(ctl);
	return bench_end();
}
