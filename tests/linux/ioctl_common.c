/* The ioctl requests every open file answers (Linux's do_vfs_ioctl):
 * FIOCLEX/FIONCLEX (close-on-exec only), FIONBIO, FIOASYNC (ENOTTY on a
 * regular file, signal-driven I/O on a pipe), FIOQSIZE, FIGETBSZ, a
 * regular file's FIONREAD, and the reflink requests FICLONE,
 * FICLONERANGE, FIDEDUPERANGE with their errno in Linux's order (neither
 * fdkernel's tmpfs nor the host's ext4 /tmp shares blocks: EOPNOTSUPP
 * once the arguments are right); an O_PATH fd is EBADF. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "testutil.h"

/* <linux/fs.h>'s, which musl-gcc has not. */
#define FIGETBSZ      2
#define FICLONE	      0x40049409
#define FICLONERANGE  0x4020940d
#define FIDEDUPERANGE 0xc0189436
struct file_clone_range {
	int64_t src_fd;
	uint64_t src_offset, src_length, dest_offset;
};
struct file_dedupe_range_info {
	int64_t dest_fd;
	uint64_t dest_offset, bytes_deduped;
	int32_t status;
	uint32_t reserved;
};
struct file_dedupe_range {
	uint64_t src_offset, src_length;
	uint16_t dest_count, reserved1;
	uint32_t reserved2;
};

static char dir[64];

static int make_file(const char *name, int flags)
{
	return open(path_at(dir, name), flags | O_CREAT, 0644);
}

static void test_cloexec(int fd)
{
	int on = 1;

	is_int(ioctl(fd, FIOCLEX), 0, "FIOCLEX");
	is_int(fcntl(fd, F_GETFD), FD_CLOEXEC, "... sets FD_CLOEXEC");
	is_int(ioctl(fd, FIONCLEX), 0, "FIONCLEX");
	is_int(fcntl(fd, F_GETFD), 0, "... clears it");
	is_errno(ioctl(-1, FIOCLEX), EBADF, "FIOCLEX on fd -1: EBADF");
	is_int(ioctl(fd, FIONBIO, &on), 0, "FIONBIO 1");
	ok(fcntl(fd, F_GETFL) & O_NONBLOCK, "... sets O_NONBLOCK");
	on = 0;
	ioctl(fd, FIONBIO, &on);
	ok(!(fcntl(fd, F_GETFL) & O_NONBLOCK), "FIONBIO 0 clears it");
	is_errno(ioctl(fd, FIONBIO, (int *)8), EFAULT, "FIONBIO with a bad pointer: EFAULT");
}

static void test_async(int fd)
{
	int on = 1, p[2];

	is_errno(ioctl(fd, FIOASYNC, &on), ENOTTY, "FIOASYNC on a regular file: ENOTTY");
	on = 0;
	is_int(ioctl(fd, FIOASYNC, &on), 0, "FIOASYNC 0 there: no change, 0");
	require(pipe(p) == 0, "pipe");
	on = 1;
	is_int(ioctl(p[0], FIOASYNC, &on), 0, "FIOASYNC 1 on a pipe");
	ok(fcntl(p[0], F_GETFL) & O_ASYNC, "... sets O_ASYNC");
	on = 0;
	ok(ioctl(p[0], FIOASYNC, &on) == 0 && !(fcntl(p[0], F_GETFL) & O_ASYNC),
	   "FIOASYNC 0 clears it");
	close(p[0]);
	close(p[1]);
}

static void test_sizes(int fd)
{
	struct stat st;
	struct statfs sf;
	long long bytes = -1;
	int bsize = 0, left = 0;

	/* fsync: ext4 counts delayed blocks in st_blocks, not in FIOQSIZE */
	require(write(fd, "0123456789", 10) == 10 && fsync(fd) == 0 && fstat(fd, &st) == 0 &&
		    fstatfs(fd, &sf) == 0,
		"write, fsync, fstat, fstatfs");
	is_int(ioctl(fd, FIOQSIZE, &bytes), 0, "FIOQSIZE of a regular file");
	ok(bytes == (long long)st.st_blocks * 512, "... st_blocks in bytes (%lld)", bytes);
	is_int(ioctl(fd, FIGETBSZ, &bsize), 0, "FIGETBSZ");
	ok(bsize == (long)sf.f_bsize, "... statfs's f_bsize (%d)", bsize);
	lseek(fd, 3, SEEK_SET);
	is_int(ioctl(fd, FIONREAD, &left), 0, "FIONREAD of a regular file");
	is_int(left, 7, "... the bytes after the offset");
	lseek(fd, 15, SEEK_SET);
	ioctl(fd, FIONREAD, &left);
	is_int(left, -5, "... negative past the end");
	is_errno(ioctl(fd, FIOQSIZE, (long long *)8), EFAULT, "FIOQSIZE to a bad pointer: EFAULT");
	int p[2];
	require(pipe(p) == 0, "pipe");
	is_errno(ioctl(p[0], FIOQSIZE, &bytes), ENOTTY, "FIOQSIZE of a pipe: ENOTTY");
	close(p[0]);
	close(p[1]);
}

