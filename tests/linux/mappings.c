/* Mappings through musl: realloc of a large block (mallocng moves it with
 * mremap), a file read through mmap, a PROT_NONE reservation committed
 * piece by piece as thread stacks and allocators do, and /proc/self/maps
 * naming the stack and the program. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "testutil.h"

#define PAGE 4096UL

static void test_realloc(void)
{
	size_t n = 1 << 20;
	char *p = malloc(n);
	bool good = p != NULL;

	for (size_t i = 0; p && i < n; i += PAGE)
		p[i] = (char)(i / PAGE);
	p = realloc(p, 64 << 20);
	for (size_t i = 0; p && i < n; i += PAGE)
		good &= p[i] == (char)(i / PAGE);
	ok(good && p, "realloc from 1 MiB to 64 MiB keeps every page");
	free(p);
}

static void test_file(void)
{
	const char *path = "/tmp/mappings_file";
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	char *p;

	ok(fd >= 0 && write(fd, "hello mapping", 13) == 13, "a file");
	p = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 0);
	ok(p != MAP_FAILED && !memcmp(p, "hello mapping", 13) && p[13] == 0,
	   "mmap of the file reads its bytes, zeroes after");
	close(fd);
	unlink(path);
	ok(p != MAP_FAILED && p[0] == 'h', "the mapping outlives close and unlink");
	munmap(p, PAGE);
}

static void test_reservation(void)
{
	size_t len = 1UL << 34; /* 16 GiB */
	char *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	ok(p != MAP_FAILED, "a 16 GiB PROT_NONE reservation");
	ok(p != MAP_FAILED && !mprotect(p + len / 2, 16 * PAGE, PROT_READ | PROT_WRITE),
	   "part of it made writable");
	if (p != MAP_FAILED) {
		p[len / 2 + 15 * PAGE] = 1;
		ok(p[len / 2] == 0 && p[len / 2 + 15 * PAGE] == 1, "and used");
		munmap(p, len);
	} else {
		ok(0, "and used");
	}
}

/* A shrinking mremap unmaps [addr + new_len, addr + old_len): that range
 * must lie in user space, whatever old_len says (Linux: EINVAL).  Raw
 * syscalls: libc may check lengths itself.  0xc0000 << 24 lands where the
 * kernel's heap would be if the top address bits were ignored; the last
 * length wraps past 2^64. */
static void test_shrink_bounds(void)
{
	static const uint64_t lens[] = {1UL << 47, 0xc00000400000UL, -PAGE};
	char *p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	bool einval = p != MAP_FAILED;

	for (size_t i = 0; einval && i < sizeof(lens) / sizeof(lens[0]); i++) {
		long r = syscall(SYS_mremap, p, lens[i], PAGE, 0, 0);
		einval &= r == -1 && errno == EINVAL;
	}
	ok(einval, "mremap shrinking past the end of user space fails with EINVAL");
	if (p != MAP_FAILED)
		p[PAGE] = 7;
	ok(p != MAP_FAILED && p[PAGE] == 7, "and both pages stay mapped");
	ok(p != MAP_FAILED && syscall(SYS_mremap, p, 2 * PAGE, PAGE, 0, 0) == (long)p,
	   "a shrink within the mapping still works");
	munmap(p, PAGE);
}

static void test_maps(const char *argv0)
{
	char line[512];
	const char *base = strrchr(argv0, '/') ? strrchr(argv0, '/') + 1 : argv0;
	bool stack = false, exe = false;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		stack |= strstr(line, " rw-p ") && strstr(line, "[stack]");
		exe |= strlen(line) > strlen(base) &&
		       !strcmp(line + strlen(line) - strlen(base), base) && strstr(line, "r-xp");
	}
	if (f)
		fclose(f);
	ok(stack, "/proc/self/maps shows [stack] rw-p");
	ok(exe, "and the program's text r-xp by its path");
}

int main(int argc, char **argv)
{
	(void)argc;
	plan(12);
	test_realloc();
	test_file();
	test_reservation();
	test_shrink_bounds();
	test_maps(argv[0]);
	return done();
}
