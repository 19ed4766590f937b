/* mkfs.ext2 as a Linux distribution has it (e2fsprogs' mke2fs under that
 * name, on the standard PATH), the way test suites format a scratch
 * device (LTP's tst_mkfs: `mkfs.TYPE OPTS DEV`, an option and its value
 * in one argument as "-b 1024"): an image file made, bound to a loop
 * device and mounted read-write, a file kept across a remount.  ext3 and
 * ext4 made with `mke2fs -t` mount on the host and are ENODEV on
 * fdkernel, which has no such file system types, and so no mkfs.ext3 or
 * mkfs.ext4 either (docs/ext2.md).  On the host as root when it has the
 * tools. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ext2_scratch.h"

#define IMG_SIZE	 (4 << 20)
#define EXT2_SUPER_MAGIC 0xEF53

static char img[64], mnt[64];

/* mkfs.ext2 -q -F "-b 1024" IMG, or mke2fs -q -F -t TYPE "-b 1024" IMG,
 * on a fresh image: its wait status. */
static int make_fs(const char *type)
{
	char tool[64], name[16] = "mke2fs", out[4096];
	char *argv[] = {name, "-q", "-F", "-b 1024", img, NULL, NULL, NULL};
	char *envp[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL};
	int fd = open(img, O_RDWR | O_CREAT | O_TRUNC, 0644), status;

	require(fd >= 0 && ftruncate(fd, IMG_SIZE) == 0, "make the image file");
	close(fd);
	if (!strcmp(type, "ext2")) {
		strcpy(name, "mkfs.ext2");
	} else { /* -t TYPE in front of the device */
		argv[4] = "-t";
		argv[5] = (char *)type;
		argv[6] = img;
	}
	if (!find_tool(name, tool, sizeof tool))
		return -1;
	status = run_capture(tool, argv, envp, out, sizeof out);
	if (status)
		diag("%s: %s", name, out);
	return status;
}

static bool write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	bool good =
	    fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text) && fsync(fd) == 0;

	if (fd >= 0)
		close(fd);
	return good;
}

static bool file_holds(const char *path, const char *text)
{
	char buf[64] = {0};
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)strlen(text) && !memcmp(buf, text, n);
}

static void check_ext2(void)
{
	char dev[32], file[96];
	struct statfs sf;
	int lfd;

	is_int(make_fs("ext2"), 0, "mkfs.ext2 -q -F \"-b 1024\" IMAGE exits 0");
	lfd = loop_bind(img, 0, dev, sizeof dev);
	snprintf(file, sizeof file, "%s/kept", mnt);
	ok(mount(dev, mnt, "ext2", 0, NULL) == 0, "the new file system mounts as ext2");
	ok(statfs(mnt, &sf) == 0 && sf.f_type == EXT2_SUPER_MAGIC && sf.f_bsize == 1024 &&
	       sf.f_blocks * 1024 <= IMG_SIZE && sf.f_blocks * 1024 > IMG_SIZE / 2,
	   "statfs: ext2's magic, 1 KiB blocks, the image's size");
	ok(write_file(file, "made by mkfs.ext2\n"), "a file written on it");
	ok(umount(mnt) == 0 && mount(dev, mnt, "ext2", 0, NULL) == 0 &&
	       file_holds(file, "made by mkfs.ext2\n"),
	   "... is there after umount and a new mount");
	ok(umount(mnt) == 0, "umount");
	ioctl(lfd, LOOP_CLR_FD, 0);
	close(lfd);
}

/* ext3 and ext4: made, and mounted where the kernel has the type. */
static void check_journalled(const char *type)
{
	char dev[32];
	int lfd, ret;

	is_int(make_fs(type), 0, "mke2fs -t %s exits 0", type);
	lfd = loop_bind(img, 0, dev, sizeof dev);
	ret = mount(dev, mnt, type, 0, NULL);
	if (on_fdkernel()) {
		is_errno(ret, ENODEV, "mount -t %s: ENODEV, no such file system type here", type);
	} else {
		ok(ret == 0, "mount -t %s", type);
		umount(mnt);
	}
	ioctl(lfd, LOOP_CLR_FD, 0);
	close(lfd);
}

int main(void)
{
	char tool[64];

	if (access("/dev/loop-control", F_OK) || geteuid())
		skip_all("no /dev/loop-control, or not root");
	if (!on_fdkernel() && !find_tool("mkfs.ext2", tool, sizeof tool))
		skip_all("no mkfs.ext2 on this host");
	plan(2 + 6 + 2 * 2);
	ok(find_tool("mkfs.ext2", tool, sizeof tool), "mkfs.ext2 on PATH");
	if (on_fdkernel())
		ok(!find_tool("mkfs.ext3", tool, sizeof tool) &&
		       !find_tool("mkfs.ext4", tool, sizeof tool),
		   "no mkfs.ext3 or mkfs.ext4: neither type mounts");
	else
		skip("the host's kernel mounts ext3 and ext4", "no mkfs.ext3 or mkfs.ext4");
	snprintf(img, sizeof img, "/tmp/mkfs_ext.%d.img", (int)getpid());
	snprintf(mnt, sizeof mnt, "/tmp/mkfs_ext.%d", (int)getpid());
	require(mkdir(mnt, 0755) == 0, "make the mount point");
	check_ext2();
	check_journalled("ext3");
	check_journalled("ext4");
	rmdir(mnt);
	unlink(img);
	return done();
}
