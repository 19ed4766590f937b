/* ext2 read-write (docs/ext2.md, "Writing"): a fresh image mke2fs made
 * on the host (tests/harness/ext2-images: rw-1k.img, rw-4k.img) copied to
 * /tmp and mounted read-write through a loop device: small, large and
 * sparse files (direct, single, double and triple indirect), reads back,
 * truncation down and up, rename (over a file, over an empty directory,
 * a directory's ".."), hard links, fast and slow symlinks, mkdir/rmdir
 * (ENOTEMPTY), mknod (devices, FIFOs, sockets), chmod/chown/utimes,
 * statfs counts moving by what was written, ENOSPC with the reserved
 * blocks left to root, two processes creating and unlinking in one
 * directory; then umount, a new mount and every check again; options
 * (an unknown one EINVAL, errors= shown).  On fdkernel: a second mount of
 * the device is EBUSY; damaged images met while writing (a directory
 * block with rec_len 0: EIO, then read-only with errors=remount-ro; a
 * bitmap marking the inode table free: the allocator goes around it).  On the
 * host (Linux's ext2 driver, as root) it asserts Linux's behaviour and
 * runs e2fsck -fn on the image afterwards.
 * In the guest it also writes the ext2 the harness puts on the scratch
 * disk /dev/vda at 32 MiB (label fdk-ext2-rw, 16 MiB, through a loop
 * device with that offset); after QEMU exits the harness runs
 * `ext2_rw --check IMAGE` on the host: e2fsck -fn clean, debugfs reads
 * back what was written. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "blk_util.h"
#include "e2fs_util.h"
#include "testutil.h"

/* <sys/mount.h> would redefine blk_util.h's BLK* requests. */
#define MS_RDONLY      1UL
#define MS_REMOUNT     32UL
#define MS_SYNCHRONOUS 16UL
int mount(const char *source, const char *target, const char *type, unsigned long flags,
	  const void *data);
int umount(const char *target);

#define LABEL	    "fdk-ext2-rw"
#define DISK	    "/dev/vda"
#define DISK_OFF    (32LL << 20) /* where the harness's ext2 starts on it */
#define DISK_LEN    (16LL << 20)
#define BIG_LEN	    (300 * 1024)
#define CHURN_FILES 150

static char mnt[64];

static const char *at(const char *name)
{
	static char buf[2][512];
	static int n;

	n ^= 1;
	snprintf(buf[n], sizeof buf[n], "%s/%s", mnt, name);
	return buf[n];
}

static void loop_unbind(int fd)
{
	ioctl(fd, LOOP_CLR_FD, 0);
	close(fd);
}

static bool write_all(const char *path, const char *buf, size_t len, off_t off)
{
	int fd = open(path, O_WRONLY | O_CREAT, 0644);
	bool good = fd >= 0 && pwrite(fd, buf, len, off) == (ssize_t)len;

	close(fd);
	return good;
}

/* Whether the file holds the test pattern over [off, off + len). */
static bool holds_pattern(const char *path, off_t off, size_t len)
{
	char *buf = malloc(len), *want = malloc(len);
	int fd = open(path, O_RDONLY);
	bool good = fd >= 0 && buf && want && pread(fd, buf, len, off) == (ssize_t)len;

	if (good) {
		fill_pattern(want, len, off);
		good = !memcmp(buf, want, len);
	}
	close(fd);
	free(buf);
	free(want);
	return good;
}

static bool holds_zeros(const char *path, off_t off, size_t len)
{
	char buf[4096];
	int fd = open(path, O_RDONLY);
	bool good = fd >= 0 && len <= sizeof buf && pread(fd, buf, len, off) == (ssize_t)len;

	for (size_t i = 0; good && i < len; i++)
		good = !buf[i];
	close(fd);
	return good;
}

static bool write_pattern(const char *path, off_t off, size_t len)
{
	char *buf = malloc(len);
	bool good;

	fill_pattern(buf, len, off);
	good = write_all(path, buf, len, off);
	free(buf);
	return good;
}

