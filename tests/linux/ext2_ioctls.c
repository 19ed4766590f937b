/* The ioctls of ext2 files that LTP's unlink09 and ioctl_fiemap01 use, on
 * a scratch ext2 (mkfs.ext2, loop device): chattr's flags
 * (FS_IOC_GETFLAGS/SETFLAGS) kept in the disk inode across a remount,
 * immutable and append-only enforced, flags ext2 does not let chattr
 * change ignored; FS_IOC_FIEMAP from the block map: each extent's bytes
 * are the file's on the device, holes left out, the last extent marked,
 * counting only, a short array, its errors (EBADR with the refused flags,
 * EINVAL, EFBIG, EFAULT), and tmpfs's EOPNOTSUPP.  (FIEMAP_FLAG_XATTR is
 * EBADR on Linux's ext2, but ext4's driver, which hosts often mount ext2
 * with, takes it: not asserted.)  Root, on the host too
 * when it loop-mounts ext2. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ext2_scratch.h"

/* <linux/fs.h>'s and <linux/fiemap.h>'s, which musl-gcc has not: the
 * ABI's, as fdkernel's uapi header spells them. */
#include "../../kernel/uapi/ioctl.h"
#define FS_CASEFOLD_FL 0x40000000
#define BLK	       1024L

/* A request with room for 8 extents. */
struct fiemap8 {
	struct fiemap h;
	struct fiemap_extent ext[8];
};

static struct scratch s;

static int getflags(int fd)
{
	int f = -1;
	return ioctl(fd, FS_IOC_GETFLAGS, &f) ? -1 : f;
}

static int setflags(int fd, int f)
{
	return ioctl(fd, FS_IOC_SETFLAGS, &f);
}

static const char *at(const char *name)
{
	return scratch_at(&s, name);
}

static int make(const char *name)
{
	int fd = open(at(name), O_RDWR | O_CREAT | O_TRUNC, 0644);

	require(fd >= 0 && write(fd, "data", 4) == 4, "create a file");
	return fd;
}

static void remount(void)
{
	require(umount(s.mnt) == 0 && mount(s.dev, s.mnt, "ext2", 0, NULL) == 0, "remount");
}

static void test_immutable(void)
{
	int fd = make("imm");

	is_int(getflags(fd) & (FS_IMMUTABLE_FL | FS_APPEND_FL), 0, "a new file: neither +i nor +a");
	ok(setflags(fd, getflags(fd) | FS_IMMUTABLE_FL) == 0 && (getflags(fd) & FS_IMMUTABLE_FL),
	   "FS_IOC_SETFLAGS +i, FS_IOC_GETFLAGS shows it");
	close(fd);
	remount();
	fd = open(at("imm"), O_RDONLY);
	ok(fd >= 0 && (getflags(fd) & FS_IMMUTABLE_FL), "+i is on the disk: kept across a remount");
	is_errno(unlink(at("imm")), EPERM, "unlink of an immutable file: EPERM (unlink09)");
	is_errno(rename(at("imm"), at("imm2")), EPERM, "rename: EPERM");
	is_errno(link(at("imm"), at("imm2")), EPERM, "link: EPERM");
	is_errno(open(at("imm"), O_WRONLY), EPERM, "open for writing: EPERM");
	is_errno(truncate(at("imm"), 0), EPERM, "truncate: EPERM");
	is_errno(chmod(at("imm"), 0600), EPERM, "chmod: EPERM");
	ok(setflags(fd, getflags(fd) & ~FS_IMMUTABLE_FL) == 0 && unlink(at("imm")) == 0,
	   "-i: then unlink works");
	close(fd);
}

