/*
 * In-kernel tests of the VFS: path lookup, ramfs files and directories
 * through the inode layer, the cpio loader (good and malformed archives),
 * the console line discipline, and leak counts around all of it.
 */
#include "block/bcache.h"
#include "tty/console.h"
#include "fs/file.h"
#include "fs/mount.h"
#include "fs/vfs.h"
#include "fs/super.h"
#include "lib/ktest.h"
#include "lib/string.h"
#include "mm/frame.h"
#include "mm/heap.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>

#define T_DIR "/tmp/.vfs_selftest"

/* 0 if path resolves to the same inode as expect, else the lookup's error or 1. */
static int lookup_is(const char *path, const char *expect)
{
	struct inode *a, *b;
	int err = path_lookup(NULL, path, &a);

	if (err)
		return err;
	err = path_lookup(NULL, expect, &b);
	if (!err) {
		err = a == b ? 0 : 1;
		inode_put(b);
	}
	inode_put(a);
	return err;
}

static int lookup_err(const char *path)
{
	struct inode *ip;
	int err = path_lookup(NULL, path, &ip);

	if (!err)
		inode_put(ip);
	return err;
}

static void path_tests(void)
{
	char longname[NAME_MAX + 3];

	memset(longname, 'a', sizeof(longname));
	longname[0] = '/';
	longname[sizeof(longname) - 1] = '\0';
	KTEST_OK(lookup_is("//", "/") == 0 && lookup_is("/..", "/") == 0,
		 "vfs: '//' and '/..' are the root");
	KTEST_OK(lookup_is("/tmp/../dev/./null", "/dev/null") == 0, "vfs: . and .. inside a path");
	KTEST_OK(lookup_is("/dev//", "/dev") == 0, "vfs: trailing and repeated slashes on a dir");
	KTEST_OK(lookup_err("") == -ENOENT, "vfs: empty path is ENOENT");
	KTEST_OK(lookup_err("/nonexistent") == -ENOENT, "vfs: missing name is ENOENT");
	KTEST_OK(lookup_err("/dev/null/") == -ENOTDIR, "vfs: trailing slash on a file is ENOTDIR");
	KTEST_OK(lookup_err("/dev/null/x") == -ENOTDIR, "vfs: file as a directory is ENOTDIR");
	KTEST_OK(lookup_err(longname) == -ENAMETOOLONG, "vfs: 256-byte component is ENAMETOOLONG");
	longname[NAME_MAX + 1] = '\0';
	KTEST_OK(lookup_err(longname) == -ENOENT, "vfs: 255-byte component is looked up");
}

/* Fills buf with a pattern that differs per offset. */
static void pattern(uint8_t *buf, size_t len, uint64_t seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)((i + seed) * 7 + 1);
}

static void file_data_tests(struct inode *ip)
{
	enum { LEN = 3 * 4096 + 100 };
	uint8_t *w = kmalloc(LEN), *r = kmalloc(LEN);

	pattern(w, LEN, 3);
	KTEST_OK(inode_write(ip, w, LEN, 10) == LEN && inode_size(ip) == LEN + 10,
		 "ramfs: write across pages grows the file");
	memset(r, 0xff, LEN);
	KTEST_OK(inode_read(ip, r, LEN, 10) == LEN && !memcmp(r, w, LEN),
		 "ramfs: read back what was written");
	KTEST_OK(inode_read(ip, r, 10, 0) == 10 && !r[0] && !r[9],
		 "ramfs: leading gap reads zeroes");
	KTEST_OK(inode_read(ip, r, 100, LEN + 10) == 0, "ramfs: read at end of file returns 0");
	KTEST_OK(inode_truncate(ip, 5000) == 0 && inode_size(ip) == 5000 &&
		     inode_read(ip, r, LEN, 0) == 5000,
		 "ramfs: truncate shrinks");
	KTEST_OK(inode_truncate(ip, 9000) == 0 && inode_read(ip, r, 4000, 5000) == 4000 && !r[0] &&
		     !r[3999],
		 "ramfs: truncate grows with zeroes where data was");
	KTEST_OK(inode_write(ip, w, 1, 1UL << 20) == 1 && inode_size(ip) == (1UL << 20) + 1 &&
		     inode_read(ip, r, 1, 1UL << 19) == 1 && r[0] == 0,
		 "ramfs: write far past the end leaves a hole of zeroes");
	KTEST_OK(inode_write(ip, w, 1, ip->sb->maxbytes) == -EFBIG &&
		     inode_truncate(ip, ip->sb->maxbytes + 1) == -EFBIG,
		 "ramfs: beyond the largest file is EFBIG");
	kfree(w);
	kfree(r);
}