/* The four map ranges' first blocks: direct 0, single 12, double, triple. */
static void sparse_offsets(long bs, off_t out[4])
{
	long apb = bs / 4;

	out[0] = 0;
	out[1] = 12 * bs;
	out[2] = (12 + apb) * bs;
	out[3] = (12 + apb + apb * apb) * bs;
}

static long fs_bsize(void)
{
	struct statfs sf;

	return statfs(mnt, &sf) == 0 ? (long)sf.f_bsize : 1024;
}

/* Files: small, large (through the indirect blocks), sparse (a block in
 * each map range), with statfs's free count moving by st_blocks. */
static void make_files(void)
{
	long bs = fs_bsize();
	struct statfs a, b;
	struct stat st;
	off_t sp[4];
	bool good = true;

	ok(write_all(at("small"), "hello, ext2 rw\n", 15, 0), "create and write a small file");
	require(statfs(mnt, &a) == 0, "statfs");
	ok(write_pattern(at("big"), 0, BIG_LEN), "write 300 KiB");
	require(statfs(mnt, &b) == 0 && stat(at("big"), &st) == 0, "statfs, stat");
	is_int((long long)(a.f_bfree - b.f_bfree), (long long)st.st_blocks * 512 / bs,
	       "statfs: free blocks dropped by st_blocks (data and indirect blocks)");
	is_int((long long)(a.f_ffree - b.f_ffree), 1, "statfs: one inode fewer");
	sparse_offsets(bs, sp);
	for (int i = 0; i < 4; i++)
		good &= write_pattern(at("sparse"), sp[i], 100);
	ok(good, "sparse: 100 bytes in each of the direct, single, double, triple ranges");
}

static void check_files(const char *when)
{
	long bs = fs_bsize();
	char buf[32] = "";
	struct stat st;
	off_t sp[4];
	bool good = true;
	int fd = open(at("small"), O_RDONLY);

	ok(fd >= 0 && read(fd, buf, sizeof buf) == 15 && !memcmp(buf, "hello, ext2 rw\n", 15),
	   "%s: the small file reads back", when);
	close(fd);
	ok(holds_pattern(at("big"), 0, BIG_LEN), "%s: 300 KiB read back", when);
	sparse_offsets(bs, sp);
	for (int i = 0; i < 4; i++)
		good &= holds_pattern(at("sparse"), sp[i], 100);
	ok(good && holds_zeros(at("sparse"), sp[1] - 4096, 4096) &&
	       holds_zeros(at("sparse"), sp[3] - 4096, 4096),
	   "%s: sparse data at each range, holes read zeros", when);
	ok(stat(at("sparse"), &st) == 0 && st.st_size == sp[3] + 100 &&
	       st.st_blocks * 512 / bs <= 4 + 1 + 2 + 3,
	   "%s: sparse size and few blocks (%lld)", when, (long long)st.st_blocks);
}

/* Truncation down frees blocks (and reads the kept part), up reads zeros. */
static void truncate_files(void)
{
	struct statfs a, b;
	struct stat st;

	off_t sp[4];

	sparse_offsets(fs_bsize(), sp);
	require(write_pattern(at("tbig"), 0, BIG_LEN) && write_pattern(at("tsparse"), sp[3], 10),
		"files to truncate");
	require(statfs(mnt, &a) == 0, "statfs");
	ok(truncate(at("tbig"), 5000) == 0 && stat(at("tbig"), &st) == 0 && st.st_size == 5000,
	   "truncate 300 KiB down to 5000 bytes");
	require(statfs(mnt, &b) == 0, "statfs");
	ok(b.f_bfree > a.f_bfree + (BIG_LEN - 8192) / b.f_bsize,
	   "... its blocks are free again (%ld more)", (long)(b.f_bfree - a.f_bfree));
	ok(truncate(at("tbig"), 100000) == 0 && holds_pattern(at("tbig"), 0, 5000) &&
	       holds_zeros(at("tbig"), 5000, 4096) && holds_zeros(at("tbig"), 90000, 4096),
	   "truncate up to 100000: the kept bytes, then zeros");
	ok(truncate(at("tsparse"), 12 * 1024) == 0 && stat(at("tsparse"), &st) == 0 &&
	       st.st_blocks == 0,
	   "truncate a triple-indirect sparse file into its direct range: all its blocks freed");
}

