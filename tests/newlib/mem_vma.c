/* The mapping list: lazy reservations, address reuse and hints, mprotect
 * over a hole, file mappings (private, shared, past the end), mremap,
 * madvise and /proc/self/maps.  Differential: the same checks on Linux. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>

#include "robust.h"

#define PAGE 4096UL
#define PATH "/tmp/mem_vma_file"
#define RW   (PROT_READ | PROT_WRITE)
#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

static char *map(void *hint, size_t len, int prot, int flags, int fd)
{
	return mmap(hint, len, prot, flags, fd, 0);
}

/* The signal a child gets for writing (or reading) p, 0 if none. */
static int touch_signal(volatile char *p, bool write)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (write)
			*p = 1;
		else
			(void)*p;
		_exit(0);
	}
	waitpid(pid, &status, 0);
	return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

static void test_lazy_and_placement(void)
{
	char *big = map(NULL, 4UL << 30, PROT_NONE, ANON | MAP_NORESERVE, -1);
	ok(big != MAP_FAILED, "a 4 GiB PROT_NONE reservation succeeds");
	ok(big != MAP_FAILED && touch_signal(big + (1UL << 30), false) == SIGSEGV,
	   "reading inside it is SIGSEGV");
	munmap(big, 4UL << 30);

	char *a = map(NULL, 8 * PAGE, RW, ANON, -1);
	require(a != MAP_FAILED, "mmap");
	munmap(a, 8 * PAGE);
	char *b = map(a, 8 * PAGE, RW, ANON, -1);
	ok(b == a, "a free hint is honoured (address reused after munmap)");
	ok(b[5 * PAGE] == 0, "fresh anonymous memory reads zero");
	errno = 0;
	ok(map(b, PAGE, RW, ANON | MAP_FIXED_NOREPLACE, -1) == MAP_FAILED && errno == EEXIST,
	   "MAP_FIXED_NOREPLACE over a mapping: EEXIST");
	munmap(b, 8 * PAGE);
}

static void test_mprotect_hole(void)
{
	char *p = map(NULL, 3 * PAGE, RW, ANON, -1);
	require(p != MAP_FAILED, "mmap");
	munmap(p + PAGE, PAGE);
	is_errno(mprotect(p, 3 * PAGE, PROT_READ), ENOMEM, "mprotect over a hole: ENOMEM");
	ok(touch_signal(p, true) == SIGSEGV, "the part before the hole was changed (as Linux)");
	ok(touch_signal(p + 2 * PAGE, true) == 0, "the part after the hole was not");
	is_errno(mprotect(p + PAGE, PAGE, PROT_READ), ENOMEM,
		 "mprotect of unmapped memory: ENOMEM");
	munmap(p, 3 * PAGE);
}

static int make_file(size_t len)
{
	int fd = open(PATH, O_RDWR | O_CREAT | O_TRUNC, 0600);
	for (size_t i = 0; fd >= 0 && i < len; i++)
		write(fd, &(char){(char)('a' + i % 26)}, 1);
	return fd;
}

static void test_file_private(void)
{
	int fd = make_file(PAGE + 100), wr = open(PATH, O_WRONLY), pfd[2];
	char c;
	require(fd >= 0 && wr >= 0 && pipe(pfd) == 0, "file and pipe");
	char *p = map(NULL, 3 * PAGE, RW, MAP_PRIVATE, fd);
	ok(p != MAP_FAILED && p[0] == 'a' && p[PAGE + 99] == 'a' + (PAGE + 99) % 26,
	   "MAP_PRIVATE of a file reads its bytes");
	ok(p[PAGE + 100] == 0 && p[2 * PAGE - 1] == 0, "the last page is zero past the end");
	ok(touch_signal(p + 2 * PAGE, false) == SIGBUS, "a page past the end: SIGBUS");
	p[0] = 'Z';
	ok(pread(fd, &c, 1, 0) == 1 && c == 'a', "a private write does not reach the file");
	ok(madvise(p, PAGE, MADV_DONTNEED) == 0 && p[0] == 'a', "MADV_DONTNEED re-reads the file");
	munmap(p, 3 * PAGE);
	errno = 0;
	ok(map(NULL, PAGE, PROT_READ, MAP_PRIVATE, wr) == MAP_FAILED && errno == EACCES,
	   "a file open only for writing: EACCES");
	errno = 0;
	ok(map(NULL, PAGE, PROT_READ, MAP_PRIVATE, pfd[0]) == MAP_FAILED && errno == ENODEV,
	   "a pipe: ENODEV");
	errno = 0;
	ok(map(NULL, PAGE, PROT_READ, MAP_PRIVATE, 999) == MAP_FAILED && errno == EBADF,
	   "a closed fd: EBADF");
	close(wr), close(pfd[0]), close(pfd[1]), close(fd);
}

