/* The page cache's write side on ext2 (docs/pagecache.md): a copy of
 * tests/harness/ext2-images' cache-4k.img (a 4 MiB file of records)
 * mounted read-write through a loop device.  write() and a shared
 * mapping see each other's bytes; msync, fsync and umount put them on
 * the disk (a remount reads them back, drop_caches too); truncation
 * drops pages and zeroes the tail; a reader racing truncations sees
 * records or zeroes, never anything else; two writers of one file; a
 * reader keeps an unlinked file whole.  On fdkernel only: meminfo's Dirty
 * rises after a write and falls after sync, and vm/dirty_ratio 0 makes a
 * writer write back at once.  On the host as root when it
 * loop-mounts ext2 (else SKIP). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "blk_util.h"
#include "testutil.h"

/* <sys/mount.h> would redefine blk_util.h's BLK* requests. */
int mount(const char *source, const char *target, const char *type, unsigned long flags,
	  const void *data);
int umount(const char *target);

#define DATA_SIZE (4 << 20)

static char mnt[64], img[128], dev[32];
static int lfd = -1;

static const char *at(const char *name)
{
	static char buf[256];

	snprintf(buf, sizeof buf, "%s/%s", mnt, name);
	return buf;
}

/* Whether the 8 bytes at file offset off are its record. */
static bool is_record(const char *p, uint64_t off)
{
	char want[24];

	snprintf(want, sizeof want, "%07llu\n", (unsigned long long)(off / 8));
	return !memcmp(p, want, 8);
}

static int do_mount(void)
{
	return mount(dev, mnt, "ext2", 0, NULL);
}

/* Copies the image (the original stays as built) and binds a loop device. */
static bool setup(const char *orig)
{
	static char buf[65536];
	int in = open(orig, O_RDONLY), out = open(img, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ssize_t n;

	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, n) != n)
			break;
	close(in);
	close(out);
	lfd = loop_bind(img, 0, dev, sizeof dev);
	return do_mount() == 0;
}

static void check_coherence(void)
{
	char buf[16];
	int fd = open(at("data"), O_RDWR);
	char *p = mmap(NULL, DATA_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	require(p != MAP_FAILED, "a shared writable mapping of the file");
	ok(pwrite(fd, "HELLO-W!", 8, 8192) == 8 && !memcmp(p + 8192, "HELLO-W!", 8),
	   "write() is seen through a shared mapping");
	memcpy(p + 12288, "STORED!\n", 8);
	ok(pread(fd, buf, 8, 12288) == 8 && !memcmp(buf, "STORED!\n", 8),
	   "a store through the mapping is seen by read()");
	is_int(msync(p, DATA_SIZE, MS_SYNC), 0, "msync(MS_SYNC)");
	memcpy(p + 16384, "LATER!!\n", 8); /* only umount writes this one */
	munmap(p, DATA_SIZE);
	is_int(fsync(fd), 0, "fsync");
	is_int(fdatasync(fd), 0, "fdatasync");
	close(fd);
}

static void check_dirty(void)
{
	static char buf[1 << 20];
	int fd = open(at("new"), O_RDWR | O_CREAT | O_TRUNC, 0644);
	long before = meminfo_kb("Dirty"), after;

	memset(buf, 'x', sizeof buf);
	ok(write(fd, buf, sizeof buf) == (ssize_t)sizeof buf, "a 1 MiB write to a new file");
	after = meminfo_kb("Dirty");
	if (on_fdkernel())
		ok(after - before >= 1024, "meminfo Dirty rose by it (%ld -> %ld kB)", before,
		   after);
	else
		skip("the host's Dirty moves with everything else", "Dirty rose");
	sync();
	if (on_fdkernel())
		ok(meminfo_kb("Dirty") < 64, "sync brings Dirty down (%ld kB)",
		   meminfo_kb("Dirty"));
	else
		skip("the host's Dirty moves with everything else", "Dirty fell");
	is_errno(write_text("/proc/sys/vm/dirty_ratio", "101"), EINVAL,
		 "vm/dirty_ratio 101: EINVAL");
	if (on_fdkernel()) { /* the host's setting is the host's */
		ok(write_text("/proc/sys/vm/dirty_ratio", "0") == 0 &&
		       pwrite(fd, buf, 65536, 0) == 65536 && meminfo_kb("Dirty") < 64 &&
		       write_text("/proc/sys/vm/dirty_ratio", "20") == 0,
		   "dirty_ratio 0: a writer writes its pages back at once");
	} else {
		skip("the host's setting is the host's", "dirty_ratio 0");
	}
	is_int(sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE), 0, "sync_file_range");
	is_int(syncfs(fd), 0, "syncfs");
	close(fd);
}

