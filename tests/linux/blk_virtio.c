/* Raw I/O on the virtio disks the test harness attaches (tests/harness/
 * tests.mk): /dev/vda, a scratch disk of zeroes, and /dev/vdb, a small
 * read-only disk of 16-byte records "ro-block NNNNNN\n".  Patterns are
 * written at aligned and unaligned offsets, read back through the cache
 * and again from the device (BLKFLSBUF), synced; the end of the device
 * gives Linux's answers (EOF, ENOSPC, short transfers, EINVAL); the
 * read-only disk refuses writes (EPERM); several processes read at once;
 * a read from each CPU completes by an interrupt on that CPU (MSI-X, a
 * queue per CPU: /proc/interrupts); /dev/vdc, the read-only records
 * behind QEMU's error injector, fails the reads of its sector 64 with EIO
 * and goes on serving the others.
 * After QEMU exits the harness runs `blk_virtio --check IMAGE` on the
 * host, which finds the same patterns in the image file.  On the host
 * the disk part skips: no disk of ours is attached there. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#define BLKGETSIZE64 _IOR(0x12, 114, uint64_t)
#define BLKFLSBUF    _IO(0x12, 97)
#define RO_RECORD    16
#define READERS	     4

/* The regions written, and one left alone (zero on the host). */
static const struct region {
	long long off; /* negative: from the device's end */
	size_t len;
} regions[] = {{0, 512}, {40960 + 100, 3000}, {1 << 20, 256 << 10}, {-4096, 4096}};
#define UNTOUCHED_OFF 8192

/* The byte the test writes at absolute offset o. */
static uint8_t pattern(uint64_t o)
{
	return (uint8_t)((o >> 9) * 31 + (o & 511) * 7 + 0x5a);
}

static uint64_t region_off(const struct region *r, uint64_t size)
{
	return r->off < 0 ? size + r->off : (uint64_t)r->off;
}

static bool region_holds(const uint8_t *buf, uint64_t off, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (buf[i] != pattern(off + i))
			return false;
	return true;
}

/* Writes the pattern to every region of fd, or reads each back and
 * compares: whether every transfer was whole (and matched). */
static bool regions_io(int fd, uint64_t size, bool write)
{
	static uint8_t buf[256 << 10];
	bool good = true;

	for (size_t i = 0; i < sizeof regions / sizeof regions[0]; i++) {
		uint64_t off = region_off(&regions[i], size);
		size_t len = regions[i].len;

		for (size_t j = 0; write && j < len; j++)
			buf[j] = pattern(off + j);
		if (write)
			good &= pwrite(fd, buf, len, (off_t)off) == (ssize_t)len;
		else
			good &= pread(fd, buf, len, (off_t)off) == (ssize_t)len &&
				region_holds(buf, off, len);
	}
	return good;
}

/* The host side: the image QEMU wrote holds what the guest wrote. */
static int check_image(const char *path)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	uint8_t zero[512];
	bool untouched = true;

	plan(2);
	require(fd >= 0 && fstat(fd, &st) == 0, "the image opens");
	ok(regions_io(fd, (uint64_t)st.st_size, false), "the image holds the guest's patterns");
	untouched = pread(fd, zero, sizeof zero, UNTOUCHED_OFF) == sizeof zero;
	for (size_t i = 0; i < sizeof zero; i++)
		untouched &= zero[i] == 0;
	ok(untouched, "the bytes between them are still zero");
	return done();
}

static void test_nodes(void)
{
	struct stat a, b;

	ok(stat("/dev/vda", &a) == 0 && S_ISBLK(a.st_mode) && major(a.st_rdev) == 254 &&
	       minor(a.st_rdev) == 0,
	   "/dev/vda is block device 254:0");
	ok(stat("/dev/vdb", &b) == 0 && S_ISBLK(b.st_mode) && major(b.st_rdev) == 254 &&
	       minor(b.st_rdev) == 16,
	   "/dev/vdb is block device 254:16 (16 minors a disk)");
}

