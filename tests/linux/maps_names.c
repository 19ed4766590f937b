/* /proc/self/maps names a file mapping by the file's path, as Linux: the
 * mapping of a file opened by an absolute or a relative name, both halves
 * after mprotect splits it, a fork child's copy, " (deleted)" once the
 * file is unlinked, a memfd as "/memfd:NAME (deleted)", and an anonymous
 * mapping with no name.  Debian's ld.so maps each library this way
 * (tests/debian/check, "maps"). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#define PAGE 4096UL

/* The name maps gives the vma holding addr ("" if none, "?" if no such
 * line), into out (size bytes). */
static void maps_name(const void *addr, char *out, size_t size)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];

	snprintf(out, size, "?");
	while (f && fgets(line, sizeof line, f)) {
		unsigned long lo, hi;
		int at = 0;
		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &lo, &hi, &at) < 2 || !at)
			continue;
		if ((uintptr_t)addr < lo || (uintptr_t)addr >= hi)
			continue;
		line[strcspn(line, "\n")] = 0;
		snprintf(out, size, "%s", line + at);
	}
	if (f)
		fclose(f);
}

static bool named(const void *addr, const char *want)
{
	char got[512];

	maps_name(addr, got, sizeof got);
	if (strcmp(got, want))
		diag("maps says '%s', expected '%s'", got, want);
	return !strcmp(got, want);
}

static char *map_file(int fd, size_t len, int prot)
{
	char *p = mmap(NULL, len, prot, MAP_PRIVATE, fd, 0);
	return p == MAP_FAILED ? NULL : p;
}

int main(void)
{
	const char *path = "/tmp/maps_names_file";
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600), status;

	plan(9);
	ok(fd >= 0 && ftruncate(fd, 4 * PAGE) == 0, "a 4-page file in /tmp");
	char *p = map_file(fd, 4 * PAGE, PROT_READ);
	ok(p && named(p, path), "its mapping is named by its path");

	ok(p && mprotect(p + PAGE, PAGE, PROT_READ | PROT_WRITE) == 0 && named(p, path) &&
	       named(p + PAGE, path) && named(p + 2 * PAGE, path),
	   "mprotect of the middle: the three pieces keep the name");

	pid_t pid = fork();
	if (pid == 0)
		_exit(p && named(p + 3 * PAGE, path) ? 0 : 1);
	ok(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0,
	   "a fork child's copy has the name");

	int rel = chdir("/tmp") == 0 ? open("maps_names_file", O_RDONLY) : -1;
	char *q = rel >= 0 ? map_file(rel, PAGE, PROT_READ) : NULL;
	ok(q && named(q, path), "opened by a relative name: the absolute path");

	ok(unlink(path) == 0 && named(p, "/tmp/maps_names_file (deleted)") &&
	       named(q, "/tmp/maps_names_file (deleted)"),
	   "after unlink: \"(deleted)\" after the path");
	close(fd);
	close(rel);
	munmap(p, 4 * PAGE);
	munmap(q, PAGE);

	int mfd = memfd_create("maps_names", 0);
	char *m = mfd >= 0 && ftruncate(mfd, PAGE) == 0 ? map_file(mfd, PAGE, PROT_READ) : NULL;
	ok(m && named(m, "/memfd:maps_names (deleted)"), "a memfd: /memfd:NAME (deleted)");
	close(mfd);
	ok(m && named(m, "/memfd:maps_names (deleted)"), "the name outlives the fd");
	munmap(m, PAGE);

	char *a = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ok(a != MAP_FAILED && named(a, ""), "anonymous memory has no name");
	return done();
}
