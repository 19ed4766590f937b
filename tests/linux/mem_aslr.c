/*
 * Address-space layout randomisation as Linux's: each exec puts the stack,
 * the mmap base, the heap's start (randomize_va_space 2) and a PIE's
 * base (mem_aslr_pie, the static-PIE build) somewhere new;
 * personality(ADDR_NO_RANDOMIZE) (setarch -R) and randomize_va_space 0
 * make every run the same; AT_RANDOM's bytes differ every time.  The
 * program exec'd is this one with "--where": it prints its addresses.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#define RUNS   6
#define SYSCTL "/proc/sys/kernel/randomize_va_space"

enum { STACK, MMAP, BRK, CODE, RANDOM, NWHERE };
static const char *const names[NWHERE] = {"the stack", "mmap's placement", "the heap's start",
					  "the program's code", "AT_RANDOM's bytes"};

static int where(void)
{
	int local;
	void *m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t rnd;

	memcpy(&rnd, (void *)getauxval(AT_RANDOM), sizeof rnd);
	printf("%lx %lx %lx %lx %lx\n", (unsigned long)&local, (unsigned long)m,
	       (unsigned long)sbrk(0), (unsigned long)&where, (unsigned long)rnd);
	return 0;
}

/* Runs this program RUNS times with persona (0: none set), each run's
 * addresses into out. */
static bool runs(unsigned long persona, unsigned long out[RUNS][NWHERE])
{
	for (int i = 0; i < RUNS; i++) {
		char line[256] = "";
		int p[2], status;
		pid_t pid;

		if (pipe(p))
			return false;
		fflush(stdout);
		if ((pid = fork()) == 0) {
			dup2(p[1], 1);
			if (persona)
				personality(persona);
			execl("/proc/self/exe", "mem_aslr", "--where", (char *)NULL);
			_exit(127);
		}
		close(p[1]);
		ssize_t n = read(p[0], line, sizeof line - 1);
		close(p[0]);
		if (pid < 0 || waitpid(pid, &status, 0) != pid || n <= 0 ||
		    sscanf(line, "%lx %lx %lx %lx %lx", &out[i][0], &out[i][1], &out[i][2],
			   &out[i][3], &out[i][4]) != NWHERE)
			return false;
	}
	return true;
}

/* How many runs differ from the first in what w names. */
static int moved(unsigned long r[RUNS][NWHERE], int w)
{
	int n = 0;

	for (int i = 1; i < RUNS; i++)
		n += r[i][w] != r[0][w];
	return n;
}

static int sysctl_get(void)
{
	char buf[16];

	return read_text(SYSCTL, buf, sizeof buf) > 0 ? atoi(buf) : -1;
}

static bool sysctl_set(int v)
{
	char buf[4];
	int fd = open(SYSCTL, O_WRONLY);
	bool done = fd >= 0 && write(fd, buf, snprintf(buf, sizeof buf, "%d\n", v)) > 0;

	if (fd >= 0)
		close(fd);
	return done;
}

static bool is_pie(void)
{
	return (unsigned long)&where > 0x100000000UL; /* an ET_EXEC links at 0x400000 */
}

int main(int argc, char **argv)
{
	unsigned long r[RUNS][NWHERE];
	int level;

	if (argc == 2 && !strcmp(argv[1], "--where"))
		return where();
	plan(10);
	level = sysctl_get();
	if (level < 0)
		skip_all("no " SYSCTL);
	if (level != 2)
		skip_all("randomize_va_space is not Linux's default 2 here");
	require(runs(0, r), "the program reports where it is");
	for (int w = 0; w < NWHERE; w++)
		if (w == CODE && !is_pie())
			ok(moved(r, w) == 0, "an ET_EXEC program stays at its link address");
		else
			ok(moved(r, w) >= RUNS - 2, "%s moves from exec to exec", names[w]);
	require(runs(ADDR_NO_RANDOMIZE, r), "... with ADDR_NO_RANDOMIZE");
	ok(moved(r, STACK) == 0 && moved(r, MMAP) == 0 && moved(r, BRK) == 0 && moved(r, CODE) == 0,
	   "personality(ADDR_NO_RANDOMIZE): every run in the same place");
	ok(moved(r, RANDOM) >= RUNS - 2, "... AT_RANDOM still differs");
	if (geteuid() != 0) {
		for (int i = 0; i < 3; i++)
			skip("needs root", "changing " SYSCTL);
		return done();
	}
	bool set = sysctl_set(1) && runs(0, r);
	ok(set && moved(r, STACK) >= RUNS - 2 && moved(r, MMAP) >= RUNS - 2 && moved(r, BRK) == 0,
	   "randomize_va_space 1: the stack and mmap move, the heap's start does not");
	set = sysctl_set(0) && runs(0, r);
	ok(set && moved(r, STACK) == 0 && moved(r, MMAP) == 0 && moved(r, BRK) == 0,
	   "randomize_va_space 0: nothing moves");
	ok(sysctl_set(2) && sysctl_get() == 2, "set back to 2");
	return done();
}