static uint64_t test_size(int fd)
{
	uint64_t size = 0;
	off_t end = lseek(fd, 0, SEEK_END);
	int err = ioctl(fd, BLKGETSIZE64, &size);

	ok(err == 0 && size == (uint64_t)end && size % 512 == 0 && size >= (2 << 20),
	   "BLKGETSIZE64 and SEEK_END agree (%llu bytes)", (unsigned long long)size);
	return size;
}

static void test_write_read(int fd, uint64_t size)
{
	ok(regions_io(fd, size, true),
	   "pwrite of 4 regions (aligned, unaligned, 256 KiB, the last block)");
	ok(regions_io(fd, size, false), "pread gives them back");
	is_int(fsync(fd), 0, "fsync");
	is_int(ioctl(fd, BLKFLSBUF, 0), 0, "BLKFLSBUF drops the cached blocks");
	ok(regions_io(fd, size, false), "read back again from the device");
}

static void test_end(int fd, uint64_t size)
{
	char buf[200];

	memset(buf, 0, sizeof buf);
	is_int(pread(fd, buf, sizeof buf, (off_t)size), 0, "pread at the end: 0 (EOF)");
	is_errno(pwrite(fd, buf, sizeof buf, (off_t)size), ENOSPC, "pwrite at the end: ENOSPC");
	is_errno(pwrite(fd, buf, sizeof buf, (off_t)size + 4096), ENOSPC,
		 "pwrite past the end: ENOSPC");
	is_int(pread(fd, buf, sizeof buf, (off_t)size - 100), 100,
	       "pread across the end: the 100 bytes before it");
	ok(region_holds((uint8_t *)buf, size - 100, 100), "... which hold the pattern");
	is_errno(pread(fd, buf, sizeof buf, -512), EINVAL, "pread at a negative offset: EINVAL");
	is_errno(pwrite(fd, buf, sizeof buf, -512), EINVAL, "pwrite at a negative offset: EINVAL");
}

/* The read-only disk's records at [off, off + len): each names its index. */
static bool records_ok(const char *buf, uint64_t off, size_t len)
{
	char want[32];

	for (size_t at = 0; at + RO_RECORD <= len; at += RO_RECORD) {
		snprintf(want, sizeof want, "ro-block %06llu\n",
			 (unsigned long long)((off + at) / RO_RECORD));
		if (memcmp(buf + at, want, RO_RECORD))
			return false;
	}
	return true;
}

static void test_read_only(void)
{
	char buf[4096];
	int fd = open("/dev/vdb", O_RDWR);
	int ro = 0;

	ok(fd >= 0, "/dev/vdb opens for writing (refused at write, as Linux)");
	ok(ioctl(fd, 0x125e /* BLKROGET */, &ro) == 0 && ro == 1, "BLKROGET says read-only");
	is_errno(pwrite(fd, "x", 1, 0), EPERM, "a write to the read-only disk: EPERM");
	ok(pread(fd, buf, sizeof buf, 8192) == sizeof buf && records_ok(buf, 8192, sizeof buf),
	   "its records read back");
	close(fd);
}

/* READERS processes read the whole read-only disk at once, each in its
 * own order: every record right in each. */
