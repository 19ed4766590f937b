/*
 * File metadata and identity: umask, the chmod, chown and utimes families,
 * fstatat, and the uid/gid calls (one user, root, in fdkernel).  *at flags
 * and UTIME_* values go through translate.c or are Linux's already.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
#define UAPI_NO_FLAG_NAMES
#include <uapi/fcntl.h>

#include "syscall.h"
#include "translate.h"

/* newlib's AT_FDCWD (-2) is Linux's -100. */
static long dirfd_to_linux(int dirfd)
{
	return dirfd == AT_FDCWD ? UAPI_AT_FDCWD : dirfd;
}

/* newlib's uid_t and gid_t are 16 bits: its -1 ("unchanged") is 0xffff. */
static long id_to_linux(unsigned int id)
{
	return id == (uid_t)-1 ? -1L : (long)id;
}

mode_t umask(mode_t mask)
{
	return sys_raw(__NR_umask, mask); /* never fails */
}

int chmod(const char *path, mode_t mode)
{
	return sys_call(__NR_chmod, path, mode);
}

int fchmod(int fd, mode_t mode)
{
	return sys_call(__NR_fchmod, fd, mode);
}

/* glibc's rule: without flags, the 3-argument call; with them, fchmodat2. */
int fchmodat(int dirfd, const char *path, mode_t mode, int flags)
{
	if (!flags)
		return sys_call(__NR_fchmodat, dirfd_to_linux(dirfd), path, mode);
	return sys_call(__NR_fchmodat2, dirfd_to_linux(dirfd), path, mode,
			at_flags_to_linux(flags));
}

int chown(const char *path, uid_t owner, gid_t group)
{
	return sys_call(__NR_chown, path, id_to_linux(owner), id_to_linux(group));
}

int fchown(int fd, uid_t owner, gid_t group)
{
	return sys_call(__NR_fchown, fd, id_to_linux(owner), id_to_linux(group));
}

int lchown(const char *path, uid_t owner, gid_t group)
{
	return sys_call(__NR_lchown, path, id_to_linux(owner), id_to_linux(group));
}

int fchownat(int dirfd, const char *path, uid_t owner, gid_t group, int flags)
{
	return sys_call(__NR_fchownat, dirfd_to_linux(dirfd), path, id_to_linux(owner),
			id_to_linux(group), at_flags_to_linux(flags));
}

/* The timespecs go as they are: callers use Linux's UTIME_NOW/UTIME_OMIT
 * (UAPI_UTIME_*; newlib defines them only for Cygwin). */
int utimensat(int dirfd, const char *path, const struct timespec *times, int flags)
{
	return sys_call(__NR_utimensat, dirfd_to_linux(dirfd), path, times,
			at_flags_to_linux(flags));
}

int futimens(int fd, const struct timespec *times)
{
	return sys_call(__NR_utimensat, fd, 0, times, 0);
}

int utimes(const char *path, const struct timeval *times)
{
	return sys_call(__NR_utimes, path, times);
}

int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	struct uapi_stat lst;
	long ret =
	    sys_call(__NR_newfstatat, dirfd_to_linux(dirfd), path, &lst, at_flags_to_linux(flags));

	if (ret == 0)
		stat_from_linux(st, &lst);
	return ret;
}

uid_t getuid(void)
{
	return sys_raw(__NR_getuid);
}

uid_t geteuid(void)
{
	return sys_raw(__NR_geteuid);
}

gid_t getgid(void)
{
	return sys_raw(__NR_getgid);
}

gid_t getegid(void)
{
	return sys_raw(__NR_getegid);
}

int setuid(uid_t uid)
{
	return sys_call(__NR_setuid, id_to_linux(uid));
}

int setgid(gid_t gid)
{
	return sys_call(__NR_setgid, id_to_linux(gid));
}

/* Linux's gid_t is 32 bits, newlib's 16: the lists are converted (64
 * groups at most here, plenty for one user). */
int getgroups(int size, gid_t list[])
{
	unsigned int lgroups[64];
	int n = sys_call(__NR_getgroups, size < 64 ? size : 64, lgroups);

	for (int i = 0; i < n && i < size; i++)
		list[i] = lgroups[i];
	return n;
}

int setgroups(int size, const gid_t *list)
{
	unsigned int lgroups[64];

	if (size < 0 || size > 64) {
		errno = EINVAL;
		return -1;
	}
	for (int i = 0; i < size; i++)
		lgroups[i] = list[i];
	return sys_call(__NR_setgroups, size, lgroups);
}

/* R_OK, W_OK, X_OK and F_OK have the same values in both libcs. */
int access(const char *path, int mode)
{
	return sys_call(__NR_access, path, mode);
}
