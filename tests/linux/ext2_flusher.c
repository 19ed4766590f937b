/* The flusher (docs/pagecache.md, "Write-back"): a copy of
 * tests/harness/ext2-images' cache-4k.img mounted read-write through a
 * loop device; a file written there and left alone, still open (its
 * inode's last close would write it), reaches the image without any
 * sync: its bytes in the image file, then its inode and directory entry
 * (a copy of the image mounted read-only shows the file).  Each waits
 * by polling with a bound of minutes, never a time claim.  On fdkernel
 * only (the host's settings are the host's): the expiry is set short,
 * the defaults are Linux's, and dirty_writeback_centisecs 0 stops
 * periodic write-back until a new period starts it again.  The vm/
 * rows' bounds everywhere.  On the host as root when it loop-mounts
 * ext2 (else SKIP). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "blk_util.h"
#include "testutil.h"

/* <sys/mount.h> would redefine blk_util.h's BLK* requests. */
int mount(const char *source, const char *target, const char *type, unsigned long flags,
	  const void *data);
int umount(const char *target);

#define MS_RDONLY  1
#define IMG_SIZE   (16 << 20)
#define FILE_SIZE  65536
#define POLL_LIMIT 120 /* seconds: a bound, not a claim */
#define VM(name)   "/proc/sys/vm/" name
#define EXPIRE	   VM("dirty_expire_centisecs")
#define PERIOD	   VM("dirty_writeback_centisecs")
#define BACKGROUND VM("dirty_background_ratio")

static char mnt[64], mnt2[64], img[128], img2[128], dev[32];
static char image[IMG_SIZE];

static const char *at(const char *dir, const char *name)
{
	static char buf[256];

	snprintf(buf, sizeof buf, "%s/%s", dir, name);
	return buf;
}

static bool copy_file(const char *from, const char *to)
{
	static char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	bool good = in >= 0 && out >= 0;
	ssize_t n;

	while (good && (n = read(in, buf, sizeof buf)) > 0)
		good = write(out, buf, n) == n;
	close(in);
	close(out);
	return good;
}

/* The file's bytes: a line naming it and the test's pid, again and again. */
static void fill(char *buf, const char *tag)
{
	char line[64];
	int n = snprintf(line, sizeof line, "flusher %s %d\n", tag, (int)getpid());

	for (int i = 0; i < FILE_SIZE; i++)
		buf[i] = line[i % n];
}

static long number(const char *path)
{
	char text[32];

	return read_text(path, text, sizeof text) > 0 ? strtol(text, NULL, 10) : -999;
}

static bool set_number(const char *path, long v)
{
	char text[32];

	snprintf(text, sizeof text, "%ld", v);
	return write_text(path, text) == 0;
}

/* Whether the image file (not the mount: a second view) holds each
 * 4 KiB of want (the file's blocks need not be consecutive). */
static bool image_holds(const char *want)
{
	int fd = open(img, O_RDONLY);
	ssize_t n = fd >= 0 ? pread(fd, image, sizeof image, 0) : -1;
	bool all = n > 0;

	close(fd);
	for (int i = 0; all && i < FILE_SIZE; i += 4096)
		all = memmem(image, n, want + i, 4096) != NULL;
	return all;
}

/* Whether a copy of the image, mounted read-only, has name with want. */
static bool copy_has(const char *name, const char *want)
{
	static char got[FILE_SIZE + 1];
	char dev2[32];
	bool found = false;
	int lfd, fd;

	if (!copy_file(img, img2))
		return false;
	lfd = loop_bind(img2, LO_FLAGS_READ_ONLY, dev2, sizeof dev2);
	if (mount(dev2, mnt2, "ext2", MS_RDONLY, NULL) == 0) {
		if ((fd = open(at(mnt2, name), O_RDONLY)) >= 0) {
			found =
			    read(fd, got, sizeof got) == FILE_SIZE && !memcmp(got, want, FILE_SIZE);
			close(fd);
		}
		umount(mnt2);
	}
	ioctl(lfd, LOOP_CLR_FD, 0);
	close(lfd);
	return found;
}

/* Polls until the image holds want (and, if name, the copy's file has
 * it), a few times a second, up to POLL_LIMIT seconds: whether it did. */
static bool wait_written(const char *want, const char *name)
{
	time_t end = time(NULL) + POLL_LIMIT;

	do {
		if (image_holds(want) && (!name || copy_has(name, want)))
			return true;
		sleep_ms(250);
	} while (time(NULL) < end);
	return false;
}

