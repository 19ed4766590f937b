/* ext2 in both guests: fdkernel's against Linux 6.1's (its ext4 driver
 * serving ext2), on the same kind of disk: a file system mke2fs makes
 * anew (-t ext2 -b 4096, 256 MiB) on a loop device over a file in /tmp,
 * so the rows count the file system, the page cache and the block layer,
 * never a device's timing.  Setup (mke2fs, mount) is not counted.
 *   ext2_create_fsync   us per file: create, write 4 KiB, fsync, close
 *                       (1000 files in a fresh directory)
 *   ext2_tree           us per file: an unpacked tarball's tree, 20
 *                       directories of 50 files of 1-16 KiB, then syncfs
 *   ext2_stat           us per stat of those 1000 files (cached)
 *   ext2_unlink         us per unlink of them, then syncfs
 *   ext2_write_64MiB    MB/s: 64 KiB writes to a new file, then fsync
 *   ext2_read_64MiB_cold   MB/s: the file read after drop_caches
 *   ext2_read_64MiB_cached MB/s: read again from the page cache
 * Skipped where there is no loop device, mke2fs or ext2. */
#include <fcntl.h>
#include <fdkernel.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "../../kernel/uapi/blkdev.h"

#define IMG	 "/tmp/bench_ext2.img"
#define MNT	 "/tmp/bench_ext2"
#define IMG_SIZE (256LL << 20)
#define NFILES	 1000
#define BIG	 (64 << 20)
#define CHUNK	 (64 * 1024)
#define REPS	 3

extern char **environ;
static char buf[CHUNK];

static const char rows[] = "ext2_create_fsync,ext2_tree,ext2_stat,ext2_unlink,ext2_write_64MiB,"
			   "ext2_read_64MiB_cold,ext2_read_64MiB_cached";

static const char *at(const char *fmt, int a, int b)
{
	static char path[96];

	snprintf(path, sizeof path, fmt, a, b);
	return path;
}

static double us_per(uint64_t start, int n)
{
	return (double)(bench_now_ns() - start) / 1000.0 / n;
}

static bool write_file(const char *path, size_t len, bool sync)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	bool good = fd >= 0 && write(fd, buf, len) == (ssize_t)len &&
		    (!sync || syscall(__NR_fsync, fd) == 0);

	return close(fd) == 0 && good;
}

static bool syncfs_mnt(void)
{
	int fd = open(MNT, O_RDONLY);
	bool good = fd >= 0 && syscall(__NR_syncfs, fd) == 0;

	close(fd);
	return good;
}

static double create_fsync_rep(const char *name, void *arg)
{
	uint64_t start;

	(void)arg;
	if (mkdir(MNT "/c", 0755) < 0)
		return bench_fail(name, "mkdir: %s", strerror(errno)), -1;
	start = bench_now_ns();
	for (int i = 0; i < NFILES; i++)
		if (!write_file(at(MNT "/c/f%d", i, 0), 4096, true))
			return bench_fail(name, "file %d: %s", i, strerror(errno)), -1;
	double v = us_per(start, NFILES);
	for (int i = 0; i < NFILES; i++)
		unlink(at(MNT "/c/f%d", i, 0));
	rmdir(MNT "/c");
	return syncfs_mnt() ? v : -1;
}

/* The tree of ext2_tree, ext2_stat and ext2_unlink: 20 x 50 files. */
static bool make_tree(void)
{
	if (mkdir(MNT "/t", 0755) < 0)
		return false;
	for (int d = 0; d < NFILES / 50; d++) {
		if (mkdir(at(MNT "/t/d%d", d, 0), 0755) < 0)
			return false;
		for (int f = 0; f < 50; f++)
			if (!write_file(at(MNT "/t/d%d/f%d", d, f),
					1024 + (d * 50 + f) * 997 % 15360, false))
				return false;
	}
	return syncfs_mnt();
}

static bool remove_tree(void)
{
	bool good = true;

	for (int d = 0; d < NFILES / 50; d++) {
		for (int f = 0; f < 50; f++)
			good &= unlink(at(MNT "/t/d%d/f%d", d, f)) == 0;
		good &= rmdir(at(MNT "/t/d%d", d, 0)) == 0;
	}
	good &= rmdir(MNT "/t") == 0;
	return syncfs_mnt() && good;
}

static double tree_rep(const char *name, void *arg)
{
	uint64_t start = bench_now_ns();
	double v;

	(void)arg;
	if (!make_tree())
		return bench_fail(name, "tree: %s", strerror(errno)), -1;
	v = us_per(start, NFILES);
	return remove_tree() ? v : (bench_fail(name, "removal: %s", strerror(errno)), -1);
}

static double stat_rep(const char *name, void *arg)
{
	struct stat st;
	uint64_t start = bench_now_ns();

	(void)arg;
	for (int i = 0; i < NFILES; i++)
		if (stat(at(MNT "/t/d%d/f%d", i / 50, i % 50), &st) < 0)
			return bench_fail(name, "stat: %s", strerror(errno)), -1;
	return us_per(start, NFILES);
}

