/* Loop devices and the block-device file ABI, as Linux has them: a loop
 * made with LOOP_CTL_ADD, bound to a file (LOOP_SET_FD, LOOP_CONFIGURE),
 * read and written through /dev/loopN (pread, pwrite, lseek, fsync), the
 * BLK* ioctls, LOOP_{GET,SET}_STATUS64 (offset, size limit, read-only,
 * autoclear), the errors of each (EBADF, EINVAL, EBUSY, ENXIO, ENOSPC,
 * EPERM), the backing file's lifetime, and the clear deferred to the last
 * close of the device by two processes.  Runs on the host as root (SKIP
 * without /dev/loop-control). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "blk_util.h"
#include "testutil.h"

#define FILE_SIZE (1024 * 1024)

static char backing_path[64];

/* A file of FILE_SIZE bytes of pattern_byte(offset); its fd (O_RDWR). */
static int make_backing(void)
{
	static char buf[FILE_SIZE];
	int fd;

	snprintf(backing_path, sizeof backing_path, "/tmp/blk_loop.%d", (int)getpid());
	fd = open(backing_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	require(fd >= 0, "create the backing file");
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = pattern_byte(i);
	require(write(fd, buf, sizeof buf) == sizeof buf, "fill the backing file");
	return fd;
}

static void test_unbound(int dev)
{
	struct loop_info64 info;
	uint64_t size = 1;
	char c;

	ok(ioctl(dev, BLKGETSIZE64, &size) == 0 && size == 0, "an unbound loop device has size 0");
	is_int(read(dev, &c, 1), 0, "... and reads nothing");
	is_errno(ioctl(dev, LOOP_GET_STATUS64, &info), ENXIO, "LOOP_GET_STATUS64 unbound: ENXIO");
	is_errno(ioctl(dev, LOOP_CLR_FD, 0), ENXIO, "LOOP_CLR_FD unbound: ENXIO");
	is_errno(ioctl(dev, LOOP_SET_CAPACITY, 0), ENXIO, "LOOP_SET_CAPACITY unbound: ENXIO");
	is_errno(ioctl(dev, LOOP_GET_STATUS64, NULL), EINVAL, "LOOP_GET_STATUS64 NULL: EINVAL");
}

static void test_bad_fds(int dev)
{
	int p[2];
	int dir = open("/tmp", O_RDONLY | O_DIRECTORY);

	is_errno(ioctl(dev, LOOP_SET_FD, -1), EBADF, "LOOP_SET_FD -1: EBADF");
	is_errno(ioctl(dev, LOOP_SET_FD, 999), EBADF, "LOOP_SET_FD of a closed fd: EBADF");
	require(pipe(p) == 0, "pipe");
	is_errno(ioctl(dev, LOOP_SET_FD, p[0]), EINVAL, "LOOP_SET_FD of a pipe: EINVAL");
	is_errno(ioctl(dev, LOOP_SET_FD, dir), EINVAL, "LOOP_SET_FD of a directory: EINVAL");
	is_errno(ioctl(dev, LOOP_SET_FD, dev), EBADF, "LOOP_SET_FD of itself: EBADF");
	close(p[0]);
	close(p[1]);
	close(dir);
}

static void test_io(int dev, int back, int n)
{
	char buf[8192], want[8192];
	uint64_t size = 0;
	unsigned long sectors = 0;
	int ssz = 0, ro = 1;

	ok(ioctl(dev, BLKGETSIZE64, &size) == 0 && size == FILE_SIZE,
	   "BLKGETSIZE64: the file's size");
	ok(ioctl(dev, BLKGETSIZE, &sectors) == 0 && sectors == FILE_SIZE / 512,
	   "BLKGETSIZE: in 512-byte sectors");
	ok(ioctl(dev, BLKSSZGET, &ssz) == 0 && ssz == 512, "BLKSSZGET: 512");
	ok(ioctl(dev, BLKROGET, &ro) == 0 && ro == 0, "BLKROGET: writable");
	is_int(sys_number("/sys/block/loop%d/size", n), FILE_SIZE / 512,
	       "/sys/block/loop%d/size: in sectors", n);
	is_int(sys_number("/sys/block/loop%d/ro", n), 0, "... ro 0", n);
	is_int(pread(dev, buf, sizeof buf, 4096 + 100), sizeof buf, "pread across blocks");
	fill_pattern(want, sizeof want, 4096 + 100);
	ok(!memcmp(buf, want, sizeof buf), "... reads the file's bytes");
	memset(buf, 'W', 1000);
	is_int(pwrite(dev, buf, 1000, 513), 1000, "pwrite of 1000 bytes at 513");
	is_int(fsync(dev), 0, "fsync of the device");
	ok(pread(back, want, 1000, 513) == 1000 && !memcmp(want, buf, 1000),
	   "... the write reached the backing file");
	is_int(lseek(dev, 0, SEEK_END), FILE_SIZE, "lseek SEEK_END: the device's size");
	is_errno(lseek(dev, FILE_SIZE + 1, SEEK_SET), EINVAL, "lseek past the end: EINVAL");
	is_int(lseek(dev, -10, SEEK_END), FILE_SIZE - 10, "lseek -10 from the end");
	is_int(read(dev, buf, 100), 10, "a read at the end is cut at the end");
	is_int(read(dev, buf, 100), 0, "a read at the end gives 0");
	is_errno(write(dev, buf, 1), ENOSPC, "a write at the end: ENOSPC");
	is_errno(pread(dev, (void *)8, 512, 0), EFAULT, "a read into a bad buffer: EFAULT");
}

static void test_status(int dev, int back, int n)
{
	struct loop_info64 info;
	struct stat st;
	char buf[512], want[512];
	uint64_t size = 0;

	require(fstat(back, &st) == 0, "fstat the backing file");
	memset(&info, 0xff, sizeof info);
	ok(ioctl(dev, LOOP_GET_STATUS64, &info) == 0, "LOOP_GET_STATUS64 bound");
	ok(info.lo_number == (uint32_t)n && info.lo_offset == 0 && info.lo_sizelimit == 0,
	   "... its number, offset 0, no size limit");
	ok(info.lo_inode == st.st_ino && info.lo_device == st.st_dev,
	   "... the file's st_ino and st_dev");
	is_int(info.lo_flags & LO_FLAGS_READ_ONLY, 0, "... writable");
	memset(&info, 0, sizeof info);
	info.lo_offset = 8192;
	info.lo_sizelimit = 65536;
	strcpy((char *)info.lo_file_name, "backing");
	ok(ioctl(dev, LOOP_SET_STATUS64, &info) == 0,
	   "LOOP_SET_STATUS64 offset 8192, limit 64 KiB");
	ok(ioctl(dev, BLKGETSIZE64, &size) == 0 && size == 65536, "... the size is the limit");
	is_int(sys_number("/sys/block/loop%d/size", n), 128, "... /sys/block says so too");
	fill_pattern(want, sizeof want, 8192);
	ok(pread(dev, buf, 512, 0) == 512 && !memcmp(buf, want, 512), "... sector 0 is byte 8192");
	memset(&info, 0, sizeof info);
	ok(ioctl(dev, LOOP_GET_STATUS64, &info) == 0 && info.lo_offset == 8192 &&
	       info.lo_sizelimit == 65536 && !strcmp((char *)info.lo_file_name, "backing"),
	   "LOOP_GET_STATUS64 shows them");
	info.lo_offset = FILE_SIZE + 4096;
	info.lo_sizelimit = 0;
	ok(ioctl(dev, LOOP_SET_STATUS64, &info) == 0 && ioctl(dev, BLKGETSIZE64, &size) == 0 &&
	       size == 0,
	   "an offset past the file's end: size 0");
	info.lo_offset = 0;
	ok(ioctl(dev, LOOP_SET_STATUS64, &info) == 0 && ioctl(dev, BLKGETSIZE64, &size) == 0 &&
	       size == FILE_SIZE,
	   "offset 0 again: the whole file");
	is_errno(ioctl(dev, LOOP_SET_STATUS64, (void *)8), EFAULT,
		 "LOOP_SET_STATUS64 bad pointer: EFAULT");
}

/* The old 32-bit form (LTP's device set-up and old losetup use it). */
static void test_status_old(int dev, int n)
{
	struct loop_info old;
	uint64_t size = 0;

	memset(&old, 0, sizeof old);
	old.lo_offset = 4096;
	strcpy((char *)old.lo_name, "old form");
	ok(ioctl(dev, LOOP_SET_STATUS, &old) == 0 && ioctl(dev, BLKGETSIZE64, &size) == 0 &&
	       size == FILE_SIZE - 4096,
	   "LOOP_SET_STATUS (old form) offset 4096: the size follows");
	memset(&old, 0xff, sizeof old);
	ok(ioctl(dev, LOOP_GET_STATUS, &old) == 0 && old.lo_offset == 4096 && old.lo_number == n &&
	       !strcmp((char *)old.lo_name, "old form"),
	   "LOOP_GET_STATUS shows offset, number and name");
	is_errno(ioctl(dev, LOOP_GET_STATUS, NULL), EINVAL, "LOOP_GET_STATUS NULL: EINVAL");
	old.lo_offset = 0;
	ok(ioctl(dev, LOOP_SET_STATUS, &old) == 0, "offset 0 again");
}

static void test_readonly(int dev, int n)
{
	int one = 1, zero = 0, ro = 0;
	char buf[512] = {0};

	ok(ioctl(dev, BLKROSET, &one) == 0 && ioctl(dev, BLKROGET, &ro) == 0 && ro == 1,
	   "BLKROSET 1: BLKROGET says read-only");
	is_errno(pwrite(dev, buf, 512, 0), EPERM, "... a write: EPERM");
	ok(pread(dev, buf, 512, 0) == 512, "... a read works");
	is_int(sys_number("/sys/block/loop%d/ro", n), 1, "... /sys/block's ro is 1");
	ok(ioctl(dev, BLKROSET, &zero) == 0 && ioctl(dev, BLKROGET, &ro) == 0 && ro == 0,
	   "BLKROSET 0: writable again");
	is_errno(ioctl(dev, BLKROSET, (void *)8), EFAULT, "BLKROSET bad pointer: EFAULT");
}

/* A second process holds the device open: LOOP_CLR_FD waits for the last
 * close, and the device works until then. */
static void test_clear_two_openers(int ctl, const char *path, int n)
{
	struct loop_info64 info;
	int back = make_backing(), dev = open(path, O_RDWR), up[2], down[2], status = 0;
	uint64_t size = 0;
	pid_t pid;
	char c;

	require(dev >= 0 && ioctl(dev, LOOP_SET_FD, back) == 0, "bind again");
	close(back); /* the loop keeps the file */
	unlink(backing_path);
	require(pipe(up) == 0 && pipe(down) == 0, "pipes");
	pid = fork();
	if (pid == 0) {
		int mine = open(path, O_RDONLY);
		char buf[512];

		(void)!write(up[1], "o", 1);
		(void)!read(down[0], &c, 1); /* the parent cleared: we still read */
		_exit(mine >= 0 && pread(mine, buf, 512, 0) == 512 ? 0 : 1);
	}
	require(read(up[0], &c, 1) == 1, "child opened");
	ok(ioctl(dev, LOOP_CLR_FD, 0) == 0, "LOOP_CLR_FD with another opener: 0");
	ok(ioctl(dev, LOOP_GET_STATUS64, &info) == 0 && (info.lo_flags & LO_FLAGS_AUTOCLEAR),
	   "... still bound, marked autoclear");
	is_errno(ioctl(ctl, LOOP_CTL_REMOVE, n), EBUSY, "LOOP_CTL_REMOVE of a bound device: EBUSY");
	(void)!write(down[1], "g", 1);
	waitpid(pid, &status, 0);
	ok(exited_with(status, 0), "the other opener read the unlinked file through it");
	close(dev);
	dev = open(path, O_RDONLY);
	ok(dev >= 0 && ioctl(dev, BLKGETSIZE64, &size) == 0 && size == 0,
	   "after the last close the device is unbound");
	is_errno(ioctl(dev, LOOP_GET_STATUS64, &info), ENXIO, "... LOOP_GET_STATUS64: ENXIO");
	close(dev);
	close(up[0]);
	close(up[1]);
	close(down[0]);
	close(down[1]);
}

/* The only opener clears: at once it counts as gone (EBUSY to rebind is
 * not Linux's: it is ENXIO for status), the rest at its close. */
static void test_clear_alone(const char *path)
{
	struct loop_info64 info;
	int back = make_backing(), dev = open(path, O_RDWR);
	uint64_t size = 1;

	require(dev >= 0 && ioctl(dev, LOOP_SET_FD, back) == 0, "bind a third time");
	is_errno(ioctl(dev, LOOP_SET_FD, back), EBUSY, "LOOP_SET_FD on a bound device: EBUSY");
	ok(ioctl(dev, LOOP_CLR_FD, 0) == 0, "LOOP_CLR_FD alone: 0");
	is_errno(ioctl(dev, LOOP_GET_STATUS64, &info), ENXIO,
		 "... LOOP_GET_STATUS64 at once: ENXIO");
	is_errno(ioctl(dev, LOOP_CLR_FD, 0), ENXIO, "... a second LOOP_CLR_FD: ENXIO");
	is_errno(open(path, O_RDONLY), ENXIO, "... a new open: ENXIO");
	close(dev);
	dev = open(path, O_RDONLY);
	ok(dev >= 0 && ioctl(dev, BLKGETSIZE64, &size) == 0 && size == 0,
	   "... unbound after close");
	close(dev);
	close(back);
	unlink(backing_path);
}

/* LOOP_CONFIGURE: flags checked; read-only from the flag or a read-only file. */
static void test_configure(const char *path)
{
	struct loop_config cfg;
	struct loop_info64 info;
	int back = make_backing(), dev = open(path, O_RDWR), ro = 0;
	int rdonly = open(backing_path, O_RDONLY);
	char buf[512] = {0};

	memset(&cfg, 0, sizeof cfg);
	cfg.fd = back;
	cfg.info.lo_flags = 0x100;
	is_errno(ioctl(dev, LOOP_CONFIGURE, &cfg), EINVAL, "LOOP_CONFIGURE unknown flag: EINVAL");
	cfg.info.lo_flags = 0;
	cfg.block_size = 1000;
	is_errno(ioctl(dev, LOOP_CONFIGURE, &cfg), EINVAL,
		 "LOOP_CONFIGURE block size 1000: EINVAL");
	is_errno(ioctl(dev, LOOP_CONFIGURE, (void *)8), EFAULT,
		 "LOOP_CONFIGURE bad pointer: EFAULT");
	cfg.block_size = 4096;
	cfg.info.lo_flags = LO_FLAGS_READ_ONLY | LO_FLAGS_AUTOCLEAR;
	ok(ioctl(dev, LOOP_CONFIGURE, &cfg) == 0,
	   "LOOP_CONFIGURE read-only, autoclear, 4 KiB blocks");
	int ssz = 0;
	ok(ioctl(dev, BLKSSZGET, &ssz) == 0 && ssz == 4096, "... BLKSSZGET 4096");
	ok(ioctl(dev, BLKROGET, &ro) == 0 && ro == 1, "... BLKROGET 1");
	is_errno(pwrite(dev, buf, 512, 0), EPERM, "... a write: EPERM");
	ok(ioctl(dev, LOOP_GET_STATUS64, &info) == 0 &&
	       (info.lo_flags & (LO_FLAGS_READ_ONLY | LO_FLAGS_AUTOCLEAR)) ==
		   (LO_FLAGS_READ_ONLY | LO_FLAGS_AUTOCLEAR),
	   "... LOOP_GET_STATUS64 shows the flags");
	close(dev); /* autoclear */
	dev = open(path, O_RDWR);
	ok(ioctl(dev, LOOP_SET_FD, rdonly) == 0 && ioctl(dev, BLKROGET, &ro) == 0 && ro == 1,
	   "LOOP_SET_FD of a read-only file: a read-only device");
	ok(ioctl(dev, LOOP_CLR_FD, 0) == 0, "... cleared");
	close(dev);
	close(rdonly);
	close(back);
	unlink(backing_path);
}

/* busybox losetup attaches with an offset, lists and detaches. */
static void test_busybox(const char *path)
{
	char out[256] = "", want[256], *envp[] = {NULL};
	char *attach[] = {"losetup", "-o", "1024", (char *)path, backing_path, NULL};
	char *show[] = {"losetup", (char *)path, NULL},
	     *detach[] = {"losetup", "-d", (char *)path, NULL};
	struct loop_info64 info;
	int back = make_backing(), dev;

	close(back);
	if (access("/bin/busybox", X_OK)) {
		skip("no /bin/busybox", "busybox losetup");
		unlink(backing_path);
		return;
	}
	is_int(run_capture("/bin/busybox", attach, envp, out, sizeof out), 0,
	       "busybox losetup -o 1024 %s FILE", path);
	snprintf(want, sizeof want, "%s: 1024 %s\n", path, backing_path);
	ok(run_capture("/bin/busybox", show, envp, out, sizeof out) == 0 && !strcmp(out, want),
	   "busybox losetup %s shows it: %s", path, one_line(out));
	is_int(run_capture("/bin/busybox", detach, envp, out, sizeof out), 0, "busybox losetup -d");
	dev = open(path, O_RDONLY);
	is_errno(ioctl(dev, LOOP_GET_STATUS64, &info), ENXIO, "... the device is free again");
	close(dev);
	unlink(backing_path);
}

static void test_nodes(const char *path, int n)
{
	struct stat st;

	ok(stat(path, &st) == 0 && S_ISBLK(st.st_mode) && major(st.st_rdev) == 7 &&
	       minor(st.st_rdev) == (unsigned)n,
	   "%s is the block device 7:%d", path, n);
	ok(stat("/dev/loop-control", &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 10 &&
	       minor(st.st_rdev) == 237,
	   "/dev/loop-control is 10:237");
	is_int(sys_number("/sys/block/loop%d/size", n), 0, "/sys/block/loop%d/size: 0 unbound", n);
}

int main(void)
{
	char path[32];
	int ctl, n, dev, back;

	if (access("/dev/loop-control", F_OK) != 0)
		skip_all("no /dev/loop-control (no loop support)");
	plan(89);
	ctl = open("/dev/loop-control", O_RDWR);
	require(ctl >= 0, "open /dev/loop-control");
	n = ioctl(ctl, LOOP_CTL_ADD, -1);
	require(n >= 0, "LOOP_CTL_ADD -1: a new loop device");
	is_errno(ioctl(ctl, LOOP_CTL_ADD, n), EEXIST, "LOOP_CTL_ADD of an existing one: EEXIST");
	is_errno(ioctl(ctl, LOOP_CTL_REMOVE, -1), EINVAL, "LOOP_CTL_REMOVE -1: EINVAL");
	is_errno(ioctl(ctl, 0x4C8F, 0), ENOSYS,
		 "an unknown loop-control request: ENOSYS (Linux's)");
	snprintf(path, sizeof path, "/dev/loop%d", n);
	test_nodes(path, n);
	dev = open(path, O_RDWR);
	require(dev >= 0, "open the new loop device");
	is_errno(ioctl(ctl, LOOP_CTL_REMOVE, n), EBUSY, "LOOP_CTL_REMOVE of an open device: EBUSY");
	test_unbound(dev);
	test_bad_fds(dev);
	back = make_backing();
	require(ioctl(dev, LOOP_SET_FD, back) == 0, "LOOP_SET_FD of the file");
	test_io(dev, back, n);
	test_status(dev, back, n);
	test_status_old(dev, n);
	test_readonly(dev, n);
	ok(ioctl(dev, LOOP_CLR_FD, 0) == 0, "LOOP_CLR_FD");
	close(dev);
	close(back);
	unlink(backing_path);
	test_clear_two_openers(ctl, path, n);
	test_clear_alone(path);
	test_configure(path);
	test_busybox(path);
	ok(ioctl(ctl, LOOP_CTL_REMOVE, n) == 0, "LOOP_CTL_REMOVE of the unbound device");
	is_errno(ioctl(ctl, LOOP_CTL_REMOVE, n), ENODEV, "... again: ENODEV");
	is_errno(open(path, O_RDONLY), ENOENT, "... its node is gone");
	is_int(sys_number("/sys/block/loop%d/size", n), -1, "... and its /sys/block entry");
	close(ctl);
	return done();
}
