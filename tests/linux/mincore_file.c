/* mincore on a private file mapping: a page that any process faulted in,
 * even a hole only read, is in the file's cache, so every process mapping
 * the file sees it resident, not only the one whose page table maps it. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#define PAGE  4096L
#define PAGES 3

/* Pages of [p, p + n pages) in memory, or -1. */
static int resident(void *p, int n)
{
	unsigned char v[PAGES];

	if (mincore(p, n * PAGE, v))
		return -1;
	int r = 0;
	for (int i = 0; i < n; i++)
		r += v[i] & 1;
	return r;
}

/* A file of PAGES pages, all a hole (fresh: no page in memory). */
static int hole_file(const char *what)
{
	char path[64];
	int fd;

	if (what) {
		fd = memfd_create(what, 0);
	} else {
		snprintf(path, sizeof path, "/tmp/mincore_file-%d", (int)getpid());
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
		unlink(path);
	}
	require(fd >= 0 && ftruncate(fd, PAGES * PAGE) == 0, "a hole file");
	return fd;
}

/* fn runs in a child that shares p's file mapping (fork). */
static void in_child(void (*fn)(char *), char *p)
{
	int status;
	pid_t pid = fork();

	require(pid >= 0, "fork");
	if (pid == 0) {
		fn(p);
		_exit(0);
	}
	require(waitpid(pid, &status, 0) == pid && WIFEXITED(status), "child");
}

static void read_pages(char *p)
{
	volatile char sum = 0;

	for (int i = 0; i < PAGES; i++)
		sum += p[i * PAGE];
	(void)sum;
}

static void lock_pages(char *p)
{
	if (mlock(p, PAGES * PAGE))
		_exit(1);
}

static void test(const char *what, void (*fn)(char *), const char *how)
{
	int fd = hole_file(what);
	char *p = mmap(NULL, PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);

	require(p != MAP_FAILED, "mmap");
	if (!on_fdkernel() && !what)
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED); /* a disk file's cache */
	is_int(resident(p, PAGES), 0, "%s: no page resident before any touch",
	       what ? what : "file");
	in_child(fn, p);
	is_int(resident(p, PAGES), PAGES, "%s: pages a child %s are resident in the parent",
	       what ? what : "file", how);
	munmap(p, PAGES * PAGE);
	close(fd);
}

static void test_own_write(void)
{
	int fd = hole_file("cow");
	char *p = mmap(NULL, PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0), c = 0;

	require(p != MAP_FAILED, "mmap");
	p[0] = 'x';
	is_int(resident(p, PAGES), 1, "a private write: that page resident, the others not");
	ok(pread(fd, &c, 1, 0) == 1 && c == 0, "and the file still reads a zero there");
	munmap(p, PAGES * PAGE);
	close(fd);
}

int main(void)
{
	plan(8);
	test(NULL, read_pages, "read");
	test(NULL, lock_pages, "locked");
	test("memfd", read_pages, "read");
	test_own_write();
	return done();
}
