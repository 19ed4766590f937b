/* Helpers of the vfs_* and ind_nofollow tests: a scratch directory under
 * /tmp (the ramfs on fdkernel, the host's /tmp on Linux) made at the start
 * and removed whole at the end, links not followed. */
#ifndef USER_VFS_UTIL_H
#define USER_VFS_UTIL_H

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

/* newlib declares it for GNU code only; libc/ has it. */
int renameat2(int olddirfd, const char *old, int newdirfd, const char *new, unsigned int flags);

/* Linux's utimensat values (newlib defines UTIME_* only for Cygwin). */
#define UAPI_NO_FLAG_NAMES
#include <uapi/fcntl.h>

/* Removes path and, for a directory, everything under it (lstat: a link
 * is removed, never followed). */
static inline void rm_tree(const char *path)
{
	struct stat st;
	struct dirent *d;
	char sub[512];
	DIR *dir;

	if (lstat(path, &st) < 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(path);
		return;
	}
	if ((dir = opendir(path))) {
		while ((d = readdir(dir))) {
			if (strcmp(d->d_name, ".") && strcmp(d->d_name, "..")) {
				if (snprintf(sub, sizeof sub, "%s/%s", path, d->d_name) <
				    (int)sizeof sub)
					rm_tree(sub);
			}
		}
		closedir(dir);
	}
	rmdir(path);
}

/* Makes /tmp/NAME-PID and enters it; the path goes to BUF. */
static inline void scratch_enter(const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "/tmp/%s-%d", name, (int)getpid());
	rm_tree(buf);
	require(mkdir(buf, 0755) == 0 && chdir(buf) == 0, "scratch directory");
}

static inline void scratch_leave(const char *path)
{
	require(chdir("/") == 0, "chdir /");
	rm_tree(path);
}

/* Makes a file holding TEXT. */
static inline void make_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	require(fd >= 0, path);
	require(write(fd, text, strlen(text)) == (ssize_t)strlen(text), "write");
	close(fd);
}

/* The file's contents (up to SIZE-1 bytes) in BUF, or "" on error. */
static inline const char *file_text(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? 0 : read(fd, buf, size - 1);
	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
	return buf;
}

/* st_ino of path (lstat when NOFOLLOW), 0 on error. */
static inline ino_t ino_of(const char *path, bool nofollow)
{
	struct stat st;
	return (nofollow ? lstat(path, &st) : stat(path, &st)) == 0 ? st.st_ino : 0;
}

#endif