static void space_tests(void)
{
	KTEST_OK(ramfs_limit_pages("64M", 1UL << 20) == 16384 &&
		     ramfs_limit_pages("1G", 1UL << 20) == 262144 &&
		     ramfs_limit_pages("8192", 1000) == 2 && ramfs_limit_pages("25%", 1000) == 250,
		 "ramfs: ramfs_size= in bytes, K/M/G or percent");
	KTEST_OK(ramfs_limit_pages("0", 1000) == SIZE_MAX && ramfs_limit_pages("", 1000) == 500 &&
		     ramfs_limit_pages("12Q", 1000) == 500 && ramfs_limit_pages("M", 1000) == 500,
		 "ramfs: ramfs_size=0 is no limit; none or malformed is half of memory");
}

struct listing {
	char names[128];
	size_t used;
};

static bool collect(void *ctx, const char *name, size_t len, uint64_t ino, unsigned int dtype,
		    uint64_t next_pos)
{
	struct listing *l = ctx;

	(void)ino, (void)dtype, (void)next_pos;
	if (l->used + len + 2 > sizeof(l->names))
		return false;
	memcpy(l->names + l->used, name, len);
	l->used += len;
	l->names[l->used++] = ' ';
	l->names[l->used] = '\0';
	return true;
}

static void dir_tests(void)
{
	struct listing l = {0};
	struct path d;
	uint64_t pos = 0;
	char cwd[64];

	KTEST_OK(vfs_mkdir(NULL, T_DIR "/a", 0755) == 0 &&
		     vfs_mkdir(NULL, T_DIR "/a/", 0755) == -EEXIST,
		 "vfs: mkdir, then EEXIST");
	KTEST_OK(vfs_mknod(NULL, T_DIR "/a/f", S_IFREG | 0644, 0) == 0, "vfs: create a file");
	KTEST_OK(vfs_rmdir(NULL, T_DIR "/a") == -ENOTEMPTY, "vfs: rmdir of a non-empty dir");
	KTEST_OK(vfs_unlink(NULL, T_DIR "/a") == -EISDIR, "vfs: unlink of a directory is EISDIR");
	KTEST_OK(vfs_rmdir(NULL, T_DIR "/a/f") == -ENOTDIR, "vfs: rmdir of a file is ENOTDIR");
	KTEST_OK(vfs_unlink(NULL, T_DIR "/a/f/") == -ENOTDIR, "vfs: unlink 'file/' is ENOTDIR");
	KTEST_OK(vfs_rmdir(NULL, "/") == -EBUSY && vfs_rmdir(NULL, T_DIR "/.") == -EINVAL,
		 "vfs: rmdir of / is EBUSY, of . is EINVAL");
	KTEST_OK(vfs_mkdir(NULL, "/", 0755) == -EEXIST, "vfs: mkdir / is EEXIST");
	KTEST_OK(path_lookup_path(NULL, T_DIR "/a", 0, &d) == 0, "vfs: look up the new dir");
	dir_iterate(d.inode, &pos, collect, &l);
	KTEST_OK(!strcmp(l.names, ". .. f "), "vfs: dir lists '%s'", l.names);
	KTEST_OK(vfs_getcwd(&d, cwd, sizeof(cwd)) == (long)sizeof(T_DIR "/a") &&
		     !strcmp(cwd, T_DIR "/a"),
		 "vfs: getcwd '%s'", cwd);
	KTEST_OK(vfs_getcwd(&d, cwd, 5) == -ERANGE, "vfs: getcwd into a short buffer is ERANGE");
	struct inode *f;
	KTEST_OK(path_lookup(&d, "../a/./f", &f) == 0 && inode_is_reg(f),
		 "vfs: relative path from a start directory");
	KTEST_OK(vfs_unlink(NULL, T_DIR "/a/f") == 0 && vfs_rmdir(NULL, T_DIR "/a") == 0,
		 "vfs: unlink and rmdir");
	KTEST_OK(f->nlink == 0 && inode_is_reg(f), "vfs: an unlinked file stays usable");
	inode_put(f);
	KTEST_OK(vfs_getcwd(&d, cwd, sizeof(cwd)) == -ENOENT, "vfs: getcwd of a removed dir");
	KTEST_OK(vfs_mknod(NULL, T_DIR "/a/g", S_IFREG, 0) == -ENOENT,
		 "vfs: no creation in a removed dir");
	path_put(&d);
}

