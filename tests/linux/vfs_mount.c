/* mount(2) and umount2(2) with tmpfs, as on Linux: an instance's size=
 * limit is its own (ENOSPC there, another tmpfs untouched), statfs and
 * /proc/self/mounts tell what is mounted, ".." and getcwd cross the mount
 * point, link and rename across it are EXDEV, a read-only remount gives
 * EROFS and is refused while a file is open for writing, a mount point
 * cannot be removed, umount of a busy mount is EBUSY and of a
 * non-mount EINVAL, MNT_DETACH unmounts a busy one, nr_inodes= limits
 * files (the root counting), noexec and nodev (character and block
 * nodes) hold, MS_MOVE moves a mount, and bad arguments get Linux's
 * errno.  On the host (as root) it runs in a mount namespace
 * of its own, so nothing it mounts is seen outside. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "mount_ns.h"
#include "testutil.h"

#define TMPFS_MAGIC 0x01021994

static char dir[64], mnt[80], sub[96], file[160];

/* Whether /proc/self/mounts has a line for path with type and opts in it
 * (the last such line: the mount on top, where mounts are stacked). */
static bool mounted(const char *path, const char *type, const char *opt)
{
	static char text[65536];
	char want[256];

	if (read_text("/proc/self/mounts", text, sizeof text) < 0)
		return false;
	snprintf(want, sizeof want, " %s %s ", path, type);
	char *line = strstr(text, want), *next;
	if (!line)
		return false;
	while ((next = strstr(line + 1, want)))
		line = next;
	char *end = strchr(line, '\n');
	if (end)
		*end = '\0';
	return !opt || strstr(line, opt);
}

/* Writes 1 KiB blocks into path until the write fails: the blocks written. */
static long fill(const char *path, int *err)
{
	char block[1024] = {1};
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	long n = 0;

	while (fd >= 0 && n < 4096 && write(fd, block, sizeof block) == (ssize_t)sizeof block)
		n++;
	*err = errno;
	if (fd >= 0)
		close(fd);
	return n;
}

static void sizes(void)
{
	struct statfs st;
	int err = 0;

	ok(statfs(mnt, &st) == 0 && st.f_type == TMPFS_MAGIC && st.f_bsize == 4096 &&
	       st.f_blocks == 256 && st.f_bfree == 256,
	   "statfs of the new tmpfs: its own 1 MiB, all free");
	long n = fill(file, &err);
	ok(n == 1024 && err == ENOSPC, "writing 2000 KiB stops at 1 MiB with ENOSPC (%ld KiB)", n);
	ok(statfs(mnt, &st) == 0 && st.f_bfree == 0, "statfs: no block left");
	char other[128];
	snprintf(other, sizeof other, "%s/other", dir);
	int fd = open(other, O_CREAT | O_WRONLY, 0600);
	ok(fd >= 0 && write(fd, "x", 1) == 1, "the file system under the mount point still writes");
	close(fd);
	unlink(other);
	ok(unlink(file) == 0 && statfs(mnt, &st) == 0 && st.f_bfree == 256,
	   "unlink gives the blocks back");
}

static void names(void)
{
	char cwd[256], here[256];
	struct stat a, b;

	ok(mkdir(sub, 0700) == 0, "mkdir inside the mount");
	require(getcwd(here, sizeof here) != NULL, "getcwd");
	ok(chdir(sub) == 0 && getcwd(cwd, sizeof cwd) && !strcmp(cwd, sub),
	   "getcwd inside the mount names the path through the mount point");
	ok(chdir("../..") == 0 && getcwd(cwd, sizeof cwd) && !strcmp(cwd, dir),
	   "\"..\" from the mount's root goes to the mount point's parent");
	require(chdir(here) == 0, "back");
	ok(stat(mnt, &a) == 0 && stat(dir, &b) == 0 && a.st_dev != b.st_dev && a.st_ino != 0,
	   "the mount's root has a device of its own");
	char other[128];
	snprintf(other, sizeof other, "%s/x", dir);
	int fd = open(other, O_CREAT | O_WRONLY, 0600);
	close(fd);
	snprintf(file, sizeof file, "%s/x", sub);
	is_errno(link(other, file), EXDEV, "link across the mount point: EXDEV");
	is_errno(rename(other, file), EXDEV, "rename across the mount point: EXDEV");
	unlink(other);
	is_errno(rmdir(mnt), EBUSY, "rmdir of a mount point: EBUSY");
	snprintf(other, sizeof other, "%s/moved", dir);
	is_errno(rename(mnt, other), EBUSY, "rename of a mount point: EBUSY");
	snprintf(file, sizeof file, "%s/f", mnt);
}

