/* fallocate, posix_fadvise and readahead on a tmpfs file (fdkernel's /tmp;
 * /dev/shm or /tmp on the host when tmpfs): allocation with and without
 * KEEP_SIZE, punched holes, the modes tmpfs refuses, and every error in
 * Linux's order. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "testutil.h"
#include "tmpfs_dir.h"

/* linux/falloc.h's, which musl's fcntl.h leaves out */
#define FALLOC_FL_NO_HIDE_STALE	 0x04
#define FALLOC_FL_COLLAPSE_RANGE 0x08
#define FALLOC_FL_ZERO_RANGE	 0x10
#define FALLOC_FL_INSERT_RANGE	 0x20
#define FALLOC_FL_UNSHARE_RANGE	 0x40
#define PAGE			 4096L

static char path[96];

/* How many of the bytes [off, off + len) read as zero. */
static long zeros(int fd, long off, long len)
{
	static char buf[4 * PAGE];
	long n = 0;

	require(len <= (long)sizeof buf && pread(fd, buf, len, off) == len, "pread");
	for (long i = 0; i < len; i++)
		n += !buf[i];
	return n;
}

static void test_allocate(int fd)
{
	ok(fallocate(fd, 0, 0, 2 * PAGE) == 0 && st_size_of(fd) == 2 * PAGE &&
	       st_blocks_of(fd) == 16,
	   "mode 0 on an empty file: size and blocks grow (%ld blocks)", st_blocks_of(fd));
	is_int(zeros(fd, 0, 2 * PAGE), 2 * PAGE, "the new range reads as zeroes");
	ok(fallocate(fd, 0, 100, 10) == 0 && st_size_of(fd) == 2 * PAGE,
	   "inside the file: size kept");
	ok(fallocate(fd, FALLOC_FL_KEEP_SIZE, 2 * PAGE, 2 * PAGE) == 0 &&
	       st_size_of(fd) == 2 * PAGE && st_blocks_of(fd) == 32,
	   "KEEP_SIZE: pages past the end, size kept (%ld blocks)", st_blocks_of(fd));
	ok(fallocate(fd, 0, 3 * PAGE, 100) == 0 && st_size_of(fd) == 3 * PAGE + 100 &&
	       st_blocks_of(fd) == 32,
	   "extending over them takes no new page");
}

static void test_punch(int fd)
{
	char data[4 * PAGE];

	memset(data, 'x', sizeof data);
	require(pwrite(fd, data, sizeof data, 0) == (ssize_t)sizeof data, "fill");
	ok(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 100, 2 * PAGE) == 0,
	   "PUNCH_HOLE | KEEP_SIZE");
	is_int(zeros(fd, 0, 4 * PAGE), 2 * PAGE, "exactly the punched bytes read as zero");
	ok(zeros(fd, 100, 2 * PAGE) == 2 * PAGE && zeros(fd, 99, 1) == 0 &&
	       zeros(fd, 100 + 2 * PAGE, 1) == 0,
	   "and they are the range asked for");
	is_int(st_blocks_of(fd), 24, "the one whole page inside is freed");
	is_int(st_size_of(fd), 4 * PAGE, "the size is kept");
	ok(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 1L << 31) == 0 &&
	       st_blocks_of(fd) == 0 && st_size_of(fd) == 4 * PAGE,
	   "a hole past the end frees everything, size kept");
}

static void test_refused_modes(int fd)
{
	static const int modes[] = {
	    FALLOC_FL_PUNCH_HOLE,     FALLOC_FL_NO_HIDE_STALE,	    FALLOC_FL_COLLAPSE_RANGE,
	    FALLOC_FL_ZERO_RANGE,     FALLOC_FL_INSERT_RANGE,	    FALLOC_FL_UNSHARE_RANGE,
	    FALLOC_FL_ZERO_RANGE | 1, FALLOC_FL_COLLAPSE_RANGE | 1, 0x100};
	int bad = 0;

	for (unsigned i = 0; i < sizeof modes / sizeof modes[0]; i++)
		if (fallocate(fd, modes[i], 0, PAGE) == 0 || errno != EOPNOTSUPP) {
			diag("mode %#x: %s", modes[i], strerror(errno));
			bad++;
		}
	is_int(bad, 0, "punch without KEEP_SIZE, zero, collapse, insert, unshare: EOPNOTSUPP");
}

static void test_errors(int fd)
{
	int ro = open(path, O_RDONLY), p[2], null = open("/dev/null", O_WRONLY);

	require(ro >= 0 && pipe(p) == 0 && null >= 0, "fds");
	is_errno(fallocate(fd, 0, 0, 0), EINVAL, "length 0: EINVAL");
	is_errno(fallocate(fd, 0, 0, -1), EINVAL, "negative length: EINVAL");
	is_errno(fallocate(fd, 0, -1, 1), EINVAL, "negative offset: EINVAL");
	is_errno(fallocate(999, 0, 0, 0), EBADF, "a closed fd: EBADF first");
	is_errno(fallocate(ro, 0, 0, 1), EBADF, "read-only: EBADF");
	is_errno(fallocate(ro, FALLOC_FL_PUNCH_HOLE, 0, 1), EOPNOTSUPP,
		 "read-only with a bad mode: EOPNOTSUPP first");
	is_errno(fallocate(ro, 0, 0, 0), EINVAL, "read-only with length 0: EINVAL first");
	is_errno(fallocate(ro, FALLOC_FL_ZERO_RANGE, 0, 1), EBADF,
		 "read-only, a mode tmpfs refuses: EBADF first");
	is_errno(fallocate(p[1], 0, 0, 1), ESPIPE, "a pipe: ESPIPE");
	is_errno(fallocate(p[0], 0, 0, 1), EBADF, "a pipe's read end: EBADF");
	is_errno(fallocate(null, 0, 0, 1), ENODEV, "a device: ENODEV");
	is_errno(fallocate(fd, 0, LONG_MAX, 1), EFBIG, "offset + length wraps: EFBIG");
	is_errno(fallocate(fd, 0, 1L << 62, 1L << 62), EFBIG, "past the largest file: EFBIG");
	close(ro);
	close(p[0]);
	close(p[1]);
	close(null);
}

