/* ext2 read-only (docs/ext2.md): images mke2fs -d made on the host
 * (tests/harness/ext2-images, in ext2/ beside this program) mounted
 * through a loop device, with 1 KiB and 4 KiB blocks: the tree's
 * contents (direct, indirect and sparse files), stat fields, getdents
 * with d_type, readlink and links followed, a FIFO and a device node,
 * statfs, EROFS on writes, umount EBUSY with an open file; a mount
 * without MS_RDONLY of the read-only loop device is EACCES; busybox's
 * mount -o loop.  On fdkernel only: damaged images are EINVAL at mount
 * or EIO on the damaged object.  On the host as root when it loop-mounts
 * ext2 (else SKIP). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "blk_util.h"
#include "testutil.h"

/* <sys/mount.h> would redefine blk_util.h's BLK* requests. */
#define MS_RDONLY 1UL
#define ST_RDONLY 1
int mount(const char *source, const char *target, const char *type, unsigned long flags,
	  const void *data);
int umount(const char *target);
int umount2(const char *target, int flags);
#define MNT_DETACH 2

static char imgdir[256], mnt[64];

/* A read-only loop device bound to the image; its path in dev, the fd. */
static int loop_attach(const char *img, char *dev, size_t size)
{
	return loop_bind(img, LO_FLAGS_READ_ONLY, dev, size);
}

static void loop_detach(int fd)
{
	ioctl(fd, LOOP_CLR_FD, 0);
	close(fd);
}

static const char *at(const char *name)
{
	static char buf[512];

	snprintf(buf, sizeof buf, "%s/%s", mnt, name);
	return buf;
}

static void check_big(void)
{
	static char buf[409600];
	char want[9];
	int fd = open(at("big"), O_RDONLY), bad = -1;

	ok(fd >= 0 && read(fd, buf, sizeof buf) == (ssize_t)sizeof buf, "big reads 400 KiB");
	for (int i = 0; i < 409600 / 8 && bad < 0; i++) {
		snprintf(want, sizeof want, "%07d\n", i);
		if (memcmp(buf + 8 * i, want, 8))
			bad = i;
	}
	ok(bad < 0, "... through its direct and indirect blocks (first bad record %d)", bad);
	ok(pread(fd, buf, 16, 300000) == 16 && !memcmp(buf, "0037500\n", 8), "pread at 300000");
	is_int(read(fd, buf, 1), 0, "... and EOF at the end");
	close(fd);
}

static void check_sparse(void)
{
	char buf[4096], zero[4096] = {0};
	int fd = open(at("sparse"), O_RDONLY);
	struct stat st;

	ok(fstat(fd, &st) == 0 && st.st_size == 73400330, "sparse: size 70 MiB + 10");
	ok(st.st_blocks > 0 && st.st_blocks < 64, "... few blocks allocated (%lld)",
	   (long long)st.st_blocks);
	ok(pread(fd, buf, sizeof buf, 1 << 20) == (ssize_t)sizeof buf &&
	       !memcmp(buf, zero, sizeof buf),
	   "... a hole reads as zeros");
	ok(pread(fd, buf, sizeof buf, 73400320) == 10 && !memcmp(buf, "sparse-end", 10),
	   "... the data past the double-indirect range (1 KiB blocks)");
	close(fd);
}

