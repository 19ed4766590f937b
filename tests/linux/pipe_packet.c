/* Packet-mode pipes (O_DIRECT, Linux 3.4): each write is a packet, a read
 * returns at most one packet and drops what of it did not fit, writes
 * longer than PIPE_BUF are split, and F_SETFL sets or clears the mode on
 * the write end. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "testutil.h"

static char buf[3 * PIPE_BUF];

static void put(int fd, const char *s)
{
	require(write(fd, s, strlen(s)) == (ssize_t)strlen(s), "write");
}

/* A read of up to len bytes equals want. */
static void got(int fd, size_t len, const char *want, const char *what)
{
	ssize_t n = read(fd, buf, len);

	ok(n == (ssize_t)strlen(want) && memcmp(buf, want, n) == 0, "%s: %zd bytes, want \"%s\"",
	   what, n, want);
}

static void flags_and_packets(void)
{
	int p[2];

	require(pipe2(p, O_DIRECT | O_NONBLOCK) == 0, "pipe2(O_DIRECT)");
	ok(fcntl(p[1], F_GETFL) & O_DIRECT, "the write end has O_DIRECT");
	ok(!(fcntl(p[0], F_GETFL) & O_DIRECT), "the read end has not");
	put(p[1], "abc");
	put(p[1], "defg");
	got(p[0], sizeof buf, "abc", "a read takes one packet");
	got(p[0], sizeof buf, "defg", "the next read the next");
	put(p[1], "hello");
	put(p[1], "world");
	got(p[0], 2, "he", "a short read");
	got(p[0], sizeof buf, "world", "the rest of that packet is gone");
	is_errno(read(p[0], buf, 1), EAGAIN, "empty: EAGAIN");
	close(p[0]);
	close(p[1]);
}

/* More than PIPE_BUF: packets of PIPE_BUF and the rest. */
static void long_write(void)
{
	int p[2], avail = 0;

	require(pipe2(p, O_DIRECT) == 0, "pipe2(O_DIRECT)");
	memset(buf, 'x', sizeof buf);
	is_int(write(p[1], buf, PIPE_BUF + 100), PIPE_BUF + 100, "a write of PIPE_BUF + 100");
	ok(ioctl(p[0], FIONREAD, &avail) == 0 && avail == PIPE_BUF + 100,
	   "FIONREAD counts every byte");
	is_int(read(p[0], buf, sizeof buf), PIPE_BUF, "a read gets PIPE_BUF");
	is_int(read(p[0], buf, sizeof buf), 100, "the next the rest");
	close(p[0]);
	close(p[1]);
}

/* F_SETFL switches the mode; bytes written without it are a stream, which
 * a read takes up to a packet and that packet with it. */
static void setfl(void)
{
	int p[2];

	require(pipe2(p, O_NONBLOCK) == 0, "pipe2");
	ok(fcntl(p[1], F_SETFL, O_NONBLOCK | O_DIRECT) == 0, "F_SETFL O_DIRECT on a pipe");
	ok(fcntl(p[1], F_GETFL) & O_DIRECT, "F_GETFL shows it");
	put(p[1], "ab");
	put(p[1], "cd");
	got(p[0], sizeof buf, "ab", "packets after F_SETFL");
	got(p[0], sizeof buf, "cd", "one at a time");
	ok(fcntl(p[1], F_SETFL, O_NONBLOCK) == 0 && !(fcntl(p[1], F_GETFL) & O_DIRECT),
	   "F_SETFL clears it");
	put(p[1], "ab");
	put(p[1], "cd");
	got(p[0], sizeof buf, "abcd", "a stream again");
	put(p[1], "st");
	fcntl(p[1], F_SETFL, O_NONBLOCK | O_DIRECT);
	put(p[1], "pk");
	put(p[1], "q");
	got(p[0], sizeof buf, "stpkq", "packets written behind stream bytes join them");
	put(p[1], "pk");
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	put(p[1], "st");
	got(p[0], sizeof buf, "pk", "a packet ends a read before stream bytes");
	got(p[0], sizeof buf, "st", "which the next read takes");
	ok(fcntl(p[0], F_SETFL, O_DIRECT) == 0, "F_SETFL O_DIRECT on the read end");
	put(p[1], "ab");
	put(p[1], "cd");
	got(p[0], sizeof buf, "abcd", "reads follow how bytes were written");
	close(p[0]);
	close(p[1]);
}

/* A pipe holds a packet per page of its size, however small each is. */
static void capacity(void)
{
	int p[2], n = 0;

	require(pipe2(p, O_DIRECT | O_NONBLOCK) == 0, "pipe2(O_DIRECT)");
	while (n < 1000 && write(p[1], "z", 1) == 1)
		n++;
	is_errno(write(p[1], "z", 1), EAGAIN, "full: EAGAIN");
	is_int(n, fcntl(p[1], F_GETPIPE_SZ) / getpagesize(), "packets: one per page of the size");
	is_int(read(p[0], buf, sizeof buf), 1, "a read takes one");
	is_int(write(p[1], "z", 1), 1, "room for one more");
	is_errno(fcntl(p[1], F_SETPIPE_SZ, getpagesize()), EBUSY,
		 "F_SETPIPE_SZ below the packets held: EBUSY");
	close(p[0]);
	close(p[1]);
}

/* A writer waits for a slot: a child writes more one-byte packets than
 * the pipe holds, the reader gets each alone and in order. */
static void blocking_writer(void)
{
	int p[2], in_order = 1, status;
	pid_t pid;

	require(pipe2(p, O_DIRECT) == 0, "pipe2(O_DIRECT)");
	require((pid = fork()) >= 0, "fork");
	if (pid == 0) {
		for (char c = 'a'; c <= 'z'; c++)
			if (write(p[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	close(p[1]);
	for (char c = 'a'; c <= 'z'; c++)
		in_order &= read(p[0], buf, sizeof buf) == 1 && buf[0] == c;
	ok(in_order, "26 packets through a pipe of 16: one per read, in order");
	is_int(read(p[0], buf, sizeof buf), 0, "then EOF");
	ok(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status),
	   "the writer wrote them all");
	close(p[0]);
}

int main(void)
{
	plan(30);
	flags_and_packets();
	long_write();
	setfl();
	capacity();
	blocking_writer();
	return done();
}
