/* mlock, mlock2, munlock, mlockall, munlockall: locked pages are mapped at
 * once (or as touched with MLOCK_ONFAULT), VmLck in /proc/self/status adds
 * the locked ranges up, madvise cannot drop them, fork does not inherit
 * them; MAP_LOCKED and MAP_POPULATE; the range rules and errors as Linux. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "testutil.h"

#define PAGE 4096L
#define N    8

/* VmLck in kB, or -1. */
static long vmlck(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "VmLck: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

/* Pages of [p, p + n pages) in memory. */
static int resident(void *p, int n)
{
	unsigned char v[64];
	int r = 0;

	if (mincore(p, n * PAGE, v))
		return -1;
	for (int i = 0; i < n; i++)
		r += v[i] & 1;
	return r;
}

static char *anon(int n, int prot, int extra)
{
	char *p = mmap(NULL, n * PAGE, prot, MAP_PRIVATE | MAP_ANONYMOUS | extra, -1, 0);
	require(p != MAP_FAILED, "mmap");
	return p;
}

static void test_mlock(void)
{
	long base = vmlck();
	char *p = anon(N, PROT_READ | PROT_WRITE, 0);

	is_int(resident(p, N), 0, "a fresh mapping has no page in memory");
	ok(mlock(p + 100, 3 * PAGE) == 0, "mlock of an unaligned range");
	is_int(vmlck() - base, 16, "VmLck: the four pages it touches");
	is_int(resident(p, 4), 4, "they are in memory");
	memset(p, 'x', 4 * PAGE);
	is_errno(madvise(p, PAGE, MADV_DONTNEED), EINVAL, "MADV_DONTNEED on them: EINVAL");
	is_errno(madvise(p, PAGE, MADV_FREE), EINVAL, "MADV_FREE: EINVAL");
	is_errno(msync(p, PAGE, MS_INVALIDATE), EBUSY, "msync MS_INVALIDATE: EBUSY");
	ok(p[0] == 'x' && p[4 * PAGE - 1] == 'x', "the data stays");
	ok(syscall(SYS_mlock2, p + 4 * PAGE, 4 * PAGE, MLOCK_ONFAULT) == 0, "mlock2 MLOCK_ONFAULT");
	is_int(vmlck() - base, 32, "VmLck counts the range at once");
	is_int(resident(p + 4 * PAGE, 4), 0, "but maps nothing yet");
	p[5 * PAGE] = 1;
	is_int(resident(p + 4 * PAGE, 4), 1, "a touched page is mapped");
	ok(munlock(p + PAGE, 2 * PAGE) == 0 && vmlck() - base == 24, "munlock of the middle");
	ok(madvise(p + PAGE, PAGE, MADV_DONTNEED) == 0, "unlocked pages can be dropped again");
	ok(munlock(p, N * PAGE) == 0 && vmlck() == base, "munlock of all: VmLck back");
	munmap(p, N * PAGE);
}

static void test_errors(void)
{
	long base = vmlck();
	char *p = anon(4, PROT_READ, 0), *none = anon(1, PROT_NONE, 0);

	is_int(mlock(p, 0), 0, "length 0: nothing to do");
	is_int(mlock(p, ~0UL), 0, "a length that rounds to 0 too");
	is_errno(mlock(p, ~0UL - 2 * PAGE), EINVAL, "a range that wraps: EINVAL");
	munmap(p + 2 * PAGE, PAGE);
	is_errno(mlock(p, 4 * PAGE), ENOMEM, "a hole in the range: ENOMEM");
	is_int(vmlck() - base, 8, "the part before the hole is locked, as Linux");
	is_errno(munlock(p, 4 * PAGE), ENOMEM, "munlock over the hole: ENOMEM");
	is_int(vmlck(), base, "and unlocks the part before it");
	is_errno(mlock((void *)PAGE, PAGE), ENOMEM, "unmapped: ENOMEM");
	is_errno(mlock((void *)0xffffffff80000000UL, PAGE), ENOMEM, "a kernel address: ENOMEM");
	is_errno(mlock(none, PAGE), ENOMEM, "PROT_NONE: ENOMEM");
	is_int(vmlck() - base, 4, "though locked (it cannot be populated)");
	is_errno(syscall(SYS_mlock2, p, PAGE, 2), EINVAL, "mlock2 with an unknown flag: EINVAL");
	is_errno(mlockall(0), EINVAL, "mlockall(0): EINVAL");
	is_errno(mlockall(MCL_ONFAULT), EINVAL, "mlockall(MCL_ONFAULT) alone: EINVAL");
	is_errno(mlockall(8), EINVAL, "mlockall with an unknown flag: EINVAL");
	munlock(none, PAGE);
	munmap(p, 4 * PAGE);
	munmap(none, PAGE);
}

static void child_checks(void)
{
	char *q = anon(2, PROT_READ | PROT_WRITE, 0);

	/* exit 0: nothing locked in the child, and MCL_FUTURE did not follow */
	_exit(vmlck() != 0 ? 1 : resident(q, 2) != 0 ? 2 : 0);
}

static void test_mlockall(void)
{
	char *p = anon(4, PROT_READ | PROT_WRITE, 0), *q;
	int status;

	ok(mlockall(MCL_CURRENT | MCL_FUTURE) == 0, "mlockall(MCL_CURRENT | MCL_FUTURE)");
	ok(vmlck() >= 16 && resident(p, 4) == 4, "the mapping is locked and in memory");
	q = anon(4, PROT_READ | PROT_WRITE, 0);
	is_int(resident(q, 4), 4, "a new mapping is locked at once (MCL_FUTURE)");
	status = child_status(child_checks);
	ok(exited_with(status, 0), "fork: the child inherits no lock (%d)",
	   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	ok(munlockall() == 0 && vmlck() == 0, "munlockall: VmLck 0");
	munmap(q, 4 * PAGE);
	q = anon(4, PROT_READ | PROT_WRITE, 0);
	is_int(resident(q, 4), 0, "and new mappings are lazy again");
	munmap(q, 4 * PAGE);
	ok(mlockall(MCL_FUTURE | MCL_ONFAULT) == 0, "MCL_FUTURE | MCL_ONFAULT");
	q = anon(4, PROT_READ | PROT_WRITE, 0);
	ok(vmlck() >= 16 && resident(q, 4) == 0, "a new mapping: locked, mapped as touched");
	munlockall();
	munmap(q, 4 * PAGE);
	munmap(p, 4 * PAGE);
}

static void test_map_flags(void)
{
	long base = vmlck();
	char *p = anon(4, PROT_READ | PROT_WRITE, MAP_LOCKED), *q;

	ok(vmlck() - base == 16 && resident(p, 4) == 4, "MAP_LOCKED: locked and in memory");
	munmap(p, 4 * PAGE);
	is_int(vmlck(), base, "munmap ends the lock");
	q = anon(4, PROT_READ, MAP_POPULATE);
	ok(vmlck() == base && resident(q, 4) == 4, "MAP_POPULATE: in memory, not locked");
	munmap(q, 4 * PAGE);
}

int main(void)
{
	plan(41);
	require(vmlck() == 0, "VmLck in /proc/self/status, 0 at start");
	test_mlock();
	test_errors();
	test_mlockall();
	test_map_flags();
	return done();
}
