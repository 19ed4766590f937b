/*
 * /proc/<pid>/fd: a link per open fd (non-sequential ones too on
 * fdkernel), readlink naming what it is as Linux does, the link's mode
 * from the access mode, opening a link opening the file itself (a new
 * open file description, even once the file is renamed or unlinked), and
 * another process's directory read while that process exits.
 */
#include "fd_util.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define HIGH_FD 700 /* a sequential fd far from the others */

static char dir[64]; /* this test's scratch directory */

/* readlink of /proc/<pid>/fd/<fd> into buf (NUL-terminated): its length or -1. */
static ssize_t fd_link(int pid, int fd, char *buf, size_t size)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, fd);
	n = readlink(path, buf, size - 1);
	buf[n < 0 ? 0 : n] = '\0';
	return n;
}

static bool link_is(int fd, const char *want)
{
	char buf[PATH_MAX];

	return fd_link(getpid(), fd, buf, sizeof buf) == (ssize_t)strlen(want) &&
	       !strcmp(buf, want);
}

/* "pipe:[ino]" / "socket:[ino]" with fstat's st_ino (newlib's ino_t may
 * be narrower: compared in its width). */
static bool link_is_ino(int fd, const char *kind)
{
	char buf[64], want[16];
	unsigned long ino;
	struct stat st;
	size_t k = snprintf(want, sizeof want, "%s:[", kind);

	fstat(fd, &st);
	if (fd_link(getpid(), fd, buf, sizeof buf) <= 0 || strncmp(buf, want, k))
		return false;
	ino = strtoul(buf + k, NULL, 10);
	return (ino_t)ino == st.st_ino && buf[strlen(buf) - 1] == ']';
}

/* Whether /proc/<pid>/fd lists fd (readdir). */
static bool listed(int pid, int fd)
{
	char path[64], name[16];
	struct dirent *d;
	bool found = false;
	DIR *dp;

	snprintf(path, sizeof path, "/proc/%d/fd", pid);
	snprintf(name, sizeof name, "%d", fd);
	if (!(dp = opendir(path)))
		return false;
	while ((d = readdir(dp)))
		found |= !strcmp(d->d_name, name) && d->d_type == DT_LNK;
	closedir(dp);
	return found;
}

static void test_names(void)
{
	char path[PATH_MAX], buf[PATH_MAX];
	int p[2], s[2], fd, dfd;

	snprintf(path, sizeof path, "%s/file", dir);
	fd = open(path, O_RDWR | O_CREAT, 0600);
	ok(link_is(fd, path), "a file: its absolute path");
	ok(listed(getpid(), fd), "... listed in /proc/self/fd as a link");
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	ok(link_is(dfd, dir), "a directory: its path");
	snprintf(buf, sizeof buf, "/proc/self/fd/%d/file", dfd);
	ok(access(buf, F_OK) == 0, "a walk goes on through a directory fd's link");
	require(pipe(p) == 0 && socketpair(AF_UNIX, SOCK_STREAM, 0, s) == 0, "pipe, socketpair");
	ok(link_is_ino(p[0], "pipe") && link_is_ino(p[1], "pipe"),
	   "a pipe: pipe:[st_ino], both ends");
	ok(link_is_ino(s[0], "socket"), "a socket: socket:[st_ino]");
	int null = open("/dev/null", O_WRONLY);
	ok(link_is(null, "/dev/null"), "/dev/null");
	is_errno(fd_link(getpid(), 999, buf, sizeof buf), ENOENT, "an fd not open: ENOENT");
	is_errno(fd_link(getpid(), -1, buf, sizeof buf), ENOENT, "a name that is no fd: ENOENT");
	close(null);
	close(dfd);
	close(fd);
	unlink(path);
	close(p[0]);
	close(p[1]);
	close(s[0]);
	close(s[1]);
}

