/* Tasks that look up one ext2 file at once while its inode is not in
 * memory (no task has it open: its inode went at the last close), as a
 * program's workers importing the same modules do: one disk inode must
 * become one VFS inode, and the file's page cache must live as long as
 * that inode (two lookups that both read the disk inode once left the
 * cache's mapping freed under the survivor: docs/robustness.md, the
 * test-debian panic).  THREADS threads open the same files in the same
 * order, meeting at a barrier before each open: each writes its own
 * byte of each file, then all of them must be there through the cache,
 * and from the disk after a remount; then they open the files again
 * and one unlinks each while all hold it open: a file made after them
 * (likely on a freed inode number) reads zeroes where it was not
 * written, never a deleted file's bytes.  Last, each opens one file,
 * writes a page of its own there and closes it, again and again, so
 * that opens race the write-back of its last close: every page is on
 * the disk after a remount.  A scratch ext2 through a loop device (root,
 * with mkfs.ext2), on the host too. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#include "ext2_scratch.h"

#define THREADS 4
#define FILES	16
#define ROUNDS	32
#define PG	4096
#define STORED	64 /* pages close_racer's thread 0 stores into */
#define REOPENS 16 /* opens of each other close_racer thread, at most */

static struct scratch s;
static pthread_barrier_t meet;
static int round_no;
/* Failed calls in the racers (each thread adds under no lock: atomics). */
static int failed_calls;

/* The byte thread t writes at offset t of each file in round r: never 0. */
static char mark(int r, int t)
{
	return (char)(1 + (r * THREADS + t) % 255);
}

/* The path of file c<i> (a buffer per caller: the threads' own). */
static void path(char *buf, size_t size, char c, int i)
{
	snprintf(buf, size, "%s/%c%d", s.mnt, c, i);
}

static void fail_call(void)
{
	__atomic_add_fetch(&failed_calls, 1, __ATOMIC_RELAXED);
}

/* Each file: opened by every thread at once, its byte written, closed. */
static void *write_racer(void *arg)
{
	int t = (int)(long)arg;
	char p[128], b = mark(round_no, t);

	for (int i = 0; i < FILES; i++) {
		path(p, sizeof p, 'f', i);
		pthread_barrier_wait(&meet);
		int fd = open(p, O_RDWR);
		if (fd < 0 || pwrite(fd, &b, 1, t) != 1)
			fail_call();
		if (fd >= 0)
			close(fd);
	}
	return NULL;
}

/* Each file: opened by every thread at once, unlinked by thread 0 while
 * all hold it, closed. */
static void *unlink_racer(void *arg)
{
	int t = (int)(long)arg;
	char p[128];

	for (int i = 0; i < FILES; i++) {
		path(p, sizeof p, 'f', i);
		pthread_barrier_wait(&meet);
		int fd = open(p, O_RDONLY);
		if (fd < 0)
			fail_call();
		pthread_barrier_wait(&meet);
		if (t == 0 && unlink(p))
			fail_call();
		pthread_barrier_wait(&meet);
		if (fd >= 0)
			close(fd);
	}
	return NULL;
}

/* Thread 0's close has begun (1) or ended (2); pages each other
 * thread wrote past thread 0's. */
static int closing, reopened[THREADS];

/* The page of h thread t > 0 writes in its k-th open. */
static off_t reopen_page(int t, int k)
{
	return (off_t)(STORED + (t - 1) * REOPENS + k) * PG;
}

/* Thread 0 stores into the STORED pages of h, a sparse file, through a
 * shared mapping (their blocks are made at write-back), unmaps it and
 * closes h; the others, from then on, open h again and again, each
 * time writing a page past those (a new block, a new size) and closing
 * it.  Whichever close is the last writes the stored pages back,
 * making their blocks: an inode a lookup loads meanwhile must not
 * exist beside it, with a block map and size of its own. */
