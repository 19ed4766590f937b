/* /proc/self/smaps and smaps_rollup as Linux writes them: one entry per
 * maps line with Linux's fields in its order and format, sizes that follow
 * what the pages are (untouched, written, shared with a forked child and
 * copied by its write, mlocked, shared anonymous memory, a memfd's pages
 * mapped shared and privately, a private copy), VmFlags, and a rollup that
 * sums them.  The files are read with read() into static buffers, so the
 * reading itself maps nothing. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

#define PG    4096L
#define PAGES 16

static char smaps[256 << 10], maps[64 << 10], rollup[4096];

static void load(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	size_t len = 0;
	ssize_t n;

	require(fd >= 0, path);
	while ((n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	buf[len] = 0;
	close(fd);
}

/* The smaps entry of the vma starting at addr (in smaps), or NULL. */
static const char *entry_at(const void *addr)
{
	char head[32];
	int n = snprintf(head, sizeof head, "%lx-", (unsigned long)addr);

	load("/proc/self/smaps", smaps, sizeof smaps);
	for (const char *l = smaps; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, head, n))
			return l;
	return NULL;
}

/* Field name's value in kB in the entry e (its lines up to VmFlags). */
static long field(const char *e, const char *name)
{
	size_t len = strlen(name);

	for (const char *l = e ? strchr(e, '\n') : NULL; l && *++l && strncmp(l, "VmFlags", 7);
	     l = strchr(l, '\n'))
		if (!strncmp(l, name, len) && l[len] == ':')
			return strtol(l + len + 1, NULL, 10);
	return -1;
}

/* The entry's VmFlags text, in buf. */
static const char *vmflags(const char *e, char *buf, size_t size)
{
	const char *l = e ? strstr(e, "\nVmFlags: ") : NULL;
	size_t n;

	buf[0] = 0;
	if (l) {
		l += 10;
		n = strcspn(l, "\n");
		snprintf(buf, size, "%.*s", (int)(n < size ? n : size - 1), l);
	}
	return buf;
}

/* Rss, Pss, Shared_Dirty, Private_Dirty, Anonymous of the vma at addr. */
static bool sizes(const void *addr, long rss, long pss, long shared_dirty, long private_dirty,
		  long anon)
{
	const char *e = entry_at(addr);
	bool ok = field(e, "Rss") == rss && field(e, "Pss") == pss &&
		  field(e, "Shared_Dirty") == shared_dirty &&
		  field(e, "Private_Dirty") == private_dirty && field(e, "Anonymous") == anon &&
		  field(e, "Shared_Clean") == 0 && field(e, "Private_Clean") == 0;

	if (!ok)
		diag(
		    "Rss %ld Pss %ld Shared_Dirty %ld Private_Dirty %ld Anonymous %ld Shared_Clean "
		    "%ld Private_Clean %ld",
		    field(e, "Rss"), field(e, "Pss"), field(e, "Shared_Dirty"),
		    field(e, "Private_Dirty"), field(e, "Anonymous"), field(e, "Shared_Clean"),
		    field(e, "Private_Clean"));
	return ok;
}

/* got is want, showing both when not. */
static void is_text(const char *got, const char *want, const char *what)
{
	if (!ok(!strcmp(got, want), "%s", what))
		diag("got \"%s\", expected \"%s\"", got, want);
}

static void touch(char *p, long pages)
{
	for (long i = 0; i < pages; i++)
		p[i * PG] = 1;
}

/* PAGES writable anonymous pages between two PROT_NONE guards, so that
 * the vma is exactly theirs. */