static bool stat_is(const char *name, mode_t type, nlink_t links)
{
	struct stat st;

	return lstat(at(name), &st) == 0 && (st.st_mode & S_IFMT) == type && st.st_nlink == links;
}

/* Names: links, symlinks, directories, devices, renames. */
static void make_names(void)
{
	char slow[200];
	struct stat st;

	memset(slow, 'x', sizeof slow - 1);
	slow[sizeof slow - 1] = 0;
	ok(link(at("small"), at("hard")) == 0 && stat_is("small", S_IFREG, 2),
	   "link: two names, nlink 2");
	ok(symlink("small", at("fast")) == 0 && symlink(slow, at("slow")) == 0,
	   "symlink: a fast one (in the inode) and a 199-byte slow one");
	ok(mkdir(at("d"), 0755) == 0 && mkdir(at("d/e"), 0700) == 0 && stat_is("d", S_IFDIR, 3),
	   "mkdir d, d/e: d has three links");
	ok(write_all(at("d/e/f"), "f", 1, 0), "a file in d/e");
	is_errno(rmdir(at("d/e")), ENOTEMPTY, "rmdir of a non-empty directory: ENOTEMPTY");
	is_errno(mkdir(at("d"), 0755), EEXIST, "mkdir over a name: EEXIST");
	ok(mknod(at("null"), S_IFCHR | 0666, makedev(1, 3)) == 0 &&
	       mknod(at("blk"), S_IFBLK | 0600, makedev(300, 70000)) == 0 &&
	       mknod(at("fifo"), S_IFIFO | 0644, 0) == 0 &&
	       mknod(at("sock"), S_IFSOCK | 0644, 0) == 0,
	   "mknod: a character device, a block device with big numbers, a FIFO, a socket");
	ok(mkdir(at("gone"), 0755) == 0 && write_all(at("gone/x"), "x", 1, 0) &&
	       unlink(at("gone/x")) == 0 && rmdir(at("gone")) == 0 && stat(at("gone"), &st) < 0,
	   "mkdir, create, unlink, rmdir");
	ok(write_all(at("r1"), "one", 3, 0) && write_all(at("r2"), "two", 3, 0) &&
	       rename(at("r1"), at("r2")) == 0 && stat(at("r1"), &st) < 0,
	   "rename over an existing file");
	ok(mkdir(at("empty"), 0755) == 0 && rename(at("d/e"), at("empty")) == 0 &&
	       stat_is("d", S_IFDIR, 2) && stat_is("empty", S_IFDIR, 2),
	   "rename a directory over an empty one elsewhere: link counts follow");
	is_errno(rename(at("d"), at("d/sub")), EINVAL, "rename a directory into itself: EINVAL");
	is_errno(
	    syscall(SYS_renameat2, AT_FDCWD, at("r2"), AT_FDCWD, at("small"), 1 /* NOREPLACE */),
	    EEXIST, "RENAME_NOREPLACE over a name: EEXIST");
	/* The host mounts ext2 with ext4's driver, which exchanges. */
	if (on_fdkernel())
		is_errno(syscall(SYS_renameat2, AT_FDCWD, at("r2"), AT_FDCWD, at("small"),
				 2 /* RENAME_EXCHANGE */),
			 EINVAL, "RENAME_EXCHANGE: EINVAL (Linux's ext2 has none)");
	else
		skip("the host's ext2 is ext4's driver, which exchanges", "RENAME_EXCHANGE");
	ok(chown(at("small"), 70000, 1234) == 0 && chmod(at("small"), 04711) == 0,
	   "chown to uid 70000, chmod");
	ok(utimes(at("small"), (struct timeval[]){{1000000000, 0}, {1200000000, 0}}) == 0,
	   "utimes");
}

