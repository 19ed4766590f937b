/* Lifetime scenarios for the fd kinds issue 29 adds (memfd, pidfd,
 * inotify): each tears its objects down in a random order, across forks,
 * and reports what a program can tell was wrong as a finding
 * (fuzz_scenario.h).  The leak check after the fuzzer counts what they
 * leave.  Included by fuzz.c only, after fuzz_scenario.h. */
#ifndef FUZZ_FDNEW_H
#define FUZZ_FDNEW_H

#include <sys/mman.h>
#include <uapi/memfd.h>

#define MEMFD_PAGES 4

/* --- memfd: mappings, seals and fds dropped in any order. --- */

/* A sealable memfd of MEMFD_PAGES pages, or -1. */
static int memfd_sized(void)
{
	int fd = (int)raw_call(__NR_memfd_create, (long)"fuzz", MFD_ALLOW_SEALING, 0);

	if (fd >= 0 && ftruncate(fd, MEMFD_PAGES * 4096) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A writable shared mapping must block F_SEAL_WRITE however the fd, the
 * mapping and a forked child's copies go; a sealed file takes no write. */
static void scenario_memfd(void)
{
	int fd = memfd_sized();
	char *p = fd < 0
		      ? MAP_FAILED
		      : mmap(NULL, MEMFD_PAGES * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	pid_t pid;

	if (p == MAP_FAILED) {
		close(fd);
		return;
	}
	if ((pid = helper()) == 0) { /* the child's copy of the mapping */
		p[below(MEMFD_PAGES * 4096)] = 1;
		if (one_in(2))
			munmap(p, MEMFD_PAGES * 4096);
		_exit(0);
	}
	if (one_in(2)) { /* the mapping outlives its fd */
		int again = (int)raw_call(__NR_fcntl, fd, F_DUPFD, 0);
		close(fd);
		fd = again;
	}
	if (raw_call(__NR_fcntl, fd, F_ADD_SEALS, F_SEAL_WRITE) == 0)
		finding(F_SEAL_MAPPED);
	raw_call(__NR_fcntl, fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE | (one_in(2) ? F_SEAL_GROW : 0));
	p[below(MEMFD_PAGES * 4096)] = 2; /* still allowed: the mapping came first */
	if (pid > 0)
		helper_wait(pid, 30);
	munmap(p, MEMFD_PAGES * 4096);
	if (write(fd, "x", 1) >= 0)
		finding(F_SEAL_WRITTEN);
	close(fd);
}

#endif