static void open_tests(void)
{
	unsigned long files0 = file_count();
	struct file *f;

	KTEST_OK(vfs_open(NULL, T_DIR "/o", O_RDWR | O_CREAT | O_EXCL, 0600, &f) == 0,
		 "vfs: O_CREAT|O_EXCL creates");
	inode_write(f->inode, "hello", 5, 0);
	file_put(f);
	KTEST_OK(vfs_open(NULL, T_DIR "/o", O_RDWR | O_CREAT | O_EXCL, 0600, &f) == -EEXIST,
		 "vfs: O_EXCL on an existing file is EEXIST");
	KTEST_OK(vfs_open(NULL, T_DIR "/o", O_WRONLY | O_TRUNC, 0, &f) == 0 &&
		     inode_size(f->inode) == 0,
		 "vfs: O_TRUNC empties");
	file_put(f);
	KTEST_OK(vfs_open(NULL, T_DIR "/o", O_RDONLY | O_DIRECTORY, 0, &f) == -ENOTDIR,
		 "vfs: O_DIRECTORY on a file is ENOTDIR");
	KTEST_OK(vfs_open(NULL, T_DIR, O_WRONLY, 0, &f) == -EISDIR &&
		     vfs_open(NULL, T_DIR "/", O_RDONLY | O_CREAT, 0, &f) == -EISDIR,
		 "vfs: directories open read-only, without O_CREAT");
	KTEST_OK(vfs_open(NULL, T_DIR "/new/", O_RDWR | O_CREAT, 0, &f) == -EISDIR,
		 "vfs: O_CREAT of 'name/' is EISDIR");
	KTEST_OK(vfs_unlink(NULL, T_DIR "/o") == 0 && file_count() == files0,
		 "vfs: files released (%lu open)", file_count());
	grace_drain();
}

static void cpio_tests(const struct path *root);

static void console_tests(void)
{
	char buf[16];
	int echo = console_set_echo(0);

	for (const char *s = "ab\x7f"
			     "c\r";
	     *s; s++)
		console_input(*s);
	KTEST_OK(console_take(buf, sizeof(buf)) == 3 && !memcmp(buf, "ac\n", 3),
		 "console: DEL erases, CR becomes NL");
	for (const char *s = "xy\x15z\n"
			     "next\n";
	     *s; s++)
		console_input(*s);
	KTEST_OK(console_take(buf, sizeof(buf)) == 2 && !memcmp(buf, "z\n", 2),
		 "console: ^U kills the line; a read returns one line");
	KTEST_OK(console_take(buf, 2) == 2 && console_take(buf, sizeof(buf)) == 3,
		 "console: a short read leaves the rest of the line");
	console_input('\x04');
	KTEST_OK(console_take(buf, sizeof(buf)) == 0, "console: ^D at line start reads as EOF");
	for (const char *s = "q\x04"
			     "half";
	     *s; s++)
		console_input(*s);
	KTEST_OK(console_take(buf, sizeof(buf)) == 1 && console_take(buf, 4) == -EAGAIN,
		 "console: ^D ends a line without NL; an unfinished line is not readable");
	console_input('\x03');
	KTEST_OK(console_take(buf, sizeof(buf)) == -EAGAIN, "console: ^C discards the line");
	console_set_echo(echo);
}

void vfs_selftest(void)
{
	/* Frames counted below: none waiting for a shootdown, and no disk
	 * block cached (with root= the lookups read the root device). */
	bcache_shrink(~0UL);
	heap_purge();
	size_t frames0 = frame_free_count(), heap0 = heap_bytes_in_use();
	unsigned long inodes0 = inode_count();
	size_t pages0 = sb_pages_all();
	struct inode *ip, *dir;
	struct path dirp;

	path_tests();
	space_tests();
	KTEST_OK(vfs_mkdir(NULL, T_DIR, 0755) == 0 && path_lookup_path(NULL, T_DIR, 0, &dirp) == 0,
		 "vfs: test directory made");
	dir = dirp.inode;
	KTEST_OK(dir_create(dir, "data", 4, S_IFREG | 0644, 0, &ip) == 0, "ramfs: create a file");
	file_data_tests(ip);
	KTEST_OK(sb_pages_all() == pages0 + 3, "ramfs: the file's 3 pages are charged");
	KTEST_OK(dir_remove(dir, "data", 4, false) == 0 && ip->nlink == 0,
		 "ramfs: unlink drops nlink to 0");
	inode_put(ip);
	KTEST_OK(sb_pages_all() == pages0, "ramfs: freeing the file gives its pages back");
	dir_tests();
	open_tests();
	cpio_tests(&dirp);
	path_put(&dirp);
	KTEST_OK(vfs_rmdir(NULL, T_DIR) == 0, "vfs: test directory removed");
	console_tests();
	bcache_shrink(~0UL);
	heap_purge();
	KTEST_OK(inode_count() == inodes0 && frame_free_count() == frames0 &&
		     heap_bytes_in_use() == heap0,
		 "vfs: no inode, frame or heap leak (%ld inodes, %ld frames, %ld bytes)",
		 (long)(inode_count() - inodes0), (long)(frames0 - frame_free_count()),
		 (long)(heap_bytes_in_use() - heap0));
}