static void check_bounds(void)
{
	long period = number(PERIOD);

	is_errno(write_text(EXPIRE, "-1"), EINVAL, "dirty_expire_centisecs -1: EINVAL");
	is_errno(write_text(BACKGROUND, "101"), EINVAL, "dirty_background_ratio 101: EINVAL");
	is_errno(write_text(BACKGROUND, "-1"), EINVAL, "dirty_background_ratio -1: EINVAL");
	/* Linux's proc_dointvec on an unsigned: any int, read back as written. */
	ok(write_text(PERIOD, "-1") == 0 && number(PERIOD) == -1,
	   "dirty_writeback_centisecs takes -1 (a period of 497 days)");
	ok(set_number(PERIOD, period) && number(PERIOD) == period, "... and its value back (%ld)",
	   period);
	if (on_fdkernel())
		ok(number(EXPIRE) == 3000 && period == 500 && number(BACKGROUND) == 10,
		   "Linux's defaults: expire 3000, period 500, background 10");
	else
		skip("the host's settings are the host's", "defaults");
}

/* A file written and left open reaches the image, data then metadata. */
static int check_left_alone(void)
{
	static char want[FILE_SIZE];
	int fd = open(at(mnt, "alone"), O_RDWR | O_CREAT | O_TRUNC, 0644);

	fill(want, "alone");
	ok(write(fd, want, FILE_SIZE) == FILE_SIZE, "64 KiB written to a new file, left open");
	ok(wait_written(want, NULL), "its bytes reach the image without a sync");
	ok(wait_written(want, "alone"), "... and its inode and name: a copy of the image has it");
	return fd;
}

/* Period 0: no periodic write-back; a new period starts it again. */
static void check_period_zero(void)
{
	static char want[FILE_SIZE];
	int fd;

	if (!on_fdkernel()) {
		skip("the host's settings are the host's", "period 0 stops write-back");
		skip("the host's settings are the host's", "a new period starts it");
		return;
	}
	fd = open(at(mnt, "held"), O_RDWR | O_CREAT | O_TRUNC, 0644);
	fill(want, "held");
	ok(set_number(PERIOD, 0) && write(fd, want, FILE_SIZE) == FILE_SIZE && sleep(3) == 0 &&
	       !image_holds(want),
	   "dirty_writeback_centisecs 0: nothing written 3 s past the 1 s expiry");
	ok(set_number(PERIOD, 50) && wait_written(want, "held"),
	   "a new period writes it (data and metadata)");
	close(fd);
}

int main(int argc, char **argv)
{
	char self[256], orig[320];
	long expire, period;
	int lfd, fd;

	(void)argc;
	snprintf(self, sizeof self, "%s", argv[0]);
	snprintf(orig, sizeof orig, "%s/ext2/cache-4k.img", dirname(self));
	snprintf(mnt, sizeof mnt, "/tmp/ext2_fl.%d", getpid());
	snprintf(mnt2, sizeof mnt2, "/tmp/ext2_fl2.%d", getpid());
	snprintf(img, sizeof img, "/tmp/ext2_fl.%d.img", getpid());
	snprintf(img2, sizeof img2, "/tmp/ext2_fl2.%d.img", getpid());
	if (access("/dev/loop-control", F_OK) || geteuid() != 0)
		skip_all("no /dev/loop-control, or not root");
	require(mkdir(mnt, 0755) == 0 && mkdir(mnt2, 0755) == 0, "mount points");
	require(copy_file(orig, img), "a copy of the image");
	lfd = loop_bind(img, 0, dev, sizeof dev);
	if (mount(dev, mnt, "ext2", 0, NULL)) {
		ioctl(lfd, LOOP_CLR_FD, 0);
		close(lfd);
		rmdir(mnt);
		rmdir(mnt2);
		unlink(img);
		skip_all("this kernel does not mount ext2 read-write from a loop device");
	}
	plan(14);
	check_bounds();
	expire = number(EXPIRE);
	period = number(PERIOD);
	if (on_fdkernel())
		ok(set_number(EXPIRE, 100) && set_number(PERIOD, 50),
		   "expiry 1 s, period 0.5 s (fdkernel)");
	else
		skip("the host's settings are the host's", "a short expiry");
	fd = check_left_alone();
	check_period_zero();
	ok(set_number(EXPIRE, expire) && set_number(PERIOD, period), "the settings back");
	close(fd);
	ok(umount(mnt) == 0, "umount");
	ioctl(lfd, LOOP_CLR_FD, 0);
	close(lfd);
	rmdir(mnt);
	rmdir(mnt2);
	unlink(img);
	unlink(img2);
	return done();
}
