/* F_GETPIPE_SZ / F_SETPIPE_SZ: a new pipe holds 64 KiB; sizes round up to
 * a page and then to a power of two; above 2^31 is EINVAL, below what the
 * pipe holds EBUSY; data and its order survive a resize (the ring
 * wrapped or not); a writer blocked on a full pipe goes on when it grows;
 * the capacity is what non-blocking writes can fill; FIFOs too; other
 * files EBADF.  fdkernel bounds every pipe by pipe-max-size (EPERM above
 * it), as Linux does for a process without CAP_SYS_RESOURCE. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

#define PAGE 4096

static long pipe_max(void)
{
	FILE *f = fopen("/proc/sys/fs/pipe-max-size", "r");
	long v = 1048576; /* Linux's default, and fdkernel's */

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = 1048576;
		fclose(f);
	}
	return v;
}

static void test_rounding(void)
{
	int p[2];

	require(pipe(p) == 0, "pipe");
	is_int(fcntl(p[0], F_GETPIPE_SZ), 65536, "a new pipe holds 64 KiB");
	is_int(fcntl(p[1], F_GETPIPE_SZ), 65536, "either end answers");
	is_int(fcntl(p[1], F_SETPIPE_SZ, 0), PAGE, "0 rounds up to a page");
	is_int(fcntl(p[0], F_GETPIPE_SZ), PAGE, "and the other end sees it");
	is_int(fcntl(p[1], F_SETPIPE_SZ, 1), PAGE, "1: a page");
	is_int(fcntl(p[1], F_SETPIPE_SZ, PAGE + 1), 2 * PAGE, "a page and a byte: two pages");
	is_int(fcntl(p[1], F_SETPIPE_SZ, 3 * PAGE), 4 * PAGE, "three pages: four (a power of two)");
	is_int(fcntl(p[1], F_SETPIPE_SZ, 100000), 131072, "100000: 128 KiB");
	is_errno(fcntl(p[1], F_SETPIPE_SZ, (1U << 31) + 1), EINVAL, "past 2^31: EINVAL");
	is_errno(fcntl(p[1], F_SETPIPE_SZ, -1), EINVAL, "-1 (as unsigned, past 2^31): EINVAL");
	is_int(fcntl(p[1], F_SETPIPE_SZ, pipe_max()), pipe_max(), "exactly pipe-max-size");
	if (on_fdkernel())
		is_errno(fcntl(p[1], F_SETPIPE_SZ, pipe_max() * 2), EPERM,
			 "above pipe-max-size: EPERM (no CAP_SYS_RESOURCE here)");
	else
		skip("root may go above pipe-max-size on Linux", "above pipe-max-size: EPERM");
	close(p[0]);
	close(p[1]);
}

/* Fills the pipe without blocking: how many bytes went in. */
static long fill(int fd)
{
	static char buf[PAGE];
	long total = 0;
	ssize_t n;

	memset(buf, 'f', sizeof buf);
	while ((n = write(fd, buf, sizeof buf)) > 0)
		total += n;
	return total;
}

static void test_capacity(void)
{
	int p[2];
	char buf[PAGE];

	require(pipe2(p, O_NONBLOCK) == 0, "pipe2");
	is_int(fill(p[1]), 65536, "a new pipe takes 64 KiB");
	while (read(p[0], buf, sizeof buf) > 0)
		;
	fcntl(p[1], F_SETPIPE_SZ, PAGE);
	is_int(fill(p[1]), PAGE, "after F_SETPIPE_SZ 4096: one page");
	while (read(p[0], buf, sizeof buf) > 0)
		;
	fcntl(p[1], F_SETPIPE_SZ, 4 * PAGE);
	is_int(fill(p[1]), 4 * PAGE, "after F_SETPIPE_SZ 16384: four pages");
	close(p[0]);
	close(p[1]);
}

/* Bytes numbered from first, so order and loss show. */
static void pattern(char *buf, size_t len, unsigned first)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (char)(first + i) % 251;
}

