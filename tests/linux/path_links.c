/* Symbolic links in a path walk as Linux counts them: a directory link
 * met again and again along one path ("d/l/l/l...", l -> ../d) is ELOOP
 * after 40, for stat, lstat, readlink, open, mkdir and mknod alike, and
 * never ENAMETOOLONG; 40 links in a chain resolve, 41 do not; a link's
 * target and what follows it in the path are not limited together by
 * PATH_MAX (each text is, as Linux: links stack, they are not spliced);
 * a path of any length up to PATH_MAX walks, PATH_MAX bytes are
 * ENAMETOOLONG;
 * a trailing slash after a link still asks for a directory. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

static char top[64];

/* "./d" and then n times "/l". */
static char *repeated(int n)
{
	char *p = malloc(4 + 2 * (size_t)n + 1);

	strcpy(p, "./d");
	for (int i = 0; i < n; i++)
		strcat(p, "/l");
	return p;
}

static void loops(void)
{
	struct stat st;
	char buf[64], *p40 = repeated(40), *p41 = repeated(41), *p43 = repeated(43);

	require(mkdir("d", 0755) == 0 && symlink("../d", "d/l") == 0, "d and d/l -> ../d");
	ok(stat(p40, &st) == 0 && S_ISDIR(st.st_mode), "40 links along one path: fine");
	is_errno(stat(p41, &st), ELOOP, "41: stat ELOOP");
	ok(lstat(p41, &st) == 0 && S_ISLNK(st.st_mode), "41 with the last not followed: lstat fine");
	is_errno(lstat(p43, &st), ELOOP, "43: lstat ELOOP");
	is_errno(readlink(p43, buf, sizeof buf), ELOOP, "readlink ELOOP");
	is_errno(open(p43, O_RDONLY), ELOOP, "open ELOOP");
	char *sub = malloc(strlen(p43) + 3);
	sprintf(sub, "%s/x", p43);
	is_errno(mkdir(sub, 0755), ELOOP, "mkdir below ELOOP");
	is_errno(mknod(sub, S_IFIFO | 0600, 0), ELOOP, "mknod below ELOOP");
	free(sub);
	free(p40), free(p41), free(p43);
}

/* c0 -> c1 -> ... -> cN -> file */
static void chains(void)
{
	char name[16], target[16];
	struct stat st;

	require(close(open("file", O_CREAT | O_WRONLY, 0644)) == 0, "file");
	for (int i = 0; i <= 40; i++) {
		snprintf(name, sizeof name, "c%d", i);
		if (i == 40)
			snprintf(target, sizeof target, "file");
		else
			snprintf(target, sizeof target, "c%d", i + 1);
		require(symlink(target, name) == 0, "a link of the chain");
	}
	ok(stat("c1", &st) == 0 && S_ISREG(st.st_mode), "a chain of 40 links: fine");
	is_errno(stat("c0", &st), ELOOP, "41: ELOOP");
	is_errno(open("c0", O_RDONLY), ELOOP, "open of it: ELOOP");
}

/* A link whose target is long, in a path whose rest is long: each text
 * is under PATH_MAX, together they are not. */
static void long_texts(void)
{
	size_t tlen = 3000, rlen = 2000;
	char *target = malloc(tlen + 8), *path = malloc(rlen + 16);
	struct stat st;

	require(mkdir("e", 0755) == 0 && close(open("e/f", O_CREAT | O_WRONLY, 0644)) == 0, "e/f");
	strcpy(target, "");
	while (strlen(target) < tlen)
		strcat(target, "./");
	strcat(target, "e");
	require(symlink(target, "longlink") == 0, "a link of 3000 bytes");
	strcpy(path, "longlink");
	while (strlen(path) < rlen)
		strcat(path, "/.");
	strcat(path, "/f");
	ok(stat(path, &st) == 0 && S_ISREG(st.st_mode),
	   "its target and the rest of the path together beyond PATH_MAX: fine");
	strcpy(path + strlen(path) - 2, "/g/h");
	is_errno(stat(path, &st), ENOENT, "a missing name after it: ENOENT");
	free(target), free(path);
}

/* Paths longer than a short copy (256 bytes) and up to PATH_MAX. */
static void long_paths(void)
{
	char *path = malloc(4200);
	struct stat st;

	strcpy(path, ".");
	while (strlen(path) < 1000)
		strcat(path, "/.");
	strcat(path, "/file");
	ok(stat(path, &st) == 0 && S_ISREG(st.st_mode), "a path of %zu bytes: fine", strlen(path));
	while (strlen(path) < 4090)
		memmove(path + 2, path, strlen(path) + 1), memcpy(path, "./", 2);
	ok(stat(path, &st) == 0, "%zu bytes: fine", strlen(path));
	while (strlen(path) < 4096)
		memmove(path + 2, path, strlen(path) + 1), memcpy(path, "./", 2);
	is_errno(stat(path, &st), ENAMETOOLONG, "%zu bytes: ENAMETOOLONG", strlen(path));
	free(path);
}

static void trailing(void)
{
	struct stat st;

	require(symlink("file", "tofile") == 0 && symlink("e", "todir") == 0, "links");
	is_errno(stat("tofile/", &st), ENOTDIR, "a link to a file, a trailing slash: ENOTDIR");
	ok(stat("todir/", &st) == 0 && S_ISDIR(st.st_mode), "to a directory: fine");
	ok(lstat("todir/", &st) == 0 && S_ISDIR(st.st_mode), "lstat follows it then");
	ok(lstat("todir", &st) == 0 && S_ISLNK(st.st_mode), "not without the slash");
	ok(stat("c1/", &st) == -1 && errno == ENOTDIR, "a chain to a file, a slash: ENOTDIR");
	ok(stat("d/l/l/l/", &st) == 0 && S_ISDIR(st.st_mode), "a chain of directories, a slash");
}

static void cleanup(void)
{
	char name[16];

	for (int i = 0; i <= 40; i++) {
		snprintf(name, sizeof name, "c%d", i);
		unlink(name);
	}
	const char *files[] = {"d/l", "file", "e/f", "longlink", "tofile", "todir"};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
		unlink(files[i]);
	rmdir("d");
	rmdir("e");
	chdir("/");
	rmdir(top);
}

int main(void)
{
	plan(22);
	snprintf(top, sizeof top, "/tmp/path_links.%d", (int)getpid());
	require(mkdir(top, 0755) == 0 && chdir(top) == 0, "a scratch directory");
	loops();
	chains();
	long_texts();
	long_paths();
	trailing();
	cleanup();
	return done();
}
