/* Helpers shared by the fuzzer and the exhaustion tests: is the system still
 * usable (fork+exec, a pipe round trip) and did anything leak (/proc/kstat). */
#ifndef USER_ROBUST_H
#define USER_ROBUST_H

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

#define KSTAT_PATH "/proc/kstat"

/* The kernel's resource counters, in the order /proc/kstat prints them. */
enum {
	KS_FRAMES_FREE,
	KS_HEAP_BYTES,
	KS_TASKS,
	KS_FILES,
	KS_INODES,
	KS_SOCKETS,
	KS_FUTEX_WAITERS,
	KS_EPOLL_WATCHES,
	KS_VMAS,
	KS_SHM_SEGMENTS,
	KS_RECLOCKS,
	KS_SEM_SETS,
	KS_SEM_UNDOS,
	KS_MSG_QUEUES,
	KS_MSG_BYTES,
	KS_COUNT
};

static const char *const kstat_names[KS_COUNT] = {
    "frames_free", "heap_bytes",    "tasks",	     "files",	   "inodes",
    "sockets",	   "futex_waiters", "epoll_watches", "vmas",	   "shm_segments",
    "reclocks",	   "sem_sets",	    "sem_undos",     "msg_queues", "msg_bytes"};

struct kstat {
	long v[KS_COUNT];
};

/* Read /proc/kstat into KS; false when the kernel has no such file (the host
 * Linux, or an fdkernel without it) or a counter is missing. */
static inline bool kstat_read(struct kstat *ks)
{
	static char buf[1024];
	int fd = open(KSTAT_PATH, O_RDONLY), found = 0;
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	for (char *line = buf, *next; line; line = next) {
		char name[32];
		long value;
		if ((next = strchr(line, '\n')))
			*next++ = '\0';
		if (sscanf(line, "%31s %ld", name, &value) != 2)
			continue;
		for (int i = 0; i < KS_COUNT; i++)
			if (strcmp(name, kstat_names[i]) == 0) {
				ks->v[i] = value;
				found |= 1 << i;
			}
	}
	return found == (1 << KS_COUNT) - 1;
}

/* Free frames, heap bytes and mappings also move with the test process's own
 * growth (stack, malloc arena, page tables, slab pages, thread stacks): they
 * may differ by this much; object counts must be exact.  The exact check of every counter is the
 * kernel's own when the run ends (kernel/proc/leakcheck.c). */
static const long kstat_slack[KS_COUNT] = {16, 8192, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0};

/* True if AFTER equals BEFORE (within kstat_slack); else a TAP comment per
 * counter that differs, after WHO. */
static inline bool kstat_same(const struct kstat *before, const struct kstat *after,
			      const char *who)
{
	bool same = true;
	for (int i = 0; i < KS_COUNT; i++)
		if (labs(before->v[i] - after->v[i]) > kstat_slack[i]) {
			diag("%s%s: %ld before, %ld after", who, kstat_names[i], before->v[i],
			     after->v[i]);
			same = false;
		}
	return same;
}

/* One TAP assertion: every counter now equals BEFORE (WHAT names the
 * operation); a skip when the counters could not be read. */
static inline int kstat_unchanged(const struct kstat *before, bool have_before, const char *what)
{
	struct kstat after;
	if (!have_before || !kstat_read(&after)) {
		skip("no " KSTAT_PATH, what);
		return 1;
	}
	return ok(kstat_same(before, &after, ""), "%s", what);
}

/* Print the counters as a TAP comment, prefixed with WHEN. */
static inline void kstat_show(const char *when)
{
	struct kstat ks;
	if (!kstat_read(&ks))
		return;
	diag("%s: frames_free %ld heap_bytes %ld tasks %ld files %ld inodes %ld sockets %ld "
	     "epoll_watches %ld vmas %ld",
	     when, ks.v[KS_FRAMES_FREE], ks.v[KS_HEAP_BYTES], ks.v[KS_TASKS], ks.v[KS_FILES],
	     ks.v[KS_INODES], ks.v[KS_SOCKETS], ks.v[KS_EPOLL_WATCHES], ks.v[KS_VMAS]);
}

/* Whether /proc/self/maps has a line for exactly [p, p+len) with perms
 * ("rw-p"): one mapping, not split. */
static inline bool maps_has(void *p, size_t len, const char *perms)
{
	static char text[16384];
	char want[64];
	int fd = open("/proc/self/maps", O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, text, sizeof(text) - 1) : -1;

	if (fd >= 0)
		close(fd);
	text[n > 0 ? n : 0] = 0;
	want[0] = '\n';
	snprintf(want + 1, sizeof(want) - 1, "%lx-%lx %s ", (unsigned long)p,
		 (unsigned long)p + len, perms);
	/* at the start of the text or of a line */
	return !strncmp(text, want + 1, strlen(want + 1)) || strstr(text, want);
}

/* CLOCK_MONOTONIC in milliseconds. */
static inline long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* fork + exec of /bin/true, waited for: exit status 0. */
static inline bool can_run_true(const char *argv0)
{
	char path[300];
	char *argv[] = {"true", NULL}, *envp[] = {NULL};
	int status;
	pid_t pid;
	test_bin_path(argv0, "true", path, sizeof path);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		execve(path, argv, envp);
		_exit(127);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid && exited_with(status, 0);
}

/* A few bytes written to a fresh pipe come back out. */
static inline bool pipe_round_trip(void)
{
	char out[8] = {0};
	int fds[2];
	bool good;
	if (pipe(fds) < 0)
		return false;
	good = write(fds[1], "usable", 7) == 7 && read(fds[0], out, sizeof out) == 7 &&
	       strcmp(out, "usable") == 0;
	close(fds[0]);
	close(fds[1]);
	return good;
}

/* Fork up to MAX children (until fork fails if MAX < 0) that wait for EOF
 * on RELEASE_FD (closing their copy of HOLD_FD, its write end) and exit 0.
 * Returns how many were forked; *ERR is fork's errno if it failed. */
static inline int fork_blocked(int max, int release_fd, int hold_fd, int *err)
{
	char c;
	int n = 0;
	pid_t pid = 1;
	fflush(stdout);
	*err = 0;
	while ((max < 0 || n < max) && (pid = fork()) > 0)
		n++;
	if (pid < 0)
		*err = errno;
	if (pid == 0) {
		close(hold_fd);
		while (read(release_fd, &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	return n;
}

/* Wait for every child; returns how many exited with status 0. */
static inline int reap_all(void)
{
	int n = 0, status;
	while (waitpid(-1, &status, 0) > 0)
		n += exited_with(status, 0);
	return n;
}

/* Two TAP assertions: the system still forks, execs and moves pipe data. */
static inline void system_usable(const char *argv0, const char *after)
{
	ok(can_run_true(argv0), "after %s: fork+exec of /bin/true works", after);
	ok(pipe_round_trip(), "after %s: a pipe round trip works", after);
}

#endif