static void readonly(void)
{
	int fd = open(file, O_CREAT | O_WRONLY, 0600);

	require(fd >= 0, "a file open for writing");
	is_errno(mount(NULL, mnt, NULL, MS_REMOUNT | MS_RDONLY, NULL), EBUSY,
		 "remount,ro while a file is open for writing: EBUSY");
	close(fd);
	ok(mount(NULL, mnt, NULL, MS_REMOUNT | MS_RDONLY, NULL) == 0, "remount,ro");
	ok(mounted(mnt, "tmpfs", " ro"), "/proc/self/mounts shows it ro");
	is_errno(open(file, O_WRONLY), EROFS, "open for writing: EROFS");
	is_errno(mkdir(sub, 0700), EEXIST, "mkdir of an existing name: EEXIST first");
	is_errno(unlink(file), EROFS, "unlink: EROFS");
	is_errno(chmod(file, 0644), EROFS, "chmod: EROFS");
	fd = open(file, O_RDONLY);
	ok(fd >= 0, "open for reading still works");
	close(fd);
	ok(mount(NULL, mnt, NULL, MS_REMOUNT, NULL) == 0 && unlink(file) == 0,
	   "remount,rw: writable again");
	ok(mount(NULL, mnt, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) == 0 &&
	       open(file, O_CREAT | O_WRONLY, 0600) == -1 && errno == EROFS,
	   "remount,bind,ro: the mount is read-only (EROFS)");
	int wfd = mount(NULL, mnt, NULL, MS_REMOUNT | MS_BIND, NULL)
		      ? -1
		      : open(file, O_CREAT | O_WRONLY, 0600);
	ok(wfd >= 0 && close(wfd) == 0 && unlink(file) == 0, "remount,bind,rw: writable again");
	is_errno(mount(NULL, sub, NULL, MS_REMOUNT, NULL), EINVAL,
		 "remount of a directory that is not a mount: EINVAL");
}

static void bad_args(void)
{
	is_errno(mount("none", mnt, "nosuchfs", 0, NULL), ENODEV, "an unknown type: ENODEV");
	is_errno(mount("none", mnt, NULL, 0, NULL), EINVAL, "no type: EINVAL");
	is_errno(mount("none", mnt, "tmpfs", 0, "size=lots"), EINVAL, "a bad option value: EINVAL");
	is_errno(mount("none", mnt, "tmpfs", 0, "bogus=1"), EINVAL, "an unknown option: EINVAL");
	char opts[1024] = "size=64k";
	while (strlen(opts) < 900)
		strcat(opts, ",mode=0755");
	ok(mount("none", mnt, "tmpfs", 0, opts) == 0 && umount2(mnt, 0) == 0,
	   "900 bytes of options (up to a page is allowed)");
	is_errno(mount("none", "/nonexistent/dir", "tmpfs", 0, NULL), ENOENT,
		 "a missing mount point: ENOENT");
	char f[128];
	snprintf(f, sizeof f, "%s/plain", dir);
	close(open(f, O_CREAT | O_WRONLY, 0600));
	is_errno(mount("none", f, "tmpfs", 0, NULL), ENOTDIR, "a file as mount point: ENOTDIR");
	unlink(f);
	is_errno(mount("none", mnt, (const char *)1, 0, NULL), EFAULT,
		 "a bad type pointer: EFAULT");
	is_errno(umount2(dir, 0), EINVAL, "umount of a directory that is not a mount: EINVAL");
	is_errno(umount2(mnt, 0x100), EINVAL, "umount2 with an unknown flag: EINVAL");
	is_errno(umount2(mnt, MNT_EXPIRE | MNT_DETACH), EINVAL,
		 "MNT_EXPIRE with MNT_DETACH: EINVAL");
	is_errno(umount2("/nonexistent", 0), ENOENT, "umount of a missing path: ENOENT");
}

