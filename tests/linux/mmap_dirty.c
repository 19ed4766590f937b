/* Dirty tracking of shared file mappings (docs/pagecache.md, "Shared
 * writable mappings"), as LTP's msync04 reads it: a page's frame from
 * /proc/self/pagemap, then its word in /proc/kpageflags.  A file page
 * mapped shared and writable is dirty after a store, clean after
 * msync(MS_SYNC) (every mapping write-protected: Linux's page_mkclean),
 * and dirty again at the next store, through whatever mapping makes it:
 * after mprotect, in a fork's child, after mremap moved the mapping or
 * munmap split it; a read fault leaves it clean.  What is stored after
 * one msync reaches the disk at the next (the lost update the tracking
 * prevents: read from the image at the block FIEMAP names), and a child
 * storing and exiting while the parent msyncs loses nothing.  Then
 * /proc/kpageflags's own rules: mode 0400, whole words (EINVAL), EOF
 * past the last frame.  A scratch ext2 through a loop device (root, with
 * mkfs.ext2), on the host too. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "ext2_scratch.h"

/* <linux/fiemap.h>'s, which musl-gcc has not: the ABI's, as fdkernel's
 * uapi header spells them. */
#include "../../kernel/uapi/ioctl.h"

#define PG	   4096L
#define KPF_DIRTY  (1ULL << 4)
#define PFN_MASK   ((1ULL << 55) - 1)
#define NOT_MAPPED (~0ULL)
#define STORMS	   40

static struct scratch s;
static int file = -1; /* the test file, open for FIEMAP */

/* The kpageflags word of the page at p, or NOT_MAPPED. */
static uint64_t page_flags(const void *p)
{
	uint64_t e = 0, f = NOT_MAPPED;
	int pm = open("/proc/self/pagemap", O_RDONLY), kf;

	if (pread(pm, &e, 8, (uintptr_t)p / PG * 8) != 8 || !(e >> 63) || !(e & PFN_MASK)) {
		close(pm);
		return NOT_MAPPED;
	}
	close(pm);
	kf = open("/proc/kpageflags", O_RDONLY);
	if (pread(kf, &f, 8, (off_t)((e & PFN_MASK) * 8)) != 8)
		f = NOT_MAPPED;
	close(kf);
	return f;
}

static bool dirty(const void *p)
{
	uint64_t f = page_flags(p);

	return f != NOT_MAPPED && (f & KPF_DIRTY);
}

static bool clean(const void *p)
{
	uint64_t f = page_flags(p);

	return f != NOT_MAPPED && !(f & KPF_DIRTY);
}

/* The disk offset of byte off of the test file (FIEMAP). */
static uint64_t disk_offset(long off)
{
	struct {
		struct fiemap h;
		struct fiemap_extent ext[1];
	} fm = {.h = {.fm_start = (uint64_t)off, .fm_length = 1, .fm_extent_count = 1}};

	require(ioctl(file, FS_IOC_FIEMAP, &fm) == 0 && fm.h.fm_mapped_extents == 1, "FIEMAP");
	return fm.ext[0].fe_physical + ((uint64_t)off - fm.ext[0].fe_logical);
}

/* Whether the disk (the image file) holds want at file offset off. */
static bool on_disk(long off, const char *want)
{
	char buf[64] = "";
	int fd = open(s.img, O_RDONLY);
	size_t n = strlen(want);
	bool same =
	    pread(fd, buf, n, (off_t)disk_offset(off)) == (ssize_t)n && !memcmp(buf, want, n);

	close(fd);
	return same;
}

/* The test file: 3 pages of 'a', on the disk and clean. */
static void make_file(void)
{
	static char buf[3 * PG];

	file = open(scratch_at(&s, "f"), O_RDWR | O_CREAT | O_TRUNC, 0644);
	memset(buf, 'a', sizeof buf);
	require(file >= 0 && write(file, buf, sizeof buf) == sizeof buf && fsync(file) == 0,
		"the test file, synced");
}

