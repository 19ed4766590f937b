/* Bind mounts as on Linux: a directory (or a file) shown at a second
 * place is the same inode there, ".." and getcwd follow the place it was
 * reached by, a read-only bind (remount,bind,ro) refuses writes through
 * it alone, link and rename between two mounts of one instance are
 * EXDEV, umount of either leaves the other, MS_REC takes the mounts
 * below along and a plain bind does not, /proc/self/mountinfo shows the
 * bound directory as the mount's root, and the bad arguments get Linux's
 * errno.  On the host (as root) it runs in a mount namespace of its own. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fdkernel_abi.h" /* struct open_how, RESOLVE_*: Linux's, from kernel/uapi */
#include "mount_ns.h"
#include "testutil.h"

static char dir[64], src[96], srcsub[128], dst[96], fsrc[96], fdst[96];

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* The mountinfo line of the mount at mp (the last one: the top), or NULL. */
static const char *mountinfo_line(const char *mp)
{
	static char text[65536];
	char want[160];
	char *line = NULL, *p, *end;

	if (read_text("/proc/self/mountinfo", text, sizeof text) < 0)
		return NULL;
	snprintf(want, sizeof want, " %s ", mp);
	for (p = text; (p = strstr(p, want)); p++)
		line = p;
	if (!line)
		return NULL;
	while (line > text && line[-1] != '\n')
		line--;
	if ((end = strchr(line, '\n')))
		*end = '\0';
	return line;
}

/* Whether field 4 of a mountinfo line, the mount's root inside its
 * instance, ends with root (the instance may be mounted above it). */
static bool mount_root_is(const char *mp, const char *root)
{
	const char *line = mountinfo_line(mp);
	char field[128];
	size_t n, len = strlen(root);

	if (!line || sscanf(line, "%*d %*d %*s %127s", field) != 1)
		return false;
	n = strlen(field);
	return n >= len && !strcmp(field + n - len, root);
}

static void shows_the_same(void)
{
	char cwd[256];
	struct stat st, up;

	ok(mount(src, dst, NULL, MS_BIND, NULL) == 0, "mount --bind SRC DST");
	ok(same_file(src, dst) && same_file(srcsub, path_at(dst, "sub")),
	   "the same inodes at both places");
	int fd = open(path_at(dst, "made"), O_CREAT | O_WRONLY, 0600);
	ok(fd >= 0 && write(fd, "x", 1) == 1 && close(fd) == 0 && stat(path_at(src, "made"), &st) == 0,
	   "a file made through DST is in SRC");
	ok(stat(path_at(dst, ".."), &st) == 0 && stat(dir, &up) == 0 && st.st_ino == up.st_ino,
	   "\"..\" of DST is DST's parent, not SRC's");
	const char *dsub = path_at(dst, "sub");
	ok(chdir(dsub) == 0 && getcwd(cwd, sizeof cwd) && !strcmp(cwd, dsub),
	   "getcwd in DST/sub names the place it was reached by (%s)", cwd);
	ok(chdir("../..") == 0 && getcwd(cwd, sizeof cwd) && !strcmp(cwd, dir),
	   "and \"..\" twice goes back up through DST (%s)", cwd);
	require(chdir("/") == 0, "chdir /");
	ok(mount_root_is(dst, strchr(src + 1, '/')),
	   "mountinfo: DST's root is SRC inside its instance");
	struct open_how how = {.flags = O_RDONLY, .resolve = RESOLVE_NO_XDEV};
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	long fd2 = syscall(SYS_openat2, dfd, "src/sub", &how, sizeof how);
	ok(fd2 >= 0 && close(fd2) == 0, "openat2 RESOLVE_NO_XDEV inside one mount opens");
	is_errno(syscall(SYS_openat2, dfd, "dst/sub", &how, sizeof how), EXDEV,
		 "and into the bind (the same instance): EXDEV");
	close(dfd);
}

