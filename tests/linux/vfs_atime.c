/* Access times as Linux keeps them (fs/inode.c's atime_needs_update):
 * relatime by default (a read writes atime only when it is not after the
 * mtime or ctime, or is a day old), MS_STRICTATIME (every read),
 * MS_NOATIME (never), MS_NODIRATIME (never for directories), a read-only
 * mount never, O_NOATIME (only the owner may ask: EPERM otherwise; F_GETFL
 * shows it).  read, readdir and mmap are accesses.  Each mode shows in
 * statfs's f_flags (ST_NOATIME, ST_NODIRATIME, ST_RELATIME) and in
 * /proc/self/mounts ("relatime", "noatime", "nodiratime"; strictatime
 * nothing); a remount without an atime flag keeps the mount's, a bind
 * remount changes the bind only.  On a tmpfs (vfs_atime_ext2: on ext2,
 * written back).  Times are set with
 * utimensat first, so no assertion waits for a clock to move.  On the
 * host (as root) it runs in a mount namespace of its own. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "atime_util.h"
#include "mount_ns.h"
#include "testutil.h"

static char dir[64], mnt[80], bind_[80];

/* O_NOATIME: the owner's file opened so reads leave atime; another user
 * may not ask (EPERM), without it may read. */
static void noatime_open(const char *base)
{
	const char *f = path_at(base, "f");
	int fd, status;

	ok(set_times(f, OLD, OLD) && read_file(f, O_NOATIME) && atime_of(f) == OLD,
	   "O_NOATIME: the owner's read leaves atime");
	fd = open(f, O_RDONLY | O_NOATIME);
	ok(fd >= 0 && (fcntl(fd, F_GETFL) & O_NOATIME), "F_GETFL shows O_NOATIME");
	if (fd >= 0)
		close(fd);
	fd = open(f, O_RDONLY);
	ok(fd >= 0 && fcntl(fd, F_SETFL, O_NOATIME) == 0 && (fcntl(fd, F_GETFL) & O_NOATIME) &&
	       set_times(f, OLD, OLD) && read(fd, (char[4]){0}, 4) >= 0 && atime_of(f) == OLD,
	   "F_SETFL O_NOATIME: reads through it leave atime");
	if (fd >= 0)
		close(fd);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(2);
		errno = 0;
		int bad = open(f, O_RDONLY | O_NOATIME);
		int e = errno;
		int good = open(f, O_RDONLY);
		int gfd = open(f, O_RDONLY);
		int setfl = gfd >= 0 ? fcntl(gfd, F_SETFL, O_NOATIME) : 0;
		int se = errno;
		_exit(bad == -1 && e == EPERM && good >= 0 && setfl == -1 && se == EPERM ? 0 : 1);
	}
	ok(pid > 0 && waitpid(pid, &status, 0) == pid && exited_with(status, 0),
	   "another user: open(O_NOATIME) and F_SETFL O_NOATIME EPERM, open without it works");
}

static void mmap_and_ro(const char *base, const char *what)
{
	const char *f = path_at(base, "f");
	int fd = open(f, O_RDONLY);
	void *p;

	ok(fd >= 0 && set_times(f, OLD, OLD) &&
	       (p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0)) != MAP_FAILED &&
	       munmap(p, 4096) == 0 && atime_of(f) > OLD,
	   "%s: mmap is an access (relatime: an old atime updates)", what);
	if (fd >= 0)
		close(fd);
	ok(set_times(f, OLD, OLD) && mount(NULL, base, NULL, MS_REMOUNT | MS_RDONLY, NULL) == 0 &&
	       read_file(f, 0) && read_dir(path_at(base, "d")) && atime_of(f) == OLD,
	   "%s: read-only: no read updates atime", what);
	ok(mount(NULL, base, NULL, MS_REMOUNT, NULL) == 0, "%s: read-write again", what);
}

static void on_tmpfs(void)
{
	require(mount("none", mnt, "tmpfs", 0, NULL) == 0, "a tmpfs");
	make_files(mnt);
	ok(st_atime_flags(mnt) == ST_RELATIME && options_are(mnt, "relatime"),
	   "tmpfs: relatime by default (ST_RELATIME, shown)");
	relatime_rules(mnt, "tmpfs");
	strict_and_no(mnt, "tmpfs");
	noatime_open(mnt);
	mmap_and_ro(mnt, "tmpfs");

	ok(mount(mnt, bind_, NULL, MS_BIND, NULL) == 0 &&
	       mount(NULL, bind_, NULL, MS_REMOUNT | MS_BIND | MS_NOATIME, NULL) == 0 &&
	       !file_updates(bind_) && file_updates(mnt) && st_atime_flags(bind_) == ST_NOATIME &&
	       st_atime_flags(mnt) == ST_RELATIME,
	   "remount,bind noatime: the bind never updates, the first mount still does");
	ok(umount2(bind_, 0) == 0 && umount2(mnt, 0) == 0, "tmpfs: umount");

	ok(mount("none", mnt, "tmpfs", MS_NOATIME, NULL) == 0 &&
	       st_atime_flags(mnt) == ST_NOATIME && options_are(mnt, "noatime"),
	   "a new noatime mount: no relatime");
	ok(umount2(mnt, 0) == 0 && mount("none", mnt, "tmpfs", MS_STRICTATIME, NULL) == 0 &&
	       st_atime_flags(mnt) == 0 && options_are(mnt, "") && umount2(mnt, 0) == 0,
	   "a new strictatime mount: no atime flag");
}

int main(void)
{
	plan(25);
	own_mount_namespace();
	snprintf(dir, sizeof dir, "/tmp/atime-%d", (int)getpid());
	snprintf(mnt, sizeof mnt, "%s/m", dir);
	snprintf(bind_, sizeof bind_, "%s/b", dir);
	require(mkdir(dir, 0755) == 0 && mkdir(mnt, 0755) == 0 && mkdir(bind_, 0755) == 0,
		"scratch directories");
	on_tmpfs();
	ok(rmdir(bind_) == 0 && rmdir(mnt) == 0 && rmdir(dir) == 0, "clean up");
	return done();
}
