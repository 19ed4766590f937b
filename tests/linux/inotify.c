/* inotify through musl: the calls' flags and errno, the events of every
 * file operation in a scratch directory (names, cookies, IN_ISDIR, the
 * watched object's own events), coalescing, IN_ONESHOT, IN_MASK_ADD,
 * IN_MASK_CREATE, IN_EXCL_UNLINK, short reads, FIONREAD, poll, the
 * overflow event, and hostile teardown: watched files removed, the fd
 * closed under a blocked reader and a writer. */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/time.h>

#include "inotify_events.h"
#include "testutil.h"

#ifndef IN_MASK_CREATE
#define IN_MASK_CREATE 0x10000000
#endif
#define IN_CLOFORK 040000000 /* fdkernel's (kernel/uapi/inotify.h) */
#define LIMITS	   "/proc/sys/fs/inotify/"

static char dir[64];

/* dir/name into a static buffer. */
static const char *at(const char *name)
{
	static char path[2][128];
	static int i;

	i ^= 1;
	snprintf(path[i], sizeof path[i], "%s/%s", dir, name);
	return path[i];
}

static int watcher(void)
{
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	require(fd >= 0, "inotify_init1");
	return fd;
}

static void test_init(void)
{
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC), p[2];

	ok(fd >= 0 && fcntl(fd, F_GETFD) == FD_CLOEXEC &&
	       (fcntl(fd, F_GETFL) & (O_NONBLOCK | O_ACCMODE)) == (O_NONBLOCK | O_RDONLY),
	   "inotify_init1(IN_NONBLOCK | IN_CLOEXEC): read-only, non-blocking, close-on-exec");
	is_errno(read(fd, (char[64]){0}, 64), EAGAIN, "nothing queued: EAGAIN");
	close(fd);
	fd = inotify_init();
	ok(fd >= 0 && fcntl(fd, F_GETFD) == 0 && !(fcntl(fd, F_GETFL) & O_NONBLOCK),
	   "inotify_init: no flags");
	close(fd);
	is_errno(inotify_init1(1), EINVAL, "an unknown flag: EINVAL");
	if (on_fdkernel()) {
		fd = inotify_init1(IN_CLOFORK);
		is_int(fcntl(fd, F_GETFD), 2, "fdkernel: IN_CLOFORK gives FD_CLOFORK");
		close(fd);
	} else {
		skip("fdkernel's", "IN_CLOFORK");
	}
	fd = watcher();
	require(pipe(p) == 0, "pipe");
	is_errno(inotify_add_watch(fd, dir, 0), EINVAL, "an empty mask: EINVAL");
	is_errno(inotify_add_watch(fd, dir, IN_MODIFY | IN_MASK_ADD | IN_MASK_CREATE), EINVAL,
		 "IN_MASK_ADD with IN_MASK_CREATE: EINVAL");
	is_errno(inotify_add_watch(-1, dir, IN_MODIFY), EBADF, "a bad fd: EBADF");
	is_errno(inotify_add_watch(p[0], dir, IN_MODIFY), EINVAL, "a pipe: EINVAL");
	is_errno(inotify_add_watch(fd, at("none"), IN_MODIFY), ENOENT, "a missing path: ENOENT");
	is_errno(inotify_add_watch(fd, NULL, IN_MODIFY), EFAULT, "a NULL path: EFAULT");
	is_errno(inotify_add_watch(fd, "/dev/null", IN_MODIFY | IN_ONLYDIR), ENOTDIR,
		 "IN_ONLYDIR on a file: ENOTDIR");
	is_errno(inotify_rm_watch(fd, 1), EINVAL, "rm_watch of no watch: EINVAL");
	is_errno(inotify_rm_watch(p[0], 1), EINVAL, "rm_watch on a pipe: EINVAL");
	is_errno(inotify_rm_watch(-1, 1), EBADF, "rm_watch on a bad fd: EBADF");
	int wd = inotify_add_watch(fd, dir, IN_CREATE);
	ok(wd == 1 && inotify_add_watch(fd, dir, IN_DELETE) == 1, "the same inode: the same wd, 1");
	is_errno(inotify_add_watch(fd, dir, IN_DELETE | IN_MASK_CREATE), EEXIST,
		 "IN_MASK_CREATE on a watched inode: EEXIST");
	close(open(at("f"), O_CREAT | O_WRONLY, 0600));
	unlink(at("f"));
	is(events(fd), "200:f", "replaced mask: IN_DELETE only");
	inotify_add_watch(fd, dir, IN_CREATE | IN_MASK_ADD);
	close(open(at("f"), O_CREAT | O_WRONLY, 0600));
	unlink(at("f"));
	is(events(fd), "100:f 200:f", "IN_MASK_ADD: both");
	ok(inotify_rm_watch(fd, wd) == 0, "rm_watch");
	is(events(fd), "8000", "IN_IGNORED follows");
	is_errno(inotify_rm_watch(fd, wd), EINVAL, "rm_watch twice: EINVAL");
	close(p[0]);
	close(p[1]);
	close(fd);
}