static void read_only(void)
{
	struct statvfs sv;
	int fd = open(path_at(dst, "made"), O_WRONLY);

	is_errno(mount(NULL, dst, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL), EBUSY,
		 "remount,bind,ro with a file open for writing through it: EBUSY");
	close(fd);
	ok(mount(NULL, dst, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) == 0,
	   "mount -o remount,bind,ro DST");
	is_errno(open(path_at(dst, "new"), O_CREAT | O_WRONLY, 0600), EROFS,
		 "creating through DST: EROFS");
	is_errno(open(path_at(dst, "made"), O_WRONLY), EROFS, "writing through DST: EROFS");
	is_errno(mkdir(path_at(dst, "d"), 0700), EROFS, "mkdir through DST: EROFS");
	is_errno(unlink(path_at(dst, "made")), EROFS, "unlink through DST: EROFS");
	is_errno(chmod(path_at(dst, "made"), 0644), EROFS, "chmod through DST: EROFS");
	ok(statvfs(dst, &sv) == 0 && (sv.f_flag & ST_RDONLY), "statvfs(DST) says read-only");
	is_errno(access(path_at(dst, "made"), W_OK), EROFS, "access(W_OK) through DST: EROFS");
	ok(access(path_at(dst, "made"), R_OK) == 0 && access(path_at(src, "made"), W_OK) == 0,
	   "R_OK through DST, W_OK through SRC: allowed");
	ok(statvfs(src, &sv) == 0 && !(sv.f_flag & ST_RDONLY), "statvfs(SRC) does not");
	fd = open(path_at(src, "made"), O_WRONLY | O_APPEND);
	ok(fd >= 0 && write(fd, "y", 1) == 1 && close(fd) == 0, "SRC itself stays writable");
	ok(mount(NULL, dst, NULL, MS_REMOUNT | MS_BIND, NULL) == 0 &&
	       mkdir(path_at(dst, "d"), 0700) == 0 && rmdir(path_at(dst, "d")) == 0,
	   "remount,bind,rw makes DST writable again");
}

static void across(void)
{
	char other[256];

	snprintf(other, sizeof other, "%s/made", src);
	is_errno(link(other, path_at(dst, "hard")), EXDEV, "link from SRC into DST: EXDEV");
	is_errno(rename(other, path_at(dst, "moved")), EXDEV, "rename from SRC into DST: EXDEV");
	ok(rename(path_at(dst, "made"), path_at(dst, "made2")) == 0 &&
	       rename(path_at(dst, "made2"), path_at(dst, "made")) == 0,
	   "rename inside DST");
}

