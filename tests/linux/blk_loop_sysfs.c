/* A bound loop device's attributes in /sys/block/loopN/loop (backing_file,
 * offset, sizelimit, autoclear, partscan, dio) following LOOP_CONFIGURE,
 * LOOP_SET_STATUS64 and the clear; its queue/ (logical_block_size after
 * LOOP_SET_BLOCK_SIZE, dma_alignment, read_ahead_kb) and BLKRASET/BLKRAGET
 * (rounded down to pages, EINVAL for a NULL pointer); LOOP_CHANGE_FD: EBADF, ENXIO on an
 * unbound device, EINVAL on a writable one, for a file of another size or
 * a directory; on a read-only one the new file's bytes are what the device
 * reads (no block of the old one kept) and backing_file names it.  Runs on
 * the host as root (SKIP without /dev/loop-control). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blk_util.h"
#include "testutil.h"

#define FILE_SIZE (64 * 1024)

static char paths[3][64];

/* A file of size bytes, every byte fill; its path is paths[i]. */
static void make_file(int i, size_t size, char fill)
{
	static char buf[FILE_SIZE * 2];
	int fd;

	snprintf(paths[i], sizeof paths[i], "/tmp/blk_loop_sysfs.%d.%d", (int)getpid(), i);
	fd = open(paths[i], O_RDWR | O_CREAT | O_TRUNC, 0600);
	memset(buf, fill, size);
	require(fd >= 0 && write(fd, buf, size) == (ssize_t)size, "make a backing file");
	close(fd);
}

/* /sys/block/<dev>/loop/<attr>'s text equals want. */
static bool attr_is(const char *dev, const char *attr, const char *want)
{
	char path[96], text[128];
	long n;

	snprintf(path, sizeof path, "/sys/block/%s/%s%s", dev + strlen("/dev/"),
		 strchr(attr, '/') ? "" : "loop/", attr);
	n = read_text(path, text, sizeof text);
	if (n < 0 || strcmp(text, want))
		diag("%s: \"%s\", expected \"%s\"", path, n < 0 ? "(unreadable)" : text, want);
	return n >= 0 && !strcmp(text, want);
}

static bool loop_dir_exists(const char *dev)
{
	char path[96];

	snprintf(path, sizeof path, "/sys/block/%s/loop", dev + strlen("/dev/"));
	return access(path, F_OK) == 0;
}

static void test_attributes(void)
{
	char dev[32], want[96];
	struct loop_info64 info = {0};
	int fd = loop_bind(paths[0], 0, dev, sizeof dev);

	snprintf(want, sizeof want, "%s\n", paths[0]);
	ok(attr_is(dev, "backing_file", want), "backing_file: the file's path and a newline");
	ok(attr_is(dev, "offset", "0\n") && attr_is(dev, "sizelimit", "0\n") &&
	       attr_is(dev, "autoclear", "0\n") && attr_is(dev, "partscan", "0\n") &&
	       attr_is(dev, "dio", "0\n"),
	   "offset, sizelimit, autoclear, partscan and dio 0");
	info.lo_offset = 4096;
	info.lo_sizelimit = 16384;
	info.lo_flags = LO_FLAGS_AUTOCLEAR | LO_FLAGS_PARTSCAN;
	ok(ioctl(fd, LOOP_SET_STATUS64, &info) == 0, "LOOP_SET_STATUS64");
	ok(attr_is(dev, "offset", "4096\n") && attr_is(dev, "sizelimit", "16384\n") &&
	       attr_is(dev, "autoclear", "1\n") && attr_is(dev, "partscan", "1\n"),
	   "... offset, sizelimit, autoclear and partscan follow");
	is_int(sys_number("/sys/block/%s/size", dev + strlen("/dev/")), 16384 / 512,
	       "... and the size in sectors");
	info.lo_flags = 0;
	ok(ioctl(fd, LOOP_SET_STATUS64, &info) == 0 && attr_is(dev, "autoclear", "0\n") &&
	       attr_is(dev, "partscan", "1\n"),
	   "autoclear cleared, partscan kept (it cannot be)");
	is_errno(ioctl(fd, LOOP_CHANGE_FD, 999), EBADF, "LOOP_CHANGE_FD of a closed fd: EBADF");
	int other = open(paths[1], O_RDONLY);
	is_errno(ioctl(fd, LOOP_CHANGE_FD, other), EINVAL,
		 "LOOP_CHANGE_FD on a writable device: EINVAL");
	close(other);
	ok(ioctl(fd, LOOP_CLR_FD, 0) == 0, "LOOP_CLR_FD");
	close(fd);
	fd = open(dev, O_RDONLY);
	ok(fd >= 0 && !loop_dir_exists(dev), "the loop directory goes with the binding");
	other = open(paths[1], O_RDONLY);
	is_errno(ioctl(fd, LOOP_CHANGE_FD, other), ENXIO, "LOOP_CHANGE_FD unbound: ENXIO");
	close(other);
	close(fd);
}

