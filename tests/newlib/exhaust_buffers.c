/* Exhaustion of buffers: a pipe and sockets (unix stream, unix datagram,
 * 127.0.0.1 TCP) filled by non-blocking writes until EAGAIN, then drained:
 * every byte comes back in order and the buffers take writes again. */
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "robust.h"

#define PIPE_CAPACITY 65536 /* fdkernel's ring, Linux's default */
#define CHUNK	      4096

static unsigned char pattern(size_t i)
{
	return (unsigned char)(i * 7 + i / 251);
}

/* Non-blocking writes of CHUNK bytes until EAGAIN; the bytes accepted. */
static size_t fill(int fd)
{
	static unsigned char buf[CHUNK];
	size_t total = 0;
	ssize_t n;
	fcntl(fd, F_SETFL, O_NONBLOCK);
	do {
		for (size_t i = 0; i < CHUNK; i++)
			buf[i] = pattern(total + i);
		n = write(fd, buf, CHUNK);
		total += n > 0 ? (size_t)n : 0;
	} while (n > 0);
	return errno == EAGAIN ? total : 0;
}

/* Read TOTAL bytes back (non-blocking: they must all be there already). */
static bool drain(int fd, size_t total)
{
	static unsigned char buf[CHUNK];
	size_t got = 0;
	ssize_t n;
	fcntl(fd, F_SETFL, O_NONBLOCK);
	while (got < total && (n = read(fd, buf, CHUNK)) > 0)
		for (ssize_t i = 0; i < n; i++, got++)
			if (buf[i] != pattern(got))
				return false;
	return got == total && read(fd, buf, 1) < 0 && errno == EAGAIN;
}

/* Fill the writer, drain the reader, write once more. */
static void fill_and_drain(int wfd, int rfd, const char *what)
{
	size_t total = fill(wfd);
	ok(total > 0, "%s: writes until EAGAIN (%zu bytes)", what, total);
	ok(drain(rfd, total), "%s: all %zu bytes read back in order, then EAGAIN", what, total);
	ok(write(wfd, "x", 1) == 1, "%s: a write fits again", what);
	close(wfd);
	close(rfd);
}

static void pipe_case(void)
{
	int fds[2];
	require(pipe(fds) == 0, "a pipe");
	fill_and_drain(fds[1], fds[0], "pipe");
}

static void socketpair_case(int type, const char *what)
{
	int fds[2];
	require(socketpair(AF_UNIX, type, 0, fds) == 0, "a socket pair");
	fill_and_drain(fds[0], fds[1], what);
}

/* A connected 127.0.0.1 TCP pair on an ephemeral port. */
static void tcp_case(void)
{
	struct sockaddr_in addr = {.sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof addr;
	int l = socket(AF_INET, SOCK_STREAM, 0), c = socket(AF_INET, SOCK_STREAM, 0), a;
	require(l >= 0 && c >= 0 && bind(l, (struct sockaddr *)&addr, sizeof addr) == 0 &&
		    listen(l, 1) == 0 && getsockname(l, (struct sockaddr *)&addr, &len) == 0 &&
		    connect(c, (struct sockaddr *)&addr, sizeof addr) == 0 &&
		    (a = accept(l, NULL, NULL)) >= 0,
		"a loopback TCP connection");
	close(l);
	fill_and_drain(c, a, "127.0.0.1 TCP");
}

int main(int argc, char **argv)
{
	struct kstat before;
	(void)argc;
	bool have_before = kstat_read(&before);
	int fds[2];
	plan(16);
	require(pipe(fds) == 0, "a pipe");
	is_int(fill(fds[1]), PIPE_CAPACITY, "a pipe holds exactly 64 KiB");
	close(fds[0]);
	close(fds[1]);
	pipe_case();
	socketpair_case(SOCK_STREAM, "unix stream");
	socketpair_case(SOCK_DGRAM, "unix datagram");
	tcp_case();
	system_usable(argv[0], "full buffers");
	kstat_unchanged(&before, have_before, "nothing leaked");
	return done();
}