static void test_concurrent_readers(void)
{
	int fd = open("/dev/vdb", O_RDONLY), good = 0;
	off_t size = lseek(fd, 0, SEEK_END);

	for (int r = 0; r < READERS; r++) {
		if (fork() == 0) {
			char buf[4096];
			int blocks = (int)(size / 4096);
			for (int i = 0; i < blocks; i++) {
				off_t off = (off_t)((i * (2 * r + 1) + r) % blocks) * 4096;
				if (pread(fd, buf, sizeof buf, off) != sizeof buf ||
				    !records_ok(buf, (uint64_t)off, sizeof buf))
					_exit(1);
			}
			_exit(0);
		}
	}
	for (int r = 0; r < READERS; r++) {
		int st;
		if (wait(&st) > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
			good++;
	}
	is_int(good, READERS, "%d processes read the read-only disk at once", READERS);
	close(fd);
}

/* /dev/vdc: the device fails every read of sector 64 (byte 32768, in
 * the 4 KiB block at 32768); the requests around it and after it work. */
#define BAD_OFF 32768

static void test_device_error(void)
{
	char buf[4096];
	int fd = open("/dev/vdc", O_RDONLY);

	if (fd < 0) {
		for (int i = 0; i < 4; i++)
			skip("no faulty disk /dev/vdc attached", "device errors");
		return;
	}
	is_errno(pread(fd, buf, sizeof buf, BAD_OFF), EIO, "a read the device fails: EIO");
	ok(pread(fd, buf, sizeof buf, 0) == sizeof buf && records_ok(buf, 0, sizeof buf),
	   "the disk goes on: the next read works");
	ok(pread(fd, buf, 512, BAD_OFF - 512) == 512 && records_ok(buf, BAD_OFF - 512, 512),
	   "the sector before the bad one reads");
	is_errno(pread(fd, buf, sizeof buf, BAD_OFF), EIO,
		 "the bad block again: EIO (no failed data kept)");
	close(fd);
}

#define MAX_CPUS 8

/* The virtio-blk MSI-X rows of /proc/interrupts summed per CPU column:
 * how many columns (0: no such row, INTx). */
static int msix_counts(unsigned long long sums[MAX_CPUS])
{
	FILE *f = fopen("/proc/interrupts", "r");
	char line[512];
	int ncpus = 0;

	memset(sums, 0, sizeof(unsigned long long) * MAX_CPUS);
	if (!f)
		return 0;
	while (fgets(line, sizeof line, f)) {
		char *p = strchr(line, ':');
		int col = 0;

		if (!p || !strstr(line, "PCI-MSIX") || !strstr(line, "virtio-blk"))
			continue;
		for (p++; col < MAX_CPUS; col++) {
			char *end;
			unsigned long long v = strtoull(p, &end, 10);
			if (end == p)
				break;
			sums[col] += v;
			p = end;
		}
		ncpus = col;
	}
	fclose(f);
	return ncpus;
}

/* A device read from each CPU in turn (pinned, the cache dropped first):
 * each CPU's own queue, so each CPU takes completion interrupts. */
static void test_irq_per_cpu(void)
{
	unsigned long long before[MAX_CPUS], after[MAX_CPUS];
	int ncpus = msix_counts(before), fd = open("/dev/vdb", O_RDONLY), grew = 0;
	char buf[4096];

	if (!ncpus) {
		skip("no MSI-X rows in /proc/interrupts (pci=nomsi)", "completions on each CPU");
		close(fd);
		return;
	}
	for (int c = 0; c < ncpus; c++) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(c, &set);
		if (sched_setaffinity(0, sizeof set, &set) == 0 && ioctl(fd, BLKFLSBUF, 0) == 0)
			(void)!pread(fd, buf, sizeof buf, (off_t)c * 4096);
	}
	msix_counts(after);
	for (int c = 0; c < ncpus; c++)
		grew += after[c] > before[c];
	is_int(grew, ncpus, "a read from each of %d CPUs completed by an interrupt on it", ncpus);
	close(fd);
}

int main(int argc, char **argv)
{
	int fd;
	uint64_t size;

	if (argc == 3 && !strcmp(argv[1], "--check"))
		return check_image(argv[2]);
	if (!on_fdkernel())
		skip_all("the disks are the guest's (the host checks the image: --check)");
	if (access("/dev/vda", F_OK) || access("/dev/vdb", F_OK))
		skip_all("no virtio disks attached (tests/harness/tests.mk attaches them)");
	plan(25);
	test_nodes();
	fd = open("/dev/vda", O_RDWR);
	require(fd >= 0, "open /dev/vda");
	size = test_size(fd);
	test_write_read(fd, size);
	test_end(fd, size);
	close(fd);
	test_read_only();
	test_concurrent_readers();
	test_irq_per_cpu();
	test_device_error();
	return done();
}
