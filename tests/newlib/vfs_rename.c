/* Hard links and rename: link/linkat (st_nlink, EPERM on a directory,
 * AT_SYMLINK_FOLLOW), rename/renameat/renameat2 (replacing atomically,
 * RENAME_NOREPLACE, RENAME_EXCHANGE, a directory into itself, the
 * ENOTEMPTY/EISDIR/ENOTDIR/EBUSY rules, directory link counts, an open
 * file renamed or replaced stays readable).  Scratch directory in /tmp. */
#include <stdio.h>

#include "tap.h"
#include "vfs_util.h"

static nlink_t nlink_of(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 ? st.st_nlink : 0;
}

static void test_link(void)
{
	char buf[16];
	struct stat st;

	make_file("a", "alpha");
	ok(link("a", "b") == 0 && ino_of("a", true) == ino_of("b", true),
	   "link makes a second name");
	is_int(nlink_of("a"), 2, "st_nlink counts both names");
	ok(unlink("a") == 0 && nlink_of("b") == 1 &&
	       !strcmp(file_text("b", buf, sizeof buf), "alpha"),
	   "unlinking one name leaves the other with the data");
	require(mkdir("dir", 0755) == 0, "mkdir");
	is_errno(link("dir", "dir2"), EPERM, "link to a directory: EPERM");
	is_errno(link("b", "dir"), EEXIST, "link over an existing name: EEXIST");
	is_errno(link("missing", "c"), ENOENT, "link from a missing name: ENOENT");
	is_errno(link("b", "nodir/c"), ENOENT, "link into a missing directory: ENOENT");
	is_errno(link("b", "c/"), ENOENT, "link to a name with a trailing slash: ENOENT");
	require(symlink("b", "sl") == 0, "symlink");
	ok(link("sl", "hl_nofollow") == 0 && lstat("hl_nofollow", &st) == 0 && S_ISLNK(st.st_mode),
	   "link does not follow a final symlink");
	ok(linkat(AT_FDCWD, "sl", AT_FDCWD, "hl_follow", AT_SYMLINK_FOLLOW) == 0 &&
	       ino_of("hl_follow", true) == ino_of("b", true),
	   "linkat(AT_SYMLINK_FOLLOW) links the target");
	is_errno(linkat(AT_FDCWD, "b", AT_FDCWD, "x", 0x4000), EINVAL,
		 "linkat, unknown flag: EINVAL");
}

static void test_rename_files(void)
{
	char buf[16];
	int fd;

	make_file("r1", "one");
	make_file("r2", "two");
	fd = open("r2", O_RDONLY);
	ok(rename("r1", "r2") == 0 && !strcmp(file_text("r2", buf, sizeof buf), "one"),
	   "rename replaces an existing file");
	ok(access("r1", F_OK) < 0 && errno == ENOENT, "the old name is gone");
	ok(read(fd, buf, sizeof buf) == 3 && !memcmp(buf, "two", 3),
	   "the replaced file stays readable while open");
	close(fd);
	fd = open("r2", O_RDONLY);
	ok(rename("r2", "dir/moved") == 0 && read(fd, buf, sizeof buf) == 3,
	   "a renamed open file stays readable");
	close(fd);
	make_file("r3", "three");
	ok(link("r3", "r3b") == 0 && rename("r3", "r3b") == 0 && access("r3", F_OK) == 0,
	   "rename between two names of one inode does nothing");
	is_errno(rename("missing", "x"), ENOENT, "rename of a missing name: ENOENT");
	is_errno(rename("r3", "nodir/x"), ENOENT, "rename into a missing directory: ENOENT");
	is_errno(rename("r3", "dir"), EISDIR, "a file over a directory: EISDIR");
	is_errno(rename("r3/", "x"), ENOTDIR, "a file named with a trailing slash: ENOTDIR");
	is_errno(rename("r3", "x/"), ENOTDIR, "a file to a name with a trailing slash: ENOTDIR");
	is_errno(rename("r3", "."), EBUSY, "rename to '.': EBUSY");
	is_errno(rename("..", "x"), EBUSY, "rename of '..': EBUSY");
	ok(renameat(AT_FDCWD, "r3", AT_FDCWD, "r4") == 0 && access("r4", F_OK) == 0, "renameat");
}