static void check_names(const char *when)
{
	char buf[256];
	struct stat st;
	ssize_t n;

	ok(stat_is("small", S_IFREG, 2) && stat_is("hard", S_IFREG, 2), "%s: the hard link", when);
	n = readlink(at("fast"), buf, sizeof buf);
	ok(n == 5 && !memcmp(buf, "small", 5), "%s: the fast link's target", when);
	n = readlink(at("slow"), buf, sizeof buf);
	ok(n == 199 && buf[0] == 'x' && buf[198] == 'x', "%s: the slow link's target", when);
	ok(stat(at("empty/f"), &st) == 0 && st.st_size == 1 && stat_is("empty", S_IFDIR, 2),
	   "%s: the renamed directory and its file", when);
	{
		char up[32] = "";
		int fd = open(at("empty/.."), O_RDONLY | O_DIRECTORY);
		struct stat root, dd;

		ok(fd >= 0 && fstat(fd, &dd) == 0 && stat(mnt, &root) == 0 &&
		       dd.st_ino == root.st_ino,
		   "%s: the moved directory's .. is its new parent", when);
		close(fd);
		(void)up;
	}
	ok(lstat(at("null"), &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3) &&
	       lstat(at("blk"), &st) == 0 && S_ISBLK(st.st_mode) &&
	       st.st_rdev == makedev(300, 70000),
	   "%s: device numbers (old and new encodings)", when);
	ok(stat_is("fifo", S_IFIFO, 1) && stat_is("sock", S_IFSOCK, 1), "%s: FIFO and socket",
	   when);
	ok(stat(at("r2"), &st) == 0 && st.st_size == 3, "%s: the renamed file", when);
	ok(stat(at("small"), &st) == 0 && (st.st_mode & 07777) == 04711 && st.st_uid == 70000 &&
	       st.st_gid == 1234 && st.st_mtime == 1200000000 &&
	       (st.st_atime == 1000000000 || strstr(when, "remount")),
	   "%s: mode, owner (high bits), times (atime: reads since may move it)", when);
}

/* Two processes create and unlink files in one directory at once. */
static void churn(void)
{
	pid_t pids[2];
	int status, good = 0, left = 0;
	DIR *d;
	struct dirent *de;

	require(mkdir(at("churn"), 0755) == 0, "mkdir churn");
	for (int p = 0; p < 2; p++)
		if ((pids[p] = fork()) == 0) {
			char name[64];
			int bad = 0;

			for (int i = 0; i < CHURN_FILES; i++) {
				snprintf(name, sizeof name, "churn/p%d-%d", p, i);
				bad |= !write_all(at(name), name, strlen(name), 0);
				if (i % 3)
					bad |= unlink(at(name)) != 0;
			}
			_exit(bad);
		}
	for (int p = 0; p < 2; p++)
		good += waitpid(pids[p], &status, 0) == pids[p] && exited_with(status, 0);
	ok(good == 2, "two processes create and unlink in one directory");
	if ((d = opendir(at("churn"))))
		while ((de = readdir(d)))
			left += de->d_name[0] == 'p';
	closedir(d);
	is_int(left, 2 * ((CHURN_FILES + 2) / 3), "... the files kept are listed");
}

/* ENOSPC: a user stops at the reserved blocks, root goes on to the end;
 * removing it all gives every block back. */