static void *close_racer(void *arg)
{
	int t = (int)(long)arg;
	char p[128], buf[PG];

	path(p, sizeof p, 'h', 0);
	memset(buf, mark(round_no, t), PG);
	if (t == 0) {
		int fd = open(p, O_RDWR);
		char *m = fd >= 0 && !ftruncate(fd, STORED * PG)
			      ? mmap(NULL, STORED * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
			      : MAP_FAILED;

		if (m == MAP_FAILED)
			fail_call();
		for (int i = 0; m != MAP_FAILED && i < STORED; i++)
			memcpy(m + i * PG, buf, PG);
		if (m != MAP_FAILED)
			munmap(m, STORED * PG);
		__atomic_store_n(&closing, 1, __ATOMIC_RELEASE);
		if (fd >= 0)
			close(fd);
		__atomic_store_n(&closing, 2, __ATOMIC_RELEASE);
		return NULL;
	}
	while (!__atomic_load_n(&closing, __ATOMIC_ACQUIRE))
		sched_yield();
	for (int k = 0; k < REOPENS && __atomic_load_n(&closing, __ATOMIC_ACQUIRE) == 1; k++) {
		int fd = open(p, O_RDWR);

		if (fd < 0 || pwrite(fd, buf, PG, reopen_page(t, k)) != PG)
			fail_call();
		else
			reopened[t]++;
		if (fd >= 0)
			close(fd);
	}
	return NULL;
}

static void race(void *(*fn)(void *))
{
	pthread_t th[THREADS];

	for (long t = 0; t < THREADS; t++)
		require(pthread_create(&th[t], NULL, fn, (void *)t) == 0, "a racer thread");
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
}

/* Whether file f<i> holds this round's THREADS bytes and nothing else. */
static bool holds_marks(int i)
{
	char p[128], buf[64], want[THREADS];
	int fd;
	ssize_t n;

	path(p, sizeof p, 'f', i);
	if ((fd = open(p, O_RDONLY)) < 0)
		return false;
	n = read(fd, buf, sizeof buf);
	close(fd);
	for (int t = 0; t < THREADS; t++)
		want[t] = mark(round_no, t);
	return n == THREADS && !memcmp(buf, want, THREADS);
}

/* File c<i> made empty (the last close drops its inode). */
static void make_empty(char c, int i)
{
	char p[128];

	path(p, sizeof p, c, i);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	require(fd >= 0 && close(fd) == 0, "make a file");
}

/* Files g0.. made one byte long, then grown to a page: their first page
 * must read as that byte and zeroes.  Removed after.  How many do not. */
static int new_files_dirty(void)
{
	static const char zero[PG];
	char p[128], buf[PG];
	int bad = 0;

	for (int i = 0; i < FILES; i++) {
		path(p, sizeof p, 'g', i);
		int fd = open(p, O_RDWR | O_CREAT | O_EXCL, 0644);
		require(fd >= 0 && write(fd, "z", 1) == 1 && ftruncate(fd, PG) == 0,
			"make a new file, grow it");
		if (pread(fd, buf, PG, 0) != PG || buf[0] != 'z' || memcmp(buf + 1, zero, PG - 1))
			bad++;
		require(close(fd) == 0 && unlink(p) == 0, "remove the new file");
	}
	return bad;
}

/* Whether page off of h (open as fd) holds want alone. */
static bool page_is(int fd, off_t off, char want)
{
	char buf[PG];

	return pread(fd, buf, PG, off) == PG && buf[0] == want && !memcmp(buf, buf + 1, PG - 1);
}

/* Whether h holds every page close_racer wrote in this round. */
static bool holds_pages(void)
{
	char p[128];
	int fd, bad = 0;

	path(p, sizeof p, 'h', 0);
	if ((fd = open(p, O_RDONLY)) < 0)
		return false;
	for (int i = 0; i < STORED; i++)
		bad += !page_is(fd, (off_t)i * PG, mark(round_no, 0));
	for (int t = 1; t < THREADS; t++)
		for (int k = 0; k < reopened[t]; k++)
			bad += !page_is(fd, reopen_page(t, k), mark(round_no, t));
	close(fd);
	return !bad;
}

static void remount(void)
{
	require(umount(s.mnt) == 0 && mount(s.dev, s.mnt, "ext2", 0, NULL) == 0, "remount");
}

int main(void)
{
	int in_cache = 0, on_disk = 0, stale = 0, lost = 0;

	scratch_ext2(&s, "ext2_iget_race");
	plan(5);
	require(pthread_barrier_init(&meet, NULL, THREADS) == 0, "a barrier");
	for (round_no = 0; round_no < ROUNDS; round_no++) {
		for (int i = 0; i < FILES; i++)
			make_empty('f', i);
		race(write_racer);
		for (int i = 0; i < FILES; i++)
			in_cache += !holds_marks(i);
		remount();
		for (int i = 0; i < FILES; i++)
			on_disk += !holds_marks(i); /* now cached again, no inode */
		race(unlink_racer);
		stale += new_files_dirty();
		make_empty('h', 0);
		closing = 0;
		memset(reopened, 0, sizeof reopened);
		race(close_racer);
		remount();
		lost += !holds_pages();
	}
	is_int(failed_calls, 0, "every racer's open, write and unlink succeeded");
	is_int(in_cache, 0,
	       "after %d rounds of racing opens of %d files, each holds every racer's byte", ROUNDS,
	       FILES);
	is_int(on_disk, 0, "and so does the disk (a remount)");
	is_int(stale, 0, "a file made after the racers deleted theirs reads zeroes past its byte");
	is_int(lost, 0, "opens racing the last close of a written file lose no page (a remount)");
	pthread_barrier_destroy(&meet);
	scratch_done(&s);
	return done();
}