static double unlink_rep(const char *name, void *arg)
{
	uint64_t start;
	double v;

	(void)arg;
	if (!make_tree())
		return bench_fail(name, "tree: %s", strerror(errno)), -1;
	start = bench_now_ns();
	if (!remove_tree())
		return bench_fail(name, "removal: %s", strerror(errno)), -1;
	v = us_per(start, NFILES);
	return v;
}

static double write_rep(const char *name, void *arg)
{
	int fd = open(MNT "/big", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	uint64_t start = bench_now_ns();

	(void)arg;
	for (int off = 0; fd >= 0 && off < BIG; off += CHUNK)
		if (write(fd, buf, CHUNK) != CHUNK)
			break;
	if (fd < 0 || syscall(__NR_fsync, fd) < 0 || lseek(fd, 0, SEEK_CUR) != BIG)
		return bench_fail(name, "write: %s", strerror(errno)), close(fd), -1;
	close(fd);
	return (double)BIG * 1000 / (double)(bench_now_ns() - start);
}

static double read_rep(const char *name, void *arg)
{
	bool cold = *(bool *)arg;
	int fd, dc;
	uint64_t start;

	if (cold) { /* clean pages only: the file was fsync'd */
		dc = open("/proc/sys/vm/drop_caches", O_WRONLY);
		if (dc < 0 || write(dc, "3", 1) != 1)
			return bench_fail(name, "drop_caches: %s", strerror(errno)), close(dc), -1;
		close(dc);
	}
	fd = open(MNT "/big", O_RDONLY);
	start = bench_now_ns();
	for (int off = 0; fd >= 0 && off < BIG; off += CHUNK)
		if (read(fd, buf, CHUNK) != CHUNK)
			return bench_fail(name, "read: %s", strerror(errno)), close(fd), -1;
	if (fd < 0)
		return bench_fail(name, "open: %s", strerror(errno)), -1;
	close(fd);
	return (double)BIG * 1000 / (double)(bench_now_ns() - start);
}

/* mke2fs on the image: whether it worked. */
static bool mkfs(void)
{
	char *argv[] = {"/sbin/mke2fs", "-q", "-F", "-t", "ext2", "-b", "4096", IMG, NULL};
	int fd = open(IMG, O_RDWR | O_CREAT | O_TRUNC, 0600), status;
	pid_t pid;

	if (fd < 0 || ftruncate(fd, IMG_SIZE) < 0)
		return false;
	close(fd);
	if ((pid = fork()) == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		execve(argv[0], argv, environ);
		_exit(127);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0;
}

static void run_rows(void)
{
	bool cold = true, cached = false;

	bench_row("ext2_create_fsync", "us", REPS, create_fsync_rep, NULL);
	bench_row("ext2_tree", "us", REPS, tree_rep, NULL);
	if (make_tree()) {
		bench_row("ext2_stat", "us", REPS, stat_rep, NULL);
		remove_tree();
	}
	bench_row("ext2_unlink", "us", REPS, unlink_rep, NULL);
	bench_row("ext2_write_64MiB", "MB/s", REPS, write_rep, NULL);
	bench_row("ext2_read_64MiB_cold", "MB/s", REPS, read_rep, &cold);
	bench_row("ext2_read_64MiB_cached", "MB/s", REPS, read_rep, &cached);
}

int main(void)
{
	int ctl, n = -1, dev = -1, back = -1;
	char path[32];

	bench_begin("bench_ext2", rows);
	memset(buf, 'e', sizeof buf);
	ctl = open("/dev/loop-control", O_RDWR);
	if (ctl < 0) {
		bench_skip_rows(rows, "no /dev/loop-control");
		return bench_end();
	}
	if (access("/sbin/mke2fs", X_OK) || !mkfs()) {
		bench_skip_rows(rows, "no mke2fs, or it failed");
		close(ctl);
		unlink(IMG);
		return bench_end();
	}
	n = syscall(__NR_ioctl, ctl, LOOP_CTL_GET_FREE, 0L);
	snprintf(path, sizeof path, "/dev/loop%d", n);
	back = open(IMG, O_RDWR);
	dev = n >= 0 ? open(path, O_RDWR) : -1;
	mkdir(MNT, 0755);
	if (back < 0 || dev < 0 || syscall(__NR_ioctl, dev, LOOP_SET_FD, (long)back) < 0 ||
	    syscall(__NR_mount, path, MNT, "ext2", 0L, NULL) < 0) {
		bench_skip_rows(rows, "no loop device or no ext2");
	} else {
		run_rows();
		syscall(__NR_umount2, MNT, 0L);
	}
	if (dev >= 0) {
		syscall(__NR_ioctl, dev, LOOP_CLR_FD, 0L);
		close(dev);
	}
	if (back >= 0)
		close(back);
	rmdir(MNT);
	unlink(IMG);
	close(ctl);
	return bench_end();
}
