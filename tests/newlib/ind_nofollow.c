/* syscall_indirect(SYSIND_NOFOLLOW, ...): a final symbolic link is not
 * followed by any path call: open/openat ELOOP (O_NOFOLLOW), stat and
 * newfstatat see the link (lstat), chmod EOPNOTSUPP, chown and utimensat
 * change the link, truncate and execve ELOOP, chdir ENOTDIR, access the
 * link; links in the middle are still followed; linkat with
 * AT_SYMLINK_FOLLOW contradicts it (EINVAL); the flag does not stick.
 * fdkernel only: Linux has no syscall_indirect. */
#include <fdkernel.h>
#include <uapi/stat.h>

#include "indirect.h"
#include "tap.h"
#include "vfs_util.h"

#define NF	  SYSIND_NOFOLLOW
#define LO_WRONLY 01
#define LO_CREAT  0100
#define ARG(p)	  ((unsigned long)(p))

static struct uapi_stat lst;

static void test_open_stat(void)
{
	long fd;

	is_errno(IND(NF, __NR_open, ARG("l"), 0), ELOOP, "open of a link: ELOOP");
	is_errno(IND(NF, __NR_openat, ARG(UAPI_AT_FDCWD), ARG("l"), 0), ELOOP,
		 "openat of a link: ELOOP");
	fd = IND(NF, __NR_open, ARG("dl/f"), 0);
	ok(fd >= 0, "a link in the middle of the path is still followed");
	close(fd);
	is_errno(IND(NF, __NR_open, ARG("dangling"), LO_WRONLY | LO_CREAT, 0644), ELOOP,
		 "open(O_CREAT) of a dangling link: ELOOP, nothing created");
	ok(access("made", F_OK) < 0, "... the target was not made");
	ok(IND(NF, __NR_stat, ARG("l"), ARG(&lst)) == 0 && (lst.st_mode & S_IFMT) == S_IFLNK,
	   "stat sees the link itself");
	ok(IND(NF, __NR_newfstatat, ARG(UAPI_AT_FDCWD), ARG("l"), ARG(&lst), 0) == 0 &&
	       (lst.st_mode & S_IFMT) == S_IFLNK,
	   "newfstatat sees the link itself");
	ok(IND(NF, __NR_stat, ARG("l/"), ARG(&lst)) == 0 || errno == ENOTDIR,
	   "a trailing slash still follows (l/ names a file: ENOTDIR)");
}

static void test_attrs(void)
{
	struct timespec ts[2] = {{1000000000, 0}, {1000000000, 0}};
	struct stat st;

	is_errno(IND(NF, __NR_chmod, ARG("l"), 0600), EOPNOTSUPP, "chmod of a link: EOPNOTSUPP");
	is_errno(IND(NF, __NR_fchmodat, ARG(UAPI_AT_FDCWD), ARG("l"), 0600), EOPNOTSUPP,
		 "fchmodat of a link: EOPNOTSUPP");
	ok(stat("f", &st) == 0 && (st.st_mode & 0777) == 0644,
	   "... the target's mode is unchanged");
	ok(IND(NF, __NR_chown, ARG("l"), 7, 8) == 0 && lstat("l", &st) == 0 && st.st_uid == 7 &&
	       stat("f", &st) == 0 && st.st_uid == 0,
	   "chown changes the link, not the target (as lchown)");
	ok(IND(NF, __NR_utimensat, ARG(UAPI_AT_FDCWD), ARG("l"), ARG(ts), 0) == 0 &&
	       lstat("l", &st) == 0 && st.st_mtim.tv_sec == 1000000000 && stat("f", &st) == 0 &&
	       st.st_mtim.tv_sec != 1000000000,
	   "utimensat changes the link's times, not the target's");
	is_errno(IND(NF, __NR_truncate, ARG("l"), 0), ELOOP, "truncate of a link: ELOOP");
	is_errno(IND(NF, __NR_chdir, ARG("dl")), ENOTDIR, "chdir to a link: ENOTDIR");
	is_errno(access("l", X_OK), EACCES, "access(X_OK) follows to the 0644 file: EACCES");
	ok(IND(NF, __NR_access, ARG("l"), X_OK) == 0, "with the flag it checks the 0777 link");
	is_errno(IND(NF, __NR_execve, ARG("dangling"), 0, 0), ELOOP, "execve of a link: ELOOP");
}

static void test_names(void)
{
	char buf[8];
	struct stat st;

	is_errno(IND(NF, __NR_linkat, ARG(UAPI_AT_FDCWD), ARG("l"), ARG(UAPI_AT_FDCWD), ARG("hl"),
		     UAPI_AT_SYMLINK_FOLLOW),
		 EINVAL, "linkat(AT_SYMLINK_FOLLOW) contradicts the flag: EINVAL");
	ok(IND(NF, __NR_link, ARG("l"), ARG("hl")) == 0 && lstat("hl", &st) == 0 &&
	       S_ISLNK(st.st_mode),
	   "link without AT_SYMLINK_FOLLOW: accepted, links the link");
	ok(IND(NF, __NR_readlink, ARG("l"), ARG(buf), sizeof buf) == 1 && buf[0] == 'f',
	   "readlink works as without the flag");
	ok(IND(NF, __NR_getpid, 0) == getpid(), "a call without paths: accepted, no effect");
	ok(stat("l", &st) == 0 && S_ISREG(st.st_mode), "the flag does not stick");
	ok(IND(NF, __NR_unlink, ARG("hl")) == 0 && stat("f", &st) == 0,
	   "unlink removes the link (as always)");
}

int main(void)
{
	char dir[64];

	if (!indirect_available())
		skip_all("no syscall_indirect (not fdkernel)");
	plan(24);
	scratch_enter("ind_nofollow", dir, sizeof dir);
	make_file("f", "file");
	require(chmod("f", 0644) == 0 && mkdir("d", 0755) == 0, "chmod, mkdir");
	make_file("d/f", "in d");
	require(symlink("f", "l") == 0 && symlink("d", "dl") == 0 &&
		    symlink("made", "dangling") == 0,
		"symlinks");
	test_open_stat();
	test_attrs();
	test_names();
	scratch_leave(dir);
	return done();
}
