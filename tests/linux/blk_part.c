/* Partition tables on a loop device with LO_FLAGS_PARTSCAN, as Linux reads
 * them: an MBR with primaries, an extended partition (shown as 1 KiB) and
 * its logical partitions (from 5), one reaching past the disk's end (cut
 * there); a GPT with its CRCs (slot numbers kept); a GPT whose header CRC
 * is wrong (no partitions); the loopNpM nodes (major 259), their sizes,
 * their data, /proc/partitions, and BLKRRPART's errors (EINVAL on a
 * partition or without PARTSCAN, EBUSY while a partition is open). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "blk_util.h"
#include "testutil.h"

#define DISK_SECTORS 8192 /* 4 MiB */

static char backing_path[64], dev_path[32];

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = v >> (8 * i);
}

static uint32_t crc32(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t crc = 0xffffffff;

	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320 & -(crc & 1));
	}
	return ~crc;
}

/* Entry i of the MBR-style table in sector s. */
static void mbr_entry(uint8_t *s, int i, uint8_t type, uint32_t start, uint32_t len)
{
	uint8_t *e = s + 446 + 16 * i;

	e[4] = type;
	put_le(e + 8, start, 4);
	put_le(e + 12, len, 4);
	s[510] = 0x55;
	s[511] = 0xaa;
}

static void write_sector(int fd, uint64_t lba, const uint8_t *s)
{
	require(pwrite(fd, s, 512, lba * 512) == 512, "write a table sector");
}

static void write_mbr(int fd)
{
	uint8_t s[512] = {0};

	mbr_entry(s, 0, 0x83, 2048, 1024);
	mbr_entry(s, 1, 0x05, 4096, 4096);
	mbr_entry(s, 2, 0x83, 3072, 1024);
	mbr_entry(s, 3, 0x83, 8000, 1000); /* past the end: cut to 192 sectors */
	write_sector(fd, 0, s);
	memset(s, 0, sizeof s); /* the first logical, and the link to the next */
	mbr_entry(s, 0, 0x83, 64, 512);
	mbr_entry(s, 1, 0x05, 1024, 512);
	write_sector(fd, 4096, s);
	memset(s, 0, sizeof s);
	mbr_entry(s, 0, 0x83, 64, 256);
	write_sector(fd, 5120, s);
}

/* A protective MBR, a header at 1, 128 entries at 2..33: slots 1 and 3. */
static void write_gpt(int fd, bool bad_crc)
{
	static uint8_t entries[128 * 128];
	uint8_t s[512] = {0};

	mbr_entry(s, 0, 0xee, 1, DISK_SECTORS - 1);
	write_sector(fd, 0, s);
	memset(entries, 0, sizeof entries);
	for (int slot = 0; slot < 3; slot += 2) {
		uint8_t *e = entries + 128 * slot;

		memset(e, 0x11 + slot, 32); /* type and unique GUIDs */
		put_le(e + 32, slot ? 4096 : 2048, 8);
		put_le(e + 40, slot ? 6143 : 3071, 8);
	}
	for (int i = 0; i < 32; i++)
		write_sector(fd, 2 + i, entries + 512 * i);
	memset(s, 0, sizeof s);
	memcpy(s, "EFI PART", 8);
	put_le(s + 8, 0x10000, 4);
	put_le(s + 12, 92, 4);
	put_le(s + 24, 1, 8);
	put_le(s + 32, DISK_SECTORS - 1, 8);
	put_le(s + 40, 34, 8);
	put_le(s + 48, DISK_SECTORS - 34, 8);
	put_le(s + 72, 2, 8);
	put_le(s + 80, 128, 4);
	put_le(s + 84, 128, 4);
	put_le(s + 88, crc32(entries, sizeof entries), 4);
	put_le(s + 16, crc32(s, 92) + bad_crc, 4);
	write_sector(fd, 1, s);
}

/* The size of /dev/loopNpM, or -errno of its open. */
static long long part_size(int m)
{
	char path[48];
	uint64_t size = 0;
	int fd;

	snprintf(path, sizeof path, "%sp%d", dev_path, m);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, BLKGETSIZE64, &size) != 0)
		size = (uint64_t)-1;
	close(fd);
	return (long long)size;
}

/* Whether /proc/partitions has "259 ... KIB loopNpM". */
static bool listed(int m, unsigned long kib)
{
	static char text[16384];
	char name[48], *line;
	unsigned int major, minor;
	unsigned long blocks;

	snprintf(name, sizeof name, "%sp%d", dev_path + 5, m);
	if (read_text("/proc/partitions", text, sizeof text) < 0)
		return false;
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char got[48];

		if (sscanf(line, "%u %u %lu %47s", &major, &minor, &blocks, got) == 4 &&
		    !strcmp(got, name))
			return major == 259 && blocks == kib;
	}
	return false;
}