static void test_queue(void)
{
	char dev[32];
	int fd = loop_bind(paths[0], 0, dev, sizeof dev);
	long ra = -1, got = -1;

	ok(attr_is(dev, "queue/logical_block_size", "512\n") &&
	       attr_is(dev, "queue/dma_alignment", "511\n"),
	   "queue/: logical_block_size 512, dma_alignment 511");
	ok(ioctl(fd, LOOP_SET_BLOCK_SIZE, 4096) == 0 &&
	       attr_is(dev, "queue/logical_block_size", "4096\n"),
	   "LOOP_SET_BLOCK_SIZE 4096: logical_block_size follows");
	ok(ioctl(fd, BLKRAGET, &ra) == 0 && ra >= 0, "BLKRAGET");
	ok(ioctl(fd, BLKRASET, 1024UL) == 0 && ioctl(fd, BLKRAGET, &got) == 0 && got == 1024 &&
	       attr_is(dev, "queue/read_ahead_kb", "512\n"),
	   "BLKRASET 1024 sectors: BLKRAGET 1024, read_ahead_kb 512");
	ok(ioctl(fd, BLKRASET, 9UL) == 0 && ioctl(fd, BLKRAGET, &got) == 0 && got == 8,
	   "BLKRASET 9: 8, a whole page");
	ok(ioctl(fd, BLKRASET, 7UL) == 0 && ioctl(fd, BLKRAGET, &got) == 0 && got == 0 &&
	       attr_is(dev, "queue/read_ahead_kb", "0\n"),
	   "BLKRASET 7: 0, less than a page");
	is_errno(ioctl(fd, BLKRAGET, NULL), EINVAL, "BLKRAGET with a NULL pointer: EINVAL");
	ioctl(fd, BLKRASET, (unsigned long)ra);
	ioctl(fd, LOOP_CLR_FD, 0);
	close(fd);
}

static void test_change_fd(void)
{
	char dev[32], want[96], buf[512];
	int fd = loop_bind(paths[0], LO_FLAGS_READ_ONLY, dev, sizeof dev), other;

	ok(pread(fd, buf, sizeof buf, 0) == sizeof buf && buf[0] == 'a' && buf[511] == 'a',
	   "read-only device: the first file's bytes (now cached)");
	other = open(paths[2], O_RDONLY);
	is_errno(ioctl(fd, LOOP_CHANGE_FD, other), EINVAL,
		 "LOOP_CHANGE_FD to a file of another size: EINVAL");
	close(other);
	other = open("/tmp", O_RDONLY | O_DIRECTORY);
	is_errno(ioctl(fd, LOOP_CHANGE_FD, other), EINVAL, "... to a directory: EINVAL");
	close(other);
	other = open(paths[1], O_RDWR);
	ok(ioctl(fd, LOOP_CHANGE_FD, other) == 0, "LOOP_CHANGE_FD to a file of the same size");
	close(other);
	snprintf(want, sizeof want, "%s\n", paths[1]);
	ok(attr_is(dev, "backing_file", want), "backing_file names the new file");
	ok(pread(fd, buf, sizeof buf, 0) == sizeof buf && buf[0] == 'b' && buf[511] == 'b' &&
	       pread(fd, buf, sizeof buf, FILE_SIZE - 512) == sizeof buf && buf[0] == 'b',
	   "the device reads the new file's bytes");
	is_int(sys_number("/sys/block/%s/ro", dev + strlen("/dev/")), 1,
	       "still read-only though the new file is open for writing");
	ioctl(fd, LOOP_CLR_FD, 0);
	close(fd);
}

int main(void)
{
	if (access("/dev/loop-control", F_OK) || geteuid())
		skip_all("no /dev/loop-control, or not root");
	plan(25);
	make_file(0, FILE_SIZE, 'a');
	make_file(1, FILE_SIZE, 'b');
	make_file(2, FILE_SIZE * 2, 'c');
	test_attributes();
	test_queue();
	test_change_fd();
	for (int i = 0; i < 3; i++)
		unlink(paths[i]);
	return done();
}