static void test_file_shared(void)
{
	int fd = make_file(2 * PAGE), ro = open(PATH, O_RDONLY);
	char c = 0;
	require(fd >= 0 && ro >= 0, "file");
	char *p = map(NULL, 2 * PAGE, RW, MAP_SHARED, fd);
	require(p != MAP_FAILED, "MAP_SHARED of a file");
	p[PAGE + 1] = '!';
	ok(pread(fd, &c, 1, PAGE + 1) == 1 && c == '!', "a shared write is seen by read()");
	pwrite(fd, "?", 1, 7);
	ok(p[7] == '?', "write() is seen through the mapping");
	munmap(p, 2 * PAGE);
	errno = 0;
	ok(map(NULL, PAGE, RW, MAP_SHARED, ro) == MAP_FAILED && errno == EACCES,
	   "MAP_SHARED with PROT_WRITE of a read-only fd: EACCES");
	p = map(NULL, PAGE, PROT_READ, MAP_SHARED, ro);
	is_errno(mprotect(p, PAGE, RW), EACCES, "mprotect of it to PROT_WRITE: EACCES");
	munmap(p, PAGE);
	close(ro), close(fd);
	unlink(PATH);
}

/* A child's inherited file mapping outlives the parent's munmap, close
 * and unlink; the child's writes still reach the (nameless) file. */
static void test_teardown(void)
{
	int fd = make_file(PAGE), go[2], status;
	char *p = map(NULL, PAGE, RW, MAP_SHARED, fd);
	char c;
	require(p != MAP_FAILED && pipe(go) == 0, "file, mapping and pipe");
	pid_t pid = fork();
	if (pid == 0) {
		read(go[0], &c, 1);
		p[1] = 'C';
		_exit(p[0] == 'a' && pread(fd, &c, 1, 1) == 1 && c == 'C' ? 0 : 1);
	}
	munmap(p, PAGE);
	unlink(PATH);
	write(go[1], "g", 1);
	waitpid(pid, &status, 0);
	ok(exited_with(status, 0), "a forked mapping outlives munmap and unlink in the parent");
	ok(pread(fd, &c, 1, 1) == 1 && c == 'C', "and the child's write reached the file");
	close(fd), close(go[0]), close(go[1]);
}

static void test_mremap(void)
{
	char *p = map(NULL, 4 * PAGE, RW, ANON, -1), *q;
	require(p != MAP_FAILED, "mmap");
	munmap(p + 2 * PAGE, 2 * PAGE);
	p[0] = 'x', p[PAGE] = 'y';
	ok(mremap(p, 2 * PAGE, 3 * PAGE, 0) == p && (p[2 * PAGE] = 'z'),
	   "grows in place when free");
	ok(mremap(p, 3 * PAGE, PAGE, 0) == p, "shrinks");
	ok(touch_signal(p + PAGE, false) == SIGSEGV, "the cut part is gone");
	char *wall = map(p + PAGE, PAGE, RW, ANON | MAP_FIXED, -1);
	require(wall == p + PAGE, "a mapping right after");
	errno = 0;
	ok(mremap(p, PAGE, 2 * PAGE, 0) == MAP_FAILED && errno == ENOMEM,
	   "growth into another mapping without MREMAP_MAYMOVE: ENOMEM");
	q = mremap(p, PAGE, 64 * PAGE, MREMAP_MAYMOVE);
	ok(q != MAP_FAILED && q != p && q[0] == 'x' && q[63 * PAGE] == 0,
	   "MREMAP_MAYMOVE moves it, contents kept");
	ok(touch_signal(p, false) == SIGSEGV, "the old place is unmapped");
	errno = 0;
	ok(mremap(p, PAGE, 2 * PAGE, MREMAP_MAYMOVE) == MAP_FAILED && errno == EFAULT,
	   "mremap of unmapped memory: EFAULT");
	errno = 0;
	ok(mremap(q, PAGE, 2 * PAGE, MREMAP_FIXED, p) == MAP_FAILED && errno == EINVAL,
	   "MREMAP_FIXED without MREMAP_MAYMOVE: EINVAL");
	char *r = mremap(q, PAGE, PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, p);
	ok(r == p && r[0] == 'x', "MREMAP_FIXED moves to the address given");
	munmap(q, 64 * PAGE), munmap(p, 2 * PAGE);
}

