/* Inode metadata as stat shows it: umask (applied by open and mkdir,
 * inherited by fork), chmod/fchmod/fchmodat, the chown family (-1 keeps,
 * set-user-ID dropped), utimensat (UTIME_NOW, UTIME_OMIT, NULL, futimens,
 * bad nsec), mtime/ctime on write, truncate and chmod, st_nlink, and the
 * identity calls of a root process.  Runs in a scratch directory in /tmp. */
#include <sys/time.h>

#include "tap.h"
#include "vfs_util.h"

static long long ts_ns(struct timespec ts)
{
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static struct stat st_of(const char *path)
{
	struct stat st;
	memset(&st, 0, sizeof st);
	stat(path, &st);
	return st;
}

static void test_umask(void)
{
	int status;

	umask(022);
	is_int(umask(027), 022, "umask returns the previous mask");
	make_file("u_file", "x");
	is_int(st_of("u_file").st_mode & 07777, 0640,
	       "open(O_CREAT, 0644) under umask 027 gives 0640");
	require(mkdir("u_dir", 0777) == 0, "mkdir");
	is_int(st_of("u_dir").st_mode & 07777, 0750, "mkdir(0777) under umask 027 gives 0750");
	fflush(stdout);
	if (fork() == 0)
		_exit(umask(0) == 027 ? 0 : 1);
	wait(&status);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "a forked child inherits the umask");
	is_int(umask(022), 027, "the child's umask(0) did not change the parent's");
}

static void test_chmod(void)
{
	struct stat st;
	int fd;

	make_file("m_file", "data");
	ok(chmod("m_file", 04751) == 0 && (st_of("m_file").st_mode & 07777) == 04751,
	   "chmod sets the permission and set-user-ID bits");
	ok(S_ISREG(st_of("m_file").st_mode), "chmod keeps the file type");
	fd = open("m_file", O_RDONLY);
	ok(fchmod(fd, 0600) == 0 && fstat(fd, &st) == 0 && (st.st_mode & 07777) == 0600,
	   "fchmod on an open file, seen by fstat");
	close(fd);
	ok(fchmodat(AT_FDCWD, "m_file", 0644, 0) == 0 && (st_of("m_file").st_mode & 0777) == 0644,
	   "fchmodat relative to AT_FDCWD");
	ok(chmod("u_dir", 0700) == 0 && S_ISDIR(st_of("u_dir").st_mode) &&
	       (st_of("u_dir").st_mode & 0777) == 0700,
	   "chmod on a directory");
	is_errno(chmod("no_such_file", 0644), ENOENT, "chmod on a missing file: ENOENT");
	is_errno(chmod("m_file/x", 0644), ENOTDIR, "chmod through a file: ENOTDIR");
	is_errno(fchmod(-1, 0644), EBADF, "fchmod on a bad fd: EBADF");
}

static void test_chown(void)
{
	struct stat st;
	int fd;

	make_file("o_file", "data");
	ok(chown("o_file", 12, 34) == 0 && st_of("o_file").st_uid == 12 &&
	       st_of("o_file").st_gid == 34,
	   "chown stores the owner and group");
	ok(chown("o_file", -1, 56) == 0 && st_of("o_file").st_uid == 12 &&
	       st_of("o_file").st_gid == 56,
	   "chown with owner -1 keeps the owner");
	fd = open("o_file", O_RDONLY);
	ok(fchown(fd, 0, -1) == 0 && fstat(fd, &st) == 0 && st.st_uid == 0 && st.st_gid == 56,
	   "fchown with group -1 keeps the group");
	close(fd);
	ok(fchownat(AT_FDCWD, "o_file", 0, 0, 0) == 0 && st_of("o_file").st_gid == 0,
	   "fchownat relative to AT_FDCWD");
	require(chmod("o_file", 06755) == 0, "chmod 6755");
	ok(chown("o_file", 0, 0) == 0 && (st_of("o_file").st_mode & 07777) == 0755,
	   "chown clears set-user-ID and set-group-ID (group-executable) even for root");
	require(chmod("o_file", 02745) == 0, "chmod 2745");
	ok(chown("o_file", 0, 0) == 0 && (st_of("o_file").st_mode & 07777) == 02745,
	   "set-group-ID without group execute stays");
	require(chmod("u_dir", 06755) == 0, "chmod dir 6755");
	ok(chown("u_dir", 0, 0) == 0 && (st_of("u_dir").st_mode & 07777) == 06755,
	   "a directory keeps its set-ID bits");
	is_errno(chown("no_such_file", 0, 0), ENOENT, "chown on a missing file: ENOENT");
	is_errno(fchownat(AT_FDCWD, "o_file", 0, 0, 0x4000), EINVAL,
		 "fchownat with an unknown flag: EINVAL");
	is_errno(fchown(-1, 0, 0), EBADF, "fchown on a bad fd: EBADF");
}