static void check_msync(char *p)
{
	(void)*(volatile char *)(p + PG); /* a read fault: the page stays clean */
	ok(clean(p + PG), "a page read through a shared writable mapping is clean");
	p[8] = 'B';
	ok(dirty(p), "a store dirties the page");
	ok(msync(p, PG, MS_SYNC) == 0 && clean(p), "msync(MS_SYNC) cleans it, still mapped");
	ok(on_disk(8, "B"), "the store is on the disk");
	p[9] = 'C';
	ok(dirty(p), "the next store dirties it again");
	ok(msync(p, PG, MS_SYNC) == 0 && clean(p) && on_disk(8, "BC"),
	   "the second msync writes what was stored after the first");
}

static void check_mprotect(char *p)
{
	p[10] = 'D';
	ok(msync(p, PG, MS_SYNC) == 0 && clean(p), "clean after msync");
	ok(mprotect(p, PG, PROT_READ) == 0 && mprotect(p, PG, PROT_READ | PROT_WRITE) == 0,
	   "mprotect read-only, then read-write");
	p[11] = 'E';
	ok(dirty(p), "a store after mprotect dirties the page");
	ok(msync(p, PG, MS_SYNC) == 0 && on_disk(8, "BCDE"), "and msync writes it");
}

/* A child that runs fn(p) at each byte on go and answers on done ('y'
 * when it held), until go closes. */
static pid_t child_steps(int go[2], int done[2], bool (*fn)(char *), char *p)
{
	pid_t pid = fork();
	char c;

	if (pid)
		return pid;
	close(go[1]); /* so that the parent's close ends it */
	close(done[0]);
	while (read(go[0], &c, 1) == 1) {
		c = fn(p) ? 'y' : 'n';
		if (write(done[1], &c, 1) != 1 || c != 'y')
			_exit(1);
	}
	_exit(0);
}

static bool step(int go[2], int done[2])
{
	char c = 'g';

	return write(go[1], &c, 1) == 1 && read(done[0], &c, 1) == 1 && c == 'y';
}

static int stage;   /* the child's next step */
static char *moved; /* where the child's mremap puts its mapping */

/* The child's steps: each stores through its mapping after the
 * parent's msync cleaned the page, and checks that the page is dirty. */
static bool child_step(char *p)
{
	switch (stage++) {
	case 0: /* its entries copied at fork, then cleaned */
		p[12] = 'F';
		return dirty(p);
	case 1: /* its mapping moved, a store there */
		moved = mremap(p, 3 * PG, 3 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, moved);
		if (moved == MAP_FAILED || !clean(moved))
			return false;
		moved[13] = 'G';
		return dirty(moved);
	case 2: /* the parent's msync found the moved entry */
		if (!clean(moved))
			return false;
		moved[14] = 'H';
		return dirty(moved);
	case 3: /* split by munmap of the middle page */
		if (munmap(moved + PG, PG))
			return false;
		moved[15] = 'I';
		moved[2 * PG] = 'x';
		return dirty(moved) && dirty(moved + 2 * PG);
	case 4:
		moved[16] = 'J';
		moved[2 * PG + 1] = 'y';
		return dirty(moved) && dirty(moved + 2 * PG);
	default:
		return false;
	}
}