static void test_mbr(int dev)
{
	char buf[512], want[512];
	struct stat st;
	char path[48];
	int fd;

	is_int(part_size(1), 1024 * 512, "MBR: p1 is 1024 sectors");
	is_int(part_size(2), 1024, "... the extended p2 shows 1 KiB");
	is_int(part_size(3), 1024 * 512, "... p3");
	is_int(part_size(4), 192 * 512, "... p4, past the end, is cut at the end");
	is_int(part_size(5), 512 * 512, "... the first logical is p5");
	is_int(part_size(6), 256 * 512, "... the second p6 (a link of the chain)");
	is_int(part_size(7), -ENOENT, "... no p7");
	ok(listed(1, 512) && listed(5, 256) && listed(4, 96), "/proc/partitions lists them (KiB)");
	ok(sys_number("/sys/block/%s/%sp1/start", dev_path + 5, dev_path + 5) == 2048 &&
	       sys_number("/sys/block/%s/%sp1/size", dev_path + 5, dev_path + 5) == 1024 &&
	       sys_number("/sys/block/%s/%sp5/start", dev_path + 5, dev_path + 5) == 4160 &&
	       sys_number("/sys/block/%s/%sp5/partition", dev_path + 5, dev_path + 5) == 5,
	   "/sys/block/%s/%sp1 and p5: start, size, partition", dev_path + 5, dev_path + 5);
	snprintf(path, sizeof path, "%sp1", dev_path);
	ok(stat(path, &st) == 0 && S_ISBLK(st.st_mode) && major(st.st_rdev) == 259,
	   "%s is a block device of major 259", path);
	fd = open(path, O_RDWR);
	fill_pattern(want, sizeof want, 2048 * 512 + 512);
	ok(fd >= 0 && pread(fd, buf, 512, 512) == 512 && !memcmp(buf, want, 512),
	   "p1's sector 1 is the disk's sector 2049");
	is_errno(ioctl(fd, BLKRRPART, 0), EINVAL, "BLKRRPART on a partition: EINVAL");
	is_errno(ioctl(dev, BLKRRPART, 0), EBUSY, "BLKRRPART while a partition is open: EBUSY");
	is_int(lseek(fd, 0, SEEK_END), 1024 * 512, "lseek SEEK_END on p1: its size");
	close(fd);
}

static void test_gpt(int dev)
{
	write_gpt(dev, false);
	is_int(fsync(dev), 0, "a GPT written through the device");
	is_int(ioctl(dev, BLKRRPART, 0), 0, "BLKRRPART");
	is_int(part_size(1), 1024 * 512, "GPT: p1 is slot 1");
	is_int(part_size(2), -ENOENT, "... slot 2 empty: no p2");
	is_int(part_size(3), 2048 * 512, "... p3 is slot 3");
	is_int(part_size(5), -ENOENT, "... the MBR's p5 is gone");
	write_gpt(dev, true);
	is_int(fsync(dev), 0, "the header's CRC broken");
	is_int(ioctl(dev, BLKRRPART, 0), 0, "BLKRRPART");
	is_int(part_size(1), -ENOENT, "a GPT with a bad header CRC gives no partitions");
}

static void cleanup(int ctl, int n, int back)
{
	close(back);
	unlink(backing_path);
	ok(ioctl(ctl, LOOP_CTL_REMOVE, n) == 0, "remove the loop device");
	close(ctl);
}

int main(void)
{
	struct loop_config cfg;
	int ctl, n, dev, back;
	static char buf[DISK_SECTORS * 512];

	if (access("/dev/loop-control", F_OK) != 0)
		skip_all("no /dev/loop-control (no loop support)");
	ctl = open("/dev/loop-control", O_RDWR);
	n = ctl >= 0 ? ioctl(ctl, LOOP_CTL_ADD, -1) : -1;
	require(n >= 0, "a new loop device");
	snprintf(dev_path, sizeof dev_path, "/dev/loop%d", n);
	snprintf(backing_path, sizeof backing_path, "/tmp/blk_part.%d", (int)getpid());
	back = open(backing_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	fill_pattern(buf, sizeof buf, 0);
	require(back >= 0 && write(back, buf, sizeof buf) == sizeof buf, "the backing file");
	write_mbr(back);
	dev = open(dev_path, O_RDWR);
	memset(&cfg, 0, sizeof cfg);
	cfg.fd = back;
	cfg.info.lo_flags = LO_FLAGS_PARTSCAN;
	require(dev >= 0 && ioctl(dev, LOOP_CONFIGURE, &cfg) == 0, "LOOP_CONFIGURE with PARTSCAN");
	if (!on_fdkernel() && part_size(1) == -ENOENT) {
		/* A kernel built without CONFIG_MSDOS_PARTITION (this host's
		 * Firecracker one) reads no table at all. */
		ioctl(dev, LOOP_CLR_FD, 0);
		close(dev);
		close(back);
		unlink(backing_path);
		ioctl(ctl, LOOP_CTL_REMOVE, n);
		skip_all("this kernel reads no partition tables");
	}
	plan(29);
	test_mbr(dev);
	test_gpt(dev);
	ok(ioctl(dev, LOOP_CLR_FD, 0) == 0, "clear");
	close(dev);
	is_int(part_size(1), -ENOENT, "the clear removes the partitions");
	is_int(sys_number("/sys/block/%s/%sp1/start", dev_path + 5, dev_path + 5), -1,
	       "... and their /sys/block entries");
	write_mbr(back);
	dev = open(dev_path, O_RDWR);
	require(dev >= 0 && ioctl(dev, LOOP_SET_FD, back) == 0, "bind without PARTSCAN");
	is_int(part_size(1), -ENOENT, "without LO_FLAGS_PARTSCAN no partition is read");
	is_errno(ioctl(dev, BLKRRPART, 0), EINVAL, "... and BLKRRPART is EINVAL");
	require(ioctl(dev, LOOP_CLR_FD, 0) == 0, "clear");
	close(dev);
	cleanup(ctl, n, back);
	return done();
}
