/* umount2(MNT_EXPIRE), as Linux's do_umount: the first call on an unused
 * mount marks it and answers EAGAIN, a second one unmounts it unless the
 * mount was used meanwhile (a lookup ending there, a file opened and
 * closed in it, by this process or another, a working directory left):
 * then EAGAIN again.  A busy mount (an open file, a working directory, a
 * mount under it) is EBUSY; reading /proc/self/mounts or naming the
 * mount to umount2 is no use.
 * MNT_FORCE or MNT_DETACH with it, the caller's root and a directory that
 * is no mount are EINVAL, after the lookup's errors.  On the host (as
 * root) it runs in a mount namespace of its own. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mount_ns.h"
#include "testutil.h"

static char dir[64], mnt[80], file[128], in[128];

/* Whether /proc/self/mounts has a line for mnt. */
static bool mounted(const char *path)
{
	static char text[65536];
	char want[128];

	snprintf(want, sizeof want, " %s tmpfs ", path);
	return read_text("/proc/self/mounts", text, sizeof text) > 0 && strstr(text, want);
}

static void mount_it(void)
{
	require(mount("none", mnt, "tmpfs", 0, "size=64k") == 0, "mount a tmpfs");
}

static void bad_args(void)
{
	mount_it();
	is_errno(umount2(mnt, MNT_EXPIRE | MNT_FORCE), EINVAL, "MNT_EXPIRE | MNT_FORCE: EINVAL");
	is_errno(umount2(mnt, MNT_EXPIRE | MNT_DETACH), EINVAL, "MNT_EXPIRE | MNT_DETACH: EINVAL");
	is_errno(umount2("/nonexistent", MNT_EXPIRE | MNT_FORCE), ENOENT,
		 "the lookup's ENOENT comes before that EINVAL");
	is_errno(umount2(dir, MNT_EXPIRE), EINVAL, "a directory that is no mount: EINVAL");
	is_errno(umount2("/", MNT_EXPIRE), EINVAL, "the caller's root: EINVAL");
	/* None of these marked it. */
	is_errno(umount2(mnt, MNT_EXPIRE), EAGAIN, "the first MNT_EXPIRE: EAGAIN");
	ok(mounted(mnt), "still mounted after it");
	ok(umount2(mnt, MNT_EXPIRE) == 0, "the second unmounts it");
	ok(!mounted(mnt), "gone from /proc/self/mounts");
	is_errno(umount2(mnt, MNT_EXPIRE), EINVAL, "once more: no mount there, EINVAL");
}

/* Uses between the two calls: each clears the mark. */
static void uses(void)
{
	mount_it();
	is_errno(umount2(mnt, MNT_EXPIRE), EAGAIN, "marked");
	ok(access(mnt, F_OK) == 0, "access() of the mount point");
	is_errno(umount2(mnt, MNT_EXPIRE), EAGAIN, "after access: EAGAIN again (LTP umount2_02)");

	int fd = open(file, O_CREAT | O_WRONLY, 0600);
	ok(fd >= 0 && close(fd) == 0, "a file made and closed in it");
	is_errno(umount2(mnt, MNT_EXPIRE), EAGAIN, "after the close: EAGAIN again");

	pid_t pid = fork();
	if (pid == 0) {
		struct stat st;
		_exit(stat(file, &st) == 0 ? 0 : 1);
	}
	int status;
	ok(pid > 0 && waitpid(pid, &status, 0) == pid && exited_with(status, 0),
	   "another process stats a file in it");
	is_errno(umount2(mnt, MNT_EXPIRE), EAGAIN, "its use clears the mark too: EAGAIN");

	require(chdir(mnt) == 0, "chdir into it");
	is_errno(umount2(mnt, MNT_EXPIRE), EBUSY, "a working directory inside: EBUSY");
	require(chdir("/") == 0, "chdir out");
	is_errno(umount2(mnt, MNT_EXPIRE), EAGAIN, "leaving it was a use: EAGAIN");

	char text[4096];
	ok(read_text("/proc/self/mounts", text, sizeof text) > 0 &&
	       read_text("/proc/self/mountinfo", text, sizeof text) > 0,
	   "/proc/self/mounts and mountinfo read meanwhile");
	ok(umount2(mnt, MNT_EXPIRE) == 0, "reading the table is no use: the next call unmounts");
}

/* A busy mount is EBUSY. */
static void busy(void)
{
	mount_it();
	int fd = open(file, O_CREAT | O_RDWR, 0600);
	require(fd >= 0, "a file held open in it");
	is_errno(umount2(mnt, MNT_EXPIRE), EBUSY, "an open file: EBUSY");
	close(fd);
	is_errno(umount2(mnt, MNT_EXPIRE), EAGAIN, "closed: the first call marks");

	require(mkdir(in, 0700) == 0, "a directory in it");
	/* The lookup of in ends on the submount: no use of mnt itself. */
	require(mount("none", in, "tmpfs", 0, "size=64k") == 0, "a mount on that directory");
	is_errno(umount2(mnt, MNT_EXPIRE), EBUSY, "a mount under it: EBUSY");
	is_errno(umount2(in, MNT_EXPIRE), EAGAIN, "the submount: EAGAIN");
	ok(umount2(in, MNT_EXPIRE) == 0, "and then unmounted");
	ok(umount2(mnt, 0) == 0, "plain umount of the rest");
}

int main(void)
{
	plan(28);
	own_mount_namespace();
	snprintf(dir, sizeof dir, "/tmp/expire-%d", (int)getpid());
	snprintf(mnt, sizeof mnt, "%s/m", dir);
	snprintf(file, sizeof file, "%s/f", mnt);
	snprintf(in, sizeof in, "%s/in", mnt);
	require(mkdir(dir, 0700) == 0 && mkdir(mnt, 0700) == 0, "scratch directories");
	bad_args();
	uses();
	busy();
	ok(rmdir(mnt) == 0 && rmdir(dir) == 0, "clean up");
	return done();
}
