/* dnotify, fcntl(F_NOTIFY), as Linux does it: which changes in or of a
 * directory signal its watcher (DN_ACCESS, DN_MODIFY, DN_CREATE,
 * DN_DELETE, DN_RENAME, DN_ATTRIB), SIGIO or the F_SETSIG signal with
 * si_code POLL_MSG, si_band and si_fd, one-shot unless DN_MULTISHOT,
 * requests adding up, arg 0 and the close of any fd of the file ending
 * the watch, the owner F_NOTIFY sets, ENOTDIR, and watches that other
 * processes' changes trigger and that exits and closes tear down. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

#define RTSIG	 (SIGRTMIN + 2)
#define MSG_BAND (POLLIN | POLLRDNORM | POLLMSG) /* Linux's band of POLL_MSG */

static char top[64];

/* top/name, in buf. */
static const char *at(const char *name, char *buf)
{
	snprintf(buf, 128, "%s/%s", top, name);
	return buf;
}

/* sig if it is pending (taken, its information in *si), else -1: dnotify
 * signals are sent by the call that made the change, so they are there
 * when it returns. */
static int take(int sig, siginfo_t *si)
{
	sigset_t s;
	struct timespec t = {0, 0};

	sigemptyset(&s);
	sigaddset(&s, sig);
	memset(si, 0, sizeof(*si));
	return sigtimedwait(&s, si, &t);
}

/* How many sig are pending (all taken). */
static int count(int sig)
{
	siginfo_t si;
	int n = 0;

	while (take(sig, &si) == sig)
		n++;
	return n;
}

/* A directory fd on top with RTSIG as its signal, watching arg. */
static int watch(const char *path, unsigned long arg)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY);

	require(fd >= 0 && fcntl(fd, F_SETSIG, RTSIG) == 0 && fcntl(fd, F_NOTIFY, arg) == 0,
		"watch");
	return fd;
}

/* Whether op made exactly one RTSIG for fd, with POLL_MSG's information. */
static bool one_event(int fd)
{
	siginfo_t si;
	bool one = take(RTSIG, &si) == RTSIG && si.si_code == POLL_MSG && si.si_fd == fd &&
		   si.si_band == MSG_BAND;

	return one && count(RTSIG) == 0;
}

static void touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT, 0644);

	require(fd >= 0 && close(fd) == 0, "create");
}

static void test_errors(void)
{
	char p[128];
	int fd, pf[2];

	touch(at("file", p));
	fd = open(p, O_RDONLY);
	require(fd >= 0 && pipe(pf) == 0, "file, pipe");
	is_errno(fcntl(fd, F_NOTIFY, DN_CREATE), ENOTDIR, "a regular file: ENOTDIR");
	is_errno(fcntl(pf[0], F_NOTIFY, DN_CREATE | DN_MULTISHOT), ENOTDIR, "a pipe: ENOTDIR");
	is_int(fcntl(fd, F_NOTIFY, 0), 0, "arg 0 (remove) on a file: 0, nothing to remove");
	is_int(fcntl(fd, F_NOTIFY, DN_MULTISHOT), 0, "DN_MULTISHOT alone is a removal too");
	close(fd);
	fd = open(p, O_PATH);
	is_errno(fcntl(fd, F_NOTIFY, DN_CREATE), EBADF, "an O_PATH fd: EBADF");
	close(fd);
	is_errno(fcntl(-1, F_NOTIFY, DN_CREATE), EBADF, "a bad fd: EBADF");
	close(pf[0]);
	close(pf[1]);
	unlink(p);
}

