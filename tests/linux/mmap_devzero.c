/* mmap of /dev/zero is anonymous memory (Linux's mmap_zero): private, a
 * process's own zeroed pages; shared, memory a forked child writes into
 * for its parent.  A shared mapping of the fd opened read-only can never
 * become writable (mmap with PROT_WRITE and mprotect to it: EACCES), and
 * other devices do not map (/dev/null: ENODEV). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#define LEN (4 * 4096)

static bool all_zero(const char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

static char *shared_page;

static void child_writes(void)
{
	strcpy(shared_page, "from the child");
	_exit(0);
}

static void test_private(int rw)
{
	char *p = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE, rw, 0), buf[16];

	ok(p != MAP_FAILED && all_zero(p, LEN), "a private mapping of /dev/zero reads zeroes");
	if (p == MAP_FAILED)
		return;
	memset(p, 'x', LEN);
	ok(read(rw, buf, sizeof buf) == sizeof buf && all_zero(buf, sizeof buf),
	   "writes to it stay in the process: /dev/zero still reads zeroes");
	munmap(p, LEN);
}

static void test_shared(int rw)
{
	int status;

	shared_page = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, rw, 0);
	ok(shared_page != MAP_FAILED && all_zero(shared_page, LEN),
	   "a shared mapping of /dev/zero reads zeroes");
	if (shared_page == MAP_FAILED)
		return;
	status = child_status(child_writes);
	ok(exited_with(status, 0) && !strcmp(shared_page, "from the child"),
	   "a forked child's writes show in the parent (\"%.16s\")", shared_page);
	munmap(shared_page, LEN);
}

static void test_read_only(int ro)
{
	char *p;

	is_errno((long)mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, ro, 0), EACCES,
		 "shared and writable from an O_RDONLY fd: EACCES");
	p = mmap(NULL, LEN, PROT_READ, MAP_SHARED, ro, 0);
	ok(p != MAP_FAILED && all_zero(p, LEN), "shared and read-only: it maps, zeroes");
	if (p == MAP_FAILED)
		return;
	is_errno(mprotect(p, LEN, PROT_READ | PROT_WRITE), EACCES,
		 "mprotect to PROT_WRITE: EACCES, the fd was not open for writing");
	munmap(p, LEN);
	p = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE, ro, 0);
	ok(p != MAP_FAILED && all_zero(p, LEN) && (memset(p, 1, LEN), p[LEN - 1] == 1),
	   "private from the O_RDONLY fd: writable, as Linux");
	if (p != MAP_FAILED)
		munmap(p, LEN);
}

int main(void)
{
	int rw = open("/dev/zero", O_RDWR), ro = open("/dev/zero", O_RDONLY);
	int null = open("/dev/null", O_RDWR);
	char *anon;

	plan(10);
	require(rw >= 0 && ro >= 0 && null >= 0, "open /dev/zero and /dev/null");
	test_private(rw);
	test_shared(rw);
	test_read_only(ro);
	is_errno((long)mmap(NULL, LEN, PROT_READ, MAP_PRIVATE, null, 0), ENODEV,
		 "/dev/null does not map: ENODEV");
	anon = mmap(NULL, LEN, PROT_READ, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ok(anon != MAP_FAILED && mprotect(anon, LEN, PROT_READ | PROT_WRITE) == 0,
	   "shared anonymous memory mapped read-only may become writable");
	return done();
}