static void check_truncate(void)
{
	char buf[8192], zero[8192] = {0};
	int fd = open(at("trunc"), O_RDWR | O_CREAT | O_TRUNC, 0644);
	struct stat st;

	memset(buf, 'y', sizeof buf);
	ok(write(fd, buf, sizeof buf) == (ssize_t)sizeof buf && ftruncate(fd, 5000) == 0,
	   "8 KiB written, truncated to 5000");
	ok(ftruncate(fd, 12000) == 0 && fstat(fd, &st) == 0 && st.st_size == 12000,
	   "... extended to 12000");
	ok(pread(fd, buf, sizeof buf, 5000) == 7000 && !memcmp(buf, zero, 7000),
	   "... the bytes past 5000 read as zeroes");
	close(fd);
}

/* A reader of the data file while the parent truncates it and writes its
 * records back: every record read is the record or zeroes. */
static void check_truncate_race(void)
{
	int rounds = on_fdkernel() ? 10 : 3, status;
	pid_t kid = fork();

	if (kid == 0) {
		static char buf[65536];
		int fd = open(at("data"), O_RDONLY);

		for (int i = 0; i < rounds * 40; i++) {
			off_t off = (off_t)(i * 131072) % DATA_SIZE;
			ssize_t n = pread(fd, buf, sizeof buf, off);

			for (ssize_t j = 0; j + 8 <= n; j += 8)
				if (!is_record(buf + j, off + j) &&
				    memcmp(buf + j, "\0\0\0\0\0\0\0\0", 8) && off + j != 8192 &&
				    off + j != 12288 && off + j != 16384)
					_exit(1);
		}
		_exit(0);
	}
	static char rec[DATA_SIZE / 2];
	int fd = open(at("data"), O_RDWR), bad = 0;

	ok(pread(fd, rec, sizeof rec, DATA_SIZE / 2) == (ssize_t)sizeof rec,
	   "the file's second half read");
	for (int i = 0; i < rounds; i++)
		bad += ftruncate(fd, DATA_SIZE / 2) ||
		       pwrite(fd, rec, sizeof rec, DATA_SIZE / 2) != (ssize_t)sizeof rec;
	close(fd);
	ok(!bad && waitpid(kid, &status, 0) == kid && exited_with(status, 0),
	   "a reader racing truncations sees records or zeroes");
}

/* Two writers, each writing every other 4 KiB of one new file. */
static void check_two_writers(void)
{
	int fd = open(at("two"), O_RDWR | O_CREAT | O_TRUNC, 0644), status, bad = 0;
	static char buf[1 << 20];
	pid_t kids[2];

	for (int k = 0; k < 2; k++)
		if ((kids[k] = fork()) == 0) {
			char page[4096];

			memset(page, 'a' + k, sizeof page);
			for (int i = k; i < 256; i += 2)
				if (pwrite(fd, page, sizeof page, (off_t)i * 4096) !=
				    (ssize_t)sizeof page)
					_exit(1);
			_exit(0);
		}
	for (int k = 0; k < 2; k++)
		bad += waitpid(kids[k], &status, 0) != kids[k] || !exited_with(status, 0);
	ok(!bad && pread(fd, buf, sizeof buf, 0) == (ssize_t)sizeof buf, "two writers: 1 MiB");
	for (int i = 0; i < 256 && !bad; i++)
		for (int j = 0; j < 4096; j++)
			bad += buf[i * 4096 + j] != 'a' + i % 2;
	is_int(bad, 0, "... each 4 KiB is its writer's");
	close(fd);
}

