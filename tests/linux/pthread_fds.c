/* One descriptor table shared by the threads of a process (CLONE_FILES):
 * an fd opened in one thread works in another, a close is seen by all, and
 * a thread blocked in read on an fd another thread closes goes on reading
 * the old pipe (the read holds the file) while the fd number is reused. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#include "threads.h"

static void *open_null(void *arg)
{
	(void)arg;
	return (void *)(intptr_t)open("/dev/null", O_WRONLY);
}

static void *close_fd(void *arg)
{
	return (void *)(intptr_t)close((int)(intptr_t)arg);
}

static volatile int read_done;
static char read_byte;

static void *reader(void *arg)
{
	ssize_t n = read((int)(intptr_t)arg, &read_byte, 1);

	__atomic_store_n(&read_done, 1, __ATOMIC_SEQ_CST);
	return (void *)n;
}

static void test_blocked_close(void)
{
	int fds[2];
	void *ret;

	require(pipe(fds) == 0, "pipe");
	pthread_t t = start_thread(reader, (void *)(intptr_t)fds[0]);
	usleep(50000);
	is_int(close(fds[0]), 0, "close the fd another thread is reading");
	usleep(50000);
	is_int(read_done, 0, "the reader stays blocked");
	int fd = open("/dev/null", O_RDONLY);
	is_int(fd, fds[0], "the fd number is free at once (lowest-fd rule)");
	is_int(write(fds[1], "w", 1), 1, "a write to the old pipe");
	ok(pthread_join(t, &ret) == 0 && (intptr_t)ret == 1 && read_byte == 'w',
	   "reaches the blocked reader: the read kept the closed pipe alive");
	close(fd);
	close(fds[1]);
}

int main(void)
{
	void *ret;
	char buf[4];
	int fds[2];

	plan(10);
	pthread_join(start_thread(open_null, NULL), &ret);
	int fd = (int)(intptr_t)ret;
	ok(fd >= 0 && write(fd, "abc", 3) == 3, "an fd opened by a thread works in main");
	pthread_join(start_thread(close_fd, (void *)(intptr_t)fd), &ret);
	ok(ret == NULL, "a thread closes main's fd");
	is_errno(write(fd, "abc", 3), EBADF, "main sees it closed: EBADF");

	require(pipe(fds) == 0, "pipe");
	pthread_join(start_thread(close_fd, (void *)(intptr_t)fds[1]), &ret);
	is_int(read(fds[0], buf, sizeof buf), 0, "a thread closed the write end: main reads EOF");
	close(fds[0]);
	test_blocked_close();
	is_errno(fcntl(fds[0], F_GETFD), EBADF, "nothing left open");
	return done();
}
