/* Exhaustion of memory: a child takes all it can (mmap and touch, then
 * brk) until ENOMEM or it is killed; meanwhile and afterwards the rest of the system
 * runs, and every frame comes back when the child is gone. */
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>

#include "robust.h"

#define CHUNK (1UL << 20)

static int full_fd = -1, go_fd = -1; /* child -> parent "full", parent -> child "go" */

/* Tell the parent memory is full, wait for its word, exit 0. */
static _Noreturn void report_full(void)
{
	char c = 'f';
	write(full_fd, &c, 1);
	read(go_fd, &c, 1);
	_exit(0);
}

/* Mappings are charged, not filled (overcommit, docs/memory.md): the
 * memory is taken by touching every page, until the OOM killer ends the
 * child or a mapping is refused. */
static void take_mmap(void)
{
	char *p;

	while ((p = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			 0)) != MAP_FAILED)
		for (size_t off = 0; off < CHUNK; off += 4096)
			p[off] = 1;
	if (errno != ENOMEM)
		_exit(3);
	report_full();
}

static void take_brk(void)
{
	while (sbrk(CHUNK) != (void *)-1)
		;
	if (errno != ENOMEM)
		_exit(3);
	report_full();
}

/* FN in a child until it says memory is full; then the parent's checks; then
 * the child goes.  The child ending by a signal is allowed (killed for want
 * of memory), not by anything else. */
static void exhaust(void (*fn)(void), const char *what)
{
	int full[2], go[2], status;
	char c;
	require(pipe(full) == 0 && pipe(go) == 0, "pipes");
	full_fd = full[1], go_fd = go[0];
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0)
		fn();
	require(pid > 0, "fork");
	close(full[1]);
	close(go[0]);
	bool filled = read(full[0], &c, 1) == 1;
	ok(!filled || pipe_round_trip(), "%s: with memory full, the parent still works", what);
	write(go[1], "g", 1);
	waitpid(pid, &status, 0);
	ok(filled ? exited_with(status, 0) : WIFSIGNALED(status),
	   "%s: the child got ENOMEM (or was killed), wait status %#x", what, status);
	close(full[0]);
	close(go[1]);
}

int main(int argc, char **argv)
{
	struct kstat before;
	(void)argc;
	if (!on_fdkernel())
		skip_all("would exhaust the host's memory");
	bool have_before = kstat_read(&before);
	plan(7);
	signal(SIGPIPE, SIG_IGN); /* the OOM killer may have ended the child */
	exhaust(take_mmap, "mmap of 1 MiB chunks");
	exhaust(take_brk, "brk in 1 MiB steps");
	system_usable(argv[0], "memory exhaustion");
	kstat_unchanged(&before, have_before, "every frame came back");
	return done();
}