/* Every file operation in dir: the directory's events, the file's own. */
static void test_events(void)
{
	int fd = watcher(), f, wd2;
	char c;
	struct timeval tv[2] = {{1, 0}, {2, 0}};

	inotify_add_watch(fd, dir, IN_ALL_EVENTS);
	f = open(at("a"), O_CREAT | O_WRONLY, 0600);
	is(events(fd), "100:a 20:a", "create: IN_CREATE, IN_OPEN");
	wd2 = inotify_add_watch(fd, at("a"), IN_ALL_EVENTS);
	is_int(wd2, 2, "a second watch gets wd 2");
	write(f, "x", 1);
	write(f, "y", 1);
	is(events(fd), "2:a 2@2 2:a 2@2",
	   "two writes: IN_MODIFY to the directory first, then the file");
	close(f);
	is(events(fd), "8:a 8@2", "close after writing: IN_CLOSE_WRITE");
	f = open(at("a"), O_RDONLY);
	read(f, &c, 1);
	close(f);
	is(events(fd), "20:a 20@2 1:a 1@2 10:a 10@2",
	   "open, read, close: OPEN, ACCESS, CLOSE_NOWRITE");
	chmod(at("a"), 0644);
	is(events(fd), "4:a 4@2", "chmod: IN_ATTRIB to both");
	utimes(at("a"), tv);
	is(events(fd), "4:a 4@2", "utimes: IN_ATTRIB");
	truncate(at("a"), 0);
	is(events(fd), "2:a 2@2", "truncate: IN_MODIFY");
	link(at("a"), at("l"));
	is(events(fd), "4@2 100:l", "link: IN_ATTRIB to the file, IN_CREATE");
	unlink(at("l"));
	is(events(fd), "4@2 200:l", "unlink of one name: IN_ATTRIB, IN_DELETE");
	rename(at("a"), at("b"));
	is(events(fd), "40:a# 80:b# 800@2",
	   "rename: MOVED_FROM and MOVED_TO with a cookie, MOVE_SELF");
	mkdir(at("d"), 0700);
	rmdir(at("d"));
	is(events(fd), "40000100:d 40000200:d", "mkdir, rmdir: IN_ISDIR");
	symlink("b", at("s"));
	unlink(at("s"));
	is(events(fd), "100:s 200:s", "symlink and its removal");
	unlink(at("b"));
	is(events(fd), "4@2 400@2 8000@2 200:b",
	   "unlink of the last name: ATTRIB, DELETE_SELF, IGNORED, then the directory's DELETE");
	close(fd);
}

/* The pairing cookie: MOVED_FROM and MOVED_TO carry the same one. */
static void test_cookie(void)
{
	int fd = watcher();
	char buf[512] __attribute__((aligned(8)));
	struct inotify_event *a = (void *)buf, *b;
	ssize_t n;

	close(open(at("c"), O_CREAT | O_WRONLY, 0600));
	inotify_add_watch(fd, dir, IN_MOVE);
	mkdir(at("sub"), 0700);
	inotify_add_watch(fd, at("sub"), IN_MOVE);
	rename(at("c"), at("sub/c"));
	n = read(fd, buf, sizeof buf);
	b = (void *)(buf + sizeof *a + a->len);
	ok(n > 0 && a->mask == IN_MOVED_FROM && a->wd == 1 && b->mask == IN_MOVED_TO &&
	       b->wd == 2 && a->cookie && a->cookie == b->cookie && !strcmp(b->name, "c"),
	   "a move between two watched directories: one cookie");
	unlink(at("sub/c"));
	rmdir(at("sub"));
	close(fd);
}

static void test_read_rules(void)
{
	int fd = watcher(), n = -1;
	struct pollfd p = {fd, POLLIN, 0};
	char small[sizeof(struct inotify_event) + 4];

	inotify_add_watch(fd, dir, IN_CREATE);
	is_int(poll(&p, 1, 0), 0, "poll: nothing yet");
	close(open(at("abc"), O_CREAT | O_WRONLY, 0600));
	ok(poll(&p, 1, 0) == 1 && (p.revents & POLLIN), "poll: POLLIN with an event queued");
	ok(ioctl(fd, FIONREAD, &n) == 0 && n == (int)sizeof(struct inotify_event) + 16,
	   "FIONREAD: one record and its name padded to 16 bytes");
	is_errno(read(fd, small, sizeof small), EINVAL, "a buffer too small for it: EINVAL");
	is(events(fd), "100:abc", "the event is still there");
	unlink(at("abc"));
	close(fd);
}

