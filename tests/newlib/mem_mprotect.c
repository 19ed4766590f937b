/* Tests of page protection: PROT_NONE/READ/WRITE/EXEC are enforced for user
 * accesses and for the kernel's copies, and mprotect changes them page by
 * page with Linux's errors, also on pages a fork shares copy-on-write. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

#define PAGE 4096

static volatile char *target; /* what the child functions touch */

static char *map(size_t pages, int prot)
{
	char *p = mmap(NULL, pages * PAGE, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	require(p != MAP_FAILED, "mmap");
	return p;
}

static void read_target(void)
{
	(void)*target;
}

static void write_target(void)
{
	*target = 1;
}

static void call_target(void)
{
	((void (*)(void))(uintptr_t)target)();
}

static void test_prot_none(void)
{
	char *p = map(1, PROT_NONE);
	int fds[2];

	target = p;
	ok(killed_by(child_status(read_target), SIGSEGV), "reading a PROT_NONE page: SIGSEGV");
	ok(killed_by(child_status(write_target), SIGSEGV), "writing a PROT_NONE page: SIGSEGV");
	require(pipe(fds) == 0, "pipe");
	is_errno(write(fds[1], p, 16), EFAULT, "write(2) from a PROT_NONE page: EFAULT");
	require(write(fds[1], "0123456789abcdef", 16) == 16, "write");
	is_errno(read(fds[0], p, 16), EFAULT, "read(2) into a PROT_NONE page: EFAULT");
	close(fds[0]);
	close(fds[1]);
	ok(mprotect(p, PAGE, PROT_READ | PROT_WRITE) == 0 && p[0] == 0 && (p[1] = 7) == 7,
	   "mprotect(PROT_READ|PROT_WRITE) makes it usable, zero-filled");
	munmap(p, PAGE);
}

static void test_read_only(void)
{
	char *p = map(3, PROT_READ | PROT_WRITE);

	memset(p, 'a', 3 * PAGE);
	ok(mprotect(p + PAGE, PAGE, PROT_READ) == 0, "mprotect of the middle page to PROT_READ");
	target = p + PAGE;
	ok(killed_by(child_status(write_target), SIGSEGV), "writing it: SIGSEGV");
	ok(exited_with(child_status(read_target), 0) && p[PAGE] == 'a', "reading it still works");
	target = p;
	ok(exited_with(child_status(write_target), 0), "the page before stays writable");
	target = p + 2 * PAGE;
	ok(exited_with(child_status(write_target), 0), "the page after stays writable");
	ok(mprotect(p, 3 * PAGE, PROT_READ | PROT_WRITE) == 0 && (p[PAGE] = 'b') == 'b',
	   "mprotect of the whole span back to read-write");
	munmap(p, 3 * PAGE);
}

static void test_exec(void)
{
	char *p = map(1, PROT_READ | PROT_WRITE);

	p[0] = (char)0xc3; /* ret */
	target = p;
	ok(killed_by(child_status(call_target), SIGSEGV),
	   "executing a page without PROT_EXEC: SIGSEGV");
	ok(mprotect(p, PAGE, PROT_READ | PROT_EXEC) == 0 &&
	       exited_with(child_status(call_target), 0),
	   "after mprotect(PROT_READ|PROT_EXEC) it runs");
	munmap(p, PAGE);
}

static void test_errors(void)
{
	char *p = map(3, PROT_READ | PROT_WRITE);

	is_errno(mprotect(p + 1, PAGE, PROT_READ), EINVAL,
		 "mprotect of an unaligned address: EINVAL");
	is_errno(mprotect(p, PAGE, 0x80), EINVAL, "mprotect with an unknown prot bit: EINVAL");
	ok(mprotect(p, 0, PROT_READ) == 0, "mprotect of length 0: 0");
	ok(mprotect(p, PAGE - 100, PROT_READ) == 0, "a length is rounded up to whole pages");
	target = p + PAGE - 1;
	ok(killed_by(child_status(write_target), SIGSEGV),
	   "... so the whole first page is read-only");
	munmap(p + PAGE, PAGE);
	is_errno(mprotect(p, 3 * PAGE, PROT_READ), ENOMEM, "mprotect over a hole: ENOMEM");
	is_errno(mprotect((void *)(uintptr_t)PAGE, PAGE, PROT_READ), ENOMEM,
		 "mprotect of an unmapped page: ENOMEM");
	is_errno(mprotect(p, -(uintptr_t)p, PROT_READ), ENOMEM,
		 "mprotect of a span past the end of memory: ENOMEM");
	munmap(p, 3 * PAGE);
}

/* A private page made writable again after a fork stays private. */
static void test_cow(void)
{
	char *p = map(1, PROT_READ | PROT_WRITE), c = 0;
	int to_child[2], status = -1;
	pid_t pid;

	p[0] = 'a';
	require(mprotect(p, PAGE, PROT_READ) == 0, "mprotect");
	require(pipe(to_child) == 0, "pipe");
	fflush(stdout);
	if ((pid = fork()) == 0) {
		read(to_child[0], &c, 1);
		_exit(p[0] == 'a' ? 0 : 1);
	}
	ok(mprotect(p, PAGE, PROT_READ | PROT_WRITE) == 0 && (p[0] = 'b') == 'b',
	   "after fork, the parent makes a read-only private page writable and writes it");
	write(to_child[1], "x", 1);
	waitpid(pid, &status, 0);
	ok(exited_with(status, 0), "the child still sees the old contents");
	close(to_child[0]);
	close(to_child[1]);
	munmap(p, PAGE);
}

int main(void)
{
	plan(23);
	test_prot_none();
	test_read_only();
	test_exec();
	test_errors();
	test_cow();
	return done();
}