static char *guarded(void)
{
	char *g = mmap(NULL, (PAGES + 2) * PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	require(g != MAP_FAILED && mprotect(g + PG, PAGES * PG, PROT_READ | PROT_WRITE) == 0,
		"guarded mapping");
	return g + PG;
}

static const char *const fields[] = {
    "Size",	     "KernelPageSize", "MMUPageSize",	  "Rss",
    "Pss",	     "Pss_Dirty",      "Shared_Clean",	  "Shared_Dirty",
    "Private_Clean", "Private_Dirty",  "Referenced",	  "Anonymous",
    "KSM",	     "LazyFree",       "AnonHugePages",	  "ShmemPmdMapped",
    "FilePmdMapped", "Shared_Hugetlb", "Private_Hugetlb", "Swap",
    "SwapPss",	     "Locked",	       "THPeligible",
};

/* Whether line l is "Name:" padded to 16 columns and a number in 8, then
 * " kB" (kb) or the end of the line. */
static bool number_line(const char *l, const char *name, bool kb)
{
	size_t n = strlen(name), end = strcspn(l, "\n");
	char want[32];

	snprintf(want, sizeof want, "%s:", name);
	return !strncmp(l, want, n + 1) && end == (kb ? 27u : 24u) && l[23] >= '0' &&
	       l[23] <= '9' && (!kb || !strncmp(l + 24, " kB", 3));
}

/* Every entry: its maps line (maps, read at the same time, in order),
 * Linux's fields in order and format, then VmFlags. */
static void test_format(void)
{
	const char *m, *s;
	int entries = 0, bad = 0;

	load("/proc/self/maps", maps, sizeof maps);
	load("/proc/self/smaps", smaps, sizeof smaps);
	for (m = maps, s = smaps; *m && *s; entries++) {
		size_t n = strcspn(m, "\n");
		bad += strncmp(m, s, n + 1) != 0;
		s += n + 1;
		m += n + 1;
		for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
			bad += !number_line(s, fields[i], i + 1 < sizeof fields / sizeof fields[0]);
			s += strcspn(s, "\n") + 1;
		}
		if (!strncmp(s, "ProtectionKey:", 14)) /* only where the CPU has pkeys */
			s += strcspn(s, "\n") + 1;
		bad += strncmp(s, "VmFlags: ", 9) != 0;
		s += strcspn(s, "\n") + 1;
	}
	ok(entries > 3 && !bad && !*m && !*s,
	   "smaps: each maps line, then Linux's fields (%d entries)", entries);
}

static void test_anonymous(void)
{
	char *p = guarded(), f[128];
	const char *e = entry_at(p);
	int go[2], back[2];
	pid_t child;
	char c;

	is_int(field(e, "Size"), PAGES * 4, "Size: the vma's");
	ok(field(e, "KernelPageSize") == 4 && field(e, "MMUPageSize") == 4, "4 kB pages");
	ok(sizes(p, 0, 0, 0, 0, 0), "untouched: nothing resident");
	is_text(vmflags(e, f, sizeof f), "rd wr mr mw me ac ",
		"VmFlags of private writable memory");
	is_text(vmflags(entry_at(p - PG), f, sizeof f), "mr mw me ",
		"VmFlags of a PROT_NONE guard");

	touch(p, PAGES);
	ok(sizes(p, PAGES * 4, PAGES * 4, 0, PAGES * 4, PAGES * 4),
	   "written: resident, private, dirty, anonymous");
	e = entry_at(p);
	ok(field(e, "Referenced") == PAGES * 4 && field(e, "Pss_Dirty") == PAGES * 4 &&
	       field(e, "Locked") == 0,
	   "Referenced, Pss_Dirty; not Locked");

	require(pipe(go) == 0 && pipe(back) == 0, "pipes");
	if ((child = fork()) == 0) {
		read(go[0], &c, 1); /* the parent looks first */
		p[0] = 2;	    /* a copy of one page */
		write(back[1], "x", 1);
		read(go[0], &c, 1);
		_exit(0);
	}
	ok(sizes(p, PAGES * 4, PAGES * 2, PAGES * 4, 0, PAGES * 4),
	   "shared with a forked child: Shared_Dirty, Pss halved");
	require(write(go[1], "x", 1) == 1 && read(back[0], &c, 1) == 1, "the child's write");
	ok(sizes(p, PAGES * 4, 4 + (PAGES - 1) * 2, (PAGES - 1) * 4, 4, PAGES * 4),
	   "the child's write copied one page: it is the parent's alone");
	write(go[1], "x", 1);
	waitpid(child, NULL, 0);
	ok(sizes(p, PAGES * 4, PAGES * 4, 0, PAGES * 4, PAGES * 4),
	   "the child gone: private again");

	require(mlock(p, PAGES * PG) == 0, "mlock");
	e = entry_at(p);
	is_int(field(e, "Locked"), PAGES * 4, "mlocked: Locked is its Pss");
	is_text(vmflags(e, f, sizeof f), "rd wr mr mw me lo ac ", "VmFlags: lo");
	munlock(p, PAGES * PG);
	munmap(p - PG, (PAGES + 2) * PG);
	for (int i = 0; i < 2; i++)
		close(go[i]), close(back[i]);
}