static void fill(void)
{
	struct statfs before, sf;
	static char buf[65536];
	int status, fd;
	pid_t pid;

	require(statfs(mnt, &before) == 0 && mkdir(at("fill"), 0755) == 0 &&
		    chmod(at("fill"), 0777) == 0,
		"statfs, mkdir fill");
	if ((pid = fork()) == 0) {
		int ufd;

		if (setgid(1000) || setuid(1000))
			_exit(2);
		ufd = open(at("fill/user"), O_WRONLY | O_CREAT, 0644);
		while (ufd >= 0 && write(ufd, buf, sizeof buf) > 0)
			;
		_exit(errno == ENOSPC ? 0 : 1);
	}
	ok(waitpid(pid, &status, 0) == pid && exited_with(status, 0),
	   "a user's write stops with ENOSPC");
	require(statfs(mnt, &sf) == 0, "statfs");
	/* Linux's ext2 leaves exactly s_r_blocks_count; ext4's driver (the
	 * host's ext2) keeps a few clusters more for itself. */
	ok(sf.f_bfree > 0 && (sf.f_bavail == 0 || !on_fdkernel()),
	   "... with the reserved blocks left (%ld free, %ld available)", (long)sf.f_bfree,
	   (long)sf.f_bavail);
	fd = open(at("fill/root"), O_WRONLY | O_CREAT, 0644);
	while (fd >= 0 && write(fd, buf, sizeof buf) > 0)
		;
	is_int(errno, ENOSPC, "root writes into the reserve, then ENOSPC");
	close(fd);
	require(statfs(mnt, &sf) == 0, "statfs");
	if (on_fdkernel()) {
		is_int((long long)sf.f_bfree, 0, "... the disk is full");
		is_errno(mkdir(at("fill/dir"), 0755), ENOSPC, "mkdir on a full disk: ENOSPC");
	} else {
		skip("ext4's driver keeps clusters even from root", "the disk is full");
		skip("ext4's driver keeps clusters even from root", "mkdir on a full disk");
	}
	rmdir(at("fill/dir"));
	ok(unlink(at("fill/user")) == 0 && unlink(at("fill/root")) == 0 && rmdir(at("fill")) == 0,
	   "remove the fill");
	require(statfs(mnt, &sf) == 0, "statfs");
	is_int((long long)sf.f_bfree, (long long)before.f_bfree, "every block is free again");
	is_int((long long)sf.f_ffree, (long long)before.f_ffree, "every inode is free again");
}

static void misc_errors(void)
{
	char name[300];

	memset(name, 'n', 256);
	name[256] = 0;
	is_errno(open(at(name), O_WRONLY | O_CREAT, 0644), ENAMETOOLONG,
		 "a 256-byte name: ENAMETOOLONG");
	name[255] = 0;
	ok(write_all(at(name), "x", 1, 0) && unlink(at(name)) == 0, "a 255-byte name works");
}

static int checks_per_round(void)
{
	return 4 + 9; /* check_files + check_names */
}

/* The whole workload on a mounted instance, then a new mount's checks. */
static void workload(const char *dev, const char *what)
{
	make_files();
	check_files(what);
	truncate_files();
	make_names();
	check_names(what);
	churn();
	fill();
	misc_errors();
	ok(umount(mnt) == 0, "umount");
	require(mount(dev, mnt, "ext2", 0, NULL) == 0, "mount again");
	check_files("after a remount");
	check_names("after a remount");
}
#define WORKLOAD_CHECKS (5 + 4 + 15 + 2 + 8 + 2 + 1)

/* Options: an unknown one is EINVAL; errors= shows in /proc/mounts; a
 * second mount of the device is EBUSY on fdkernel (Linux shares the
 * instance; each mount here has its own). */
static void check_options(const char *dev, const char *name)
{
	static char mounts[8192];
	char other[80];

	is_errno(mount(dev, mnt, "ext2", 0, "bogus"), EINVAL, "%s: an unknown option: EINVAL",
		 name);
	ok(mount(dev, mnt, "ext2", 0, "errors=remount-ro") == 0, "%s: mount read-write", name);
	ok(read_text("/proc/mounts", mounts, sizeof mounts) > 0 &&
	       strstr(mounts, "errors=remount-ro"),
	   "... errors=remount-ro in /proc/mounts");
	snprintf(other, sizeof other, "%s.2", mnt);
	if (on_fdkernel() && mkdir(other, 0755) == 0) {
		is_errno(mount(dev, other, "ext2", 0, NULL), EBUSY,
			 "a second mount of the device: EBUSY (one instance per device)");
		rmdir(other);
	} else
		skip("Linux shares the instance", "a second mount of the device");
}

/* -o sync (MS_SYNCHRONOUS): a write has reached the image file when it
 * returns, before any umount or sync. */
static void check_sync_mount(const char *dev, const char *img)
{
	static const char data[] = "written through at once";
	static char all[4 << 20];
	int fd;
	ssize_t n;

	require(mount(dev, mnt, "ext2", MS_SYNCHRONOUS, NULL) == 0, "mount -o sync");
	ok(write_all(at("sync-file"), data, sizeof data - 1, 0), "-o sync: write a file");
	fd = open(img, O_RDONLY);
	n = fd >= 0 ? pread(fd, all, sizeof all, 0) : -1;
	close(fd);
	ok(n > 0 && memmem(all, n, data, sizeof data - 1), "... its data is in the image at once");
	unlink(at("sync-file"));
	require(umount(mnt) == 0, "umount");
}

