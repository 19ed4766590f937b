/* chattr's inode flags on tmpfs (FS_IOC_GETFLAGS, FS_IOC_SETFLAGS: an
 * int): immutable (+i) refuses every write, metadata change, new name and
 * removal with EPERM; append-only (+a) lets a file grow at its end only;
 * the flags in statx's attributes; who may set them (the owner, and
 * CAP_LINUX_IMMUTABLE for +i and +a); EOPNOTSUPP for a flag tmpfs does
 * not keep, ENOTTY on /proc, EBADF on an O_PATH fd; statx's mount-root
 * attribute.  Runs in /dev/shm or
 * /tmp, whichever is tmpfs; root only. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tap_child.h"
#include "testutil.h"

/* <linux/fs.h>'s, which musl-gcc has not. */
#define FS_IOC_GETFLAGS	     0x80086601
#define FS_IOC_SETFLAGS	     0x40086602
#define FS_COMPR_FL	     0x00000004
#define FS_IMMUTABLE_FL	     0x00000010
#define FS_APPEND_FL	     0x00000020
#define FS_NODUMP_FL	     0x00000040
#define TMPFS_MAGIC	     0x01021994
#define FALLOC_FL_KEEP_SIZE  1
#define FALLOC_FL_PUNCH_HOLE 2
#define STATX_ATTR_IMMUTABLE 0x10
#define STATX_ATTR_APPEND    0x20
#define STATX_ATTR_NODUMP    0x40

static char dir[96];

static const char *at(const char *name)
{
	return path_at(dir, name);
}

static int get_flags(int fd)
{
	int flags = -1;

	return ioctl(fd, FS_IOC_GETFLAGS, &flags) ? -1 : flags;
}

static int set_flags(int fd, int flags)
{
	return ioctl(fd, FS_IOC_SETFLAGS, &flags);
}

static int set_flags_path(const char *path, int flags)
{
	int fd = open(path, O_RDONLY), r;

	r = set_flags(fd, flags);
	close(fd);
	return r;
}

/* statx's stx_attributes, and stx_attributes_mask into *mask (struct
 * statx by offset: musl 1.2.3 has none). */
static unsigned long long statx_attrs(const char *path, unsigned long long *mask)
{
	unsigned long long sx[32] = {0}; /* 256 bytes */

	syscall(SYS_statx, AT_FDCWD, path, 0, 0x7ffU /* STATX_BASIC_STATS */, sx);
	*mask = sx[56 / 8];
	return sx[8 / 8];
}

static void test_immutable(void)
{
	int fd = open(at("i"), O_RDWR | O_CREAT, 0644);
	unsigned long long mask, attrs;

	require(fd >= 0 && write(fd, "data", 4) == 4, "create i");
	is_int(get_flags(fd), 0, "a new file has no flags");
	is_errno(set_flags(fd, FS_COMPR_FL), EOPNOTSUPP, "a flag tmpfs does not keep: EOPNOTSUPP");
	is_int(set_flags(fd, FS_IMMUTABLE_FL), 0, "chattr +i");
	is_int(get_flags(fd), FS_IMMUTABLE_FL, "FS_IOC_GETFLAGS shows it");
	attrs = statx_attrs(at("i"), &mask);
	ok(attrs == STATX_ATTR_IMMUTABLE, "statx's attributes: immutable (%#llx)", attrs);
	ok((mask & (STATX_ATTR_IMMUTABLE | STATX_ATTR_APPEND | STATX_ATTR_NODUMP)) ==
	       (STATX_ATTR_IMMUTABLE | STATX_ATTR_APPEND | STATX_ATTR_NODUMP),
	   "statx's attributes_mask has immutable, append, nodump");
	is_errno(open(at("i"), O_WRONLY), EPERM, "open for writing: EPERM");
	int rfd = open(at("i"), O_RDONLY);
	ok(rfd >= 0, "open for reading works");
	close(rfd);
	is_errno(access(at("i"), W_OK), EPERM, "access(W_OK): EPERM");
	is_errno(truncate(at("i"), 0), EPERM, "truncate: EPERM");
	is_errno(chmod(at("i"), 0600), EPERM, "chmod: EPERM");
	is_errno(chown(at("i"), 1, 1), EPERM, "chown: EPERM");
	is_errno(utimensat(AT_FDCWD, at("i"), NULL, 0), EPERM, "utimensat to now: EPERM");
	is_errno(unlink(at("i")), EPERM, "unlink: EPERM");
	is_errno(rename(at("i"), at("i2")), EPERM, "rename: EPERM");
	is_errno(link(at("i"), at("i3")), EPERM, "link: EPERM");
	is_errno(fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 4096), EPERM,
		 "fallocate on an old fd: EPERM");
	is_int(set_flags(fd, 0), 0, "chattr -i");
	ok(unlink(at("i")) == 0, "then unlink works");
	close(fd);
}

