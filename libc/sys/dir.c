/*
 * Directories and names: mkdir/rmdir/chdir/getcwd, mknod and mkfifo,
 * link/unlink, symlinks, rename, and the <dirent.h> reader on top of
 * getdents64.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "syscall.h"
#include "translate.h"
#define UAPI_NO_FLAG_NAMES
#include <uapi/fcntl.h>

/* newlib's AT_FDCWD (-2) is Linux's -100. */
static long at_dirfd(int dirfd)
{
	return dirfd == AT_FDCWD ? UAPI_AT_FDCWD : dirfd;
}

int mkdir(const char *path, mode_t mode)
{
	return sys_call(__NR_mkdir, path, mode);
}

/* newlib declares mknod only for some targets: here it is for all. */
int mknod(const char *path, mode_t mode, dev_t dev);

int mknod(const char *path, mode_t mode, dev_t dev)
{
	return sys_call(__NR_mknod, path, mode, dev);
}

int mknodat(int dirfd, const char *path, mode_t mode, dev_t dev)
{
	return sys_call(__NR_mknodat, at_dirfd(dirfd), path, mode, dev);
}

int mkfifo(const char *path, mode_t mode)
{
	return mknod(path, S_IFIFO | (mode & 07777), 0);
}

int mkfifoat(int dirfd, const char *path, mode_t mode)
{
	return mknodat(dirfd, path, S_IFIFO | (mode & 07777), 0);
}

int rmdir(const char *path)
{
	return sys_call(__NR_rmdir, path);
}

int chdir(const char *path)
{
	return sys_call(__NR_chdir, path);
}

int link(const char *old, const char *new)
{
	return sys_call(__NR_link, old, new);
}

int linkat(int olddirfd, const char *old, int newdirfd, const char *new, int flags)
{
	return sys_call(__NR_linkat, at_dirfd(olddirfd), old, at_dirfd(newdirfd), new,
			at_flags_to_linux(flags));
}

int unlink(const char *path)
{
	return sys_call(__NR_unlink, path);
}

int symlink(const char *target, const char *path)
{
	return sys_call(__NR_symlink, target, path);
}

int symlinkat(const char *target, int dirfd, const char *path)
{
	return sys_call(__NR_symlinkat, target, at_dirfd(dirfd), path);
}

ssize_t readlink(const char *path, char *buf, size_t size)
{
	return sys_call(__NR_readlink, path, buf, size);
}

ssize_t readlinkat(int dirfd, const char *path, char *buf, size_t size)
{
	return sys_call(__NR_readlinkat, at_dirfd(dirfd), path, buf, size);
}

/* newlib's rename() calls this (built with HAVE_RENAME): the atomic one. */
int _rename(const char *old, const char *new)
{
	return sys_call(__NR_rename, old, new);
}

int renameat(int olddirfd, const char *old, int newdirfd, const char *new)
{
	return sys_call(__NR_renameat, at_dirfd(olddirfd), old, at_dirfd(newdirfd), new);
}

/* flags: Linux's RENAME_* (<uapi/fcntl.h>; newlib has none). */
int renameat2(int olddirfd, const char *old, int newdirfd, const char *new, unsigned int flags)
{
	return sys_call(__NR_renameat2, at_dirfd(olddirfd), old, at_dirfd(newdirfd), new, flags);
}

int unlinkat(int dirfd, const char *path, int flags)
{
	return sys_call(__NR_unlinkat, at_dirfd(dirfd), path, at_flags_to_linux(flags));
}

/* With a NULL buf, allocate one as glibc does (size 0: PATH_MAX). */
char *getcwd(char *buf, size_t size)
{
	char *mem = NULL;

	if (!buf) {
		size = size ? size : 4096;
		buf = mem = malloc(size);
		if (!buf)
			return NULL;
	}
	if (sys_call(__NR_getcwd, buf, size) < 0) {
		free(mem);
		return NULL;
	}
	return buf;
}

ssize_t getdents(int fd, void *buf, size_t size)
{
	return sys_call(__NR_getdents64, fd, buf, size);
}

/* DIR: an fd and a buffer of getdents64 records, consumed one by one. */
struct fdk_dir {
	int fd;
	size_t pos, end;
	struct dirent entry;
	char buf[4096];
};

DIR *opendir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir;

	if (fd < 0)
		return NULL;
	dir = calloc(1, sizeof(*dir));
	if (!dir) {
		close(fd);
		return NULL;
	}
	dir->fd = fd;
	return dir;
}

struct dirent *readdir(DIR *dir)
{
	const struct uapi_dirent64 *rec;

	if (dir->pos >= dir->end) {
		ssize_t n = getdents(dir->fd, dir->buf, sizeof(dir->buf));
		if (n <= 0)
			return NULL; /* end (errno kept) or error (errno set) */
		dir->pos = 0;
		dir->end = n;
	}
	rec = (const struct uapi_dirent64 *)(dir->buf + dir->pos);
	dir->pos += rec->d_reclen;
	dir->entry.d_ino = rec->d_ino;
	dir->entry.d_off = rec->d_off;
	dir->entry.d_reclen = rec->d_reclen;
	dir->entry.d_type = rec->d_type;
	strncpy(dir->entry.d_name, rec->d_name, sizeof(dir->entry.d_name) - 1);
	return &dir->entry;
}

void rewinddir(DIR *dir)
{
	lseek(dir->fd, 0, SEEK_SET);
	dir->pos = dir->end = 0;
}

int dirfd(DIR *dir)
{
	return dir->fd;
}

int closedir(DIR *dir)
{
	int ret = close(dir->fd);

	free(dir);
	return ret;
}