static void test_clone(int src, int dst)
{
	int ro = make_file("ro", O_RDONLY), app = make_file("app", O_WRONLY | O_APPEND);
	int d = open(dir, O_RDONLY | O_DIRECTORY), other = open("/proc/self/status", O_RDONLY);
	struct file_clone_range r = {.src_fd = src};

	require(ro >= 0 && app >= 0 && d >= 0 && other >= 0, "the other files");
	is_errno(ioctl(dst, FICLONE, -1), EBADF, "FICLONE from fd -1: EBADF");
	is_errno(ioctl(dst, FICLONE, other), EXDEV, "from another mount: EXDEV");
	is_errno(ioctl(dst, FICLONE, d), EISDIR, "from a directory: EISDIR");
	is_errno(ioctl(dst, FICLONE, app), EBADF, "from a file not open for reading: EBADF");
	is_errno(ioctl(ro, FICLONE, src), EBADF, "into a file not open for writing: EBADF");
	is_errno(ioctl(app, FICLONE, src), EBADF, "into an O_APPEND file: EBADF");
	is_errno(ioctl(dst, FICLONE, src), EOPNOTSUPP, "within /tmp: EOPNOTSUPP (no reflinks)");
	r.src_offset = (uint64_t)-4096;
	is_errno(ioctl(dst, FICLONERANGE, &r), EOPNOTSUPP,
		 "FICLONERANGE, negative offset: EOPNOTSUPP first");
	r.src_offset = 0;
	r.src_length = 4096;
	is_errno(ioctl(dst, FICLONERANGE, &r), EOPNOTSUPP, "FICLONERANGE: EOPNOTSUPP");
	is_errno(ioctl(dst, FICLONERANGE, (void *)8), EFAULT, "FICLONERANGE, bad pointer: EFAULT");
	close(ro);
	close(app);
	close(d);
	close(other);
}

static void test_dedupe(int src)
{
	struct {
		struct file_dedupe_range r;
		struct file_dedupe_range_info info[1];
	} req = {.r = {.src_length = 4, .dest_count = 1}};
	int wo = make_file("wo", O_WRONLY);

	req.info[0].dest_fd = src;
	is_errno(ioctl(src, FIDEDUPERANGE, &req), EOPNOTSUPP, "FIDEDUPERANGE: EOPNOTSUPP");
	is_errno(ioctl(wo, FIDEDUPERANGE, &req), EINVAL, "... from a file not readable: EINVAL");
	req.r.reserved1 = 1;
	is_errno(ioctl(src, FIDEDUPERANGE, &req), EINVAL, "... reserved fields set: EINVAL");
	req.r.reserved1 = 0;
	req.r.dest_count = 1000;
	is_errno(ioctl(src, FIDEDUPERANGE, &req), ENOMEM, "... more than a page: ENOMEM");
	is_errno(ioctl(src, FIDEDUPERANGE, (void *)8), EFAULT, "... bad pointer: EFAULT");
	close(wo);
}

int main(void)
{
	int fd, src, opath;

	plan(40);
	snprintf(dir, sizeof dir, "/tmp/ioctl_common-%d", (int)getpid());
	require(mkdir(dir, 0755) == 0, "mkdir");
	require((fd = make_file("a", O_RDWR)) >= 0 && (src = make_file("b", O_RDWR)) >= 0,
		"create");
	test_cloexec(fd);
	test_async(fd);
	test_sizes(fd);
	test_clone(src, fd);
	test_dedupe(src);
	require((opath = open(path_at(dir, "a"), O_PATH)) >= 0, "open O_PATH");
	is_errno(ioctl(opath, FIOCLEX), EBADF, "an O_PATH fd: EBADF");
	close(opath);
	close(fd);
	close(src);
	for (const char *const *n = (const char *const[]){"a", "b", "ro", "app", "wo", NULL}; *n;
	     n++)
		unlink(path_at(dir, *n));
	ok(rmdir(dir) == 0, "clean up");
	return done();
}