static void test_append(void)
{
	int fd = open(at("a"), O_RDWR | O_CREAT, 0644), afd;
	struct stat st;
	struct timespec ts[2] = {{1, 0}, {1, 0}};

	require(fd >= 0 && write(fd, "0123", 4) == 4, "create a");
	is_int(set_flags(fd, FS_APPEND_FL), 0, "chattr +a");
	is_errno(open(at("a"), O_WRONLY), EPERM, "open for writing without O_APPEND: EPERM");
	is_errno(open(at("a"), O_WRONLY | O_APPEND | O_TRUNC), EPERM, "O_TRUNC: EPERM");
	afd = open(at("a"), O_WRONLY | O_APPEND);
	ok(afd >= 0 && write(afd, "45", 2) == 2, "open O_APPEND and write");
	ok(stat(at("a"), &st) == 0 && st.st_size == 6, "... at the end (size %lld)",
	   (long long)st.st_size);
	is_errno(fcntl(afd, F_SETFL, 0), EPERM, "F_SETFL without O_APPEND: EPERM");
	is_errno(ftruncate(afd, 0), EPERM, "ftruncate: EPERM");
	is_errno(truncate(at("a"), 0), EPERM, "truncate: EPERM");
	is_errno(fallocate(afd, FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE, 0, 1), EPERM,
		 "punching a hole: EPERM");
	is_errno(unlink(at("a")), EPERM, "unlink: EPERM");
	is_errno(chmod(at("a"), 0600), EPERM, "chmod: EPERM");
	is_int(utimensat(AT_FDCWD, at("a"), NULL, 0), 0, "utimensat to now works");
	is_errno(utimensat(AT_FDCWD, at("a"), ts, 0), EPERM, "utimensat to a given time: EPERM");
	is_int(set_flags(fd, 0), 0, "chattr -a");
	ok(unlink(at("a")) == 0, "then unlink works");
	close(afd);
	close(fd);
}

static void test_dirs(void)
{
	int fd;

	require(mkdir(at("di"), 0755) == 0 && mkdir(at("da"), 0755) == 0, "mkdir di, da");
	require(close(open(path_at(at("da"), "old"), O_CREAT | O_WRONLY, 0644)) == 0, "da/old");
	is_int(set_flags_path(at("di"), FS_IMMUTABLE_FL), 0, "chattr +i on a directory");
	is_errno(open(path_at(at("di"), "f"), O_CREAT | O_WRONLY, 0644), EPERM,
		 "no new file in it: EPERM");
	is_errno(mkdir(path_at(at("di"), "d"), 0755), EPERM, "no new directory: EPERM");
	is_int(set_flags_path(at("da"), FS_APPEND_FL), 0, "chattr +a on a directory");
	fd = open(path_at(at("da"), "new"), O_CREAT | O_WRONLY, 0644);
	ok(fd >= 0, "a new file in it works");
	close(fd);
	is_errno(unlink(path_at(at("da"), "old")), EPERM, "... a removal is EPERM");
	is_errno(rename(path_at(at("da"), "old"), path_at(at("da"), "x")), EPERM,
		 "... a rename too");
	ok(set_flags_path(at("di"), 0) == 0 && set_flags_path(at("da"), 0) == 0,
	   "chattr -i -a the directories");
	unlink(path_at(at("da"), "old"));
	unlink(path_at(at("da"), "new"));
	ok(rmdir(at("di")) == 0 && rmdir(at("da")) == 0, "then they go");
}