/* A reader of a file another process unlinks keeps reading all of it. */
static void check_unlink_reader(void)
{
	static char buf[1 << 20];
	int fd = open(at("big"), O_RDWR | O_CREAT | O_TRUNC, 0644), status, bad = 0;
	pid_t kid;

	memset(buf, 'z', sizeof buf);
	for (int i = 0; i < 2; i++)
		bad += write(fd, buf, sizeof buf) != (ssize_t)sizeof buf;
	fsync(fd);
	lseek(fd, 0, SEEK_SET);
	if ((kid = fork()) == 0)
		_exit(unlink(at("big")) ? 1 : 0);
	for (int i = 0; i < 2; i++) {
		bad += read(fd, buf, sizeof buf) != (ssize_t)sizeof buf;
		for (size_t j = 0; j < sizeof buf; j++)
			bad += buf[j] != 'z';
	}
	ok(!bad && waitpid(kid, &status, 0) == kid && exited_with(status, 0),
	   "a reader keeps all of a file another process unlinked");
	close(fd);
	is_errno(access(at("big"), F_OK), ENOENT, "... which is gone by name");
}

static void check_after_remount(void)
{
	char buf[16];
	int fd;

	ok(umount(mnt) == 0 && do_mount() == 0, "umount and mount again");
	fd = open(at("data"), O_RDONLY);
	ok(pread(fd, buf, 8, 8192) == 8 && !memcmp(buf, "HELLO-W!", 8),
	   "write()'s bytes are on the disk");
	ok(pread(fd, buf, 8, 12288) == 8 && !memcmp(buf, "STORED!\n", 8),
	   "the store msync wrote is on the disk");
	ok(pread(fd, buf, 8, 16384) == 8 && !memcmp(buf, "LATER!!\n", 8),
	   "the store only umount wrote is on the disk");
	ok(pread(fd, buf, 8, DATA_SIZE - 8) == 8 && is_record(buf, DATA_SIZE - 8),
	   "the rewritten second half is too");
	close(fd);
	ok(write_text("/proc/sys/vm/drop_caches", "3") == 0, "drop_caches");
	fd = open(at("two"), O_RDONLY);
	ok(pread(fd, buf, 8, 4096) == 8 && !memcmp(buf, "bbbbbbbb", 8),
	   "the two writers' file reads back from the disk");
	close(fd);
}

int main(int argc, char **argv)
{
	char self[256], orig[320];

	(void)argc;
	snprintf(self, sizeof self, "%s", argv[0]);
	snprintf(orig, sizeof orig, "%s/ext2/cache-4k.img", dirname(self));
	snprintf(mnt, sizeof mnt, "/tmp/ext2_wb.%d", getpid());
	snprintf(img, sizeof img, "/tmp/ext2_wb.%d.img", getpid());
	if (access("/dev/loop-control", F_OK) || geteuid() != 0)
		skip_all("no /dev/loop-control, or not root");
	require(mkdir(mnt, 0755) == 0, "a mount point");
	if (!setup(orig)) {
		ioctl(lfd, LOOP_CLR_FD, 0);
		close(lfd);
		rmdir(mnt);
		unlink(img);
		skip_all("this kernel does not mount ext2 read-write from a loop device");
	}
	plan(29);
	check_coherence();
	check_dirty();
	check_truncate();
	check_truncate_race();
	check_two_writers();
	check_unlink_reader();
	check_after_remount();
	ok(umount(mnt) == 0, "umount");
	ioctl(lfd, LOOP_CLR_FD, 0);
	close(lfd);
	rmdir(mnt);
	unlink(img);
	return done();
}