static void test_append(void)
{
	int fd = make("app"), afd;
	char buf[16] = {0};

	ok(setflags(fd, getflags(fd) | FS_APPEND_FL) == 0 && (getflags(fd) & FS_APPEND_FL),
	   "FS_IOC_SETFLAGS +a");
	is_errno(unlink(at("app")), EPERM, "unlink of an append-only file: EPERM (unlink09)");
	is_errno(open(at("app"), O_WRONLY), EPERM, "open for writing without O_APPEND: EPERM");
	is_errno(open(at("app"), O_WRONLY | O_APPEND | O_TRUNC), EPERM, "O_TRUNC: EPERM");
	is_errno(ftruncate(fd, 1), EPERM, "ftruncate: EPERM");
	afd = open(at("app"), O_WRONLY | O_APPEND);
	ok(afd >= 0 && write(afd, "more", 4) == 4 && pread(fd, buf, sizeof buf, 0) == 8 &&
	       !memcmp(buf, "datamore", 8),
	   "O_APPEND opens and writes at the end");
	close(afd);
	ok(setflags(fd, 0) == 0 && getflags(fd) == 0 && unlink(at("app")) == 0,
	   "flags cleared: unlink works");
	close(fd);
}

/* nodump is kept on the disk.  Flags chattr may not change on ext2 are
 * ignored, not refused (Linux's ext2, unlike tmpfs's EOPNOTSUPP); a
 * host's ext2 is often ext4's driver (CONFIG_EXT4_USE_FOR_EXT2), which
 * refuses them, so that is fdkernel's only. */
static void test_other_flags(void)
{
	int fd = make("other");

	ok(setflags(fd, FS_NODUMP_FL) == 0 && getflags(fd) == FS_NODUMP_FL, "nodump kept");
	if (on_fdkernel())
		ok(setflags(fd, FS_NODUMP_FL | FS_CASEFOLD_FL) == 0 && getflags(fd) == FS_NODUMP_FL,
		   "a flag ext2 does not let chattr set is ignored");
	else
		skip("the host's ext2 may be ext4's driver", "a flag chattr may not set ignored");
	close(fd);
	/* statx: the flags ext2 keeps are known attributes (Linux's
	 * ext2_getattr), compressed among them (LTP's statx04) */
	uint64_t sx[32] = {0};
	syscall(SYS_statx, AT_FDCWD, at("other"), 0, 0x7ffU, sx);
	ok((sx[7] & 0x74) == 0x74 && (sx[1] & 0x74) == 0x40,
	   "statx: compressed, immutable, append, nodump known; nodump set (%#llx, %#llx)",
	   (unsigned long long)sx[7], (unsigned long long)sx[1]);
	remount();
	fd = open(at("other"), O_RDONLY);
	is_int(getflags(fd), FS_NODUMP_FL, "nodump is on the disk");
	close(fd);
	unlink(at("other"));
}

/* FIEMAP of fd: its return, the header and extents in *r. */
static int fiemap(int fd, struct fiemap8 *r, uint64_t start, uint64_t len, uint32_t flags,
		  uint32_t count)
{
	struct fiemap *fm = &r->h;

	memset(r, 0, sizeof *r);
	fm->fm_start = start;
	fm->fm_length = len;
	fm->fm_flags = flags;
	fm->fm_extent_count = count;
	return ioctl(fd, FS_IOC_FIEMAP, r);
}

/* Whether the extents of fm hold fd's bytes at their device offsets,
 * the last one marked, nothing overlapping; their bytes in *bytes. */
static bool extents_true(int fd, const struct fiemap *fm, long *bytes)
{
	char a[BLK], b[BLK];
	uint64_t next = 0;

	*bytes = 0;
	for (uint32_t i = 0; i < fm->fm_mapped_extents; i++) {
		const struct fiemap_extent *e = &fm->fm_extents[i];
		bool last = i + 1 == fm->fm_mapped_extents;
		if (e->fe_logical < next || e->fe_length % BLK ||
		    !!(e->fe_flags & FIEMAP_EXTENT_LAST) != last)
			return false;
		for (uint64_t off = 0; off < e->fe_length; off += BLK)
			if (pread(fd, a, BLK, e->fe_logical + off) != BLK ||
			    pread(s.loop, b, BLK, e->fe_physical + off) != BLK || memcmp(a, b, BLK))
				return false;
		next = e->fe_logical + e->fe_length;
		*bytes += e->fe_length;
	}
	return true;
}

