/* MS_NOSYMFOLLOW (Linux 5.10), a per-mount flag: path lookup takes no
 * symbolic link that lies on such a mount (ELOOP), whether last or on the
 * way, while lstat, readlink, symlink and unlink work, and a link
 * elsewhere may point into the mount.  Set by mount, remount and
 * remount,bind; a bind takes it along; statfs and statvfs say
 * ST_NOSYMFOLLOW, /proc/self/mounts and mountinfo "nosymfollow".  On the
 * host (as root) it runs in a mount namespace of its own. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "mount_ns.h"
#include "testutil.h"

#ifndef ST_NOSYMFOLLOW
#define ST_NOSYMFOLLOW 0x2000
#endif

static char dir[64], mnt[80], bind[80], file[128], link_[128], dlink[128], outside[128];

/* Whether path's line in /proc/self/<list> (mounts or mountinfo) says
 * nosymfollow among its options. */
static bool shows_nosymfollow(const char *list, const char *path)
{
	static char text[65536];
	char name[64], want[128];

	snprintf(name, sizeof name, "/proc/self/%s", list);
	snprintf(want, sizeof want, " %s ", path);
	if (read_text(name, text, sizeof text) <= 0)
		return false;
	char *line = strstr(text, want);
	if (!line)
		return false;
	char *end = strchr(line, '\n');
	if (end)
		*end = '\0';
	return strstr(line, "nosymfollow") != NULL;
}

static bool statfs_says(const char *path)
{
	struct statfs st;
	struct statvfs sv;

	return statfs(path, &st) == 0 && (st.f_flags & ST_NOSYMFOLLOW) && statvfs(path, &sv) == 0 &&
	       (sv.f_flag & ST_NOSYMFOLLOW);
}

/* Whether a link on the mount at base is followed: open, stat, chdir. */
static bool follows(const char *base)
{
	char l[160], through[192];
	struct stat st;

	snprintf(l, sizeof l, "%s/l", base);
	snprintf(through, sizeof through, "%s/dl/x", base);
	int fd = open(l, O_RDONLY);
	if (fd < 0)
		return false;
	close(fd);
	return stat(l, &st) == 0 && S_ISREG(st.st_mode) && stat(through, &st) == 0;
}

static void refused(void)
{
	char buf[256], *real;
	struct stat st;

	is_errno(open(link_, O_RDONLY), ELOOP, "open of a link on the mount: ELOOP");
	is_errno(stat(link_, &st), ELOOP, "stat: ELOOP");
	snprintf(buf, sizeof buf, "%s/x", dlink);
	is_errno(stat(buf, &st), ELOOP, "a link on the way: ELOOP");
	is_errno(chdir(dlink), ELOOP, "chdir through a link: ELOOP");
	is_errno(open(link_, O_CREAT | O_WRONLY, 0600), ELOOP, "O_CREAT through a link: ELOOP");
	ok(lstat(link_, &st) == 0 && S_ISLNK(st.st_mode), "lstat sees the link");
	ssize_t n = readlink(link_, buf, sizeof buf);
	ok(n == (ssize_t)strlen(file) && !memcmp(buf, file, n), "readlink reads it");
	real = realpath(link_, NULL);
	ok(real && !strcmp(real, file), "realpath resolves it (by readlink)");
	free(real);
	int fd = open(link_, O_PATH | O_NOFOLLOW);
	ok(fd >= 0, "O_PATH | O_NOFOLLOW opens the link itself");
	close(fd);
	fd = open(outside, O_RDONLY);
	ok(fd >= 0, "a link outside the mount into it is followed");
	close(fd);
	snprintf(buf, sizeof buf, "%s/new", mnt);
	ok(symlink(dir, buf) == 0, "symlink works");
	is_errno(stat(buf, &st), ELOOP, "a link on the mount to outside it: ELOOP");
	ok(unlink(buf) == 0, "unlink works");
}

static void make_files(void)
{
	char d[128], x[160];

	snprintf(d, sizeof d, "%s/d", mnt);
	snprintf(x, sizeof x, "%s/x", d);
	int fd = open(file, O_CREAT | O_WRONLY, 0600);
	require(fd >= 0 && close(fd) == 0 && mkdir(d, 0700) == 0 &&
		    close(open(x, O_CREAT, 0600)) == 0,
		"a file and a directory on the mount");
	require(symlink(file, link_) == 0 && symlink("d", dlink) == 0 &&
		    symlink(file, outside) == 0,
		"links to them, one outside the mount");
}

int main(void)
{
	plan(27);
	own_mount_namespace();
	snprintf(dir, sizeof dir, "/tmp/nosym-%d", (int)getpid());
	snprintf(mnt, sizeof mnt, "%s/m", dir);
	snprintf(bind, sizeof bind, "%s/b", dir);
	snprintf(file, sizeof file, "%s/f", mnt);
	snprintf(link_, sizeof link_, "%s/l", mnt);
	snprintf(dlink, sizeof dlink, "%s/dl", mnt);
	snprintf(outside, sizeof outside, "%s/out", dir);
	require(mkdir(dir, 0700) == 0 && mkdir(mnt, 0700) == 0 && mkdir(bind, 0700) == 0,
		"scratch directories");

	require(mount("none", mnt, "tmpfs", 0, NULL) == 0, "a tmpfs");
	make_files();
	ok(follows(mnt), "without the flag its links are followed");
	ok(!statfs_says(mnt) && !shows_nosymfollow("mounts", mnt), "and nothing says nosymfollow");

	ok(mount(NULL, mnt, NULL, MS_REMOUNT | MS_NOSYMFOLLOW, NULL) == 0,
	   "remount with MS_NOSYMFOLLOW (LTP mount07)");
	refused();
	ok(statfs_says(mnt), "statfs and statvfs: ST_NOSYMFOLLOW");
	ok(shows_nosymfollow("mounts", mnt) && shows_nosymfollow("mountinfo", mnt),
	   "/proc/self/mounts and mountinfo: nosymfollow");

	ok(mount(mnt, bind, NULL, MS_BIND, NULL) == 0 && !follows(bind) && statfs_says(bind),
	   "a bind takes the flag along");
	ok(mount(NULL, bind, NULL, MS_REMOUNT | MS_BIND, NULL) == 0 && follows(bind) &&
	       !follows(mnt),
	   "remount,bind without it: the bind follows, the first mount still not");
	ok(mount(NULL, bind, NULL, MS_REMOUNT | MS_BIND | MS_NOSYMFOLLOW, NULL) == 0 &&
	       !follows(bind) && statfs_says(bind),
	   "remount,bind with it: refused again");
	ok(umount2(bind, 0) == 0, "umount the bind");

	ok(mount(NULL, mnt, NULL, MS_REMOUNT, NULL) == 0 && follows(mnt) && !statfs_says(mnt) &&
	       !shows_nosymfollow("mountinfo", mnt),
	   "remount without it: followed again, the flag gone");
	ok(umount2(mnt, 0) == 0, "umount");

	require(mount("none", mnt, "tmpfs", MS_NOSYMFOLLOW, NULL) == 0, "a new nosymfollow tmpfs");
	unlink(outside);
	make_files();
	ok(!follows(mnt) && statfs_says(mnt), "a new mount with the flag refuses its links");
	ok(umount2(mnt, 0) == 0, "umount");
	ok(unlink(outside) == 0 && rmdir(bind) == 0 && rmdir(mnt) == 0 && rmdir(dir) == 0,
	   "clean up");
	return done();
}
