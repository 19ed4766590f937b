/* io_uring's SYNC_FILE_RANGE, FALLOCATE and SHUTDOWN (liburing's fsync,
 * fallocate and shutdown tests use them): each does its system call's
 * work with its errors (EINVAL, ESPIPE, EBADF, ENOTSOCK, EOPNOTSUPP), on a
 * direct descriptor too, and a field the opcode does not use is EINVAL in
 * the CQE, as Linux's. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "testutil.h"
#include "uring_raw.h"

static struct uring r;

static long size_of(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? -1 : (long)st.st_size;
}

static void check_sync_file_range(int fd, int pipe_fd)
{
	uring_prep(&r, IORING_OP_SYNC_FILE_RANGE, fd, 0, 4096, 0, 0)->sync_range_flags = 2;
	is_int(uring_run1(&r), 0, "SYNC_FILE_RANGE of a file: 0");
	uring_prep(&r, IORING_OP_SYNC_FILE_RANGE, fd, 0, 0, 0, 0)->sync_range_flags = 8;
	is_int(uring_run1(&r), -EINVAL, "with an unknown flag: EINVAL");
	uring_prep(&r, IORING_OP_SYNC_FILE_RANGE, fd, 0, 0, (uint64_t)-4096, 0);
	is_int(uring_run1(&r), -EINVAL, "at a negative offset: EINVAL");
	uring_prep(&r, IORING_OP_SYNC_FILE_RANGE, pipe_fd, 0, 0, 0, 0);
	is_int(uring_run1(&r), -ESPIPE, "of a pipe: ESPIPE");
	uring_prep(&r, IORING_OP_SYNC_FILE_RANGE, 999, 0, 0, 0, 0);
	is_int(uring_run1(&r), -EBADF, "of a closed fd: EBADF");
	uring_prep(&r, IORING_OP_SYNC_FILE_RANGE, fd, 8, 0, 0, 0);
	is_int(uring_run1(&r), -EINVAL, "with addr set: EINVAL");
}

static void check_fallocate(int fd, int pipe_fd)
{
	/* mode in len, the length in addr */
	uring_prep(&r, IORING_OP_FALLOCATE, fd, 8192, 0, 4096, 0);
	is_int(uring_run1(&r), 0, "FALLOCATE of 8 KiB at 4 KiB: 0");
	is_int(size_of(fd), 12288, "the file grows to 12 KiB");
	uring_prep(&r, IORING_OP_FALLOCATE, fd, 65536, FALLOC_FL_KEEP_SIZE, 0, 0);
	is_int(uring_run1(&r), 0, "FALLOCATE with KEEP_SIZE: 0");
	is_int(size_of(fd), 12288, "the size stays");
	uring_prep(&r, IORING_OP_FALLOCATE, fd, 0, 0, 0, 0);
	is_int(uring_run1(&r), -EINVAL, "a length of 0: EINVAL");
	uring_prep(&r, IORING_OP_FALLOCATE, fd, 4096, 0x8000, 0, 0);
	is_int(uring_run1(&r), -EOPNOTSUPP, "an unknown mode: EOPNOTSUPP");
	uring_prep(&r, IORING_OP_FALLOCATE, pipe_fd, 4096, 0, 0, 0);
	is_int(uring_run1(&r), -ESPIPE, "of a pipe: ESPIPE");
	uring_prep(&r, IORING_OP_FALLOCATE, fd, 4096, 0, 0, 0)->rw_flags = 1;
	is_int(uring_run1(&r), -EINVAL, "with rw_flags set: EINVAL");
}

static void check_shutdown(int pipe_fd)
{
	int sv[2];
	char c;

	require(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv), "a socket pair");
	uring_prep(&r, IORING_OP_SHUTDOWN, sv[0], 0, SHUT_WR, 0, 0);
	is_int(uring_run1(&r), 0, "SHUTDOWN SHUT_WR: 0");
	is_int(read(sv[1], &c, 1), 0, "the peer reads the end");
	is_int(write(sv[1], "x", 1), 1, "and can still write to it");
	is_int(uring_register_raw(r.fd, IORING_REGISTER_FILES, &sv[1], 1), 0,
	       "the peer registered as direct descriptor 0");
	uring_prep(&r, IORING_OP_SHUTDOWN, 0, 0, SHUT_WR, 0, 0)->flags = IOSQE_FIXED_FILE;
	is_int(uring_run1(&r), 0, "SHUTDOWN of it (FIXED_FILE): 0");
	is_int(read(sv[0], &c, 1), 1, "the first end reads the byte");
	is_int(read(sv[0], &c, 1), 0, "then the end");
	uring_prep(&r, IORING_OP_SHUTDOWN, sv[0], 0, 7, 0, 0);
	is_int(uring_run1(&r), -EINVAL, "how 7: EINVAL");
	uring_prep(&r, IORING_OP_SHUTDOWN, sv[0], 0, SHUT_RD, 4, 0);
	is_int(uring_run1(&r), -EINVAL, "with off set: EINVAL");
	uring_prep(&r, IORING_OP_SHUTDOWN, pipe_fd, 0, SHUT_RD, 0, 0);
	is_int(uring_run1(&r), -ENOTSOCK, "of a pipe: ENOTSOCK");
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	int fd = uring_tmpfile(), p[2];

	plan(24);
	require(fd >= 0 && !pipe(p), "a file and a pipe");
	require(!uring_init(&r, 8, 0), "a ring");
	check_sync_file_range(fd, p[0]);
	check_fallocate(fd, p[1]);
	check_shutdown(p[0]);
	uring_exit(&r);
	close(fd);
	close(p[0]);
	close(p[1]);
	return done();
}