static void test_busy_and_data(void)
{
	static char in[3 * PAGE], out[3 * PAGE], expect[3 * PAGE];
	int p[2];

	require(pipe(p) == 0, "pipe");
	pattern(in, 2 * PAGE + 1, 0);
	require(write(p[1], in, 2 * PAGE + 1) == 2 * PAGE + 1, "write");
	is_errno(fcntl(p[1], F_SETPIPE_SZ, 2 * PAGE), EBUSY,
		 "shrinking below what the pipe holds: EBUSY");
	is_int(fcntl(p[1], F_GETPIPE_SZ), 65536, "and the size is unchanged");
	is_int(fcntl(p[1], F_SETPIPE_SZ, 4 * PAGE), 4 * PAGE, "shrinking to what still holds it");
	ok(read(p[0], out, 2 * PAGE + 1) == 2 * PAGE + 1 && memcmp(in, out, 2 * PAGE + 1) == 0,
	   "the bytes come out whole and in order");

	/* The ring wrapped: tail near the end of 16 KiB, data across the end. */
	pattern(in, 3 * PAGE, 7);
	require(write(p[1], in, 3 * PAGE) == 3 * PAGE && read(p[0], out, 3 * PAGE) == 3 * PAGE,
		"advance");
	pattern(in, 3 * PAGE, 11);
	require(write(p[1], in, 3 * PAGE) == 3 * PAGE, "write across the ring's end");
	is_int(fcntl(p[1], F_SETPIPE_SZ, 8 * PAGE), 8 * PAGE, "growing a wrapped pipe");
	pattern(expect, 3 * PAGE, 11);
	ok(read(p[0], out, 3 * PAGE) == 3 * PAGE && memcmp(expect, out, 3 * PAGE) == 0,
	   "its bytes come out whole and in order");
	require(write(p[1], in, 100) == 100, "100 bytes");
	is_int(fcntl(p[1], F_SETPIPE_SZ, PAGE), PAGE, "shrinking to a page with 100 bytes held");
	ok(read(p[0], out, PAGE) == 100 && memcmp(in, out, 100) == 0, "they survive");
	close(p[0]);
	close(p[1]);
}

static void test_grow_wakes_writer(void)
{
	int p[2], status;
	pid_t pid;

	require(pipe(p) == 0, "pipe");
	fcntl(p[1], F_SETPIPE_SZ, PAGE);
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	fill(p[1]);
	fcntl(p[1], F_SETFL, 0);
	fflush(stdout);
	if ((pid = fork()) == 0)
		_exit(write(p[1], "more", 4) == 4 ? 0 : 1); /* blocks: the pipe is full */
	sleep_ms(50); /* time to block; the result does not depend on it */
	is_int(fcntl(p[1], F_SETPIPE_SZ, 2 * PAGE), 2 * PAGE,
	       "growing a full pipe with a writer blocked");
	waitpid(pid, &status, 0);
	ok(exited_with(status, 0), "the writer goes on");
	close(p[0]);
	close(p[1]);
}

static void test_not_pipes(void)
{
	char path[64];
	int fd, s[2], fifo;

	snprintf(path, sizeof path, "/tmp/pipe_size.%d", getpid());
	fd = open(path, O_RDWR | O_CREAT, 0600);
	require(fd >= 0 && socketpair(AF_UNIX, SOCK_STREAM, 0, s) == 0, "file, socket");
	is_errno(fcntl(fd, F_GETPIPE_SZ), EBADF, "F_GETPIPE_SZ on a file: EBADF");
	is_errno(fcntl(fd, F_SETPIPE_SZ, PAGE), EBADF, "F_SETPIPE_SZ on a file: EBADF");
	is_errno(fcntl(s[0], F_GETPIPE_SZ), EBADF, "on a socket: EBADF");
	is_errno(fcntl(-1, F_GETPIPE_SZ), EBADF, "on a bad fd: EBADF");
	close(fd);
	unlink(path);
	require(mkfifo(path, 0600) == 0 && (fifo = open(path, O_RDWR)) >= 0, "fifo");
	is_int(fcntl(fifo, F_GETPIPE_SZ), 65536, "a FIFO's pipe: 64 KiB");
	is_int(fcntl(fifo, F_SETPIPE_SZ, 2 * PAGE), 2 * PAGE, "and it resizes");
	close(fifo);
	unlink(path);
	close(s[0]);
	close(s[1]);
}

int main(void)
{
	plan(31);
	test_rounding();
	test_capacity();
	test_busy_and_data();
	test_grow_wakes_writer();
	test_not_pipes();
	return done();
}
