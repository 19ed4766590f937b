/* Tests that MAP_SHARED|MAP_ANONYMOUS memory stays shared across fork, in
 * both directions and in grandchildren, while MAP_PRIVATE memory is copied. */
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

#define PAGE 4096

static volatile char *shared, *private;

static void child_writes(void)
{
	shared[0] = 'c';
	shared[PAGE] = 'c';
	private[0] = 'c';
}

/* The child waits for the parent's write, reported through a pipe. */
static void parent_writes_child_reads(void)
{
	int fds[2], status = -1;
	char c;
	pid_t pid;

	require(pipe(fds) == 0, "pipe");
	fflush(stdout);
	if ((pid = fork()) == 0) {
		close(fds[1]);
		read(fds[0], &c, 1);
		_exit(shared[1] == 'p' && private[1] == 0 ? 0 : 1);
	}
	close(fds[0]);
	shared[1] = 'p';
	private[1] = 'p';
	write(fds[1], "x", 1);
	close(fds[1]);
	waitpid(pid, &status, 0);
	ok(exited_with(status, 0), "the child sees the parent's later write to shared memory");
}

static void grandchild_writes(void)
{
	if (fork() == 0) {
		shared[2] = 'g';
		_exit(0);
	}
	wait(NULL);
}

int main(void)
{
	plan(6);
	shared = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	private = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	require(shared != MAP_FAILED && private != MAP_FAILED, "mmap");
	ok(exited_with(child_status(child_writes), 0), "a child writes both mappings");
	ok(shared[0] == 'c' && shared[PAGE] == 'c', "the parent sees its writes to shared memory");
	ok(private[0] == 0, "but not to private memory");
	parent_writes_child_reads();
	ok(exited_with(child_status(grandchild_writes), 0) && shared[2] == 'g',
	   "a grandchild's write reaches the grandparent");
	ok(mprotect((void *)shared, PAGE, PROT_READ) == 0 &&
	       mprotect((void *)shared, PAGE, PROT_READ | PROT_WRITE) == 0 &&
	       exited_with(child_status(child_writes), 0) && shared[0] == 'c',
	   "still shared after mprotect read-only and back");
	return done();
}
