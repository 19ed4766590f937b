/* What ld.so does with the kernel's help (built against musl and glibc):
 * dlopen of a test library (file mappings at offsets over a reservation,
 * RELRO made read-only), a program that needs that library found through
 * LD_LIBRARY_PATH, with LD_BIND_NOW, its error on stderr when the
 * library cannot be found, and LD_PRELOAD of a missing library. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

static char dynlib[PATH_MAX + 16], needed[PATH_MAX + 64];

/* The permissions of the mapping holding addr (/proc/self/maps), or "". */
static const char *perms_at(const void *addr)
{
	static char perms[8];
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	unsigned long start, end, a = (unsigned long)addr;

	require(f != NULL, "open /proc/self/maps");
	perms[0] = 0;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "%lx-%lx %7s", &start, &end, perms) == 3 && a >= start && a < end)
			break;
		else
			perms[0] = 0;
	fclose(f);
	return perms;
}

static void check_dlopen(void)
{
	char lib[PATH_MAX + 64];
	int (*add)(int, int), (*counter)(void);
	void *h;

	snprintf(lib, sizeof lib, "%s/libdyntest.so", dynlib);
	h = dlopen(lib, RTLD_NOW);
	ok(h != NULL, "dlopen %s", h ? lib : dlerror());
	if (!h)
		return;
	add = (int (*)(int, int))dlsym(h, "dyntest_add");
	counter = (int (*)(void))dlsym(h, "dyntest_counter");
	ok(add && add(20, 22) == 42, "dlsym dyntest_add, call it");
	ok(counter && counter() == 41 && counter() == 42, "its data is relocated and writable");
	ok(add && !strcmp(perms_at((void *)add), "r-xp"),
	   "its code is mapped read and execute (%s)", add ? perms_at((void *)add) : "");
	ok(dlclose(h) == 0, "dlclose");
	ok(dlopen("libdyntest-missing.so", RTLD_NOW) == NULL && dlerror() != NULL,
	   "dlopen of a missing library fails with a message");
}

/* Runs dyn_needed with env: its wait status and output in out. */
static int run_needed(char **env, char *out, size_t size)
{
	char *argv[] = {needed, NULL};

	return run_capture(needed, argv, env, out, size);
}

static void check_library_path(void)
{
	char path[PATH_MAX + 64], out[1024];
	char *with[] = {path, NULL}, *none[] = {NULL};
	char *now[] = {path, "LD_BIND_NOW=1", NULL};
	char *preload[] = {path, "LD_PRELOAD=/nonexistent/libnothere.so", NULL};
	int status;

	snprintf(path, sizeof path, "LD_LIBRARY_PATH=/nonexistent:%s", dynlib);
	status = run_needed(with, out, sizeof out);
	ok(exited_with(status, 0) && !strcmp(out, "needed 5 83\n"),
	   "LD_LIBRARY_PATH finds the library a program needs");
	status = run_needed(now, out, sizeof out);
	ok(exited_with(status, 0) && !strcmp(out, "needed 5 83\n"), "the same with LD_BIND_NOW=1");
	status = run_needed(none, out, sizeof out);
	ok(WIFEXITED(status) && WEXITSTATUS(status) != 0 && strstr(out, "libdyntest.so"),
	   "without it ld.so fails, naming the library on stderr (status %#x)", status);
	status = run_needed(preload, out, sizeof out);
	ok(WIFEXITED(status) && strstr(out, "needed 5 83\n"),
	   "LD_PRELOAD of a missing library: the program still runs");
}

int main(int argc, char **argv)
{
	char self[PATH_MAX];
	char *slash;

	(void)argc;
	(void)argv;
	require(realpath("/proc/self/exe", self) != NULL, "resolve /proc/self/exe");
	slash = strrchr(self, '/');
	*slash = 0;
	snprintf(dynlib, sizeof dynlib, "%s/dynlib", self);
	/* musl's or glibc's helper, as this program's own suffix says. */
	snprintf(needed, sizeof needed, "%s/dyn_needed_%s", dynlib,
		 strstr(slash + 1, "glibc") ? "glibc" : "musl");
	plan(10);
	check_dlopen();
	check_library_path();
	return done();
}