/* MS_MOVE: the mount goes elsewhere, whole, and comes back. */
static void moving(void)
{
	char m2[96], inside[128];
	struct stat st;

	snprintf(m2, sizeof m2, "%s/m2", dir);
	snprintf(inside, sizeof inside, "%s/mv", mnt);
	require(mkdir(m2, 0700) == 0 && mkdir(inside, 0700) == 0, "a second mount point");
	ok(mount(mnt, m2, NULL, MS_MOVE, NULL) == 0, "mount --move to another directory");
	ok(mounted(m2, "tmpfs", "size=1024k") && !mounted(mnt, "tmpfs", NULL),
	   "/proc/self/mounts shows it at its new place only");
	snprintf(inside, sizeof inside, "%s/mv", m2);
	ok(stat(inside, &st) == 0 && S_ISDIR(st.st_mode), "its files came along");
	is_errno(mount(m2, inside, NULL, MS_MOVE, NULL), ELOOP, "a move into itself: ELOOP");
	is_errno(mount(dir, mnt, NULL, MS_MOVE, NULL), EINVAL, "a move of a non-mount: EINVAL");
	is_errno(mount("/", mnt, NULL, MS_MOVE, NULL), ELOOP,
		 "a move of the root under itself: ELOOP");
	snprintf(inside, sizeof inside, "%s/mv", mnt);
	ok(mount(m2, mnt, NULL, MS_MOVE, NULL) == 0 && rmdir(inside) == 0 && rmdir(m2) == 0,
	   "and back");
}

/* nr_inodes= counts the root too, as Linux's tmpfs: with 4, three files. */
static void inode_limit(void)
{
	struct statfs st;
	char name[192];
	int made = 0, err = 0;

	require(mount("none", mnt, "tmpfs", 0, "nr_inodes=4") == 0, "a tmpfs with nr_inodes=4");
	ok(statfs(mnt, &st) == 0 && st.f_files == 4 && st.f_ffree == 3,
	   "statfs: 4 inodes, 3 free (the root has one)");
	for (int i = 0; i < 8; i++) {
		snprintf(name, sizeof name, "%s/%d", mnt, i);
		int fd = open(name, O_CREAT | O_WRONLY, 0600);
		if (fd < 0) {
			err = errno;
			break;
		}
		close(fd);
		made++;
	}
	ok(made == 3 && err == ENOSPC, "the fourth file: ENOSPC (%d made)", made);
	ok(umount2(mnt, 0) == 0, "umount");
}

/* MS_NOEXEC: no program runs from it, no mapping executes its files;
 * MS_NODEV: its device nodes do not open. */