/* ---- cpio ---- */

/* Appends one newc entry to ar at *off (4-byte alignment as cpio writes). */
static void newc_put(char *ar, size_t *off, const char *name, uint32_t mode, const char *data)
{
	size_t nlen = strlen(name) + 1, dlen = data ? strlen(data) : 0;
	uint32_t f[13] = {1, mode, 0, 0, 1, 0, dlen, 0, 0, 0, 0, nlen, 0};
	char *p = ar + *off;

	memcpy(p, "070701", 6);
	for (int i = 0; i < 13; i++)
		for (int d = 0; d < 8; d++)
			p[6 + 8 * i + d] = "0123456789abcdef"[(f[i] >> (28 - 4 * d)) & 0xf];
	memcpy(p + 110, name, nlen);
	*off += (110 + nlen + 3) & ~3UL;
	memcpy(ar + *off, data ? data : "", dlen);
	*off += (dlen + 3) & ~3UL;
}

static void cpio_tests(const struct path *root)
{
	char *ar = kzalloc(2048), buf[8];
	size_t len = 0, good;
	struct inode *ip;

	newc_put(ar, &len, ".", S_IFDIR | 0755, NULL);
	newc_put(ar, &len, "./bin", S_IFDIR | 0755, NULL);
	newc_put(ar, &len, "./bin/hi", S_IFREG | 0755, "hello!");
	newc_put(ar, &len, "./bin/link", S_IFLNK | 0777, "hi");
	newc_put(ar, &len, "./bin/empty", S_IFLNK | 0777, NULL);
	newc_put(ar, &len, "TRAILER!!!", 0, NULL);
	good = len;
	KTEST_OK(cpio_unpack(ar, len, root) == 4,
		 "cpio: unpack a small archive (empty link skipped)");
	KTEST_OK(path_lookup(root, "bin/hi", &ip) == 0 && inode_read(ip, buf, 8, 0) == 6 &&
		     !memcmp(buf, "hello!", 6) && (ip->mode & 0777) == 0755,
		 "cpio: file content and mode");
	inode_put(ip);
	KTEST_OK(path_lookup_flags(root, "bin/link", LOOKUP_NOFOLLOW, &ip) == 0 &&
		     inode_is_link(ip) && !strcmp(ip->link.target, "hi"),
		 "cpio: a symbolic link with its target");
	inode_put(ip);
	KTEST_OK(path_lookup_flags(root, "bin/empty", LOOKUP_NOFOLLOW, &ip) == -ENOENT,
		 "cpio: a link without a target is skipped");
	KTEST_OK(cpio_unpack(ar, len, root) == 4, "cpio: a second unpack replaces the link");
	KTEST_OK(path_lookup(root, "bin/link", &ip) == 0 && inode_is_reg(ip),
		 "cpio: the link resolves to the file");
	inode_put(ip);
	KTEST_OK(cpio_unpack(ar, good - 50, root) == -EINVAL, "cpio: truncated archive rejected");
	ar[110 + 2 + 2] = 'X'; /* inside the second header's magic */
	KTEST_OK(cpio_unpack(ar, good, root) == -EINVAL, "cpio: bad magic rejected");
	memcpy(ar + 112, "070701", 6);
	ar[112 + 6 + 8 * 11 + 1] = 'g'; /* second header's namesize: not hex */
	KTEST_OK(cpio_unpack(ar, good, root) == -EINVAL, "cpio: bad hex field rejected");
	memcpy(ar + 112 + 6 + 8 * 11, "7fffffff", 8); /* namesize past the end */
	KTEST_OK(cpio_unpack(ar, good, root) == -EINVAL, "cpio: name past the end rejected");
	KTEST_OK(cpio_unpack(ar, 60, root) == -EINVAL && cpio_unpack(ar, 0, root) == -EINVAL,
		 "cpio: short and empty archives rejected");
	KTEST_OK(vfs_unlink(root, "bin/hi") == 0 && vfs_unlink(root, "bin/link") == 0 &&
		     vfs_rmdir(root, "bin") == 0,
		 "cpio: unpacked tree removed");
	kfree(ar);
}