static void test_fiemap(void)
{
	int fd = open(at("map"), O_RDWR | O_CREAT | O_TRUNC, 0644);
	char blk[BLK];
	struct fiemap8 fm;
	long bytes;

	require(fd >= 0, "open");
	ok(fiemap(fd, &fm, 0, ~0ULL, 0, 8) == 0 && fm.h.fm_mapped_extents == 0,
	   "an empty file: no extent");
	for (int i = 0; i < 3; i++) {
		memset(blk, 'a' + i, sizeof blk);
		require(pwrite(fd, blk, BLK, i * BLK) == BLK, "pwrite");
	}
	memset(blk, 'z', sizeof blk);
	require(pwrite(fd, blk, BLK, 40 * BLK) == BLK, "pwrite past a hole");
	ok(fiemap(fd, &fm, 0, ~0ULL, FIEMAP_FLAG_SYNC, 8) == 0 && fm.h.fm_mapped_extents >= 2 &&
	       extents_true(fd, &fm.h, &bytes) && bytes == 4 * BLK,
	   "FIEMAP_FLAG_SYNC: extents hold the file's bytes on the device, the hole left out");
	ok(fm.h.fm_extents[0].fe_logical == 0 &&
	       fm.h.fm_extents[fm.h.fm_mapped_extents - 1].fe_logical == 40 * BLK,
	   "the first extent at 0, the last at block 40");
	uint32_t all = fm.h.fm_mapped_extents;
	ok(fiemap(fd, &fm, 0, ~0ULL, 0, 0) == 0 && fm.h.fm_mapped_extents == all,
	   "fm_extent_count 0: only counted (%u)", fm.h.fm_mapped_extents);
	ok(fiemap(fd, &fm, 0, ~0ULL, 0, 1) == 0 && fm.h.fm_mapped_extents == 1 &&
	       !(fm.h.fm_extents[0].fe_flags & FIEMAP_EXTENT_LAST),
	   "an array of one: one extent, not the last");
	ok(fiemap(fd, &fm, 40 * BLK, BLK, 0, 8) == 0 && fm.h.fm_mapped_extents == 1 &&
	       fm.h.fm_extents[0].fe_logical == 40 * BLK &&
	       (fm.h.fm_extents[0].fe_flags & FIEMAP_EXTENT_LAST),
	   "a range: its one extent, marked last");
	ok(fiemap(fd, &fm, 10 * BLK, 10 * BLK, 0, 8) == 0 && fm.h.fm_mapped_extents == 0,
	   "a range in the hole: none");
	is_errno(fiemap(fd, &fm, 0, ~0ULL, 0x40000000, 8), EBADR, "an unknown flag: EBADR");
	is_int(fm.h.fm_flags, 0x40000000, "... fm_flags then holds the refused flags");
	is_errno(fiemap(fd, &fm, 0, 0, 0, 8), EINVAL, "fm_length 0: EINVAL");
	is_errno(fiemap(fd, &fm, 1ULL << 62, 1, 0, 8), EFBIG,
		 "fm_start past the largest file: EFBIG");
	is_errno(fiemap(fd, &fm, 0, ~0ULL, 0, 0x7fffffff), EINVAL,
		 "fm_extent_count past FIEMAP_MAX_EXTENTS: EINVAL");
	is_errno(ioctl(fd, FS_IOC_FIEMAP, (void *)8), EFAULT, "a bad pointer: EFAULT");
	close(fd);
	unlink(at("map"));
}

static void test_tmpfs(void)
{
	char path[64];
	struct fiemap8 fm;
	int fd;

	snprintf(path, sizeof path, "/dev/shm/ext2_ioctls.%d", (int)getpid());
	fd = open(path, O_RDWR | O_CREAT, 0600);
	if (fd < 0) {
		snprintf(path, sizeof path, "/tmp/ext2_ioctls.%d", (int)getpid());
		fd = open(path, O_RDWR | O_CREAT, 0600);
	}
	require(fd >= 0 && write(fd, "x", 1) == 1, "a tmpfs file");
	is_errno(fiemap(fd, &fm, 0, ~0ULL, 0, 8), EOPNOTSUPP, "FIEMAP on tmpfs: EOPNOTSUPP");
	close(fd);
	unlink(path);
}

int main(void)
{
	scratch_ext2(&s, "ext2_ioctls");
	plan(10 + 7 + 4 + 13 + 1);
	test_immutable();
	test_append();
	test_other_flags();
	test_fiemap();
	test_tmpfs();
	scratch_done(&s);
	return done();
}