static void mount_flags(void)
{
	static char exe[1 << 20];
	char prog[192], null[192];
	struct statfs st;
	long n = read_text("/proc/self/exe", exe, sizeof exe);

	require(n > 0 && mount("none", mnt, "tmpfs", MS_NOEXEC | MS_NODEV | MS_NOSUID, NULL) == 0,
		"a noexec,nodev,nosuid tmpfs");
	ok(statfs(mnt, &st) == 0 && (st.f_flags & (ST_NOEXEC | ST_NODEV | ST_NOSUID)) ==
					(ST_NOEXEC | ST_NODEV | ST_NOSUID),
	   "statfs's f_flags say noexec, nodev, nosuid");
	ok(mounted(mnt, "tmpfs", "nosuid,nodev,noexec"), "so does /proc/self/mounts");
	snprintf(prog, sizeof prog, "%s/prog", mnt);
	int fd = open(prog, O_CREAT | O_WRONLY, 0755);
	require(fd >= 0 && write(fd, exe, n) == n && close(fd) == 0, "a copy of this program");
	char *argv[] = {prog, NULL};
	is_errno(execve(prog, argv, argv + 1), EACCES, "execve from a noexec mount: EACCES");
	fd = open(prog, O_RDONLY);
	is_errno((long)mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0), EPERM,
		 "mmap(PROT_EXEC) of its file: EPERM");
	close(fd);
	snprintf(null, sizeof null, "%s/null", mnt);
	require(mknod(null, S_IFCHR | 0666, makedev(1, 3)) == 0, "mknod of a null device there");
	is_errno(open(null, O_RDWR), EACCES, "opening it on a nodev mount: EACCES");
	snprintf(null, sizeof null, "%s/blk", mnt);
	require(mknod(null, S_IFBLK | 0666, 0) == 0, "mknod of a block node 0:0 there");
	is_errno(open(null, O_RDWR), EACCES,
		 "a block node too, before its missing device (LTP mount03): EACCES");
	ok(umount2(mnt, 0) == 0, "umount");
}

static void unmounting(void)
{
	char buf[256];
	int fd = open(sub, O_RDONLY | O_DIRECTORY);

	is_errno(umount2(mnt, 0), EBUSY, "umount with a directory open inside: EBUSY");
	close(fd);
	ok(chdir(sub) == 0, "chdir into the mount");
	is_errno(umount2(mnt, 0), EBUSY, "umount with a working directory inside: EBUSY");
	require(chdir("/") == 0, "chdir /");
	ok(umount2(mnt, 0) == 0, "umount when nothing is inside");
	ok(!mounted(mnt, "tmpfs", NULL), "/proc/self/mounts no longer has it");
	struct stat st;
	ok(stat(sub, &st) == -1 && errno == ENOENT, "its files went with it");
	ok(mount("none", mnt, "tmpfs", 0, "size=64k") == 0, "mounted again");
	snprintf(file, sizeof file, "%s/held", mnt);
	fd = open(file, O_CREAT | O_RDWR, 0600);
	ok(fd >= 0 && write(fd, "kept", 4) == 4, "a file held open");
	require(chdir(mnt) == 0, "a working directory in it too");
	ok(umount2(mnt, MNT_DETACH) == 0, "MNT_DETACH unmounts the busy mount");
	/* A lazily detached tree stays walkable from inside until the last
	 * holder leaves it (the leak check: nothing is left behind then). */
	int made = mkdir("new", 0700);
	ok(made == 0 && rmdir("new") == 0, "a new name in the detached tree");
	ok(getcwd(buf, sizeof buf) == NULL || strcmp(buf, mnt) != 0,
	   "getcwd no longer names the mount point");
	require(chdir("/") == 0, "out of it");
	memset(buf, 0, sizeof buf);
	ok(pread(fd, buf, 4, 0) == 4 && !memcmp(buf, "kept", 4),
	   "the open file still reads after the lazy umount");
	close(fd);
	ok(!mounted(mnt, "tmpfs", NULL), "nothing left in /proc/self/mounts");
}

int main(void)
{
	plan(70);
	own_mount_namespace();
	snprintf(dir, sizeof dir, "/tmp/mnt-%d", (int)getpid());
	snprintf(mnt, sizeof mnt, "%s/m", dir);
	snprintf(sub, sizeof sub, "%s/sub", mnt);
	snprintf(file, sizeof file, "%s/f", mnt);
	require(mkdir(dir, 0700) == 0 && mkdir(mnt, 0700) == 0, "scratch directories");
	ok(mount("none", mnt, "tmpfs", 0, "size=1m") == 0, "mount -t tmpfs -o size=1m none MNT");
	ok(mounted(mnt, "tmpfs", "size=1024k"), "/proc/self/mounts shows it with its size");
	sizes();
	names();
	readonly();
	bad_args();
	moving();
	inode_limit();
	mount_flags();
	unmounting();
	ok(rmdir(mnt) == 0 && rmdir(dir) == 0, "clean up");
	return done();
}
