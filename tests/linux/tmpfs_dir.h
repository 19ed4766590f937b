/* A tmpfs directory for tests whose answers depend on the file system:
 * fdkernel's /tmp (its ramfs answers statfs as tmpfs), or on a host whose
 * /tmp is another file system, /dev/shm.  NULL if neither is tmpfs. */
#ifndef LINUX_TMPFS_DIR_H
#define LINUX_TMPFS_DIR_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#define TMPFS_MAGIC 0x01021994

static inline const char *tmpfs_dir(void)
{
	static const char *const dirs[] = {"/tmp", "/dev/shm"};
	struct statfs s;

	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
		if (statfs(dirs[i], &s) == 0 && s.f_type == TMPFS_MAGIC)
			return dirs[i];
	return NULL;
}

/* fd's st_blocks and st_size, -1 if fstat fails. */
static inline long st_blocks_of(int fd)
{
	struct stat st;
	return fstat(fd, &st) ? -1 : (long)st.st_blocks;
}

static inline long st_size_of(int fd)
{
	struct stat st;
	return fstat(fd, &st) ? -1 : (long)st.st_size;
}

#endif
