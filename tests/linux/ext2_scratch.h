/* A scratch ext2 file system as LTP's tests make one (tst_mkfs, then a
 * loop device and mount): mkfs.ext2 on an image file in /tmp, bound to a
 * loop device, mounted read-write.  Root only, with the tools. */
#ifndef LINUX_EXT2_SCRATCH_H
#define LINUX_EXT2_SCRATCH_H

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blk_util.h"
#include "testutil.h"

int mount(const char *source, const char *target, const char *type, unsigned long flags,
	  const void *data);
int umount(const char *target);

/* Where a shell with Debian's PATH finds name: into buf, or false. */
static inline bool find_tool(const char *name, char *buf, size_t size)
{
	static const char *const dirs[] = {"/usr/sbin", "/usr/bin", "/sbin", "/bin"};

	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		snprintf(buf, size, "%s/%s", dirs[i], name);
		if (!access(buf, X_OK))
			return true;
	}
	return false;
}

/* The scratch file system's image, device and mount point. */
struct scratch {
	char img[64], dev[32], mnt[64];
	int loop; /* the loop device's fd */
};

/* Skips the whole test unless root, loop devices and mkfs.ext2 are
 * there; then a 4 MiB ext2 of 1 KiB blocks mounted at s->mnt. */
static inline void scratch_ext2(struct scratch *s, const char *name)
{
	char tool[64], out[4096];
	char *envp[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL};
	int fd;

	if (access("/dev/loop-control", F_OK) || geteuid())
		skip_all("no /dev/loop-control, or not root");
	if (!find_tool("mkfs.ext2", tool, sizeof tool))
		skip_all("no mkfs.ext2");
	snprintf(s->img, sizeof s->img, "/tmp/%s.%d.img", name, (int)getpid());
	snprintf(s->mnt, sizeof s->mnt, "/tmp/%s.%d", name, (int)getpid());
	fd = open(s->img, O_RDWR | O_CREAT | O_TRUNC, 0644);
	require(fd >= 0 && ftruncate(fd, 4 << 20) == 0 && close(fd) == 0, "the image file");
	char *argv[] = {"mkfs.ext2", "-q", "-F", "-b 1024", s->img, NULL};
	if (run_capture(tool, argv, envp, out, sizeof out)) {
		diag("%s", out);
		skip_all("mkfs.ext2 failed");
	}
	s->loop = loop_bind(s->img, 0, s->dev, sizeof s->dev);
	require(mkdir(s->mnt, 0755) == 0 && mount(s->dev, s->mnt, "ext2", 0, NULL) == 0,
		"mount the scratch ext2");
}

/* s->mnt/name, in one of two buffers that take turns (two paths may be
 * in use at once: rename, link). */
static inline const char *scratch_at(const struct scratch *s, const char *name)
{
	static char buf[2][128];
	static int i;

	snprintf(buf[i ^= 1], sizeof buf[0], "%s/%s", s->mnt, name);
	return buf[i];
}

/* Unmounts, lets the loop device go, removes the image and mount point. */
static inline void scratch_done(struct scratch *s)
{
	umount(s->mnt);
	ioctl(s->loop, LOOP_CLR_FD, 0);
	close(s->loop);
	rmdir(s->mnt);
	unlink(s->img);
}

#endif