static void test_shared(void)
{
	char *p = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	char f[128], page[PG];
	int fd = memfd_create("smaps", 0);
	volatile char sink = 0;

	require(p != MAP_FAILED, "shared mapping");
	touch(p, 4);
	ok(sizes(p, 16, 16, 0, 16, 0), "shared anonymous memory, written: not Anonymous");
	is_text(vmflags(entry_at(p), f, sizeof f), "rd wr sh mr mw me ms ", "its VmFlags");
	munmap(p, 4 * PG);

	memset(page, 'm', sizeof page);
	require(fd >= 0, "memfd");
	for (int i = 0; i < 4; i++)
		require(write(fd, page, PG) == PG, "memfd data");
	p = mmap(NULL, 4 * PG, PROT_READ, MAP_SHARED, fd, 0);
	require(p != MAP_FAILED, "map the memfd");
	for (int i = 0; i < 4; i++)
		sink += p[i * PG];
	ok(sizes(p, 16, 16, 0, 16, 0),
	   "a memfd mapped shared and read: its pages, dirty as tmpfs's");
	is_text(vmflags(entry_at(p), f, sizeof f), "rd sh mr mw me ms ", "its VmFlags");
	munmap(p, 4 * PG);

	p = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	require(p != MAP_FAILED, "map it privately");
	for (int i = 0; i < 4; i++)
		sink += p[i * PG];
	ok(sizes(p, 16, 16, 0, 16, 0), "mapped privately and read: the file's pages");
	p[0] = 'x';
	ok(sizes(p, 16, 16, 0, 16, 4), "a write makes one a private copy: Anonymous");
	is_text(vmflags(entry_at(p), f, sizeof f), "rd wr mr mw me ac ", "its VmFlags");
	munmap(p, 4 * PG);
	close(fd);
	(void)sink;
}

/* smaps_rollup: one "[rollup]" line from the first vma's start to the
 * last's end (Linux's [vsyscall] is no vma), then the sums of smaps (each
 * vma's Pss is rounded down). */
static void test_rollup(void)
{
	long rss = 0, pss = 0, anon = 0, vmas = 0;
	char first[32], head[128];
	const char *l;

	load("/proc/self/smaps", smaps, sizeof smaps);
	load("/proc/self/smaps_rollup", rollup, sizeof rollup);
	for (l = smaps; *l; l += strcspn(l, "\n") + 1) {
		if (!strncmp(l, "Rss:", 4))
			rss += strtol(l + 4, NULL, 10), vmas++;
		else if (!strncmp(l, "Pss:", 4))
			pss += strtol(l + 4, NULL, 10);
		else if (!strncmp(l, "Anonymous:", 10))
			anon += strtol(l + 10, NULL, 10);
	}
	snprintf(first, sizeof first, "%.*s", (int)strcspn(smaps, "-"), smaps);
	const char *last = smaps;
	for (l = smaps; *l; l += strcspn(l, "\n") + 1)
		if (strchr("0123456789abcdef", *l) && strchr(l, '-') < strchr(l, '\n') &&
		    strncmp(l + strcspn(l, "\n") - 10, "[vsyscall]", 10)) /* Linux's gate: no vma */
			last = l;
	snprintf(head, sizeof head, "%s-%.*s ---p 00000000 00:00 0", first,
		 (int)strcspn(strchr(last, '-') + 1, " "), strchr(last, '-') + 1);
	ok(!strncmp(rollup, head, strlen(head)) && strcspn(rollup, "\n") == 73 + 8 &&
	       !strncmp(rollup + 73, "[rollup]\n", 9),
	   "the [rollup] line spans the mappings (%s)", head);
	is_int(field(rollup, "Rss"), rss, "Rss: the sum");
	ok(field(rollup, "Pss") >= pss && field(rollup, "Pss") <= pss + vmas,
	   "Pss: the sum (each vma's rounded down)");
	is_int(field(rollup, "Anonymous"), anon, "Anonymous: the sum");
	long split =
	    field(rollup, "Pss_Anon") + field(rollup, "Pss_File") + field(rollup, "Pss_Shmem");
	ok(split <= field(rollup, "Pss") && split + 3 >= field(rollup, "Pss"),
	   "Pss_Anon + Pss_File + Pss_Shmem is Pss");
	ok(field(rollup, "Locked") == 0 && field(rollup, "Swap") == 0 && !strstr(rollup, "VmFlags"),
	   "Locked, Swap; no VmFlags");
}

int main(void)
{
	plan(26);
	test_format();
	test_anonymous();
	test_shared();
	test_rollup();
	return done();
}