static void test_madvise(void)
{
	char *p = map(NULL, 2 * PAGE, RW, ANON, -1);
	require(p != MAP_FAILED, "mmap");
	p[0] = 7;
	ok(madvise(p, 2 * PAGE, MADV_DONTNEED) == 0 && p[0] == 0,
	   "MADV_DONTNEED: anonymous memory reads back zero");
	ok(madvise(p, PAGE, MADV_WILLNEED) == 0 && madvise(p, PAGE, MADV_SEQUENTIAL) == 0,
	   "hints are accepted");
	is_errno(madvise(p, PAGE, 12345), EINVAL, "unknown advice: EINVAL");
	is_errno(madvise(p + 1, PAGE, MADV_NORMAL), EINVAL, "an unaligned address: EINVAL");
	ok(msync(p, 2 * PAGE, MS_SYNC) == 0, "msync of a mapping");
	is_errno(msync(p, PAGE, MS_SYNC | MS_ASYNC), EINVAL, "msync with MS_SYNC|MS_ASYNC: EINVAL");
	unsigned char vec[2] = {9, 9};
	ok(mincore(p, 2 * PAGE, vec) == 0 && vec[0] == 1 && vec[1] == 0,
	   "mincore: the touched page is in memory, the untouched one not");
	munmap(p + PAGE, PAGE);
	is_errno(mincore(p, 2 * PAGE, vec), ENOMEM, "mincore of a range with a hole: ENOMEM");
	is_errno(madvise(p, 2 * PAGE, MADV_NORMAL), ENOMEM, "a range with a hole: ENOMEM");
	is_errno(msync(p, 2 * PAGE, MS_ASYNC), ENOMEM, "msync of a range with a hole: ENOMEM");
	munmap(p, PAGE);
}

static void test_maps(void)
{
	char *p = map(NULL, 3 * PAGE, RW, ANON, -1);
	require(p != MAP_FAILED, "mmap");
	mprotect(p + PAGE, PAGE, PROT_READ);
	ok(maps_has(p, PAGE, "rw-p") && maps_has(p + PAGE, PAGE, "r--p") &&
	       maps_has(p + 2 * PAGE, PAGE, "rw-p"),
	   "/proc/self/maps shows mprotect's split");
	mprotect(p + PAGE, PAGE, RW);
	ok(maps_has(p, 3 * PAGE, "rw-p"), "and the merge back");
	munmap(p, 3 * PAGE);
	ok(!maps_has(p, 3 * PAGE, "rw-p"), "and nothing after munmap");
}

/* fork shares the mapping list until one side changes it: a child's
 * munmap and mprotect leave the parent's mappings as they were. */
static void test_fork_list(void)
{
	char *p = map(NULL, 2 * PAGE, RW, ANON, -1);
	int status;
	require(p != MAP_FAILED, "mmap");
	p[0] = 1;
	pid_t pid = fork();
	if (pid == 0) {
		mprotect(p + PAGE, PAGE, PROT_READ);
		munmap(p, PAGE);
		_exit(maps_has(p + PAGE, PAGE, "r--p") && !maps_has(p, PAGE, "rw-p") ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	ok(exited_with(status, 0), "a fork child's munmap and mprotect change its own list");
	ok(p[0] == 1 && maps_has(p, 2 * PAGE, "rw-p"), "and not the parent's");
	munmap(p, 2 * PAGE);
}

int main(int argc, char **argv)
{
	struct kstat before;
	(void)argc;
	bool have_before = kstat_read(&before);
	plan(50);
	test_lazy_and_placement();
	test_mprotect_hole();
	test_file_private();
	test_file_shared();
	test_teardown();
	test_mremap();
	test_madvise();
	test_maps();
	test_fork_list();
	system_usable(argv[0], "the mapping calls");
	kstat_unchanged(&before, have_before, "nothing leaked");
	return done();
}
