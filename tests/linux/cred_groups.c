/* Supplementary groups: setgroups as root (any list up to NGROUPS_MAX,
 * 65536, reported sorted by getgroups and in /proc/self/status), its
 * errors (EPERM without CAP_SETGID before anything else, EINVAL for a
 * negative or too large size or the id -1, EFAULT), getgroups' count
 * query, its EINVAL for a buffer too small or a negative size, and the
 * list kept across fork but not changed by an unprivileged
 * caller. */
#include "cred_util.h"
#include <grp.h>
#include <limits.h>
#include <stdlib.h>

#define NGROUPS 65536

static void set_and_get(void)
{
	gid_t in[] = {G3, G1, G2}, out[8];

	ok(setgroups(3, in) == 0, "setgroups(3 groups)");
	is_int(getgroups(0, NULL), 3, "getgroups(0, NULL) counts them");
	is_int(getgroups(8, out), 3, "getgroups into 8");
	ok(out[0] == G1 && out[1] == G2 && out[2] == G3, "sorted ascending, as Linux keeps them");
	is_errno(getgroups(2, out), EINVAL, "into 2: EINVAL");
	is_errno(getgroups(-1, out), EINVAL, "a negative size: EINVAL");
	is_errno(syscall(SYS_getgroups, 3, (gid_t *)1), EFAULT, "to a bad address: EFAULT");
	ok(status_is(0, "Groups:", "Groups:\t62001 62002 62003 "), "status Groups: line");
	ok(setgroups(0, NULL) == 0 && getgroups(0, NULL) == 0, "setgroups(0, NULL) empties it");
	ok(status_is(0, "Groups:", "Groups:\t "), "status: an empty Groups: line");
}

static void limits(void)
{
	gid_t *big = calloc(NGROUPS + 1, sizeof(gid_t)), bad[2] = {G1, (gid_t)-1};

	require(big != NULL, "calloc");
	for (int i = 0; i <= NGROUPS; i++)
		big[i] = NGROUPS - i; /* descending: the sort has work */
	is_errno(setgroups(NGROUPS + 1, big), EINVAL, "NGROUPS_MAX + 1 groups: EINVAL");
	is_errno(syscall(SYS_setgroups, -1, big), EINVAL, "a negative size: EINVAL");
	is_errno(setgroups(2, bad), EINVAL, "the id -1 in the list: EINVAL");
	is_errno(syscall(SYS_setgroups, 2, (gid_t *)1), EFAULT, "a bad address: EFAULT");
	ok(setgroups(NGROUPS, big) == 0, "NGROUPS_MAX groups");
	memset(big, 0, NGROUPS * sizeof(gid_t));
	is_int(getgroups(NGROUPS, big), NGROUPS, "all reported");
	bool sorted = true;
	for (int i = 0; i < NGROUPS; i++)
		sorted &= big[i] == (gid_t)(i + 1);
	ok(sorted, "in ascending order");
	free(big);
}

static void unprivileged(void)
{
	gid_t in[] = {G1}, out[4];

	ok(setgroups(1, in) == 0 && setuid(U1) == 0, "a group, then leave root");
	is_errno(setgroups(0, NULL), EPERM, "setgroups without CAP_SETGID: EPERM");
	is_errno(syscall(SYS_setgroups, -1, NULL), EPERM, "EPERM before the size's EINVAL");
	is_errno(syscall(SYS_setgroups, NGROUPS + 1, NULL), EPERM, "... and before a huge one");
	ok(getgroups(4, out) == 1 && out[0] == G1, "the list is kept");
	pid_t pid = fork();
	if (pid == 0)
		_exit(getgroups(4, out) == 1 && out[0] == G1 ? 0 : 1);
	int st;
	ok(pid > 0 && waitpid(pid, &st, 0) == pid && exited_with(st, 0), "and inherited by fork");
}

int main(void)
{
	plan(23);
	require(getuid() == 0, "the test runs as root");
	in_child("set and get", set_and_get);
	in_child("limits", limits);
	in_child("unprivileged", unprivileged);
	return done();
}
