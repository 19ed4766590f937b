/* /proc/<pid>/pagemap: mode 0400; a 64-bit entry per virtual page at
 * offset 8 * page number (lseek or pread there); bit 63 a mapped page
 * with its frame number in bits 0-54 (shown to root), 0 for a page never
 * touched or outside any mapping; bit 56 a page mapped once (a fork's
 * shared copy-on-write page is not), bit 61 a file's page or shared
 * anonymous memory, not a private copy; MAP_POPULATE maps every page;
 * EINVAL for an offset or a count not a multiple of 8, 0 for count 0 and
 * at the top of user space.  The host runs as root (frame numbers shown);
 * an ordinary user reading its own pagemap gets the bits but frame
 * number 0 (Linux shows frames to CAP_SYS_ADMIN only).  Soft-dirty (bit
 * 55), which fdkernel does not track, is not looked at. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <grp.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap_child.h"
#include "testutil.h"

#define PAGE	  4096UL
#define PRESENT	  (1ULL << 63)
#define FILEPAGE  (1ULL << 61)
#define EXCLUSIVE (1ULL << 56)
#define PFN	  ((1ULL << 55) - 1)
#define LOOKED_AT (PRESENT | FILEPAGE | EXCLUSIVE | PFN)

static int pm;

/* Whether page p's entry has bit (a 64-bit mask: ok() takes an int). */
#define HAS(p, bit) ((entry(p) & (bit)) != 0)

/* Page p's entry, less the bits not looked at; ~0 on error. */
static uint64_t entry(const void *p)
{
	uint64_t e;

	if (pread(pm, &e, 8, (off_t)((uintptr_t)p / PAGE * 8)) != 8)
		return ~0ULL;
	return e & LOOKED_AT;
}

static bool present(const void *p)
{
	uint64_t e = entry(p);

	return e != ~0ULL && (e & PRESENT) && (e & PFN);
}

static void test_reads(void)
{
	char *p = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t e[4];
	struct stat st;

	require(p != MAP_FAILED, "mmap");
	ok(fstat(pm, &st) == 0 && (st.st_mode & 0777) == 0400, "mode 0400");
	is_int(entry(p), 0, "a page never touched: 0");
	p[PAGE] = 1;
	ok(present(p + PAGE), "a written page: present, with its frame number");
	ok(HAS(p + PAGE, EXCLUSIVE), "mapped once: exclusive");
	ok(!HAS(p + PAGE, FILEPAGE), "anonymous: not a file page");
	is_int(lseek(pm, (off_t)((uintptr_t)p / PAGE * 8), SEEK_SET),
	       (long)((uintptr_t)p / PAGE * 8), "lseek to the page's entry");
	ok(read(pm, e, sizeof e) == sizeof e && !(e[0] & PRESENT) && (e[1] & PRESENT) &&
	       !(e[2] & PRESENT),
	   "read there: four entries, the second present");
	is_int(lseek(pm, 0, SEEK_CUR), (long)((uintptr_t)p / PAGE * 8 + 32),
	       "and the position moved by 32");
	is_errno(pread(pm, e, 8, 4), EINVAL, "an offset not a multiple of 8: EINVAL");
	is_errno(pread(pm, e, 12, 8), EINVAL, "a count not a multiple of 8: EINVAL");
	is_int(pread(pm, e, 0, 8), 0, "count 0: 0");
	is_int(pread(pm, e, 8, (off_t)(0x7ffffffff000UL / PAGE * 8)), 0,
	       "the entry of the top of user space: EOF");
	is_int(entry(NULL), 0, "page 0, mapped by nothing: 0");
	munmap(p, 4 * PAGE);
	is_int(entry(p + PAGE), 0, "after munmap: 0");
}

/* A child that runs touch(), says so, and waits for the parent's go
 * (its end of go closing): its pid. */
static pid_t touching_child(void (*touch)(void), int go[2])
{
	int ready[2];
	char c;

	require(pipe(go) == 0 && pipe(ready) == 0, "pipes");
	pid_t pid = fork();
	require(pid >= 0, "fork");
	if (pid == 0) {
		close(go[1]);
		close(ready[0]);
		touch();
		close(ready[1]);
		_exit(read(go[0], &c, 1) == 0 ? 0 : 1);
	}
	close(go[0]);
	close(ready[1]);
	require(read(ready[0], &c, 1) == 0, "the child touched its pages");
	close(ready[0]);
	return pid;
}

