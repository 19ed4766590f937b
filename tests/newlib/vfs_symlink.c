/* Symbolic links: symlink/symlinkat, readlink (EINVAL on a non-link,
 * truncation without a NUL), lstat, resolution in the middle and at the
 * end, relative and absolute targets, ".." after a link, loops and the
 * 40-link limit (ELOOP), O_NOFOLLOW, AT_SYMLINK_NOFOLLOW, O_CREAT through
 * a dangling link, unlink of a link.  Runs in a scratch directory in /tmp. */
#include "tap.h"
#include "vfs_util.h"

static char top[64]; /* the scratch directory's absolute path */

static void test_basics(void)
{
	char buf[64], abs[128];
	struct stat st;
	ssize_t n;

	require(mkdir("d", 0755) == 0 && mkdir("d/sub", 0755) == 0, "mkdir d/sub");
	make_file("d/sub/f", "hello");
	ok(symlink("d/sub/f", "rel") == 0, "symlink with a relative target");
	n = readlink("rel", buf, sizeof buf);
	ok(n == 7 && !memcmp(buf, "d/sub/f", 7), "readlink returns the target");
	ok(lstat("rel", &st) == 0 && S_ISLNK(st.st_mode) && st.st_size == 7 &&
	       (st.st_mode & 0777) == 0777 && st.st_nlink == 1,
	   "lstat: a link of the target's length, mode 0777");
	ok(stat("rel", &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 5,
	   "stat follows the link to the file");
	ok(fstatat(AT_FDCWD, "rel", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode),
	   "fstatat(AT_SYMLINK_NOFOLLOW) stats the link");
	ok(!strcmp(file_text("rel", buf, sizeof buf), "hello"), "open follows the link");
	snprintf(abs, sizeof abs, "%s/d/sub", top);
	ok(symlink(abs, "d/abs") == 0 && ino_of("d/abs/f", false) == ino_of("d/sub/f", false),
	   "an absolute target resolves in the middle of a path");
	ok(symlink("sub", "d/rs") == 0 && ino_of("d/rs/..", false) == ino_of("d", false),
	   "'..' after a link goes up from the link's target");
	ok(symlink("../../d", "d/sub/up") == 0 &&
	       ino_of("d/sub/up/sub/up/rs/f", false) == ino_of("d/sub/f", false),
	   "links within links, relative to each link's directory");
	n = readlink("rel", buf, 3);
	ok(n == 3 && !memcmp(buf, "d/s", 3), "readlink truncates to the buffer, no NUL");
	is_errno(readlink("d/sub/f", buf, sizeof buf), EINVAL, "readlink on a file: EINVAL");
	is_errno(readlink("rel", buf, 0), EINVAL, "readlink with size 0: EINVAL");
	is_errno(readlink("nothing", buf, sizeof buf), ENOENT,
		 "readlink on a missing name: ENOENT");
	ok(readlinkat(AT_FDCWD, "rel", buf, sizeof buf) == 7, "readlinkat");
}

static void test_errors(void)
{
	char buf[16];
	struct stat st;

	is_errno(symlink("", "empty"), ENOENT, "symlink with an empty target: ENOENT");
	is_errno(symlink("x", "rel"), EEXIST, "symlink over an existing name: EEXIST");
	is_errno(symlink("x", "nodir/l"), ENOENT, "symlink in a missing directory: ENOENT");
	ok(symlink("no/such/target", "dangling") == 0, "a dangling link can be made");
	is_errno(stat("dangling", &st), ENOENT, "stat through a dangling link: ENOENT");
	ok(lstat("dangling", &st) == 0 && S_ISLNK(st.st_mode), "lstat sees the dangling link");
	ok(symlink("d/sub/f", "tofile") == 0, "a link to a file");
	is_errno(stat("tofile/", &st), ENOTDIR,
		 "a trailing slash through a link to a file: ENOTDIR");
	ok(lstat("d/rs/", &st) == 0 && S_ISDIR(st.st_mode),
	   "lstat with a trailing slash follows the link");
	is_errno(readlink("d/rs/", buf, sizeof buf), EINVAL,
		 "readlink with a trailing slash: the directory, EINVAL");
}

static void test_loops(void)
{
	char name[16], target[16];
	struct stat st;
	int i;

	ok(symlink("loop_b", "loop_a") == 0 && symlink("loop_a", "loop_b") == 0, "a two-link loop");
	is_errno(stat("loop_a", &st), ELOOP, "stat through a loop: ELOOP");
	is_errno(open("loop_a/x", O_RDONLY), ELOOP, "a loop in the middle of a path: ELOOP");
	ok(symlink("self", "self") == 0, "a link to itself");
	is_errno(open("self", O_RDONLY | O_CREAT, 0644), ELOOP, "open(O_CREAT) on a loop: ELOOP");
	/* chain_N -> chain_N-1 -> ... -> chain_0 -> d */
	require(symlink("d", "chain_0") == 0, "chain_0");
	for (i = 1; i <= 41; i++) {
		snprintf(name, sizeof name, "chain_%d", i);
		snprintf(target, sizeof target, "chain_%d", i - 1);
		require(symlink(target, name) == 0, "chain link");
	}
	ok(stat("chain_39", &st) == 0 && S_ISDIR(st.st_mode), "40 links in one lookup resolve");
	is_errno(stat("chain_40", &st), ELOOP, "41 links in one lookup: ELOOP");
	ok(lstat("chain_41", &st) == 0, "lstat of a long chain's head needs no following");
}

static void test_open_flags(void)
{
	char buf[16];
	struct stat st;
	int fd;

	is_errno(open("rel", O_RDONLY | O_NOFOLLOW), ELOOP, "O_NOFOLLOW on a final link: ELOOP");
	fd = open("d/rs/f", O_RDONLY | O_NOFOLLOW);
	ok(fd >= 0, "O_NOFOLLOW follows links in the middle");
	close(fd);
	is_errno(open("d/rs", O_RDONLY | O_NOFOLLOW | O_DIRECTORY), ENOTDIR,
		 "O_NOFOLLOW | O_DIRECTORY on a link: ENOTDIR");
	ok(symlink("made_by_creat", "dangling2") == 0 &&
	       (fd = open("dangling2", O_WRONLY | O_CREAT, 0644)) >= 0,
	   "O_CREAT through a dangling link");
	close(fd);
	ok(lstat("made_by_creat", &st) == 0 && S_ISREG(st.st_mode),
	   "... creates the link's target");
	is_errno(open("rel", O_WRONLY | O_CREAT | O_EXCL, 0644), EEXIST,
		 "O_CREAT | O_EXCL on a link: EEXIST");
	is_errno(open("dangling", O_WRONLY | O_CREAT | O_NOFOLLOW, 0644), ELOOP,
		 "O_CREAT | O_NOFOLLOW on a dangling link: ELOOP");
	ok(unlink("rel") == 0 && lstat("rel", &st) < 0 && stat("d/sub/f", &st) == 0,
	   "unlink removes the link, not the target");
	ok(symlinkat("d/sub/f", AT_FDCWD, "rel2") == 0 &&
	       !strcmp(file_text("rel2", buf, sizeof buf), "hello"),
	   "symlinkat");
	is_errno(rmdir("d/rs"), ENOTDIR, "rmdir on a link to a directory: ENOTDIR");
	is_errno(mkdir("dangling", 0755), EEXIST, "mkdir over a dangling link: EEXIST");
}

int main(void)
{
	plan(43);
	scratch_enter("vfs_symlink", top, sizeof top);
	test_basics();
	test_errors();
	test_loops();
	test_open_flags();
	scratch_leave(top);
	return done();
}
