/* fsync, fdatasync, sync, syncfs and sync_file_range: Linux's argument
 * checking (EBADF first, EINVAL for sync_file_range's flags and ranges,
 * EINVAL from fsync and ESPIPE from sync_file_range on a pipe or a
 * socket), and success on a file and a directory of /tmp. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "testutil.h"

#define SFR_ALL (SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER)

static char path[64];

static void test_files(void)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	int rd, dir = open("/tmp", O_RDONLY | O_DIRECTORY);

	require(fd >= 0 && dir >= 0, "open");
	require(write(fd, "data", 4) == 4, "write");
	is_int(fsync(fd), 0, "fsync of a written file");
	is_int(fdatasync(fd), 0, "fdatasync of a written file");
	is_int(fsync(dir), 0, "fsync of a directory");
	rd = open(path, O_RDONLY);
	is_int(fsync(rd), 0, "fsync of a file open only for reading");
	is_int(syncfs(fd), 0, "syncfs through a file");
	is_int(syscall(SYS_sync), 0, "sync");
	is_int(sync_file_range(fd, 0, 0, SFR_ALL), 0, "sync_file_range of the whole file");
	is_int(sync_file_range(fd, 4096, 100, SYNC_FILE_RANGE_WRITE), 0, "past the end is fine");
	is_int(sync_file_range(dir, 0, 0, 0), 0, "sync_file_range of a directory");
	is_int(sync_file_range(fd, INT64_MAX, 0, 0), 0, "offset INT64_MAX, length 0");
	is_int(sync_file_range(fd, INT64_MAX - 1, 1, 0), 0, "an end at INT64_MAX");
	close(rd);
	close(dir);
	close(fd);
}

static void test_bad(void)
{
	int fd = open(path, O_RDWR), p[2], s[2];

	require(fd >= 0 && pipe(p) == 0 && socketpair(AF_UNIX, SOCK_STREAM, 0, s) == 0, "set-up");
	is_errno(fsync(-1), EBADF, "fsync(-1)");
	is_errno(fdatasync(9999), EBADF, "fdatasync of a closed fd");
	is_errno(syncfs(-1), EBADF, "syncfs(-1)");
	is_errno(sync_file_range(-1, 0, 0, 0), EBADF, "sync_file_range(-1)");
	is_errno(sync_file_range(-1, -1, 0, 0x80), EBADF, "a bad fd is EBADF before EINVAL");
	is_errno(fsync(p[0]), EINVAL, "fsync of a pipe");
	is_errno(fdatasync(p[1]), EINVAL, "fdatasync of a pipe");
	is_errno(fsync(s[0]), EINVAL, "fsync of a socket");
	int null = open("/dev/null", O_WRONLY);
	is_errno(fsync(null), EINVAL, "fsync of /dev/null (a device without data)");
	close(null);
	is_int(syncfs(p[0]), 0, "syncfs of a pipe (its pseudo file system)");
	is_errno(sync_file_range(fd, 0, 0, 8), EINVAL, "sync_file_range: unknown flag");
	is_errno(sync_file_range(fd, -1, 0, 0), EINVAL, "negative offset");
	is_errno(sync_file_range(fd, 0, -1, 0), EINVAL, "negative length");
	is_errno(sync_file_range(fd, INT64_MAX, 1, 0), EINVAL, "an end past INT64_MAX");
	is_errno(sync_file_range(fd, 1, INT64_MAX, 0), EINVAL, "an end that wraps");
	is_errno(sync_file_range(p[0], 0, 0, 0), ESPIPE, "sync_file_range of a pipe");
	is_errno(sync_file_range(s[0], 0, 0, 0), ESPIPE, "sync_file_range of a socket");
	is_errno(sync_file_range(p[0], -1, 0, 0), EINVAL, "EINVAL comes before ESPIPE");
	close(p[0]);
	close(p[1]);
	close(s[0]);
	close(s[1]);
	close(fd);
}

int main(void)
{
	plan(29);
	snprintf(path, sizeof path, "/tmp/sync_calls.%d", getpid());
	test_files();
	test_bad();
	unlink(path);
	return done();
}
