/* Shared anonymous memory is a file of its own (Linux's shmem): no page is
 * resident until touched, a fork before the first touch still shares what
 * either side writes after, mlock2(MLOCK_ONFAULT) counts the range in VmLck
 * without filling it, MADV_DONTNEED keeps the data (it lives in the file),
 * /proc/self/maps names it "/dev/zero (deleted)" (LTP mlock201), and
 * msync of a page inside it returns. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

#define PAGE  4096
#define PAGES 8

static char *mem;

static int resident(void)
{
	unsigned char vec[PAGES];
	int n = 0;

	if (mincore(mem, PAGES * PAGE, vec))
		return -1;
	for (int i = 0; i < PAGES; i++)
		n += vec[i] & 1;
	return n;
}

static long vmlck_kb(void)
{
	char buf[4096], *p;

	if (read_text("/proc/self/status", buf, sizeof buf) < 0 || !(p = strstr(buf, "VmLck:")))
		return -1;
	return strtol(p + 6, NULL, 10);
}

static void child_writes(void)
{
	mem[2 * PAGE] = 'c';
	_exit(0);
}

static bool maps_names_it(void)
{
	char buf[16384], want[32], *line;

	snprintf(want, sizeof want, "%lx-", (unsigned long)mem);
	if (read_text("/proc/self/maps", buf, sizeof buf) < 0 || !(line = strstr(buf, want)))
		return false;
	*strchrnul(line, '\n') = 0;
	return strstr(line, " rw-s ") && strstr(line, "/dev/zero (deleted)");
}

int main(void)
{
	long before;

	plan(10);
	mem = mmap(NULL, PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	require(mem != MAP_FAILED, "mmap");
	is_int(resident(), 0, "no page of a new shared anonymous mapping is resident");
	ok(maps_names_it(), "maps shows it as rw-s /dev/zero (deleted)");
	ok(exited_with(child_status(child_writes), 0) && mem[2 * PAGE] == 'c',
	   "a child forked before the first touch writes a page the parent sees");
	is_int(resident(), 1, "then that one page is resident, in the parent too");
	memset(mem, 0, 2 * PAGE);
	mem[2 * PAGE] = 'c'; /* memset above stops short of it */
	is_int(resident(), 3, "two more touched: three resident");
	before = vmlck_kb();
	ok(syscall(SYS_mlock2, mem, PAGES * PAGE, MLOCK_ONFAULT) == 0 &&
	       vmlck_kb() - before == PAGES * PAGE / 1024,
	   "mlock2(MLOCK_ONFAULT) counts all %d pages in VmLck", PAGES);
	is_int(resident(), 3, "and fills none of them");
	munlock(mem, PAGES * PAGE);
	ok(madvise(mem, PAGES * PAGE, MADV_DONTNEED) == 0 && mem[2 * PAGE] == 'c',
	   "MADV_DONTNEED keeps the data: it lives in the shared file");
	ok(mlock(mem, PAGES * PAGE) == 0 && resident() == PAGES, "mlock fills every page");
	/* The range ends inside the mapping: fdkernel's msync once looped on
	 * the mapping's part past the range for ever. */
	ok(msync(mem + PAGE, PAGE, MS_SYNC) == 0, "msync(MS_SYNC) of a page inside the mapping");
	munmap(mem, PAGES * PAGE);
	return done();
}
