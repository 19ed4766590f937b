/* What the atime tests (vfs_atime on a tmpfs, vfs_atime_ext2 on a
 * scratch ext2) share: times set with utimensat, reads and readdirs, the
 * atime bits of statfs and /proc/self/mounts, and relatime's, strictatime's,
 * noatime's and nodiratime's rules asserted on a mount.  Without
 * <sys/mount.h>, whose BLK* clash with blk_util.h's. */
#ifndef ATIME_UTIL_H
#define ATIME_UTIL_H

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#ifndef MS_RDONLY
#define MS_RDONLY      1
#define MS_NOATIME     1024
#define MS_NODIRATIME  2048
#define MS_REMOUNT     32
#define MS_RELATIME    (1 << 21)
#define MS_STRICTATIME (1 << 24)
int mount(const char *source, const char *target, const char *type, unsigned long flags,
	  const void *data);
#endif
#ifndef ST_RELATIME
#define ST_RELATIME 0x1000
#endif
#define ST_ATIME_FLAGS (ST_NOATIME | ST_NODIRATIME | ST_RELATIME)

#define OLD 1000000000L /* 2001: long before any read here */

/* Sets path's atime (and mtime, which must not be later than it for
 * relatime's "not newer" rule to be the one tested). */
static inline bool set_times(const char *path, time_t atime, time_t mtime)
{
	struct timespec ts[2] = {{atime, 0}, {mtime, 0}};

	return utimensat(AT_FDCWD, path, ts, 0) == 0;
}

static inline time_t atime_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : st.st_atime;
}

static inline bool read_file(const char *path, int flags)
{
	char buf[16];
	int fd = open(path, O_RDONLY | flags);
	bool done = fd >= 0 && read(fd, buf, sizeof buf) >= 0;

	if (fd >= 0)
		close(fd);
	return done;
}

static inline bool read_dir(const char *path)
{
	DIR *d = opendir(path);
	bool done = d && readdir(d) != NULL;

	if (d)
		closedir(d);
	return done;
}

/* Whether a read of base's file moved an old atime, and a readdir of its
 * directory an old one of the directory's. */
static inline bool file_updates(const char *base)
{
	const char *f = path_at(base, "f");

	return set_times(f, OLD, OLD) && read_file(f, 0) && atime_of(f) > OLD;
}

static inline bool dir_updates(const char *base)
{
	const char *d = path_at(base, "d");

	return set_times(d, OLD, OLD) && read_dir(d) && atime_of(d) > OLD;
}

/* statfs's atime bits of path, and path's options in /proc/self/mounts
 * (its last line: the mount on top). */
static inline long st_atime_flags(const char *path)
{
	struct statfs st;

	return statfs(path, &st) ? -1 : (long)(st.f_flags & ST_ATIME_FLAGS);
}

/* Whether the comma-separated list has name. */
static inline bool has_opt(const char *list, const char *name)
{
	char padded[560], key[32];

	snprintf(padded, sizeof padded, ",%s,", list);
	snprintf(key, sizeof key, ",%s,", name);
	return strstr(padded, key) != NULL;
}

/* Whether the atime options of path's mount (the last line for it: the
 * mount on top) are exactly those of want. */
static inline bool options_are(const char *path, const char *want)
{
	static const char *const names[] = {"relatime", "noatime", "nodiratime"};
	static char text[65536];
	char key[128], opts[512] = "";
	const char *at = text;

	snprintf(key, sizeof key, " %s ", path);
	if (read_text("/proc/self/mounts", text, sizeof text) <= 0)
		return false;
	while ((at = strstr(at, key))) {
		at += strlen(key);
		sscanf(at, "%*s %511s", opts);
	}
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (has_opt(opts, names[i]) != has_opt(want, names[i])) {
			diag("%s: options %s, want the atime ones of \"%s\"", path, opts, want);
			return false;
		}
	return true;
}

static inline void make_files(const char *base)
{
	int fd = open(path_at(base, "f"), O_RDWR | O_CREAT | O_TRUNC, 0644);

	require(fd >= 0 && write(fd, "abcdefgh", 8) == 8 && close(fd) == 0, "a file");
	require(mkdir(path_at(base, "d"), 0755) == 0, "a directory");
	fd = open(path_at(base, "d/x"), O_RDWR | O_CREAT, 0644);
	require(fd >= 0 && close(fd) == 0, "a file in it");
}

/* relatime's rules on base (a relatime mount). */
static inline void relatime_rules(const char *base, const char *what)
{
	const char *f = path_at(base, "f");
	time_t later = time(NULL) + 3600;
	int fd;

	ok(set_times(f, OLD, OLD) && (fd = open(f, O_WRONLY)) >= 0 && write(fd, "x", 1) == 1 &&
	       close(fd) == 0 && read_file(f, 0) && atime_of(f) > OLD,
	   "%s: a read after a write updates atime", what);
	ok(set_times(f, later, OLD) && read_file(f, 0) && atime_of(f) == later,
	   "%s: a read within a day of an atime newer than mtime and ctime does not", what);
	ok(set_times(f, time(NULL) - 25 * 3600, OLD) && read_file(f, 0) &&
	       atime_of(f) > time(NULL) - 3600,
	   "%s: an atime set back over a day: the next read updates it", what);
	ok(dir_updates(base), "%s: readdir of a directory with an old atime updates it", what);
}

static inline void strict_and_no(const char *base, const char *what)
{
	const char *f = path_at(base, "f");
	time_t later = time(NULL) + 3600;

	ok(mount(NULL, base, NULL, MS_REMOUNT | MS_STRICTATIME, NULL) == 0 &&
	       st_atime_flags(base) == 0 && options_are(base, ""),
	   "%s: remount strictatime: no ST_ atime flag, no option shown", what);
	ok(set_times(f, later, OLD) && read_file(f, 0) && atime_of(f) < later,
	   "%s: strictatime: every read updates atime", what);
	ok(mount(NULL, base, NULL, MS_REMOUNT, NULL) == 0 && st_atime_flags(base) == 0,
	   "%s: a remount naming no atime flag keeps strictatime", what);
	ok(mount(NULL, base, NULL, MS_REMOUNT | MS_NOATIME, NULL) == 0 &&
	       st_atime_flags(base) == ST_NOATIME && options_are(base, "noatime"),
	   "%s: remount noatime: ST_NOATIME, noatime shown", what);
	ok(!file_updates(base) && !dir_updates(base), "%s: noatime: no read or readdir updates",
	   what);
	ok(mount(NULL, base, NULL, MS_REMOUNT | MS_NODIRATIME, NULL) == 0 &&
	       st_atime_flags(base) == (ST_NODIRATIME | ST_RELATIME) &&
	       options_are(base, "nodiratime,relatime"),
	   "%s: remount nodiratime: ST_NODIRATIME|ST_RELATIME, both shown", what);
	ok(file_updates(base) && !dir_updates(base),
	   "%s: nodiratime: a file's read updates, a directory's readdir does not", what);
	ok(mount(NULL, base, NULL, MS_REMOUNT | MS_RELATIME, NULL) == 0 &&
	       st_atime_flags(base) == ST_RELATIME && options_are(base, "relatime"),
	   "%s: remount relatime: back to the default", what);
}

#endif
