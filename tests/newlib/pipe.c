/*
 * A pipe between two processes: 1 MB streamed and checked, EOF when the
 * writer closes, EPIPE (SIGPIPE ignored) when the reader is gone.
 */
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"

#define TOTAL (1 << 20)

static unsigned char byte_at(long i)
{
	return (unsigned char)(i * 13 + (i >> 9));
}

/* Child: write TOTAL bytes in odd-sized chunks, then exit. */
static void writer(int fd)
{
	unsigned char buf[3001];
	long off = 0;

	while (off < TOTAL) {
		long n = TOTAL - off < (long)sizeof(buf) ? TOTAL - off : (long)sizeof(buf);
		for (long i = 0; i < n; i++)
			buf[i] = byte_at(off + i);
		if (write(fd, buf, n) != n)
			_exit(1);
		off += n;
	}
	_exit(0);
}

int main(void)
{
	unsigned char buf[4096];
	int p[2], status, good = 1;
	long total = 0;
	ssize_t n;

	plan(7);
	if (!ok(pipe(p) == 0, "pipe"))
		return done();
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		writer(p[1]);
	}
	close(p[1]);
	while ((n = read(p[0], buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++)
			good &= buf[i] == byte_at(total + i);
		total += n;
	}
	is_int(n, 0, "read returns 0 at EOF once the writer is gone");
	is_int(total, TOTAL, "every byte arrived");
	ok(good, "in order and intact");
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer exited 0");
	close(p[0]);

	pipe(p);
	close(p[0]);
	signal(SIGPIPE, SIG_IGN);
	is_errno(write(p[1], "x", 1), EPIPE, "write with no reader");
	signal(SIGPIPE, SIG_DFL);
	pid = fork();
	if (pid == 0) {
		write(p[1], "x", 1);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE, "... or death by SIGPIPE");
	close(p[1]);
	return done();
}