/* fdkernel: damage met while writing is EIO (errors=remount-ro then makes
 * the instance read-only), never a panic or another file's corruption. */
static void check_damaged(const char *imgdir)
{
	static const char *const names[] = {"bad-reclen.img", "rw-badmap.img"};
	char img[300], copy[300], dev[32], out[64];
	struct stat st;
	int lfd;

	for (int i = 0; i < 2; i++) {
		char *cp[] = {"/bin/cp", img, copy, NULL}, *envp[] = {NULL};

		snprintf(img, sizeof img, "%s/%s", imgdir, names[i]);
		snprintf(copy, sizeof copy, "/tmp/ext2_rw.%d.%s", (int)getpid(), names[i]);
		require(run_capture(cp[0], cp, envp, out, sizeof out) == 0, "copy the image");
		lfd = loop_bind(copy, 0, dev, sizeof dev);
		require(mount(dev, mnt, "ext2", 0, i ? NULL : "errors=remount-ro") == 0,
			"mount a damaged image read-write");
		if (!i) {
			is_errno(open(at("many/new"), O_WRONLY | O_CREAT, 0644), EIO,
				 "bad-reclen: a new name in a directory with rec_len 0: EIO");
			is_errno(open(at("new"), O_WRONLY | O_CREAT, 0644), EROFS,
				 "... and errors=remount-ro made the instance read-only");
		} else {
			ok(write_pattern(at("f"), 0, BIG_LEN) && holds_pattern(at("f"), 0, BIG_LEN),
			   "a bitmap marking the inode table free: a write goes around it");
			ok(write_all(at("g"), "g", 1, 0) && stat(at("g"), &st) == 0 &&
			       stat(at("lost+found"), &st) == 0 && S_ISDIR(st.st_mode),
			   "... the inode table is intact (a new inode, lost+found)");
		}
		ok(umount(mnt) == 0, "umount");
		loop_unbind(lfd);
		unlink(copy);
	}
}

/* e2fsck -fn says the image is clean; debugfs reads the files back. */
static void host_check(const char *img)
{
	static char out[1 << 20];
	char cmd[64], *want = malloc(BIG_LEN);
	char *fsck[] = {(char *)e2fs_tool("e2fsck"), "-fn", (char *)img, NULL};
	char *cat[] = {(char *)e2fs_tool("debugfs"), "-R", cmd, (char *)img, NULL};
	int status = e2fs_run(fsck, out, sizeof out);

	if (!is_int(status, 0, "e2fsck -fn: the file system is clean"))
		diag("%s", out);
	snprintf(cmd, sizeof cmd, "cat /small");
	status = e2fs_run(cat, out, sizeof out);
	ok(status == 0 && strstr(out, "hello, ext2 rw\n"), "debugfs cat /small");
	snprintf(cmd, sizeof cmd, "cat /big");
	memset(out, 0, sizeof out);
	status = e2fs_run(cat, out, sizeof out);
	fill_pattern(want, 5000, 0);
	ok(status == 0 && memmem(out, sizeof out, want, 5000), "debugfs cat /big: the 5000 bytes");
	free(want);
}

/* The host's side: the scratch disk's image, its ext2 at DISK_OFF. */
static int check_image(const char *img)
{
	char at_off[400];

	if (!e2fs_tools_present())
		skip_all("no e2fsck or debugfs");
	snprintf(at_off, sizeof at_off, "%s?offset=%lld", img, DISK_OFF);
	plan(3);
	host_check(at_off);
	return done();
}

/* Whether the scratch disk holds the harness's ext2 (label LABEL at
 * DISK_OFF). */
static bool find_disk(void)
{
	char label[16] = "";
	int fd = open(DISK, O_RDONLY);

	if (fd < 0)
		return false;
	pread(fd, label, sizeof label, DISK_OFF + 1024 + 120); /* s_volume_name */
	close(fd);
	return !strcmp(label, LABEL);
}

