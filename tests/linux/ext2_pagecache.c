/* The page cache of ext2 files (docs/pagecache.md), read side: an image
 * mke2fs -d made on the host (tests/harness/ext2-images' cache-4k.img,
 * a 4 MiB file of records) mounted read-only through a loop device.
 * Reads leave the pages resident (mincore), drop_caches drops the ones
 * nothing maps and the data reads back, read() and a shared mapping
 * agree, readers race drop_caches, and umount drops the instance's pages.
 * On fdkernel only: /proc/meminfo's Cached follows each step exactly
 * (the host's moves with everything else it runs).  On the host as root
 * when it loop-mounts ext2 (else SKIP). */
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
#define MS_RDONLY 1UL
int mount(const char *source, const char *target, const char *type, unsigned long flags,
	  const void *data);
int umount(const char *target);

#define DATA_SIZE (4 << 20)
#define NPAGES	  (DATA_SIZE / 4096)

static char mnt[64], data[128];

/* The first record that differs from "%07d\n" in buf (len bytes at
 * file offset off, both multiples of 8), or -1. */
static long bad_record(const char *buf, size_t len, size_t off)
{
	char want[9];

	for (size_t i = 0; i < len; i += 8) {
		snprintf(want, sizeof want, "%07zu\n", (off + i) / 8);
		if (memcmp(buf + i, want, 8))
			return (long)((off + i) / 8);
	}
	return -1;
}

/* Reads the whole file with read(): the first bad record, or -2 on a
 * short read. */
static long read_whole(void)
{
	static char buf[DATA_SIZE];
	int fd = open(data, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf) : -1;

	close(fd);
	return n == DATA_SIZE ? bad_record(buf, DATA_SIZE, 0) : -2;
}

/* Pages of the file in memory, through a fresh mapping that touches none. */
static int resident(void)
{
	static unsigned char vec[NPAGES];
	int fd = open(data, O_RDONLY), n = -1;
	void *p = fd >= 0 ? mmap(NULL, DATA_SIZE, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;

	if (p != MAP_FAILED && mincore(p, DATA_SIZE, vec) == 0)
		for (int i = n = 0; i < NPAGES; i++)
			n += vec[i] & 1;
	if (p != MAP_FAILED)
		munmap(p, DATA_SIZE);
	close(fd);
	return n;
}

static void check_read_and_drop(void)
{
	long before = meminfo_kb("Cached"), after;

	ok(write_text("/proc/sys/vm/drop_caches", "1") == 0, "drop_caches 1");
	is_int(resident(), 0, "a fresh mount's file: no page resident");
	is_int(read_whole(), -1, "read() gives the whole file, record by record");
	is_int(resident(), NPAGES, "... and leaves all %d pages resident", NPAGES);
	after = meminfo_kb("Cached");
	if (on_fdkernel())
		ok(after - before >= DATA_SIZE / 1024, "meminfo Cached rose by the file (%ld kB)",
		   after - before);
	else
		skip("the host's Cached moves with everything else", "meminfo Cached rose");
	ok(write_text("/proc/sys/vm/drop_caches", "3") == 0, "drop_caches 3");
	is_int(resident(), 0, "... drops the file's pages");
	if (on_fdkernel())
		ok(after - meminfo_kb("Cached") >= DATA_SIZE / 1024,
		   "... and Cached falls by the file");
	else
		skip("the host's Cached moves with everything else", "Cached falls");
	is_int(read_whole(), -1, "the file reads back whole after the drop");
}

static void check_mapping(void)
{
	static char buf[DATA_SIZE];
	int fd = open(data, O_RDONLY);
	char *p = mmap(NULL, DATA_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	volatile char sum = 0;

	require(p != MAP_FAILED, "mmap of the file");
	write_text("/proc/sys/vm/drop_caches", "1");
	is_int(bad_record(p + DATA_SIZE / 2, DATA_SIZE / 2, DATA_SIZE / 2), -1,
	       "a shared mapping reads the file's second half (from the disk)");
	ok(pread(fd, buf, DATA_SIZE, 0) == DATA_SIZE && !memcmp(buf, p, DATA_SIZE),
	   "read() and the mapping agree on every byte");
	for (int i = 0; i < DATA_SIZE; i += 4096)
		sum += p[i];
	write_text("/proc/sys/vm/drop_caches", "1");
	is_int(resident(), NPAGES, "drop_caches leaves the pages a process maps");
	is_errno(write_text("/proc/sys/vm/drop_caches", "0"), EINVAL, "drop_caches 0: EINVAL");
	is_errno(write_text("/proc/sys/vm/drop_caches", "-1"), EINVAL, "drop_caches -1: EINVAL");
	munmap(p, DATA_SIZE);
	close(fd);
	(void)sum;
}

/* Two readers read the file whole while drop_caches drops it under them:
 * every read sees every record. */
static void check_race(void)
{
	int rounds = on_fdkernel() ? 20 : 2, status, bad = 0;
	pid_t kids[2];

	for (int k = 0; k < 2; k++)
		if ((kids[k] = fork()) == 0) {
			for (int i = 0; i < rounds; i++)
				if (read_whole() != -1)
					_exit(1);
			_exit(0);
		}
	for (int i = 0; i < rounds; i++)
		write_text("/proc/sys/vm/drop_caches", "1");
	for (int k = 0; k < 2; k++)
		bad += waitpid(kids[k], &status, 0) != kids[k] || !exited_with(status, 0);
	is_int(bad, 0, "two readers racing drop_caches see every record");
}

int main(int argc, char **argv)
{
	char self[256], img[320], dev[32];
	long before;
	int lfd;

	(void)argc;
	snprintf(self, sizeof self, "%s", argv[0]);
	snprintf(img, sizeof img, "%s/ext2/cache-4k.img", dirname(self));
	snprintf(mnt, sizeof mnt, "/tmp/ext2_pagecache.%d", getpid());
	snprintf(data, sizeof data, "%s/data", mnt);
	if (access("/dev/loop-control", F_OK) || geteuid() != 0)
		skip_all("no /dev/loop-control, or not root");
	require(mkdir(mnt, 0755) == 0, "a mount point");
	before = meminfo_kb("Cached");
	lfd = loop_bind(img, LO_FLAGS_READ_ONLY, dev, sizeof dev);
	if (mount(dev, mnt, "ext2", MS_RDONLY, NULL)) {
		ioctl(lfd, LOOP_CLR_FD, 0);
		close(lfd);
		rmdir(mnt);
		skip_all("this kernel does not mount ext2 from a loop device");
	}
	plan(18);
	check_read_and_drop();
	check_mapping();
	check_race();
	is_int(read_whole(), -1, "the file reads whole after the race");
	ok(umount(mnt) == 0, "umount");
	/* Cleared first: a bound loop device's /sys/block/loopN/loop files
	 * are ramfs pages, which Cached counts too (proc/sysinfo.c). */
	ioctl(lfd, LOOP_CLR_FD, 0);
	close(lfd);
	if (on_fdkernel())
		ok(meminfo_kb("Cached") <= before,
		   "umount drops the instance's pages (Cached %ld -> %ld kB)", before,
		   meminfo_kb("Cached"));
	else
		skip("the host's Cached moves with everything else", "umount drops the pages");
	rmdir(mnt);
	return done();
}
