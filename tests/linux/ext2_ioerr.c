/* Device errors under a file system (docs/block.md, "Device errors"):
 * /dev/vdd is ext2-images' good-1k.img behind QEMU's error injector
 * (tests/harness/ext2-faulty): reads of /big's block 100 fail with EIO,
 * writes to the disk's last KiB fail with ENOSPC (a full backing file,
 * reported to the guest).  A failed write is EIO at fsync, once: the
 * block is not retried forever and the disk goes on; mounted, the file
 * whose block cannot be read gives EIO there, every time, while the rest
 * of it and the other files read, and the instance unmounts.  SKIP where
 * no such disk is attached (the host, boots without it). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blk_util.h"
#include "testutil.h"

#define MS_RDONLY 1UL
int mount(const char *source, const char *target, const char *type, unsigned long flags,
	  const void *data);
int umount(const char *target);

#define DISK	  "/dev/vdd"
#define DISK_SIZE (2 << 20)
#define BAD_OFF	  (100 * 1024) /* /big's block 100 */

static char mnt[64];

/* A record of /big: "%07d\n" for record i at byte 8 * i. */
static bool big_ok(const char *buf, long off, long len)
{
	char want[9];

	for (long i = 0; i < len; i += 8) {
		snprintf(want, sizeof want, "%07ld\n", (off + i) / 8);
		if (memcmp(buf + i, want, 8))
			return false;
	}
	return true;
}

static void test_write_error(void)
{
	char last[1024], before[1024];
	int fd = open(DISK, O_RDWR);

	require(fd >= 0, "open " DISK);
	ok(pread(fd, last, sizeof last, DISK_SIZE - 1024) == 1024, "the last KiB reads");
	ok(pwrite(fd, last, sizeof last, DISK_SIZE - 1024) == 1024,
	   "a write to it goes to the cache");
	is_errno(fsync(fd), EIO, "fsync: the device fails it (ENOSPC on the host): EIO");
	ok(pread(fd, before, sizeof before, DISK_SIZE - 8192) == 1024 &&
	       pwrite(fd, before, sizeof before, DISK_SIZE - 8192) == 1024,
	   "a write to another block (of the cache's 4 KiB)");
	is_int(fsync(fd), 0, "fsync again: 0, the failed block is not retried forever");
	ok(pread(fd, last, sizeof last, DISK_SIZE - 1024) == 1024,
	   "the failed block reads again (from the device)");
	close(fd);
}

static void test_read_error(void)
{
	static char buf[8192];
	char path[128];
	int fd;

	snprintf(path, sizeof path, "%s/big", mnt);
	fd = open(path, O_RDONLY);
	ok(fd >= 0 && pread(fd, buf, 4096, 0) == 4096 && big_ok(buf, 0, 4096),
	   "ext2 on it: /big's first blocks read");
	is_errno(pread(fd, buf, 1024, BAD_OFF), EIO, "the block the device cannot read: EIO");
	ok(pread(fd, buf, 1024, BAD_OFF + 1024) == 1024 && big_ok(buf, BAD_OFF + 1024, 1024),
	   "the block after it reads");
	is_errno(pread(fd, buf, 1024, BAD_OFF), EIO, "the bad block again: EIO (nothing kept)");
	ok(pread(fd, buf, 8192, BAD_OFF - 4096) == 4096 && big_ok(buf, BAD_OFF - 4096, 4096),
	   "a read across it: short, up to the bad block");
	close(fd);
	snprintf(path, sizeof path, "%s/hello.txt", mnt);
	fd = open(path, O_RDONLY);
	ok(fd >= 0 && read(fd, buf, 64) == 12 && !memcmp(buf, "hello, ext2\n", 12),
	   "another file reads");
	close(fd);
}

int main(void)
{
	struct stat st;
	unsigned char sb[1024];
	int fd;

	/* fdkernel only: a host's /dev/vdd is some real disk, written here */
	if (!on_fdkernel() || stat(DISK, &st) || geteuid())
		skip_all("no faulty ext2 disk " DISK " (the guest suite's), or not root");
	fd = open(DISK, O_RDONLY);
	if (fd < 0 || pread(fd, sb, sizeof sb, 1024) != 1024 || sb[56] != 0x53 || sb[57] != 0xef ||
	    lseek(fd, 0, SEEK_END) != DISK_SIZE)
		skip_all(DISK " is not the 2 MiB ext2 image of tests/harness/ext2-faulty");
	close(fd);
	plan(14);
	test_write_error();
	snprintf(mnt, sizeof mnt, "/tmp/ext2_ioerr.%d", (int)getpid());
	require(mkdir(mnt, 0755) == 0, "make the mount point");
	int err = mount(DISK, mnt, "ext2", MS_RDONLY, NULL) ? errno : 0;
	is_int(err, 0, "ext2 on the faulty disk mounts");
	if (!err) {
		test_read_error();
		is_int(umount(mnt), 0, "and unmounts");
	}
	rmdir(mnt);
	return done();
}