static void test_oneshot_excl(void)
{
	int fd = watcher(), f;

	close(open(at("o"), O_CREAT | O_WRONLY, 0600));
	inotify_add_watch(fd, at("o"), IN_ATTRIB | IN_ONESHOT);
	chmod(at("o"), 0600);
	chmod(at("o"), 0644);
	is(events(fd), "4 8000", "IN_ONESHOT: one event, then IN_IGNORED");
	f = open(at("o"), O_WRONLY);
	inotify_add_watch(fd, dir, IN_MODIFY | IN_EXCL_UNLINK);
	unlink(at("o"));
	write(f, "x", 1);
	is(events(fd), "", "IN_EXCL_UNLINK: nothing from an unlinked child");
	inotify_add_watch(fd, dir, IN_MODIFY);
	write(f, "x", 1);
	is(events(fd), "2@2:o", "without it: the unlinked child's name still comes");
	close(f);
	close(fd);
}

/* A /proc/sys/fs/inotify value, or -1. */
static int limit_of(const char *name)
{
	char path[96], buf[32];

	snprintf(path, sizeof path, LIMITS "%s", name);
	return read_text(path, buf, sizeof buf) > 0 ? atoi(buf) : -1;
}

/* Sets one (fdkernel only: the host's are the host's): 0 or -1. */
static int set_limit(const char *name, int v)
{
	char path[96], buf[32];
	int fd, n = snprintf(buf, sizeof buf, "%d\n", v), ok;

	snprintf(path, sizeof path, LIMITS "%s", name);
	fd = open(path, O_WRONLY);
	ok = fd >= 0 && write(fd, buf, n) == n;
	close(fd);
	return ok ? 0 : -1;
}

static void test_limits(void)
{
	int fd = watcher(), other, was;

	ok(limit_of("max_user_instances") > 0 && limit_of("max_user_watches") > 0 &&
	       limit_of("max_queued_events") > 0,
	   "/proc/sys/fs/inotify: max_user_instances, max_user_watches, max_queued_events");
	if (!on_fdkernel()) {
		for (int i = 0; i < 3; i++)
			skip("fdkernel only: the host's limits are the host's",
			     "setting the limits");
		close(fd);
		return;
	}
	was = limit_of("max_user_watches");
	mkdir(at("x"), 0700);
	ok(set_limit("max_user_watches", 1) == 0 && inotify_add_watch(fd, dir, IN_CREATE) > 0 &&
	       inotify_add_watch(fd, at("x"), IN_CREATE) == -1 && errno == ENOSPC,
	   "max_user_watches 1: a second watch is ENOSPC");
	set_limit("max_user_watches", was);
	rmdir(at("x"));
	was = limit_of("max_user_instances");
	set_limit("max_user_instances", 1);
	other = inotify_init1(0);
	ok(other == -1 && errno == EMFILE, "max_user_instances 1: a second inotify fd is EMFILE");
	set_limit("max_user_instances", was);
	close(other);
	is_errno(set_limit("max_user_watches", -1), EINVAL, "a negative limit: EINVAL");
	close(fd);
}

static void test_overflow(void)
{
	int fd = watcher(), f, last = 0, total = 0, n, max = limit_of("max_queued_events");
	char buf[4096] __attribute__((aligned(8)));

	close(open(at("q"), O_CREAT | O_WRONLY, 0600));
	inotify_add_watch(fd, at("q"), IN_ACCESS | IN_MODIFY);
	f = open(at("q"), O_RDWR);
	for (int i = 0; i < max + 10; i++) /* alternating: nothing merges */
		i % 2 ? pwrite(f, "x", 1, 0) : pread(f, buf, 1, 0);
	while ((n = read(fd, buf, sizeof buf)) > 0)
		for (int i = 0; i < n; total++) {
			struct inotify_event *e = (void *)(buf + i);
			last = e->mask == IN_Q_OVERFLOW && e->wd == -1;
			i += sizeof *e + e->len;
		}
	ok(total == max + 1 && last,
	   "a full queue (max_queued_events, %d) ends with one IN_Q_OVERFLOW (wd -1): %d", max,
	   total);
	pwrite(f, "x", 1, 0);
	is(events(fd), "2", "read empty: events queue again");
	close(f);
	unlink(at("q"));
	close(fd);
}

static int blocked_fd, blocked_tid;

static void *blocked_reader(void *arg)
{
	char buf[256];

	(void)arg;
	__atomic_store_n(&blocked_tid, (int)gettid(), __ATOMIC_RELEASE);
	return (void *)(long)read(blocked_fd, buf, sizeof buf);
}

/* Waits until thread tid sleeps (its state in /proc is S): in its read. */
static void wait_sleeping(int tid)
{
	char path[64], stat[256] = "", *p;

	snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
	for (;;) {
		if (read_text(path, stat, sizeof stat) > 0 && (p = strrchr(stat, ')')) &&
		    p[2] == 'S')
			return;
		sched_yield();
	}
}