/* Each kind of change, on a multishot watch of top asking for one kind. */
static void test_kinds(void)
{
	char p[128], q[128];
	int d, f;
	char c;

	d = watch(top, DN_CREATE | DN_MULTISHOT);
	touch(at("a", p));
	ok(one_event(d), "DN_CREATE: a file created");
	require(mkdir(at("sub", p), 0755) == 0, "mkdir");
	ok(one_event(d), "DN_CREATE: a directory made");
	require(link(at("a", p), at("b", q)) == 0, "link");
	ok(one_event(d), "DN_CREATE: a hard link");
	require(symlink("a", at("s", p)) == 0, "symlink");
	ok(one_event(d), "DN_CREATE: a symbolic link");
	touch(at("sub/x", p));
	is_int(count(RTSIG), 0, "DN_CREATE: a file created in a subdirectory is not top's");
	require(rename(at("sub/x", p), at("x", q)) == 0, "rename in");
	ok(one_event(d), "DN_CREATE: a name moved in");
	close(d);

	d = watch(top, DN_DELETE | DN_MULTISHOT);
	require(unlink(at("b", p)) == 0, "unlink");
	ok(one_event(d), "DN_DELETE: an unlink");
	require(rename(at("x", p), at("sub/x", q)) == 0, "rename out");
	ok(one_event(d), "DN_DELETE: a name moved out");
	require(unlink(at("s", p)) == 0 && unlink(at("sub/x", q)) == 0, "cleanup");
	ok(one_event(d), "DN_DELETE: not for the subdirectory's entry");
	close(d);

	d = watch(top, DN_RENAME | DN_MULTISHOT);
	require(rename(at("a", p), at("a2", q)) == 0, "rename");
	ok(one_event(d), "DN_RENAME: a rename within the directory");
	require(rename(at("a2", p), at("sub/a2", q)) == 0, "rename out");
	is_int(count(RTSIG), 0, "DN_RENAME: not a rename to another directory");
	require(rename(at("sub/a2", p), at("a", q)) == 0, "rename in");
	is_int(count(RTSIG), 0, "DN_RENAME: nor from one");
	close(d);

	d = watch(top, DN_MODIFY | DN_MULTISHOT);
	f = open(at("a", p), O_RDWR);
	require(f >= 0, "open");
	is_int(count(RTSIG), 0, "DN_MODIFY: not an open");
	require(write(f, "x", 1) == 1, "write");
	ok(one_event(d), "DN_MODIFY: a write to an entry");
	require(ftruncate(f, 0) == 0, "ftruncate");
	ok(one_event(d), "DN_MODIFY: a truncation");
	close(f);
	is_int(count(RTSIG), 0, "DN_MODIFY: not a close");
	close(d);

	d = watch(top, DN_ACCESS | DN_MULTISHOT);
	f = open(at("a", p), O_RDWR);
	require(f >= 0 && write(f, "y", 1) == 1 && lseek(f, 0, SEEK_SET) == 0, "rewrite");
	is_int(count(RTSIG), 0, "DN_ACCESS: not a write");
	require(read(f, &c, 1) == 1, "read");
	ok(one_event(d), "DN_ACCESS: a read of an entry");
	close(f);
	DIR *dir = opendir(top);
	require(dir != NULL, "opendir");
	while (readdir(dir))
		;
	closedir(dir);
	ok(count(RTSIG) >= 1, "DN_ACCESS: a readdir of the directory itself");
	close(d);

	d = watch(top, DN_ATTRIB | DN_MULTISHOT);
	require(chmod(at("a", p), 0600) == 0, "chmod");
	ok(one_event(d), "DN_ATTRIB: a chmod of an entry");
	require(chmod(top, 0755) == 0, "chmod top");
	ok(one_event(d), "DN_ATTRIB: a chmod of the directory itself");
	close(d);
	unlink(at("a", p));
	rmdir(at("sub", p));
}

/* The watcher of a directory and of its parent both hear of its change
 * (a chmod), each with its own si_fd. */
static void test_parent_and_self(void)
{
	char p[128];
	siginfo_t si;
	int parent, sub, got = 0;

	require(mkdir(at("sub", p), 0700) == 0, "mkdir");
	parent = watch(top, DN_ATTRIB | DN_MULTISHOT);
	sub = watch(p, DN_ATTRIB | DN_MULTISHOT);
	require(chmod(p, 0755) == 0, "chmod");
	while (take(RTSIG, &si) == RTSIG)
		got |= si.si_fd == parent ? 1 : si.si_fd == sub ? 2 : 4;
	is_int(got, 3, "a directory's chmod: its watcher and its parent's");
	close(parent);
	close(sub);
	rmdir(p);
}

