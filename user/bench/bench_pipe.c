/* Pipe throughput between two processes, 64 B and 64 KiB writes (read in
 * the same sizes): a writer child streams TOTAL bytes per repetition. */
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define REPS 11

struct pipe_case {
	size_t chunk; /* bytes per write() and per read() */
	size_t total; /* bytes per repetition */
	int data[2];  /* child -> parent: the stream */
	int go[2];    /* parent -> child: one byte starts a repetition */
};

static char buf[64 * 1024];

/* The writer: one burst of c->total bytes per byte read from go, until EOF. */
static _Noreturn void writer(struct pipe_case *c)
{
	char token;
	close(c->data[0]);
	close(c->go[1]);
	while (read(c->go[0], &token, 1) == 1)
		for (size_t sent = 0; sent < c->total; sent += c->chunk)
			if (write(c->data[1], buf, c->chunk) != (ssize_t)c->chunk)
				_exit(1);
	_exit(0);
}

static double pipe_rep(const char *name, void *arg)
{
	struct pipe_case *c = arg;
	uint64_t start = bench_now_ns();
	if (write(c->go[1], "g", 1) != 1) {
		bench_fail(name, "write to writer: %s", strerror(errno));
		return -1;
	}
	for (size_t got = 0; got < c->total;) {
		ssize_t n = read(c->data[0], buf, c->chunk);
		if (n <= 0) {
			bench_fail(name, "read: %s", n ? strerror(errno) : "writer ended early");
			return -1;
		}
		got += (size_t)n;
	}
	return (double)c->total * 1000 / (double)(bench_now_ns() - start); /* MB/s */
}

/* Starts a writer for CHUNK-sized writes, measures row NAME, stops it. */
static void pipe_row(const char *name, size_t chunk, size_t total)
{
	struct pipe_case c = {.chunk = chunk, .total = total};
	if (!bench_wanted(name)) /* no writer process for a row not run */
		return;
	if (pipe(c.data) < 0 || pipe(c.go) < 0) {
		bench_fail(name, "pipe: %s", strerror(errno));
		return;
	}
	pid_t pid = fork();
	if (pid < 0) {
		bench_fail(name, "fork: %s", strerror(errno));
		return;
	}
	if (pid == 0)
		writer(&c);
	close(c.data[1]);
	close(c.go[0]);
	bench_row(name, "MB/s", REPS, pipe_rep, &c);
	close(c.go[1]);
	close(c.data[0]);
	waitpid(pid, NULL, 0);
}

int main(void)
{
	bench_begin("bench_pipe", "pipe_64B,pipe_64KiB");
	pipe_row("pipe_64B", 64, 1 << 20);
	pipe_row("pipe_64KiB", 64 * 1024, 16 << 20);
	return bench_end();
}