/* An owner without CAP_LINUX_IMMUTABLE: nodump yes, +i and +a no; another
 * user's file not at all. */
static void as_owner(void)
{
	int fd = open(at("u"), O_RDONLY), other = open(at("r"), O_RDONLY);

	require(setresgid(62001, 62001, 62001) == 0 && setresuid(61001, 61001, 61001) == 0,
		"become uid 61001");
	is_int(set_flags(fd, FS_NODUMP_FL), 0, "the owner sets nodump");
	is_errno(set_flags(fd, FS_NODUMP_FL | FS_IMMUTABLE_FL), EPERM,
		 "... but not immutable (no CAP_LINUX_IMMUTABLE)");
	is_errno(set_flags(fd, FS_APPEND_FL), EPERM, "... nor append-only");
	is_errno(set_flags(other, FS_NODUMP_FL), EPERM, "another user's file: EPERM");
	ok(get_flags(other) == 0, "... though its flags read");
}

static void test_who(void)
{
	int fd = open(at("u"), O_RDWR | O_CREAT, 0644), rfd = open(at("r"), O_RDWR | O_CREAT, 0644);

	require(fd >= 0 && rfd >= 0 && fchown(fd, 61001, 62001) == 0,
		"u owned by 61001, r by root");
	in_child("owner", as_owner);
	is_int(get_flags(fd), FS_NODUMP_FL, "nodump stayed");
	close(fd);
	close(rfd);
	unlink(at("u"));
	unlink(at("r"));
}

/* Not chattr's, but statx's attributes too: the root of a mount, and
 * the attributes the VFS always knows (automount, mount root, DAX). */
static void test_mount_root(void)
{
	unsigned long long mask, attrs = statx_attrs("/proc", &mask);

	ok(attrs & 0x2000, "/proc is the root of its mount (STATX_ATTR_MOUNT_ROOT)");
	ok((mask & 0x203000) == 0x203000, "... every file's mask has automount, mount root, dax");
	attrs = statx_attrs("/proc/self/status", &mask);
	ok(!(attrs & 0x2000) && (mask & 0x2000), "/proc/self/status is not a mount root");
	attrs = statx_attrs(dir, &mask);
	ok(!(attrs & 0x2000), "nor is the test's directory");
}

static void test_others(void)
{
	int opath = open(at("."), O_PATH), proc = open("/proc/self/status", O_RDONLY);

	is_errno(get_flags(opath), EBADF, "an O_PATH fd: EBADF");
	is_errno(get_flags(proc), ENOTTY, "a /proc file: ENOTTY");
	is_errno(ioctl(proc, FS_IOC_GETFLAGS, (int *)8), ENOTTY, "... whatever the pointer");
	close(opath);
	close(proc);
}

/* A tmpfs directory for the test: /dev/shm or /tmp. */
static bool pick_dir(void)
{
	static const char *const bases[] = {"/dev/shm", "/tmp"};
	struct statfs sf;

	for (int i = 0; i < 2; i++)
		if (statfs(bases[i], &sf) == 0 && sf.f_type == TMPFS_MAGIC) {
			snprintf(dir, sizeof dir, "%s/attr_flags-%d", bases[i], (int)getpid());
			return true;
		}
	return false;
}

int main(void)
{
	if (geteuid() != 0)
		skip_all("not root");
	if (!pick_dir())
		skip_all("neither /dev/shm nor /tmp is tmpfs");
	plan(57);
	require(mkdir(dir, 0755) == 0, "mkdir");
	test_immutable();
	test_append();
	test_dirs();
	test_who();
	test_others();
	test_mount_root();
	ok(rmdir(dir) == 0, "clean up");
	return done();
}