static void test_enospc(int fd)
{
	long before = st_blocks_of(fd);

	if (!on_fdkernel()) {
		skip("the host's tmpfs is larger than its memory", "a range past the ramfs size");
		skip("the host's tmpfs is larger than its memory", "nothing allocated");
		return;
	}
	is_errno(fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 4L << 30), ENOSPC,
		 "a range past the ramfs size: ENOSPC");
	is_int(st_blocks_of(fd), before, "nothing allocated");
}

/* A memfd's seals (Linux's shmem_fallocate): F_SEAL_GROW refuses an
 * allocation past the size, KEEP_SIZE or not; a write seal a punch. */
static void test_seals(void)
{
	int fd = memfd_create("falloc", MFD_ALLOW_SEALING);

	require(fd >= 0 && ftruncate(fd, 2 * PAGE) == 0, "memfd");
	require(fcntl(fd, F_ADD_SEALS, F_SEAL_GROW) == 0, "F_SEAL_GROW");
	is_errno(fallocate(fd, 0, PAGE, 2 * PAGE), EPERM, "F_SEAL_GROW: growing is EPERM");
	is_errno(fallocate(fd, FALLOC_FL_KEEP_SIZE, PAGE, 2 * PAGE), EPERM, "even with KEEP_SIZE");
	is_int(fallocate(fd, 0, 0, 2 * PAGE), 0, "inside the size: allocated");
	require(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE) == 0, "F_SEAL_WRITE");
	is_errno(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, PAGE), EPERM,
		 "F_SEAL_WRITE: a punch is EPERM");
	close(fd);
}

static void test_fadvise(int fd)
{
	int p[2], dir = open("/", O_RDONLY | O_DIRECTORY), bad = 0;

	require(pipe(p) == 0 && dir >= 0, "fds");
	for (int a = POSIX_FADV_NORMAL; a <= POSIX_FADV_NOREUSE; a++)
		bad += posix_fadvise(fd, 0, 0, a) != 0;
	is_int(bad, 0, "posix_fadvise: every advice on a file");
	is_int(posix_fadvise(fd, 0, 0, 6), EINVAL, "an unknown advice: EINVAL");
	is_int(posix_fadvise(fd, 0, -1, 0), EINVAL, "a negative length: EINVAL");
	is_int(posix_fadvise(fd, -1, 1, 0), 0, "a negative offset: accepted");
	is_int(posix_fadvise(999, 0, 0, 0), EBADF, "a closed fd: EBADF");
	is_int(posix_fadvise(p[0], 0, 0, 99), ESPIPE, "a pipe: ESPIPE, before the advice");
	is_int(posix_fadvise(dir, 0, 0, POSIX_FADV_DONTNEED), 0, "a directory: accepted");
	ok(pread(fd, (char[1]){0}, 1, 0) == 1 || st_size_of(fd) == 0, "DONTNEED drops no data");
	close(p[0]);
	close(p[1]);
	close(dir);
}

static void test_readahead(int fd)
{
	int p[2], wo = open(path, O_WRONLY), dir = open("/", O_RDONLY | O_DIRECTORY);
	int zero = open("/dev/zero", O_RDONLY);

	require(pipe(p) == 0 && wo >= 0 && dir >= 0 && zero >= 0, "fds");
	is_int(readahead(fd, 0, 100), 0, "readahead on a file");
	is_int(readahead(fd, -1, 100), 0, "a negative offset: accepted");
	is_errno(readahead(999, 0, 1), EBADF, "a closed fd: EBADF");
	is_errno(readahead(wo, 0, 1), EBADF, "write-only: EBADF");
	is_errno(readahead(p[0], 0, 1), EINVAL, "a pipe: EINVAL");
	is_errno(readahead(dir, 0, 1), EINVAL, "a directory: EINVAL");
	is_errno(readahead(zero, 0, 1), EINVAL, "a device: EINVAL");
	close(p[0]);
	close(p[1]);
	close(wo);
	close(dir);
	close(zero);
}

int main(void)
{
	const char *dir = tmpfs_dir();
	int fd;

	if (!dir)
		skip_all("no tmpfs to compare with");
	plan(47);
	snprintf(path, sizeof path, "%s/fallocate-%d", dir, (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	require(fd >= 0, "create");
	test_allocate(fd);
	test_punch(fd);
	test_refused_modes(fd);
	test_errors(fd);
	test_enospc(fd);
	test_seals();
	test_fadvise(fd);
	test_readahead(fd);
	close(fd);
	ok(unlink(path) == 0, "unlink");
	return done();
}