static void release(pid_t pid, int go[2])
{
	int status;

	close(go[1]);
	waitpid(pid, &status, 0);
}

static char *priv, *shared;

static void read_shared(void)
{
	*(volatile char *)shared;
}

static void test_fork_shared(void)
{
	int go[2];

	priv = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	shared = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	require(priv != MAP_FAILED && shared != MAP_FAILED, "mmap");
	priv[0] = shared[0] = 1;
	ok(present(shared) && HAS(shared, FILEPAGE) && HAS(shared, EXCLUSIVE),
	   "shared anonymous memory: present, a file page (shmem), mapped once");
	pid_t pid = touching_child(read_shared, go);
	ok(present(priv) && !HAS(priv, EXCLUSIVE),
	   "after fork: a private page shared, not exclusive");
	ok(!HAS(shared, EXCLUSIVE), "and the shared page the child read: mapped twice");
	release(pid, go);
	munmap(priv, PAGE);
	munmap(shared, PAGE);
}

static void test_file(void)
{
	char path[64];
	int fd;

	snprintf(path, sizeof path, "/tmp/proc_pagemap-%d", (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	require(fd >= 0 && ftruncate(fd, 4 * PAGE) == 0, "a file");
	unlink(path);
	/* read-only: Linux's MAP_POPULATE of a writable private mapping
	 * writes, making private copies */
	char *p = mmap(NULL, 4 * PAGE, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	require(p != MAP_FAILED, "mmap");
	int n = 0;
	for (int i = 0; i < 4; i++)
		n += present(p + i * PAGE) && HAS(p + i * PAGE, FILEPAGE);
	is_int(n, 4, "MAP_POPULATE of a private file mapping: every page present, the file's");
	munmap(p, 4 * PAGE);
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	require(p != MAP_FAILED, "mmap");
	p[0] = 1;
	ok(present(p) && !HAS(p, FILEPAGE) && HAS(p, EXCLUSIVE),
	   "written: a private copy, anonymous and exclusive");
	munmap(p, PAGE);
	close(fd);
}

static void write_priv(void)
{
	priv[0] = 1; /* the child's own copy */
}

static void test_other_process(void)
{
	char path[64];
	uint64_t e = 0;
	int go[2], fd;

	priv = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	require(priv != MAP_FAILED, "mmap");
	pid_t pid = touching_child(write_priv, go);
	snprintf(path, sizeof path, "/proc/%d/pagemap", (int)pid);
	fd = open(path, O_RDONLY);
	ok(fd >= 0 && pread(fd, &e, 8, (off_t)((uintptr_t)priv / PAGE * 8)) == 8 && (e & PRESENT) &&
	       (e & EXCLUSIVE),
	   "another process's pagemap: its written page");
	is_int(entry(priv), 0, "while the reader's own page stays untouched");
	release(pid, go);
	if (fd >= 0)
		close(fd);
	munmap(priv, PAGE);
}

/* An ordinary user (dumpable again, so that its /proc files are its own)
 * reads its own touched page. */
static void user_reads(void)
{
	static char page[PAGE] __attribute__((aligned(4096)));
	uint64_t e = 0;
	int fd;

	page[0] = 1;
	require(setgroups(0, NULL) == 0 && setresgid(62001, 62001, 62001) == 0 &&
		    setresuid(61001, 61001, 61001) == 0 && prctl(PR_SET_DUMPABLE, 1) == 0,
		"become an ordinary user");
	fd = open("/proc/self/pagemap", O_RDONLY);
	ok(fd >= 0 && pread(fd, &e, 8, (off_t)((uintptr_t)page / PAGE * 8)) == 8 &&
	       (e & PRESENT) && (e & EXCLUSIVE),
	   "an ordinary user reads its own pagemap: the page is there");
	is_int((long long)(e & PFN), 0, "... with frame number 0");
}

int main(void)
{
	pm = open("/proc/self/pagemap", O_RDONLY);
	require(pm >= 0, "open /proc/self/pagemap");
	plan(14 + 3 + 2 + 2 + 2);
	test_reads();
	test_fork_shared();
	test_file();
	test_other_process();
	if (geteuid() == 0)
		in_child("ordinary user", user_reads);
	else {
		skip("needs root", "an ordinary user's frame numbers");
		skip("needs root", "... 0");
	}
	return done();
}
