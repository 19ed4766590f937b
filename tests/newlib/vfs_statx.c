/* statx: the same figures as fstatat (the kernel fills both from one
 * function), stx_mask with every basic field, UAPI_AT_SYMLINK_NOFOLLOW,
 * UAPI_AT_EMPTY_PATH (a pipe too), the AT_STATX_* sync flags accepted, EINVAL
 * for the reserved mask bit, both sync types and unknown flags; ENOENT,
 * EBADF, EFAULT. */
#include <errno.h>
#include <fcntl.h>
#include <fdkernel.h>
#include <stdint.h>
#include <unistd.h>

#include <uapi/fcntl.h>
#include <uapi/stat.h>
#include <uapi/syscalls.h>

#include "tap.h"
#include "testutil.h"

#define NR_statx 332

static const char *path = "/tmp/vfs_statx.tmp", *link_path = "/tmp/vfs_statx.lnk";

static long lstatx(int dirfd, const char *p, int flags, unsigned mask, struct uapi_statx *sx)
{
	return syscall(NR_statx, dirfd, p, flags, mask, sx);
}

static long lfstatat(int dirfd, const char *p, struct uapi_stat *st, int flags)
{
	return syscall(__NR_newfstatat, dirfd, p, st, flags);
}

/* Linux's st_dev encoding. */
static bool same_dev(uint64_t dev, uint32_t major, uint32_t minor)
{
	return major == ((dev & 0xfff00) >> 8) && minor == ((dev & 0xff) | ((dev >> 12) & 0xfff00));
}

/* t (the time stx_mask bit) agrees with sec/nsec, or was not filled:
 * Linux 6.13+ fills the times of multigrain file systems only when asked. */
static bool same_time(const struct uapi_statx *sx, unsigned bit,
		      const struct uapi_statx_timestamp *t, uint64_t sec, uint64_t nsec)
{
	return !(sx->stx_mask & bit) || (t->tv_sec == (int64_t)sec && t->tv_nsec == nsec);
}

/* sx says what st says, in every field it reports. */
static bool same(const struct uapi_statx *sx, const struct uapi_stat *st)
{
	return sx->stx_ino == st->st_ino && sx->stx_mode == st->st_mode &&
	       sx->stx_nlink == st->st_nlink && sx->stx_uid == st->st_uid &&
	       sx->stx_gid == st->st_gid && sx->stx_size == (uint64_t)st->st_size &&
	       sx->stx_blocks == (uint64_t)st->st_blocks &&
	       sx->stx_blksize == (uint32_t)st->st_blksize &&
	       same_time(sx, STATX_MTIME, &sx->stx_mtime, st->mtime_sec, st->mtime_nsec) &&
	       same_time(sx, STATX_CTIME, &sx->stx_ctime, st->ctime_sec, st->ctime_nsec) &&
	       same_time(sx, STATX_ATIME, &sx->stx_atime, st->atime_sec, st->atime_nsec) &&
	       same_dev(st->st_dev, sx->stx_dev_major, sx->stx_dev_minor) &&
	       same_dev(st->st_rdev, sx->stx_rdev_major, sx->stx_rdev_minor);
}

static void test_fields(void)
{
	struct uapi_statx sx;
	struct uapi_stat st;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0640);

	require(fd >= 0 && write(fd, "hello, statx", 12) == 12, "scratch file");
	ok(lstatx(UAPI_AT_FDCWD, path, 0, STATX_BASIC_STATS, &sx) == 0 &&
	       lfstatat(UAPI_AT_FDCWD, path, &st, 0) == 0 && same(&sx, &st),
	   "a file: the fields fstatat gives");
	ok((sx.stx_mask & STATX_BASIC_STATS) == STATX_BASIC_STATS && sx.stx_size == 12 &&
	       (sx.stx_mode & 07777) == 0640,
	   "stx_mask has every basic field (%#x); size 12, mode 0640", sx.stx_mask);
	ok(lstatx(UAPI_AT_FDCWD, path, 0, 0, &sx) == 0 &&
	       (sx.stx_mask & (STATX_TYPE | STATX_MODE | STATX_INO | STATX_SIZE)) ==
		   (STATX_TYPE | STATX_MODE | STATX_INO | STATX_SIZE) &&
	       same(&sx, &st),
	   "mask 0: type, mode, ino, size and whatever else stx_mask says (%#x)", sx.stx_mask);
	ok(lstatx(UAPI_AT_FDCWD, "/dev/null", 0, STATX_BASIC_STATS, &sx) == 0 &&
	       lfstatat(UAPI_AT_FDCWD, "/dev/null", &st, 0) == 0 && same(&sx, &st) &&
	       sx.stx_rdev_major == 1 && sx.stx_rdev_minor == 3,
	   "/dev/null: rdev 1:3 (%u:%u)", sx.stx_rdev_major, sx.stx_rdev_minor);
	ok(lstatx(fd, "", UAPI_AT_EMPTY_PATH, STATX_BASIC_STATS, &sx) == 0 &&
	       lfstatat(UAPI_AT_FDCWD, path, &st, 0) == 0 && same(&sx, &st),
	   "UAPI_AT_EMPTY_PATH: the fd's file");
	ok(lstatx(UAPI_AT_FDCWD, path, AT_STATX_FORCE_SYNC, STATX_SIZE, &sx) == 0 &&
	       lstatx(UAPI_AT_FDCWD, path, AT_STATX_DONT_SYNC, STATX_SIZE, &sx) == 0,
	   "AT_STATX_FORCE_SYNC and AT_STATX_DONT_SYNC accepted");
	close(fd);
}