/* The link's permission bits follow the access mode (Linux: r-x, -wx). */
static void test_modes(void)
{
	int modes[3] = {O_RDONLY, O_WRONLY, O_RDWR};
	mode_t want[3] = {0500, 0300, 0700};
	char path[64];
	struct stat st;
	bool good = true;

	for (int i = 0; i < 3; i++) {
		int fd = open("/dev/null", modes[i]);
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		good &=
		    lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && (st.st_mode & 0777) == want[i];
		close(fd);
	}
	ok(good, "lstat: a link, mode 0500 / 0300 / 0700 for read / write / read-write");
	ok(stat("/proc/self/fd", &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0500,
	   "/proc/self/fd: a directory, mode 0500");
}

/* Opening the link opens the file it stands for, not its old name. */
static void test_open(void)
{
	char path[PATH_MAX], moved[PATH_MAX], link[64], buf[8] = {0}, want[PATH_MAX + 16];
	int fd, again;

	snprintf(path, sizeof path, "%s/data", dir);
	snprintf(moved, sizeof moved, "%s/moved", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	require(write(fd, "abcdef", 6) == 6, "write");
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	again = open(link, O_RDONLY);
	ok(again >= 0 && again != fd && read(again, buf, 3) == 3 && !strcmp(buf, "abc"),
	   "open /proc/self/fd/N: the same file, its own offset (0)");
	is_int(lseek(fd, 0, SEEK_CUR), 6, "... the first description's offset untouched");
	close(again);
	rename(path, moved);
	ok(link_is(fd, moved), "after rename the link shows the new name");
	rename(moved, path);
	unlink(path);
	snprintf(want, sizeof want, "%s (deleted)", path);
	ok(link_is(fd, want), "after unlink: \"<path> (deleted)\"");
	again = open(link, O_RDONLY);
	ok(again >= 0 && read(again, buf, 6) == 6 && !memcmp(buf, "abcdef", 6),
	   "an unlinked file still opens through the link");
	close(again);
	is_errno(open(link, O_RDONLY | O_NOFOLLOW), ELOOP, "O_NOFOLLOW on the link: ELOOP");
	close(fd);
}

/* A pipe's link opens another end of the same pipe; a socket's cannot be
 * opened (ENXIO, as Linux). */
static void test_open_pipe(void)
{
	char link[64], c = 0;
	int p[2], s[2], w;

	require(pipe(p) == 0 && socketpair(AF_UNIX, SOCK_STREAM, 0, s) == 0, "pipe, socketpair");
	snprintf(link, sizeof link, "/proc/self/fd/%d", p[0]);
	w = open(link, O_WRONLY);
	ok(w >= 0 && write(w, "q", 1) == 1 && read(p[0], &c, 1) == 1 && c == 'q',
	   "open a pipe's link for writing: a new write end of that pipe");
	close(p[1]);
	close(w);
	is_int(read(p[0], &c, 1), 0, "EOF once every writer, the new one too, closed");
	close(p[0]);
	snprintf(link, sizeof link, "/proc/self/fd/%d", s[0]);
	is_errno(open(link, O_RDWR), ENXIO, "open a socket's link: ENXIO");
	close(s[0]);
	close(s[1]);
}

/* fdinfo's pos and flags (Linux's octal values); with close-on-exec. */
static bool fdinfo(int fd, unsigned long *pos, unsigned int *flags, char *text, size_t size)
{
	char path[64];
	FILE *f;
	size_t n;

	snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
	if (!(f = fopen(path, "r")))
		return false;
	n = fread(text, 1, size - 1, f);
	text[n] = '\0';
	fclose(f);
	return sscanf(text, "pos:\t%lu\nflags:\t%o", pos, flags) == 2;
}

#define LINUX_O_APPEND	02000
#define LINUX_O_CLOEXEC 02000000

static void test_fdinfo(void)
{
	char path[PATH_MAX], text[512];
	unsigned long pos = 0;
	unsigned int flags = 0;
	int fd;

	snprintf(path, sizeof path, "%s/info", dir);
	fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	require(write(fd, "12345", 5) == 5, "write");
	if (!ok(fdinfo(fd, &pos, &flags, text, sizeof text) && pos == 5 && (flags & 3) == 2 &&
		    (flags & LINUX_O_APPEND) && (flags & LINUX_O_CLOEXEC),
		"fdinfo: pos, and flags in octal with O_APPEND and O_CLOEXEC"))
		diag("%s", text);
	fcntl(fd, F_SETFD, 0);
	ok(fdinfo(fd, &pos, &flags, text, sizeof text) && !(flags & LINUX_O_CLOEXEC),
	   "... O_CLOEXEC gone once the fd flag is cleared");
	ok(strstr(text, "\nmnt_id:\t") && strstr(text, "\nino:\t"), "... and mnt_id, ino lines");
	close(fd);
	unlink(path);
	ok(!fdinfo(fd, &pos, &flags, text, sizeof text) && errno == ENOENT,
	   "fdinfo of a closed fd: ENOENT");
	if (fdk_only("fdinfo: clofork and nonseq lines")) {
		fd = open("/dev/null", O_RDONLY | O_NONSEQFD | O_CLOFORK);
		ok(fdinfo(fd, &pos, &flags, text, sizeof text) && strstr(text, "\nclofork:\t1\n") &&
		       strstr(text, "\nnonseq:\t1\n"),
		   "fdinfo: clofork and nonseq lines");
		close(fd);
	}
}

/* Every open fd is listed: a high sequential one and a non-sequential one. */
static void test_listing(void)
{
	int high = dup2(0, HIGH_FD), ns;

	ok(high == HIGH_FD && listed(getpid(), HIGH_FD), "a high sequential fd is listed");
	close(HIGH_FD);
	ok(!listed(getpid(), HIGH_FD), "... and gone once closed");
	if (fdk_only("a non-sequential fd is listed and reads back")) {
		ns = open("/dev/null", O_RDONLY | O_NONSEQFD);
		ok(nonseq(ns) && listed(getpid(), ns) && link_is(ns, "/dev/null"),
		   "a non-sequential fd is listed and reads back");
		close(ns);
	}
}

/* A child's fds, seen by its parent while it lives; nothing once reaped. */
static void test_other_process(void)
{
	char buf[PATH_MAX], path[64];
	int go[2], ready[2], status, n = 0;
	struct dirent *d;
	pid_t pid;
	DIR *dp;

	require(pipe(go) == 0 && pipe(ready) == 0, "pipes");
	if ((pid = fork()) == 0) {
		close(go[1]);
		dup2(ready[1], HIGH_FD);
		write(ready[1], "r", 1);
		read(go[0], buf, 1); /* until the parent has looked */
		_exit(0);
	}
	close(go[0]);
	read(ready[0], buf, 1);
	ok(listed(pid, HIGH_FD) && fd_link(pid, HIGH_FD, buf, sizeof buf) > 0 &&
	       !strncmp(buf, "pipe:[", 6),
	   "a child's fd is listed and named in /proc/<pid>/fd");
	snprintf(path, sizeof path, "/proc/%d/fd", pid);
	dp = opendir(path);
	close(go[1]);
	waitpid(pid, &status, 0);
	while (dp && (d = readdir(dp)))
		n += d->d_name[0] != '.';
	ok(dp && n == 0, "a directory opened before the child was reaped lists nothing after");
	if (dp)
		closedir(dp);
	is_errno(fd_link(pid, HIGH_FD, buf, sizeof buf), ENOENT, "its links are gone: ENOENT");
	close(ready[0]);
	close(ready[1]);
}

/* Child: opens and closes fds as fast as it can, then exits. */
static void churn(void)
{
	for (int i = 0; i < 3000; i++) {
		int fd = open("/dev/null", O_RDONLY);
		dup2(fd, 40 + i % 30);
		close(fd);
		if (i % 7 == 0)
			close(40 + i % 11);
	}
	_exit(0);
}

/* Listing a process's fds and reading its links while it opens, closes
 * and exits: every answer is a name or ENOENT/ESRCH, nothing leaks. */
static void test_churn(void)
{
	char path[64], buf[PATH_MAX];
	int status, odd = 0, links = 0;
	struct dirent *d;
	pid_t pid;
	DIR *dp;

	fflush(stdout);
	if ((pid = fork()) == 0)
		churn();
	for (int round = 0; round < 300; round++) {
		snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
		if (!(dp = opendir(path)))
			break;
		while ((d = readdir(dp))) {
			if (d->d_name[0] == '.')
				continue;
			if (fd_link(pid, atoi(d->d_name), buf, sizeof buf) > 0)
				links++;
			else
				odd += errno != ENOENT && errno != ESRCH;
		}
		closedir(dp);
	}
	ok(waitpid(pid, &status, 0) == pid && exited_with(status, 0) && !odd,
	   "listing a process that churns fds and exits: names or ENOENT only (%d links read)",
	   links);
}

int main(void)
{
	snprintf(dir, sizeof dir, "/tmp/proc_fd-%d", (int)getpid());
	require(mkdir(dir, 0700) == 0, "mkdir");
	plan(33);
	test_names();
	test_modes();
	test_open();
	test_open_pipe();
	test_fdinfo();
	test_listing();
	test_other_process();
	test_churn();
	ok(rmdir(dir) == 0, "nothing left behind");
	return done();
}