static void test_lifetime(void)
{
	char p[128], q[128];
	int d, d2, f;

	d = watch(top, DN_CREATE);
	touch(at("a", p));
	ok(one_event(d), "one-shot: the first event");
	touch(at("b", p));
	is_int(count(RTSIG), 0, "and none after it");

	require(fcntl(d, F_NOTIFY, DN_CREATE) == 0 && fcntl(d, F_NOTIFY, DN_DELETE) == 0,
		"two requests");
	require(unlink(at("b", p)) == 0, "unlink");
	ok(one_event(d), "requests add up: DN_CREATE then DN_DELETE hears an unlink");

	require(fcntl(d, F_NOTIFY, DN_CREATE | DN_MULTISHOT) == 0, "multishot");
	require(fcntl(d, F_NOTIFY, DN_DELETE) == 0, "a one-shot request after it");
	touch(at("b", p));
	touch(at("c", p));
	is_int(count(RTSIG), 2, "DN_MULTISHOT adds up too: it stays multishot");
	require(fcntl(d, F_NOTIFY, 0) == 0, "arg 0");
	require(unlink(at("c", p)) == 0, "unlink");
	is_int(count(RTSIG), 0, "arg 0 ends the watch");

	require(fcntl(d, F_NOTIFY, DN_CREATE | DN_MULTISHOT) == 0, "again");
	d2 = dup(d);
	require(d2 >= 0 && close(d2) == 0, "dup, close");
	touch(at("c", p));
	is_int(count(RTSIG), 0, "closing another fd of the same file ends it (Linux's filp_close)");

	require(fcntl(d, F_NOTIFY, DN_DELETE | DN_MULTISHOT) == 0, "again");
	d2 = dup(d);
	require(d2 >= 0 && fcntl(d2, F_NOTIFY, DN_DELETE | DN_MULTISHOT) == 0, "through a dup");
	require(unlink(at("c", p)) == 0, "unlink");
	siginfo_t si;
	ok(take(RTSIG, &si) == RTSIG && si.si_fd == d2 && count(RTSIG) == 0,
	   "one watch per file: si_fd is the last fd that asked");
	close(d2);

	f = watch(top, DN_DELETE | DN_MULTISHOT);
	d2 = watch(top, DN_DELETE | DN_MULTISHOT);
	close(f);
	require(unlink(at("b", p)) == 0, "unlink");
	ok(one_event(d2), "another open of the directory keeps its own watch");
	close(d2);
	close(d);
	(void)q;
	unlink(at("a", p));
}

/* The signal: SIGIO without F_SETSIG; F_NOTIFY makes the caller the owner
 * only when the file has none. */
static void test_signal_owner(void)
{
	char p[128];
	siginfo_t si;
	int d = open(top, O_RDONLY | O_DIRECTORY);
	pid_t child;

	require(d >= 0 && fcntl(d, F_NOTIFY, DN_CREATE) == 0, "plain watch");
	is_int(fcntl(d, F_GETOWN), getpid(), "F_NOTIFY makes the caller the owner");
	touch(at("a", p));
	ok(take(SIGIO, &si) == SIGIO && si.si_code == SI_KERNEL, "no F_SETSIG: SIGIO, SI_KERNEL");
	close(d);

	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	d = open(top, O_RDONLY | O_DIRECTORY);
	require(d >= 0 && fcntl(d, F_SETOWN, child) == 0, "owner: a child");
	require(fcntl(d, F_NOTIFY, DN_DELETE) == 0, "watch");
	is_int(fcntl(d, F_GETOWN), child, "an owner already set stays");
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(d);
	unlink(p);
	count(SIGIO);
}