/* Hostile teardown: a watched directory removed, the fd closed while a
 * thread is blocked reading it and a child keeps writing the watched file. */
static void test_teardown(void)
{
	int fd = watcher(), f, status;
	pthread_t th;
	pid_t pid;
	void *ret;

	mkdir(at("t"), 0700);
	inotify_add_watch(fd, at("t"), IN_ALL_EVENTS);
	rmdir(at("t"));
	is(events(fd), "400 8000",
	   "a watched directory removed: DELETE_SELF (no IN_ISDIR), IGNORED");
	close(fd);

	fd = watcher();
	mkdir(at("m"), 0700);
	inotify_add_watch(fd, at("m"), IN_ALL_EVENTS);
	chmod(at("m"), 0750);
	rename(at("m"), at("n"));
	is(events(fd), "40000004 800",
	   "a watched directory: its ATTRIB has IN_ISDIR, its MOVE_SELF not");
	rmdir(at("n"));
	close(fd);

	blocked_fd = inotify_init1(0);
	close(open(at("w"), O_CREAT | O_WRONLY, 0600));
	inotify_add_watch(blocked_fd, at("w"), IN_MODIFY);
	pthread_create(&th, NULL, blocked_reader, NULL);
	while (!__atomic_load_n(&blocked_tid, __ATOMIC_ACQUIRE))
		sched_yield();
	wait_sleeping(blocked_tid);
	close(blocked_fd); /* the blocked read keeps the file */
	fflush(stdout);
	if ((pid = fork()) == 0) {
		f = open(at("w"), O_WRONLY);
		for (int i = 0; i < 2000; i++)
			write(f, "w", 1);
		_exit(0);
	}
	pthread_join(th, &ret);
	/* One IN_MODIFY record, or more if writes came between the wake-up
	 * and the copy (each read takes what is queued, as Linux's). */
	ok(waitpid(pid, &status, 0) == pid && exited_with(status, 0) && (long)ret > 0 &&
	       (long)ret % (long)sizeof(struct inotify_event) == 0,
	   "closed under a blocked reader and a writer: the read still gets its events");
	f = open(at("w"), O_WRONLY);
	fd = watcher();
	inotify_add_watch(fd, at("w"), IN_ALL_EVENTS);
	unlink(at("w"));
	is(events(fd), "4", "unlinked while open: IN_ATTRIB only, the file lives");
	close(f);
	is(events(fd), "8 400 8000", "its last close: CLOSE_WRITE, DELETE_SELF, IGNORED");
	close(fd);
}

/* busybox inotifyd reports a write to a watched file ("w" event). */
static void test_inotifyd(void)
{
	int out[2], status;
	char line[256] = "";
	pid_t pid;
	ssize_t n;

	char list[16384] = "", *argv[] = {"busybox", "--list", NULL}, *envp[] = {NULL};

	if (access("/bin/busybox", X_OK) ||
	    run_capture("/bin/busybox", argv, envp, list, sizeof list) ||
	    !strstr(list, "\ninotifyd\n")) {
		skip("busybox has no inotifyd (Debian's busybox-static leaves it out)", "inotifyd");
		return;
	}
	close(open(at("i"), O_CREAT | O_WRONLY, 0600));
	require(pipe(out) == 0, "pipe");
	fflush(stdout);
	char spec[160];
	snprintf(spec, sizeof spec, "%s:w", at("i"));
	if ((pid = fork()) == 0) {
		dup2(out[1], 1);
		execl("/bin/busybox", "inotifyd", "-", spec, (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	/* Until it watches: write now and then until the line comes. */
	struct pollfd p = {out[0], POLLIN, 0};
	for (int i = 0; i < 600 && poll(&p, 1, 0) == 0; i++) {
		int f = open(at("i"), O_WRONLY);
		write(f, "i", 1);
		close(f);
		sleep_ms(50);
	}
	n = read(out[0], line, sizeof line - 1);
	kill(pid, SIGTERM);
	waitpid(pid, &status, 0);
	char want[200];
	snprintf(want, sizeof want, "w\t%s\n", at("i"));
	ok(n > 0 && !strncmp(line, want, strlen(want)), "busybox inotifyd reports the write: %s",
	   n > 0 ? one_line(line) : "nothing");
	close(out[0]);
	unlink(at("i"));
}

int main(void)
{
	snprintf(dir, sizeof dir, "/tmp/inotify.%d", getpid());
	require(mkdir(dir, 0700) == 0, "mkdir");
	plan(57);
	test_init();
	test_events();
	test_cookie();
	test_read_rules();
	test_oneshot_excl();
	test_limits();
	test_overflow();
	test_teardown();
	test_inotifyd();
	rmdir(dir);
	return done();
}