static void test_rename_dirs(void)
{
	struct stat st;

	require(mkdir("p", 0755) == 0 && mkdir("p/c", 0755) == 0 && mkdir("q", 0755) == 0,
		"mkdir p/c q");
	is_errno(rename("p", "p/c/inside"), EINVAL, "a directory into itself: EINVAL");
	is_errno(rename("p", "p/c"), EINVAL, "a directory over its own child: EINVAL");
	is_errno(rename("p/c", "p"), ENOTEMPTY, "a directory over its own parent: ENOTEMPTY");
	is_errno(rename("p", "r4"), ENOTDIR, "a directory over a file: ENOTDIR");
	require(mkdir("q/full", 0755) == 0 && mkdir("q/full/x", 0755) == 0, "mkdir q/full/x");
	is_errno(rename("p", "q/full"), ENOTEMPTY, "a directory over a non-empty one: ENOTEMPTY");
	require(mkdir("q/empty", 0755) == 0, "mkdir q/empty");
	ok(rename("p", "q/empty") == 0 && stat("q/empty/c", &st) == 0,
	   "a directory replaces an empty one");
	is_int(nlink_of("q"), 4, "the new parent counts its subdirectories");
	ok(stat("q/empty/c/..", &st) == 0 && st.st_ino == ino_of("q/empty", false),
	   "'..' of a moved directory's child is right");
	ok(rename("q/empty", "moved") == 0 && nlink_of("q") == 3 &&
	       ino_of("moved/..", false) == ino_of(".", false),
	   "moving a directory up: '..' and both link counts follow");
	ok(rename("moved/", "moved2/") == 0, "trailing slashes on directories are fine");
}

static void test_renameat2(void)
{
	char buf[16];

	make_file("e1", "first");
	make_file("e2", "second");
	is_errno(renameat2(AT_FDCWD, "e1", AT_FDCWD, "e2", RENAME_NOREPLACE), EEXIST,
		 "RENAME_NOREPLACE over an existing name: EEXIST");
	ok(renameat2(AT_FDCWD, "e1", AT_FDCWD, "e3", RENAME_NOREPLACE) == 0,
	   "RENAME_NOREPLACE to a free name");
	ok(renameat2(AT_FDCWD, "e3", AT_FDCWD, "e2", RENAME_EXCHANGE) == 0 &&
	       !strcmp(file_text("e2", buf, sizeof buf), "first") &&
	       !strcmp(file_text("e3", buf, sizeof buf), "second"),
	   "RENAME_EXCHANGE swaps two files");
	is_errno(renameat2(AT_FDCWD, "e2", AT_FDCWD, "e9", RENAME_EXCHANGE), ENOENT,
		 "RENAME_EXCHANGE with a missing target: ENOENT");
	ok(renameat2(AT_FDCWD, "e2", AT_FDCWD, "moved2", RENAME_EXCHANGE) == 0 &&
	       access("e2/c", F_OK) == 0 && !strcmp(file_text("moved2", buf, sizeof buf), "first"),
	   "RENAME_EXCHANGE swaps a file and a directory");
	ok(nlink_of("e2") == 3 && ino_of("e2/c/..", false) == ino_of("e2", false),
	   "... the directory's links stay right");
	is_errno(renameat2(AT_FDCWD, "e2", AT_FDCWD, "e2/c", RENAME_EXCHANGE), EINVAL,
		 "RENAME_EXCHANGE of a directory with its child: EINVAL");
	is_errno(renameat2(AT_FDCWD, "e2", AT_FDCWD, "e3", RENAME_NOREPLACE | RENAME_EXCHANGE),
		 EINVAL, "NOREPLACE with EXCHANGE: EINVAL");
	is_errno(renameat2(AT_FDCWD, "e2", AT_FDCWD, "e3", 0x80), EINVAL, "unknown flag: EINVAL");
}

/* Renames back and forth many times: nothing may leak or lose data. */
static void test_churn(void)
{
	char buf[16];
	int i, bad = 0;

	make_file("c0", "churn");
	require(mkdir("cd", 0755) == 0, "mkdir cd");
	for (i = 0; i < 200; i++) {
		bad |= rename("c0", "cd/c1") < 0;
		bad |= rename("cd", "cd2") < 0;
		bad |= rename("cd2/c1", "c0") < 0;
		bad |= rename("cd2", "cd") < 0;
	}
	ok(!bad && !strcmp(file_text("c0", buf, sizeof buf), "churn") && nlink_of("cd") == 2,
	   "800 renames of a file and a directory");
}

int main(void)
{
	char dir[64];

	plan(44);
	scratch_enter("vfs_rename", dir, sizeof dir);
	test_link();
	test_rename_files();
	test_rename_dirs();
	test_renameat2();
	test_churn();
	scratch_leave(dir);
	return done();
}