static void test_links(void)
{
	struct uapi_statx sx;
	int fds[2];

	unlink(link_path);
	require(symlink(path, link_path) == 0, "symlink");
	ok(lstatx(UAPI_AT_FDCWD, link_path, 0, STATX_TYPE, &sx) == 0 &&
	       (sx.stx_mode & 0170000) == 0100000,
	   "a link is followed: a regular file");
	ok(lstatx(UAPI_AT_FDCWD, link_path, UAPI_AT_SYMLINK_NOFOLLOW, STATX_TYPE, &sx) == 0 &&
	       (sx.stx_mode & 0170000) == 0120000 && sx.stx_size == strlen(path),
	   "UAPI_AT_SYMLINK_NOFOLLOW: the link itself, its size the target's length");
	require(pipe(fds) == 0, "pipe");
	ok(lstatx(fds[0], "", UAPI_AT_EMPTY_PATH, STATX_TYPE, &sx) == 0 &&
	       (sx.stx_mode & 0170000) == 0010000,
	   "UAPI_AT_EMPTY_PATH on a pipe: S_IFIFO");
	close(fds[0]);
	close(fds[1]);
	unlink(link_path);
}

static void test_errors(void)
{
	struct uapi_statx sx;

	is_errno(lstatx(UAPI_AT_FDCWD, path, 0, STATX__RESERVED, &sx), EINVAL,
		 "STATX__RESERVED in the mask: EINVAL");
	is_errno(lstatx(UAPI_AT_FDCWD, path, AT_STATX_SYNC_TYPE, STATX_SIZE, &sx), EINVAL,
		 "both sync types: EINVAL");
	is_errno(lstatx(UAPI_AT_FDCWD, path, 0x1, STATX_SIZE, &sx), EINVAL,
		 "an unknown flag: EINVAL");
	is_errno(lstatx(UAPI_AT_FDCWD, path, UAPI_AT_REMOVEDIR, STATX_SIZE, &sx), EINVAL,
		 "UAPI_AT_REMOVEDIR: EINVAL");
	is_errno(lstatx(UAPI_AT_FDCWD, "", 0, STATX_SIZE, &sx), ENOENT,
		 "\"\" without UAPI_AT_EMPTY_PATH: ENOENT");
	is_errno(lstatx(UAPI_AT_FDCWD, "/tmp/vfs_statx.none", 0, STATX_SIZE, &sx), ENOENT,
		 "a missing file: ENOENT");
	is_errno(lstatx(999, "x", 0, STATX_SIZE, &sx), EBADF,
		 "a relative path from a closed fd: EBADF");
	is_errno(lstatx(999, "", UAPI_AT_EMPTY_PATH, STATX_SIZE, &sx), EBADF,
		 "UAPI_AT_EMPTY_PATH on a closed fd: EBADF");
	is_errno(lstatx(UAPI_AT_FDCWD, path, 0, STATX_SIZE, (void *)1), EFAULT,
		 "buffer (void *)1: EFAULT");
	is_errno(lstatx(UAPI_AT_FDCWD, (void *)1, 0, STATX_SIZE, &sx), EFAULT,
		 "path (void *)1: EFAULT");
}

int main(void)
{
	plan(19);
	test_fields();
	test_links();
	test_errors();
	unlink(path);
	return tap_failed != 0;
}
