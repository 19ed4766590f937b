/* inotify watches hold their inode (LTP's inotify03): on a scratch ext2
 * (mkfs.ext2, a loop device) a watched file nothing else uses stays
 * watched (no IN_DELETE_SELF when its last fd closes); umount is not
 * EBUSY because of watches and ends each with IN_UNMOUNT then
 * IN_IGNORED; a watched file unlinked there gets IN_ATTRIB,
 * IN_DELETE_SELF, IN_IGNORED and its blocks come back; a tmpfs umount
 * ends its watches the same way; inotify_rm_watch and closing the
 * inotify fd give the inode back (the file system unmounts after).  Root,
 * on the host too when it loop-mounts ext2. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "ext2_scratch.h"
#include "inotify_events.h"

static struct scratch s;

static const char *at(const char *name)
{
	return scratch_at(&s, name);
}

static void make_file(const char *name)
{
	int fd = open(at(name), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	char blk[4096] = {1};

	require(fd >= 0 && write(fd, blk, sizeof blk) == (ssize_t)sizeof blk && close(fd) == 0,
		"make a file");
}

static long free_blocks(void)
{
	struct statfs st;
	return statfs(s.mnt, &st) ? -1 : (long)st.f_bfree;
}

static void remount(void)
{
	require(mount(s.dev, s.mnt, "ext2", 0, NULL) == 0, "mount again");
}

static void test_ext2_umount(void)
{
	int fd = inotify_init1(IN_NONBLOCK);

	make_file("a");
	make_file("b");
	require(fd >= 0 && inotify_add_watch(fd, at("a"), IN_ALL_EVENTS) == 1 &&
		    inotify_add_watch(fd, at("b"), IN_ALL_EVENTS) == 2,
		"watch two ext2 files");
	is(events(fd), "", "nothing uses the watched files: no event, the watches stay");
	ok(umount(s.mnt) == 0, "umount is not EBUSY because of the watches");
	/* The inodes' order is the instance's (Linux: its inode list). */
	const char *got = events(fd);
	if (!ok(!strcmp(got, "2000 8000 2000@2 8000@2") || !strcmp(got, "2000@2 8000@2 2000 8000"),
		"each watch: IN_UNMOUNT, then IN_IGNORED"))
		diag("events \"%s\"", got);
	is_errno(inotify_rm_watch(fd, 1), EINVAL, "the watch is gone: inotify_rm_watch EINVAL");
	close(fd);
	remount();
}

static void test_ext2_unlink(void)
{
	int fd = inotify_init1(IN_NONBLOCK);
	long before;

	before = free_blocks();
	make_file("u");
	require(inotify_add_watch(fd, at("u"), IN_ALL_EVENTS) == 1, "watch");
	ok(unlink(at("u")) == 0, "unlink the watched file");
	is(events(fd), "4 400 8000", "IN_ATTRIB, IN_DELETE_SELF, IN_IGNORED");
	is_int(free_blocks(), before, "its blocks are free again");
	close(fd);
}

static void test_ext2_release(void)
{
	int fd = inotify_init1(IN_NONBLOCK), wd;

	make_file("r");
	wd = inotify_add_watch(fd, at("r"), IN_MODIFY);
	ok(wd > 0 && inotify_rm_watch(fd, wd) == 0, "inotify_rm_watch");
	is(events(fd), "8000", "IN_IGNORED");
	inotify_add_watch(fd, at("r"), IN_MODIFY);
	close(fd);
	ok(umount(s.mnt) == 0, "rm_watch and close gave the inodes back: umount");
	remount();
}

static void test_tmpfs_umount(void)
{
	char mnt[64], path[96];
	int fd = inotify_init1(IN_NONBLOCK), f;

	snprintf(mnt, sizeof mnt, "/tmp/inotify_unmount.t%d", (int)getpid());
	snprintf(path, sizeof path, "%s/f", mnt);
	require(mkdir(mnt, 0755) == 0 && mount("none", mnt, "tmpfs", 0, NULL) == 0, "tmpfs");
	f = open(path, O_WRONLY | O_CREAT, 0600);
	require(f >= 0 && close(f) == 0, "a file");
	require(inotify_add_watch(fd, path, IN_DELETE_SELF) == 1, "watch");
	ok(umount(mnt) == 0, "tmpfs: umount with a watch");
	is(events(fd), "2000 8000", "tmpfs: IN_UNMOUNT, IN_IGNORED");
	close(fd);
	rmdir(mnt);
}

int main(void)
{
	scratch_ext2(&s, "inotify_unmount");
	plan(4 + 3 + 3 + 2);
	test_ext2_umount();
	test_ext2_unlink();
	test_ext2_release();
	test_tmpfs_umount();
	scratch_done(&s);
	return done();
}