static void files(void)
{
	char buf[8] = {0};
	int fd = open(fsrc, O_CREAT | O_WRONLY | O_TRUNC, 0600);

	require(fd >= 0 && write(fd, "bound", 5) == 5 && close(fd) == 0, "a source file");
	fd = open(fdst, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	require(fd >= 0 && close(fd) == 0, "a target file");
	is_errno(mount(src, fdst, NULL, MS_BIND, NULL), ENOTDIR,
		 "a directory over a file: ENOTDIR");
	is_errno(mount(fsrc, dst, NULL, MS_BIND, NULL), ENOTDIR,
		 "a file over a directory: ENOTDIR");
	ok(mount(fsrc, fdst, NULL, MS_BIND, NULL) == 0, "a file over a file");
	fd = open(fdst, O_RDONLY);
	ok(fd >= 0 && read(fd, buf, 5) == 5 && !strcmp(buf, "bound") && same_file(fsrc, fdst),
	   "the target shows the source file");
	is_errno(umount2(fdst, 0), EBUSY, "umount while it is open: EBUSY");
	close(fd);
	ok(umount2(fdst, 0) == 0 && !same_file(fsrc, fdst), "umount: the target file is back");
	ok(unlink(fsrc) == 0 && unlink(fdst) == 0, "remove both");
}

static void recursion(void)
{
	struct stat st;

	require(mount("none", srcsub, "tmpfs", 0, "size=64k") == 0, "a tmpfs under SRC");
	int fd = open(path_at(srcsub, "deep"), O_CREAT | O_WRONLY, 0600);
	require(fd >= 0 && close(fd) == 0, "a file in it");
	ok(umount2(dst, 0) == 0, "umount DST");
	ok(mount(src, dst, NULL, MS_BIND, NULL) == 0 && stat(path_at(dst, "sub/deep"), &st) == -1 &&
	       errno == ENOENT,
	   "a plain bind leaves the mount below behind");
	ok(umount2(dst, 0) == 0 && mount(src, dst, NULL, MS_BIND | MS_REC, NULL) == 0 &&
	       same_file(path_at(srcsub, "deep"), path_at(dst, "sub/deep")),
	   "MS_REC takes it along");
	is_errno(umount2(dst, 0), EBUSY, "umount of the rbind with a mount under it: EBUSY");
	ok(umount2(path_at(dst, "sub"), 0) == 0 && umount2(dst, 0) == 0, "umount below, then the top");
	ok(umount2(srcsub, 0) == 0, "umount the tmpfs under SRC");
}

static void unmounting(void)
{
	struct stat st;
	char inner[128];

	snprintf(inner, sizeof inner, "%s/inner", dir);
	require(mkdir(inner, 0700) == 0, "mkdir inner");
	require(mount("none", src, "tmpfs", 0, "size=64k") == 0 && mkdir(srcsub, 0700) == 0,
		"a tmpfs at SRC with a directory");
	ok(mount(srcsub, inner, NULL, MS_BIND, NULL) == 0 && mount_root_is(inner, "/sub"),
	   "bind its subdirectory: mountinfo's root is /sub");
	ok(umount2(src, 0) == 0, "the tmpfs's own mount unmounts while the bind holds it");
	int fd = open(path_at(inner, "kept"), O_CREAT | O_WRONLY, 0600);
	ok(fd >= 0 && close(fd) == 0 && stat(path_at(inner, "kept"), &st) == 0,
	   "the instance lives on through the bind");
	ok(umount2(inner, 0) == 0 && stat(path_at(inner, "kept"), &st) == -1 && errno == ENOENT,
	   "the bind unmounts: the directory is empty again");
	ok(rmdir(inner) == 0, "rmdir inner");
}

static void bad_args(void)
{
	is_errno(mount("/nonexistent", dst, NULL, MS_BIND, NULL), ENOENT,
		 "bind of a missing source: ENOENT");
	is_errno(mount(src, "/nonexistent", NULL, MS_BIND, NULL), ENOENT,
		 "bind onto a missing target: ENOENT");
	is_errno(mount(NULL, dst, NULL, MS_BIND, NULL), EINVAL, "bind without a source: EINVAL");
	is_errno(mount(NULL, dir, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL), EINVAL,
		 "remount,bind of a directory that is not a mount: EINVAL");
	/* A /proc/self/fd link opened itself (O_PATH | O_NOFOLLOW), then named
	 * through its own /proc link: nothing a mount may cover. */
	char proc[64];
	int fd = open(fsrc, O_CREAT | O_RDONLY, 0600), pfd;
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	pfd = open(proc, O_PATH | O_NOFOLLOW);
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", pfd);
	is_errno(mount(fsrc, proc, NULL, MS_BIND, NULL), ENOENT,
		 "a bind onto a /proc magic link itself: ENOENT");
	close(pfd);
	close(fd);
	unlink(fsrc);
}

int main(void)
{
	plan(50);
	own_mount_namespace();
	snprintf(dir, sizeof dir, "/tmp/bind-%d", (int)getpid());
	snprintf(src, sizeof src, "%s/src", dir);
	snprintf(srcsub, sizeof srcsub, "%s/sub", src);
	snprintf(dst, sizeof dst, "%s/dst", dir);
	snprintf(fsrc, sizeof fsrc, "%s/fsrc", dir);
	snprintf(fdst, sizeof fdst, "%s/fdst", dir);
	require(mkdir(dir, 0700) == 0 && mkdir(src, 0700) == 0 && mkdir(srcsub, 0700) == 0 &&
		    mkdir(dst, 0700) == 0,
		"scratch directories");
	shows_the_same();
	read_only();
	across();
	files();
	recursion();
	bad_args();
	ok(unlink(path_at(src, "made")) == 0 && rmdir(srcsub) == 0, "SRC is as before");
	unmounting();
	ok(rmdir(src) == 0 && rmdir(dst) == 0 && rmdir(dir) == 0, "clean up");
	return done();
}
