/* Large sparse tmpfs files and memfds (fdkernel's ramfs; /tmp or /dev/shm
 * on the host): a byte written past 4 GiB costs one page, reads back
 * through read and mmap, is found by SEEK_DATA/SEEK_HOLE, and goes with
 * truncate and a punched hole; the largest file is MAX_LFS_FILESIZE
 * (LLONG_MAX, so a write past it wraps: EINVAL), fallocate past it EFBIG
 * without SIGXFSZ (that is RLIMIT_FSIZE's). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "tmpfs_dir.h"

#define PAGE 4096L
#define FAR  ((4L << 30) + (1L << 20)) /* 4 GiB + 1 MiB, as LTP's open12 */

static volatile sig_atomic_t xfsz;

static void on_xfsz(int sig)
{
	(void)sig;
	xfsz++;
}

/* A byte far out: one page, the rest a hole, seen by read, mmap, lseek. */
static void test_far_write(int fd, const char *what)
{
	char buf[8] = {0};

	is_int(pwrite(fd, "abc", 3, FAR), 3, "%s: a write at 4 GiB + 1 MiB", what);
	is_int(st_size_of(fd), FAR + 3, "%s: the size is past 4 GiB", what);
	is_int(st_blocks_of(fd), 8, "%s: one page is allocated, the hole costs nothing", what);
	ok(pread(fd, buf, 3, FAR) == 3 && !memcmp(buf, "abc", 3), "%s: read back", what);
	ok(pread(fd, buf, 4, FAR - 1) == 4 && !memcmp(buf, "\0abc", 4),
	   "%s: the hole before reads as zeroes", what);
	is_int(lseek(fd, 0, SEEK_DATA), FAR, "%s: SEEK_DATA skips the 4 GiB hole", what);
	is_int(lseek(fd, FAR, SEEK_HOLE), FAR + 3, "%s: SEEK_HOLE: the end", what);
	is_int(lseek(fd, 1L << 20, SEEK_HOLE), 1L << 20, "%s: in the hole, SEEK_HOLE stays", what);
	char *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, FAR);
	ok(p != MAP_FAILED && !memcmp(p, "abc", 3), "%s: a shared mapping at 4 GiB + 1 MiB sees it",
	   what);
	if (p != MAP_FAILED) {
		p[1] = 'X';
		munmap(p, PAGE);
	}
	ok(pread(fd, buf, 3, FAR) == 3 && !memcmp(buf, "aXc", 3),
	   "%s: a store through the mapping reads back", what);
	ok(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, FAR, PAGE) == 0 &&
	       st_blocks_of(fd) == 0 && st_size_of(fd) == FAR + 3,
	   "%s: punching the page frees it, the size stays", what);
	is_errno(lseek(fd, 0, SEEK_DATA), ENXIO, "%s: no data left: ENXIO", what);
	ok(pwrite(fd, "e", 1, FAR) == 1 && ftruncate(fd, PAGE) == 0 && st_blocks_of(fd) == 0 &&
	       st_size_of(fd) == PAGE,
	   "%s: truncating below the page drops it", what);
}

/* The largest file: a byte may end at LLONG_MAX, not past it. */
static void test_limits(int fd)
{
	char c = 0;

	is_int(pwrite(fd, "z", 1, LLONG_MAX - 1), 1, "a write ending at MAX_LFS_FILESIZE");
	ok(st_size_of(fd) == LLONG_MAX && st_blocks_of(fd) == 8,
	   "the size is LLONG_MAX, one page allocated");
	ok(pread(fd, &c, 1, LLONG_MAX - 1) == 1 && c == 'z', "the last byte reads back");
	is_int(lseek(fd, 1L << 40, SEEK_HOLE), 1L << 40, "SEEK_HOLE in the 8 EiB hole");
	is_errno(pwrite(fd, "z", 1, LLONG_MAX), EINVAL,
		 "a write at MAX_LFS_FILESIZE would wrap: EINVAL");
	is_errno(pwrite(fd, "yy", 2, LLONG_MAX - 1), EINVAL, "... as one across it");
	is_int(pwrite(fd, "", 0, LLONG_MAX), 0, "an empty write there: 0");
	ok(ftruncate(fd, 0) == 0 && st_blocks_of(fd) == 0, "truncate to 0 frees the far page");
	ok(ftruncate(fd, LLONG_MAX) == 0 && st_size_of(fd) == LLONG_MAX && st_blocks_of(fd) == 0,
	   "ftruncate to MAX_LFS_FILESIZE: a hole");
	is_int(lseek(fd, 0, SEEK_HOLE), 0, "... all hole");
	is_errno(lseek(fd, 0, SEEK_DATA), ENXIO, "... no data");
	is_errno(fallocate(fd, 0, LLONG_MAX - PAGE, PAGE + 1), EFBIG,
		 "fallocate past MAX_LFS_FILESIZE: EFBIG");
	is_int(xfsz, 0, "... and no SIGXFSZ (that is RLIMIT_FSIZE's)");
	require(ftruncate(fd, 0) == 0, "ftruncate");
}

int main(void)
{
	const char *dir = tmpfs_dir();
	char path[96];
	int fd, mfd;

	if (!dir)
		skip_all("no tmpfs to compare with");
	plan(2 * 13 + 13);
	signal(SIGXFSZ, on_xfsz);
	snprintf(path, sizeof path, "%s/tmpfs_large.%d", dir, getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	mfd = memfd_create("large", 0);
	require(fd >= 0 && mfd >= 0, "open, memfd_create");
	unlink(path);
	test_far_write(fd, "tmpfs");
	test_far_write(mfd, "memfd");
	test_limits(fd);
	close(fd);
	close(mfd);
	return done();
}