/* A loop device over the scratch disk's ext2 (offset and size limit). */
static int bind_disk(char *dev, size_t size)
{
	struct loop_config cfg = {0};
	int ctl = open("/dev/loop-control", O_RDWR), n, fd, back;

	n = ctl >= 0 ? ioctl(ctl, LOOP_CTL_GET_FREE) : -1;
	close(ctl);
	snprintf(dev, size, "/dev/loop%d", n);
	back = open(DISK, O_RDWR);
	fd = open(dev, O_RDWR);
	require(n >= 0 && back >= 0 && fd >= 0, "a free loop device and " DISK);
	cfg.fd = back;
	cfg.info.lo_offset = DISK_OFF;
	cfg.info.lo_sizelimit = DISK_LEN;
	require(ioctl(fd, LOOP_CONFIGURE, &cfg) == 0, "LOOP_CONFIGURE at the offset");
	close(back);
	return fd;
}

/* The workload on the harness's ext2, left for the host to check: the
 * loop device passes no flush to a disk under it, so the disk's own
 * fsync writes its cached blocks. */
static void disk_workload(void)
{
	char dev[32];
	int lfd = bind_disk(dev, sizeof dev), fd;

	ok(mount(dev, mnt, "ext2", 0, NULL) == 0, "the harness's ext2 on " DISK ": mount");
	ok(write_all(at("probe"), "p", 1, 0) && unlink(at("probe")) == 0, "... writable");
	workload(dev, "the harness's ext2");
	ok(umount(mnt) == 0, "umount (the host checks it: ext2_rw --check)");
	loop_unbind(lfd);
	fd = open(DISK, O_RDWR);
	ok(fd >= 0 && fsync(fd) == 0, "fsync " DISK);
	close(fd);
}

int main(int argc, char **argv)
{
	char self[256], imgdir[256], img[300], copy[300], dev[32], out[256];
	bool host = !on_fdkernel(), disk;
	int lfd;

	if (argc == 3 && !strcmp(argv[1], "--check"))
		return check_image(argv[2]);
	snprintf(self, sizeof self, "%s", argv[0]);
	snprintf(imgdir, sizeof imgdir, "%s/ext2", dirname(self));
	snprintf(mnt, sizeof mnt, "/tmp/ext2_rw.%d", (int)getpid());
	if (access("/dev/loop-control", F_OK) || geteuid())
		skip_all("no /dev/loop-control, or not root");
	host = host && e2fs_tools_present();
	disk = !host && on_fdkernel() && find_disk();
	plan(2 * (7 + WORKLOAD_CHECKS + 2 * checks_per_round() + 1 + (host ? 3 : 0)) +
	     (disk ? 2 + WORKLOAD_CHECKS + 2 * checks_per_round() + 2 : 0) +
	     (on_fdkernel() ? 6 : 0));
	require(mkdir(mnt, 0755) == 0, "make the mount point");
	for (int i = 0; i < 2; i++) {
		const char *name = i ? "rw-4k.img" : "rw-1k.img";
		char *cp[] = {"/bin/cp", img, copy, NULL}, *envp[] = {NULL};

		snprintf(img, sizeof img, "%s/%s", imgdir, name);
		snprintf(copy, sizeof copy, "/tmp/ext2_rw.%d.%s", (int)getpid(), name);
		require(run_capture(access(cp[0], X_OK) ? "/usr/bin/cp" : cp[0], cp, envp, out,
				    sizeof out) == 0,
			"copy the image to /tmp");
		lfd = loop_bind(copy, 0, dev, sizeof dev);
		check_options(dev, name);
		ok(mount(dev, mnt, "ext2", MS_REMOUNT | MS_RDONLY, NULL) == 0 &&
		       mount(dev, mnt, "ext2", MS_REMOUNT, NULL) == 0,
		   "remount read-only and back");
		workload(dev, name);
		ok(umount(mnt) == 0, "umount");
		check_sync_mount(dev, copy);
		loop_unbind(lfd);
		if (host)
			host_check(copy);
		unlink(copy);
	}
	if (on_fdkernel())
		check_damaged(imgdir);
	if (disk)
		disk_workload();
	rmdir(mnt);
	return done();
}