/* Changes by another process signal the watcher; a watcher's exit ends
 * its watch (its fds close), and its parent's copy of the fd is another
 * files table's: not its watch. */
static void test_processes(void)
{
	char p[128];
	int d = watch(top, DN_CREATE | DN_MULTISHOT), st;
	pid_t child = fork();

	if (child == 0) {
		char q[128];
		touch(at("by_child", q));
		close(d); /* the child's table: not the parent's watch */
		touch(at("by_child2", q));
		_exit(0);
	}
	require(waitpid(child, &st, 0) == child && exited_with(st, 0), "child");
	is_int(count(RTSIG), 2,
	       "another process's changes signal the watcher, its close not ending it");
	close(d);

	child = fork();
	if (child == 0) {
		watch(top, DN_CREATE | DN_MULTISHOT);
		_exit(0);
	}
	require(waitpid(child, &st, 0) == child && exited_with(st, 0), "child");
	touch(at("after_exit", p));
	is_int(count(RTSIG), 0, "an exited watcher's watch is gone");
	unlink(at("by_child", p));
	unlink(at("by_child2", p));
	unlink(at("after_exit", p));
}

/* A watched directory removed while its fd is open: its parent's watcher
 * hears of it, its own does not (Linux sends it no dnotify event), and
 * the watch goes with the fd, after the directory has. */
static void test_removed(void)
{
	char p[128];
	siginfo_t si;
	int parent, sub;

	require(mkdir(at("gone", p), 0700) == 0, "mkdir");
	parent = watch(top, DN_DELETE | DN_MULTISHOT);
	sub = watch(p, DN_DELETE | DN_ATTRIB | DN_CREATE | DN_MULTISHOT);
	require(rmdir(p) == 0, "rmdir");
	ok(take(RTSIG, &si) == RTSIG && si.si_fd == parent && count(RTSIG) == 0,
	   "rmdir of a watched directory: its parent's watcher only");
	is_errno(openat(sub, "x", O_CREAT | O_WRONLY, 0600), ENOENT,
		 "nothing can be made in it any more");
	close(sub);
	close(parent);
	is_int(count(RTSIG), 0, "and its watch went with its fd");
}

/* Threads racing F_NOTIFY against the close of its fd, and changes: no
 * watch may outlive its file (the leak check counts them). */
static int race_fd = -1;

static void *race_closer(void *arg)
{
	(void)arg;
	for (int i = 0; i < 200; i++) {
		int fd = open(top, O_RDONLY | O_DIRECTORY);
		__atomic_store_n(&race_fd, fd, __ATOMIC_RELEASE);
		close(fd);
	}
	return NULL;
}

static void test_race(void)
{
	char p[128];
	pthread_t t;

	require(pthread_create(&t, NULL, race_closer, NULL) == 0, "thread");
	for (int i = 0; i < 200; i++) {
		int fd = __atomic_load_n(&race_fd, __ATOMIC_ACQUIRE);
		if (fd >= 0)
			fcntl(fd, F_NOTIFY, DN_CREATE | DN_DELETE | DN_MULTISHOT);
		if (i % 20 == 0) {
			touch(at("r", p));
			unlink(p);
		}
	}
	pthread_join(t, NULL);
	count(RTSIG);
	touch(at("r", p));
	unlink(p);
	is_int(count(RTSIG), 0, "after a close race: no watch left");
}

int main(void)
{
	sigset_t s;

	snprintf(top, sizeof top, "/tmp/dnotify.%d", getpid());
	require(mkdir(top, 0700) == 0, "mkdir");
	sigemptyset(&s);
	sigaddset(&s, RTSIG);
	sigaddset(&s, SIGIO);
	sigprocmask(SIG_BLOCK, &s, NULL);
	plan(45);
	test_errors();
	test_kinds();
	test_parent_and_self();
	test_lifetime();
	test_signal_owner();
	test_processes();
	test_removed();
	test_race();
	rmdir(top);
	return done();
}
