/* A disk's I/O statistics, /sys/block/<dev>/stat and /proc/diskstats, as
 * Linux keeps them (LTP's tst_dev_bytes_written reads the first): on a
 * loop device, 1 MiB written and fsync'd counts at least 2048 sectors
 * written in one or more writes, 1 MiB read after BLKFLSBUF at least 2048
 * sectors read (and the reader's /proc/self/io read_bytes as much),
 * nothing in flight once idle, 17 fields, and the diskstats line of the
 * device says what its stat file says. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "blk_util.h"
#include "testutil.h"

#define FILE_SIZE (4 << 20)
#define IO_SIZE	  (1 << 20)
#define NFIELDS	  17

enum { RD_IOS, RD_MERGES, RD_SECTORS, RD_MS, WR_IOS, WR_MERGES, WR_SECTORS, WR_MS, IN_FLIGHT };

static char img[64], dev[32];

/* The fields of text into f: how many there were. */
static int parse(const char *text, unsigned long long f[NFIELDS + 1])
{
	int n = 0;
	char *end;

	for (const char *p = text; n <= NFIELDS; p = end, n++) {
		f[n] = strtoull(p, &end, 10);
		if (end == p)
			break;
	}
	return n;
}

static int read_stat(unsigned long long f[NFIELDS + 1])
{
	char path[64], text[512];

	snprintf(path, sizeof path, "/sys/block/%s/stat", dev + strlen("/dev/"));
	return read_text(path, text, sizeof text) > 0 ? parse(text, f) : -1;
}

/* The fields of the device's /proc/diskstats line (after major, minor,
 * name). */
static int read_diskstats(unsigned long long f[NFIELDS + 1])
{
	static char text[65536];
	char name[40], *line;

	snprintf(name, sizeof name, " %s ", dev + strlen("/dev/"));
	if (read_text("/proc/diskstats", text, sizeof text) <= 0 || !(line = strstr(text, name)))
		return -1;
	*strchrnul(line, '\n') = 0;
	return parse(line + strlen(name), f);
}

/* /proc/self/io's read_bytes: what this process had read from disks. */
static long long read_bytes(void)
{
	char text[512], *p;

	if (read_text("/proc/self/io", text, sizeof text) <= 0 ||
	    !(p = strstr(text, "read_bytes: ")))
		return -1;
	return strtoll(p + strlen("read_bytes: "), NULL, 10);
}

int main(void)
{
	static char buf[IO_SIZE];
	long long rb;
	unsigned long long before[NFIELDS + 1], after[NFIELDS + 1], ds[NFIELDS + 1];
	int fd, n;

	if (access("/dev/loop-control", F_OK) || geteuid())
		skip_all("no /dev/loop-control, or not root");
	plan(10);
	snprintf(img, sizeof img, "/tmp/blk_stat.%d", (int)getpid());
	fd = open(img, O_RDWR | O_CREAT | O_TRUNC, 0600);
	require(fd >= 0 && ftruncate(fd, FILE_SIZE) == 0, "the image");
	close(fd);
	fd = loop_bind(img, 0, dev, sizeof dev);

	is_int(read_stat(before), NFIELDS, "/sys/block/<loop>/stat has %d fields", NFIELDS);
	memset(buf, 'w', sizeof buf);
	require(pwrite(fd, buf, IO_SIZE, 0) == IO_SIZE && fsync(fd) == 0, "write and fsync");
	read_stat(after);
	ok(after[WR_SECTORS] - before[WR_SECTORS] >= IO_SIZE / 512,
	   "1 MiB written and synced: %llu sectors written",
	   after[WR_SECTORS] - before[WR_SECTORS]);
	ok(after[WR_IOS] > before[WR_IOS], "in %llu writes", after[WR_IOS] - before[WR_IOS]);
	is_int(after[IN_FLIGHT], 0, "nothing in flight once fsync returned");

	memcpy(before, after, sizeof before);
	require(ioctl(fd, BLKFLSBUF, 0) == 0, "BLKFLSBUF");
	rb = read_bytes();
	require(pread(fd, buf, IO_SIZE, 0) == IO_SIZE && buf[IO_SIZE - 1] == 'w', "read back");
	rb = read_bytes() - rb;
	read_stat(after);
	ok(after[RD_SECTORS] - before[RD_SECTORS] >= IO_SIZE / 512,
	   "1 MiB read past the dropped cache: %llu sectors read",
	   after[RD_SECTORS] - before[RD_SECTORS]);
	ok(after[RD_IOS] > before[RD_IOS], "in %llu reads", after[RD_IOS] - before[RD_IOS]);
	ok(after[WR_SECTORS] == before[WR_SECTORS], "and no more written");
	ok(rb >= IO_SIZE, "the reader's /proc/self/io read_bytes grew by %lld", rb);

	/* Between two equal reads of the stat file (on the host, udev and
	 * others may read a new loop device meanwhile: then again). */
	for (int tries = 0; tries < 20; tries++) {
		read_stat(before);
		n = read_diskstats(ds);
		read_stat(after);
		if (!memcmp(before, after, sizeof after))
			break;
	}
	is_int(n, NFIELDS, "its /proc/diskstats line has the %d fields", NFIELDS);
	ok(n == NFIELDS && ds[RD_IOS] == after[RD_IOS] && ds[RD_SECTORS] == after[RD_SECTORS] &&
	       ds[WR_IOS] == after[WR_IOS] && ds[WR_SECTORS] == after[WR_SECTORS],
	   "which counts what the stat file counts");

	ioctl(fd, LOOP_CLR_FD, 0);
	close(fd);
	unlink(img);
	return done();
}