static void test_utimensat(void)
{
	struct timespec ts[2] = {{1000000000, 123456789}, {1100000000, 5}};
	struct timeval tv[2] = {{1200000000, 7}, {1300000000, 999999}};
	struct timespec now;
	struct stat st;
	int fd;

	make_file("t_file", "x");
	ok(utimensat(AT_FDCWD, "t_file", ts, 0) == 0, "utimensat with explicit times");
	st = st_of("t_file");
	ok(st.st_atim.tv_sec == 1000000000 && st.st_atim.tv_nsec == 123456789 &&
	       st.st_mtim.tv_sec == 1100000000 && st.st_mtim.tv_nsec == 5,
	   "stat shows atime and mtime to the nanosecond");
	ts[0].tv_nsec = UAPI_UTIME_OMIT;
	ts[1] = (struct timespec){0, UAPI_UTIME_NOW};
	clock_gettime(CLOCK_REALTIME, &now);
	ok(utimensat(AT_FDCWD, "t_file", ts, 0) == 0, "utimensat with UTIME_OMIT and UTIME_NOW");
	st = st_of("t_file");
	ok(st.st_atim.tv_sec == 1000000000 && st.st_mtim.tv_sec >= now.tv_sec - 1 &&
	       st.st_mtim.tv_sec <= now.tv_sec + 5,
	   "UTIME_OMIT keeps atime, UTIME_NOW sets mtime to now");
	ok(utimensat(AT_FDCWD, "t_file", NULL, 0) == 0 &&
	       st_of("t_file").st_atim.tv_sec >= now.tv_sec - 1,
	   "utimensat with NULL times sets both to now");
	ts[0] = (struct timespec){5, 1000000000};
	is_errno(utimensat(AT_FDCWD, "t_file", ts, 0), EINVAL, "tv_nsec of 1e9: EINVAL");
	ts[0] = (struct timespec){5, -3};
	is_errno(utimensat(AT_FDCWD, "t_file", ts, 0), EINVAL, "negative tv_nsec: EINVAL");
	ts[0] = (struct timespec){5, UAPI_UTIME_OMIT};
	ts[1] = (struct timespec){5, UAPI_UTIME_OMIT};
	ok(utimensat(AT_FDCWD, "no_such_file", ts, 0) == 0,
	   "both UTIME_OMIT: success without even looking the path up");
	is_errno(utimensat(AT_FDCWD, "no_such_file", NULL, 0), ENOENT,
		 "utimensat on a missing file: ENOENT");
	is_errno(utimensat(AT_FDCWD, "t_file", NULL, 0x4000), EINVAL, "unknown flag: EINVAL");
	fd = open("t_file", O_RDONLY);
	ts[0] = (struct timespec){1400000000, 0};
	ts[1] = (struct timespec){1500000000, 0};
	ok(futimens(fd, ts) == 0 && fstat(fd, &st) == 0 && st.st_mtim.tv_sec == 1500000000,
	   "futimens on an open file");
	close(fd);
	is_errno(futimens(-1, NULL), EBADF, "futimens on a bad fd: EBADF");
	ok(utimes("t_file", tv) == 0 && st_of("t_file").st_atim.tv_nsec == 7000 &&
	       st_of("t_file").st_mtim.tv_nsec == 999999000,
	   "utimes takes microseconds");
	tv[0].tv_usec = 1000000;
	is_errno(utimes("t_file", tv), EINVAL, "utimes with tv_usec of 1e6: EINVAL");
}

