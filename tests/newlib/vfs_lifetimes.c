/* Teardown in hostile orders around links and rename: a cwd renamed away
 * or replaced, a removed directory used as a dirfd for every creating
 * call, a link outliving its target and following a new one, an open
 * directory renamed, and two processes renaming two directories into each
 * other at once (never a cycle, nothing lost).  Scratch directory in /tmp;
 * on fdkernel the suite's leak check then proves every inode was freed. */
#include <sys/wait.h>

#include "tap.h"
#include "vfs_util.h"

static void test_cwd_renamed(void)
{
	char buf[256], want[256], top[200];
	int status, in_v[2], replaced[2];

	require(getcwd(top, sizeof top) != NULL, "getcwd");
	require(mkdir("w", 0755) == 0 && chdir("w") == 0, "mkdir w, chdir");
	ok(rename("../w", "../w2") == 0 && getcwd(buf, sizeof buf) != NULL, "the cwd renamed");
	snprintf(want, sizeof want, "%s/w2", top);
	ok(!strcmp(buf, want), "getcwd shows the new name");
	make_file("f", "in cwd");
	ok(access("../w2/f", F_OK) == 0, "relative paths still work from the renamed cwd");
	require(chdir("..") == 0 && mkdir("v", 0755) == 0, "chdir .., mkdir v");
	require(pipe(in_v) == 0 && pipe(replaced) == 0, "pipes");
	fflush(stdout);
	if (fork() == 0) {
		/* The child sits in v while its parent replaces v. */
		if (chdir("v") < 0 || write(in_v[1], "v", 1) != 1 || read(replaced[0], buf, 1) != 1)
			_exit(10);
		if (getcwd(buf, sizeof buf) != NULL || errno != ENOENT)
			_exit(1);
		if (open("new", O_WRONLY | O_CREAT, 0644) >= 0 || errno != ENOENT)
			_exit(2);
		if (mkdir("new", 0755) == 0 || errno != ENOENT)
			_exit(3);
		_exit(0);
	}
	require(read(in_v[0], buf, 1) == 1, "the child is in v");
	require(mkdir("empty", 0755) == 0, "mkdir empty");
	ok(rename("empty", "v") == 0, "an empty directory replaces another process's cwd");
	require(write(replaced[1], "r", 1) == 1, "tell the child");
	wait(&status);
	for (int i = 0; i < 2; i++) {
		close(in_v[i]);
		close(replaced[i]);
	}
	is_int(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0,
	       "in the replaced cwd: getcwd ENOENT, open(O_CREAT) and mkdir ENOENT");
}

static void test_dead_dirfd(void)
{
	int dfd;

	require(mkdir("gone", 0755) == 0, "mkdir gone");
	dfd = open("gone", O_RDONLY | O_DIRECTORY);
	require(dfd >= 0 && rmdir("gone") == 0, "open and rmdir gone");
	make_file("x", "x");
	is_errno(renameat(AT_FDCWD, "x", dfd, "x"), ENOENT,
		 "rename into a removed directory: ENOENT");
	is_errno(linkat(AT_FDCWD, "x", dfd, "x", 0), ENOENT,
		 "link into a removed directory: ENOENT");
	is_errno(symlinkat("x", dfd, "l"), ENOENT, "symlink in a removed directory: ENOENT");
	is_errno(openat(dfd, "n", O_WRONLY | O_CREAT, 0644), ENOENT,
		 "create in a removed directory: ENOENT");
	ok(access("x", F_OK) == 0, "the file stayed where it was");
	close(dfd);
}

static void test_link_outlives(void)
{
	char buf[32];
	struct stat st;

	require(mkdir("t", 0755) == 0, "mkdir t");
	make_file("t/f", "old");
	require(symlink("t/f", "l") == 0, "symlink");
	rm_tree("t");
	ok(stat("l", &st) < 0 && errno == ENOENT, "the target removed: a dangling link");
	require(mkdir("t", 0755) == 0, "mkdir t again");
	make_file("t/f", "new");
	ok(!strcmp(file_text("l", buf, sizeof buf), "new"),
	   "a link is a name: it finds the new file");
}

static void test_open_dir_renamed(void)
{
	struct dirent *d;
	DIR *dir;
	int n = 0;

	require(mkdir("od", 0755) == 0, "mkdir od");
	make_file("od/a", "");
	make_file("od/b", "");
	dir = opendir("od");
	require(dir != NULL, "opendir");
	ok(rename("od", "od2") == 0, "an open directory renamed");
	while ((d = readdir(dir)))
		n++;
	closedir(dir);
	is_int(n, 4, "... still lists its entries through the open fd");
}

/* Two processes rename a and b into each other and back: at most one of
 * each pair may win, or the tree would have a cycle. */
static void renamer(const char *from, const char *to, int rounds)
{
	for (int i = 0; i < rounds; i++) {
		if (rename(from, to) == 0 && rename(to, from) < 0)
			_exit(1);
		if (errno != ENOENT && errno != EINVAL && errno != 0)
			_exit(2);
		errno = 0;
	}
	_exit(0);
}

static void test_rename_race(void)
{
	int s1, s2;
	pid_t p1, p2;
	struct stat st;

	require(mkdir("ra", 0755) == 0 && mkdir("rb", 0755) == 0, "mkdir ra rb");
	fflush(stdout);
	if ((p1 = fork()) == 0)
		renamer("ra", "rb/ra", 400);
	if ((p2 = fork()) == 0)
		renamer("rb", "ra/rb", 400);
	waitpid(p1, &s1, 0);
	waitpid(p2, &s2, 0);
	ok(WIFEXITED(s1) && WEXITSTATUS(s1) == 0 && WIFEXITED(s2) && WEXITSTATUS(s2) == 0,
	   "two processes renaming two directories into each other: only ENOENT or EINVAL");
	ok(stat("ra", &st) == 0 && stat("rb", &st) == 0 && stat("ra/..", &st) == 0 &&
	       st.st_ino == ino_of(".", false),
	   "both are back where they started, no cycle");
	stat(".", &st);
	is_int(st.st_nlink, 2 + 6, "the parent's link count is right (w2 v t od2 ra rb)");
}

int main(void)
{
	char dir[64];

	plan(17);
	scratch_enter("vfs_lifetimes", dir, sizeof dir);
	test_cwd_renamed();
	test_dead_dirfd();
	test_link_outlives();
	test_open_dir_renamed();
	test_rename_race();
	scratch_leave(dir);
	return done();
}