static void check_stat(void)
{
	struct stat st, st2;
	char buf[64];
	int fd;

	ok(stat(at("hello.txt"), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0644 &&
	       st.st_size == 12 && st.st_uid == 1000 && st.st_gid == 1000 && st.st_nlink == 2,
	   "hello.txt: mode, size, uid/gid 1000, two links");
	ok(stat(at("hard"), &st2) == 0 && st2.st_ino == st.st_ino && st.st_ino > 11,
	   "the hard link is the same inode");
	ok(stat(at("a"), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == 70000 && st.st_nlink == 3,
	   "a: a directory, uid 70000 (high 16 bits), three links");
	ok(st.st_mtime > 1600000000, "... a modification time from the image");
	ok(stat(at("null"), &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3),
	   "null: a character device 1:3");
	fd = open(at("null"), O_RDONLY);
	ok(fd >= 0 && read(fd, buf, 1) == 0, "... which opens as /dev/null");
	close(fd);
	ok(lstat(at("fifo"), &st) == 0 && S_ISFIFO(st.st_mode), "fifo: a FIFO");
	fd = open(at("fifo"), O_RDONLY | O_NONBLOCK);
	ok(fd >= 0, "... opens (read end, non-blocking)");
	close(fd);
	fd = open(at("a/b/c/deep.txt"), O_RDONLY);
	ok(fd >= 0 && read(fd, buf, sizeof buf) == 5 && !memcmp(buf, "deep\n", 5),
	   "a/b/c/deep.txt through nested directories");
	close(fd);
	is_errno(open(at("a/nothing"), O_RDONLY), ENOENT, "a missing name: ENOENT");
	is_errno(open(at("hello.txt/x"), O_RDONLY), ENOTDIR, "below a file: ENOTDIR");
}

static void check_links(void)
{
	char buf[300];
	struct stat st;
	ssize_t n;

	n = readlink(at("fast-link"), buf, sizeof buf);
	ok(n == 9 && !memcmp(buf, "hello.txt", 9), "fast symlink: readlink");
	ok(lstat(at("fast-link"), &st) == 0 && S_ISLNK(st.st_mode) && st.st_size == 9,
	   "... lstat: a link of size 9");
	n = readlink(at("slow-link"), buf, sizeof buf);
	ok(n == 80 && !memcmp(buf, "a/b/c/", 6) && !memcmp(buf + 72, "deep.txt", 8),
	   "slow symlink (80 bytes, in a block): readlink");
	ok(stat(at("fast-link"), &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 12,
	   "... a link followed");
}

static void check_readdir(void)
{
	char buf[4096];
	int fd = open(at("many"), O_RDONLY | O_DIRECTORY), files = 0, dots = 0, regs = 0;
	long n;

	while (fd >= 0 && (n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
		for (long off = 0; off < n;) {
			struct dirent64 *d = (void *)(buf + off);

			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
				dots += d->d_type == DT_DIR;
			else if (d->d_name[0] == 'f' && strlen(d->d_name) == 4)
				files++, regs += d->d_type == DT_REG;
			off += d->d_reclen;
		}
	ok(files == 200 && regs == 200 && dots == 2,
	   "getdents of a 200-entry directory: %d names, %d DT_REG, . and .. DT_DIR", files, regs);
	close(fd);
	fd = open(at(""), O_RDONLY | O_DIRECTORY);
	n = syscall(SYS_getdents64, fd, buf, sizeof buf);
	ok(n > 0, "getdents of the root");
	for (long off = 0; off < n;) {
		struct dirent64 *d = (void *)(buf + off);

		if (!strcmp(d->d_name, "fast-link"))
			ok(d->d_type == DT_LNK, "fast-link is DT_LNK");
		if (!strcmp(d->d_name, "fifo"))
			ok(d->d_type == DT_FIFO, "fifo is DT_FIFO");
		if (!strcmp(d->d_name, "null"))
			ok(d->d_type == DT_CHR, "null is DT_CHR");
		off += d->d_reclen;
	}
	close(fd);
}

static void check_statfs_rofs(int bsize)
{
	struct statfs sf;
	int fd;

	ok(statfs(mnt, &sf) == 0 && sf.f_type == (long)0xEF53 && (long)sf.f_bsize == bsize &&
	       sf.f_blocks > 0 && sf.f_blocks < (2 << 20) / (unsigned)bsize && sf.f_bfree > 0 &&
	       sf.f_bfree < sf.f_blocks && sf.f_files > 200 && sf.f_ffree < sf.f_files &&
	       sf.f_namelen == 255 && (sf.f_flags & ST_RDONLY),
	   "statfs: ext2's magic, %d-byte blocks, blocks less the overhead, read-only", bsize);
	diag("statfs: %lu blocks, %lu free, %lu available, %lu files, %lu free",
	     (unsigned long)sf.f_blocks, (unsigned long)sf.f_bfree, (unsigned long)sf.f_bavail,
	     (unsigned long)sf.f_files, (unsigned long)sf.f_ffree);
	is_errno(open(at("hello.txt"), O_WRONLY), EROFS, "open for writing: EROFS");
	is_errno(open(at("new"), O_WRONLY | O_CREAT, 0644), EROFS, "create: EROFS");
	is_errno(mkdir(at("d"), 0755), EROFS, "mkdir: EROFS");
	is_errno(unlink(at("hello.txt")), EROFS, "unlink: EROFS");
	fd = open(at("hello.txt"), O_RDONLY);
	is_errno(umount(mnt), EBUSY, "umount with an open file: EBUSY");
	close(fd);
}

static void check_image(const char *name, int bsize)
{
	char img[300], dev[32];
	int lfd;

	snprintf(img, sizeof img, "%s/%s", imgdir, name);
	lfd = loop_attach(img, dev, sizeof dev);
	is_errno(mount(dev, mnt, "ext2", 0, NULL), EACCES,
		 "%s: a read-write mount of a read-only device is EACCES", name);
	if (!ok(mount(dev, mnt, "ext2", MS_RDONLY, NULL) == 0, "%s: mount read-only", name))
		exit(done());
	check_big();
	check_sparse();
	check_stat();
	check_links();
	check_readdir();
	check_statfs_rofs(bsize);
	ok(umount(mnt) == 0, "umount");
	loop_detach(lfd);
}

/* Teardown out of order: a child's working directory keeps the mount
 * busy; a lazy umount with a file open leaves it readable until the close,
 * and the instance (and its device) go at the last close. */
static void check_teardown(void)
{
	char img[300], dev[32], buf[8];
	int lfd, fd, go[2], ready[2], status;
	pid_t pid;

	snprintf(img, sizeof img, "%s/good-1k.img", imgdir);
	lfd = loop_attach(img, dev, sizeof dev);
	require(mount(dev, mnt, "ext2", MS_RDONLY, NULL) == 0, "mount for the teardown");
	require(pipe(go) == 0 && pipe(ready) == 0, "pipes");
	if ((pid = fork()) == 0) {
		char c = chdir(at("a/b")) ? 'n' : 'y';

		close(go[1]);
		write(ready[1], &c, 1);
		read(go[0], &c, 1); /* the parent tried umount: leave */
		_exit(0);
	}
	close(go[0]);
	close(ready[1]);
	require(read(ready[0], buf, 1) == 1 && buf[0] == 'y', "the child's chdir");
	close(ready[0]);
	is_errno(umount(mnt), EBUSY, "umount while another process's cwd is inside: EBUSY");
	close(go[1]);
	waitpid(pid, &status, 0);
	fd = open(at("big"), O_RDONLY);
	ok(fd >= 0 && umount2(mnt, MNT_DETACH) == 0, "lazy umount with a file open");
	ok(pread(fd, buf, 8, 8 * 1000) == 8 && !memcmp(buf, "0001000\n", 8),
	   "... the open file still reads");
	close(fd); /* the instance's last inode: it ends and closes the device */
	loop_detach(lfd);
}

/* busybox mount -o loop: a loop device of its own, read-write (the
 * image file is writable), then umount. */
static void check_busybox(void)
{
	char img[300], out[512] = "", *envp[] = {NULL};
	char *argv[] = {"mount", "-o", "loop", img, mnt, NULL};
	struct stat st;

	snprintf(img, sizeof img, "%s/good-4k.img", imgdir);
	if (access("/bin/busybox", X_OK)) {
		skip("no /bin/busybox", "busybox mount -o loop");
		skip("no /bin/busybox", "... umount");
		return;
	}
	is_int(run_capture("/bin/busybox", argv, envp, out, sizeof out), 0,
	       "busybox mount -o loop IMG DIR: %s", one_line(out));
	ok(stat(at("a/b/c/deep.txt"), &st) == 0 && st.st_size == 5 && umount(mnt) == 0,
	   "... the tree is there, and umount");
}

/* A damaged image: EINVAL at mount, or EIO on the damaged object. */
static void check_bad(const char *name, const char *object)
{
	char img[300], dev[32], buf[1024];
	int lfd, err = 0, fd;

	snprintf(img, sizeof img, "%s/%s", imgdir, name);
	lfd = loop_attach(img, dev, sizeof dev);
	if (!object) {
		if (!is_errno(mount(dev, mnt, "ext2", MS_RDONLY, NULL), EINVAL, "%s: mount EINVAL",
			      name))
			umount(mnt);
		loop_detach(lfd);
		return;
	}
	require(mount(dev, mnt, "ext2", MS_RDONLY, NULL) == 0, "mount a damaged image");
	if ((fd = open(at(object), O_RDONLY)) < 0)
		err = errno;
	else {
		while (read(fd, buf, sizeof buf) > 0)
			;
		err = errno;
		close(fd);
	}
	is_int(err, EIO, "%s: %s gives EIO", name, object);
	ok(umount(mnt) == 0, "... and umounts");
	loop_detach(lfd);
}

int main(int argc, char **argv)
{
	char self[256];
	(void)argc;

	snprintf(self, sizeof self, "%s", argv[0]);
	snprintf(imgdir, sizeof imgdir, "%s/ext2", dirname(self));
	snprintf(mnt, sizeof mnt, "/tmp/ext2_ro.%d", (int)getpid());
	if (access("/dev/loop-control", F_OK) || geteuid())
		skip_all("no /dev/loop-control, or not root");
	require(mkdir(mnt, 0755) == 0, "make the mount point");
	{
		char dev[32], img[300];
		int lfd;

		snprintf(img, sizeof img, "%s/good-1k.img", imgdir);
		lfd = loop_attach(img, dev, sizeof dev);
		if (mount(dev, mnt, "ext2", MS_RDONLY, NULL)) {
			loop_detach(lfd);
			rmdir(mnt);
			skip_all("this kernel does not mount ext2 from a loop device");
		}
		umount(mnt);
		loop_detach(lfd);
	}
	plan(on_fdkernel() ? 2 * 37 + 7 + 9 : 2 * 37 + 7);
	{
		char img[300];

		snprintf(img, sizeof img, "%s/good-1k.img", imgdir);
		is_errno(mount(img, mnt, "ext2", MS_RDONLY, NULL), ENOTBLK,
			 "mount of a regular file (no loop): ENOTBLK");
	}
	{
		static char fs[4096];

		ok(read_text("/proc/filesystems", fs, sizeof fs) > 0 && strstr(fs, "\text2\n") &&
		       !strstr(fs, "nodev\text2\n"),
		   "/proc/filesystems lists ext2 as on a device (not nodev)");
	}
	check_image("good-1k.img", 1024);
	check_image("good-4k.img", 4096);
	check_teardown();
	check_busybox();
	if (on_fdkernel()) {
		check_bad("bad-magic.img", NULL);
		check_bad("bad-bsize.img", NULL);
		check_bad("bad-groups.img", NULL);
		check_bad("bad-indirect.img", "big");
		check_bad("bad-reclen.img", "many/f000");
		check_bad("bad-linksize.img", "slow-link");
	}
	rmdir(mnt);
	return done();
}
