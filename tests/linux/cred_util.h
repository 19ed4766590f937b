/*
 * Helpers of the credential tests (cred_*.c): the ids and capability sets
 * of the calling process as the calls and /proc/self/status report them.
 * The tests start as root (the guest's init, the host leg's root) and
 * change ids only in children (tap_child.h).  The uids and gids they take
 * (61001...) are ones no process of the host uses, so that a signal test
 * cannot reach anything outside it.
 */
#ifndef CRED_UTIL_H
#define CRED_UTIL_H

#define _GNU_SOURCE
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tap_child.h"
#include "testutil.h"

#define U1 61001
#define U2 61002
#define U3 61003
#define G1 62001
#define G2 62002
#define G3 62003

#define CAP_VERSION_1 0x19980330
#define CAP_VERSION_2 0x20071026
#define CAP_VERSION_3 0x20080522
#define CAP_CHOWN_BIT (1ULL << 0)
#define CAP_KILL_BIT  (1ULL << 5)
#define CAP_SETUID_N  7
#define CAP_SETPCAP_N 8

struct cap_header {
	uint32_t version;
	int pid;
};
struct cap_data {
	uint32_t effective, permitted, inheritable;
};
struct caps {
	uint64_t eff, prm, inh;
};

/* The sets of thread pid (0: the caller) by capget v3; all ones on error. */
static inline struct caps caps_of(int pid)
{
	struct cap_header h = {CAP_VERSION_3, pid};
	struct cap_data d[2];
	struct caps c = {~0ULL, ~0ULL, ~0ULL};

	if (syscall(SYS_capget, &h, d) == 0)
		c = (struct caps){d[0].effective | (uint64_t)d[1].effective << 32,
				  d[0].permitted | (uint64_t)d[1].permitted << 32,
				  d[0].inheritable | (uint64_t)d[1].inheritable << 32};
	return c;
}

static inline int caps_set(uint64_t eff, uint64_t prm, uint64_t inh)
{
	struct cap_header h = {CAP_VERSION_3, 0};
	struct cap_data d[2] = {
	    {(uint32_t)eff, (uint32_t)prm, (uint32_t)inh},
	    {(uint32_t)(eff >> 32), (uint32_t)(prm >> 32), (uint32_t)(inh >> 32)}};

	return (int)syscall(SYS_capset, &h, d);
}

/* Whether getresuid/getresgid say r, e, s. */
static inline bool uids_are(uid_t r, uid_t e, uid_t s)
{
	uid_t a, b, c;

	return getresuid(&a, &b, &c) == 0 && a == r && b == e && c == s;
}

static inline bool gids_are(gid_t r, gid_t e, gid_t s)
{
	gid_t a, b, c;

	return getresgid(&a, &b, &c) == 0 && a == r && b == e && c == s;
}

/* The line of /proc/<pid>/status (pid 0: self) that starts with key (as
 * "Uid:"), without its newline, into line; false if there is none. */
static inline bool status_line(int pid, const char *key, char *line, size_t size)
{
	char path[64], buf[4096], *p, *end;

	if (pid)
		snprintf(path, sizeof path, "/proc/%d/status", pid);
	else
		snprintf(path, sizeof path, "/proc/self/status");
	if (read_text(path, buf, sizeof buf) < 0)
		return false;
	for (p = buf; p && strncmp(p, key, strlen(key)); p = strchr(p, '\n'), p = p ? p + 1 : p)
		;
	if (!p)
		return false;
	end = strchr(p, '\n');
	snprintf(line, size, "%.*s", end ? (int)(end - p) : (int)strlen(p), p);
	return true;
}

/* Whether status line key of pid is exactly want. */
static inline bool status_is(int pid, const char *key, const char *want)
{
	char line[256];

	if (!status_line(pid, key, line, sizeof line))
		return false;
	if (strcmp(line, want) != 0) {
		diag("status: \"%s\", expected \"%s\"", line, want);
		return false;
	}
	return true;
}

/* A child that runs setup(arg) (false: it exits 2), says so and pauses
 * until killed: its pid, once setup is done. */
static inline pid_t spawn_paused(bool (*setup)(const void *arg), const void *arg)
{
	int p[2];
	char c;
	pid_t pid;

	require(pipe(p) == 0, "pipe");
	if ((pid = fork()) == 0) {
		if (!setup(arg) || write(p[1], "r", 1) != 1)
			_exit(2);
		for (;;)
			pause();
	}
	require(pid > 0 && read(p[0], &c, 1) == 1, "a paused child started");
	close(p[0]);
	close(p[1]);
	return pid;
}

/* The permitted set root starts with: every capability of the bounding
 * set (the host's may lack some). */
static inline uint64_t root_caps(void)
{
	uint64_t set = 0;

	for (int cap = 0; cap < 64; cap++)
		if (prctl(PR_CAPBSET_READ, cap) == 1)
			set |= 1ULL << cap;
	return set;
}

#endif