/* Changes made after a pause must move the times forward. */
static void test_times_move(void)
{
	struct stat a, b;
	int fd = open("w_file", O_RDWR | O_CREAT | O_TRUNC, 0644);

	require(fd >= 0, "open w_file");
	fstat(fd, &a);
	sleep_ms(30);
	require(write(fd, "abc", 3) == 3, "write");
	fstat(fd, &b);
	ok(ts_ns(b.st_mtim) > ts_ns(a.st_mtim) && ts_ns(b.st_ctim) > ts_ns(a.st_ctim),
	   "write moves mtime and ctime");
	a = b;
	sleep_ms(30);
	require(ftruncate(fd, 1) == 0, "ftruncate");
	fstat(fd, &b);
	ok(ts_ns(b.st_mtim) > ts_ns(a.st_mtim) && ts_ns(b.st_ctim) > ts_ns(a.st_ctim),
	   "truncate moves mtime and ctime");
	a = b;
	sleep_ms(30);
	require(fchmod(fd, 0600) == 0, "fchmod");
	fstat(fd, &b);
	ok(ts_ns(b.st_mtim) == ts_ns(a.st_mtim) && ts_ns(b.st_ctim) > ts_ns(a.st_ctim),
	   "chmod moves ctime only");
	a = b;
	sleep_ms(30);
	require(fchown(fd, 0, 0) == 0, "fchown");
	fstat(fd, &b);
	ok(ts_ns(b.st_ctim) > ts_ns(a.st_ctim), "chown moves ctime");
	close(fd);
}

static void test_nlink(void)
{
	require(mkdir("n_dir", 0755) == 0, "mkdir n_dir");
	is_int(st_of("n_dir").st_nlink, 2, "a new directory has two links");
	require(mkdir("n_dir/sub", 0755) == 0, "mkdir n_dir/sub");
	is_int(st_of("n_dir").st_nlink, 3, "a subdirectory adds one (its ..)");
	make_file("n_dir/f", "");
	is_int(st_of("n_dir/f").st_nlink, 1, "a new file has one link");
	is_int(st_of("n_dir").st_nlink, 3, "a file adds none to its directory");
}

static void test_ids(void)
{
	gid_t groups[4];
	uid_t uid = getuid();
	gid_t gid = getgid();

	ok(geteuid() == uid && getegid() == gid, "euid and egid equal uid and gid");
	make_file("id_file", "");
	ok(st_of("id_file").st_uid == uid && st_of("id_file").st_gid == gid,
	   "a new file belongs to the caller");
	ok(setuid(uid) == 0 && setgid(gid) == 0, "setuid and setgid to the caller's own ids");
	ok(getgroups(4, groups) >= 0, "getgroups");
	if (uid != 0) {
		skip("not root", "a child that became uid 1000 cannot become root again");
		skip("not root", "root may set an empty group list");
		return;
	}
	pid_t pid = fork();
	if (pid == 0)
		_exit(setuid(1000) == 0 && getuid() == 1000 && setuid(0) == -1 && errno == EPERM
			  ? 0
			  : 1);
	int st;
	ok(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	   "a child that became uid 1000 cannot become root again");
	pid = fork();
	if (pid == 0)
		_exit(setgroups(0, groups) == 0 && getgroups(4, groups) == 0 ? 0 : 1);
	ok(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	   "root may set an empty group list");
}

int main(void)
{
	char dir[64];

	plan(51);
	scratch_enter("vfs_meta", dir, sizeof dir);
	test_umask();
	test_chmod();
	test_chown();
	test_utimensat();
	test_times_move();
	test_nlink();
	test_ids();
	scratch_leave(dir);
	return done();
}