static void check_fork(char *p)
{
	int go[2], done[2], status;
	pid_t pid;

	p[12] = 'z'; /* dirty and writable in the parent, then in the child */
	(void)*(volatile char *)(p + 2 * PG); /* mapped in the parent too */
	moved = mmap(NULL, 3 * PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	require(moved != MAP_FAILED && pipe(go) == 0 && pipe(done) == 0,
		"pipes, a place to move to");
	pid = child_steps(go, done, child_step, p);
	require(pid > 0, "fork");
	ok(msync(p, PG, MS_SYNC) == 0 && clean(p), "the parent's msync cleans the page");
	ok(step(go, done), "a store in the fork's child dirties it again");
	ok(dirty(p), "the parent sees the page dirty");
	ok(msync(p, PG, MS_SYNC) == 0 && clean(p) && on_disk(8, "BCDEF"),
	   "msync writes the child's store");
	ok(step(go, done), "the child moves its mapping (mremap) and stores there");
	ok(msync(p, PG, MS_SYNC) == 0 && clean(p) && on_disk(8, "BCDEFG"), "msync writes it");
	ok(step(go, done), "the moved mapping was cleaned: a store dirties the page again");
	ok(msync(p, PG, MS_SYNC) == 0 && on_disk(8, "BCDEFGH"), "msync writes it");
	ok(step(go, done), "the child unmaps the middle page, stores on either side");
	ok(msync(p, 3 * PG, MS_SYNC) == 0 && clean(p) && clean(p + 2 * PG) &&
	       on_disk(8, "BCDEFGHI") && on_disk(2 * PG, "x"),
	   "msync writes and cleans the pages beside the hole");
	ok(step(go, done), "stores on either side of the hole dirty both pages again");
	close(go[1]);
	ok(waitpid(pid, &status, 0) == pid && exited_with(status, 0), "the child ends well");
	ok(msync(p, 3 * PG, MS_SYNC) == 0 && on_disk(8, "BCDEFGHIJ") && on_disk(2 * PG, "xy"),
	   "msync after the child's exit writes its last stores");
	close(go[0]);
	close(done[0]);
	close(done[1]);
}

/* Children store and exit (their mappings torn down) while the parent
 * msyncs: every store is kept. */
static void check_exit_race(char *p)
{
	bool good = true;

	for (int i = 0; i < STORMS && good; i++) {
		pid_t pid = fork();
		int status;

		if (pid == 0) {
			p[100 + i] = (char)('0' + i % 10);
			_exit(0);
		}
		good = pid > 0 && msync(p, PG, MS_SYNC) == 0 && waitpid(pid, &status, 0) == pid &&
		       exited_with(status, 0);
	}
	ok(good && msync(p, PG, MS_SYNC) == 0, "%d children store and exit beside msync", STORMS);
	char want[STORMS + 1];
	for (int i = 0; i < STORMS; i++)
		want[i] = (char)('0' + i % 10);
	want[STORMS] = 0;
	ok(on_disk(100, want), "every child's store is on the disk");
}

static void check_kpageflags(void)
{
	struct stat st;
	uint64_t w[2];
	int fd = open("/proc/kpageflags", O_RDONLY);

	ok(stat("/proc/kpageflags", &st) == 0 && (st.st_mode & 07777) == 0400 && st.st_uid == 0,
	   "/proc/kpageflags is root's, 0400");
	is_errno(pread(fd, w, 8, 4), EINVAL, "a read at an offset not a multiple of 8");
	is_errno(pread(fd, w, 4, 0), EINVAL, "a read of a size not a multiple of 8");
	ok(pread(fd, w, 16, 0) == 16, "two words");
	is_int(pread(fd, w, 8, (off_t)1 << 50), 0, "EOF past the last frame");
	close(fd);
}

/* The file again after a remount: every store was on the disk. */
static void check_remount(void)
{
	char buf[32] = "";
	int fd;

	ok(umount(s.mnt) == 0 && mount(s.dev, s.mnt, "ext2", 0, NULL) == 0, "remount");
	fd = open(scratch_at(&s, "f"), O_RDONLY);
	ok(pread(fd, buf, 12, 6) == 12 && !memcmp(buf, "aaBCDEFGHIJa", 12),
	   "the file holds every store after a remount");
	close(fd);
}

int main(void)
{
	char *p;

	scratch_ext2(&s, "mmap_dirty");
	plan(33);
	make_file();
	p = mmap(NULL, 3 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, file, 0);
	require(p != MAP_FAILED, "a shared writable mapping");
	check_msync(p);
	check_mprotect(p);
	check_fork(p);
	check_exit_race(p);
	check_kpageflags();
	ok(munmap(p, 3 * PG) == 0 && close(file) == 0, "munmap, close");
	check_remount();
	scratch_done(&s);
	return done();
}
