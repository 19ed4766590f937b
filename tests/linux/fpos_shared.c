/*
 * One open file shared by many tasks on several CPUs: its position is
 * Linux's f_pos_lock's, so every read, write and getdents64 at the
 * position moves it atomically.  Readers (processes sharing an inherited
 * fd, then threads sharing the table) each take 4-byte records until the
 * end: together they must read every record exactly once.  Writers append
 * by position (no O_APPEND): no record may be lost or overwritten.
 * getdents64 readers of one directory fd see every entry exactly once.
 * Before the fix the position was loaded, the lock dropped for the
 * transfer and the new one stored after, so two readers read one record
 * (LTP fork07 at -smp 2).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "threads.h"

#define TASKS	    12	/* concurrent readers or writers */
#define PER_TASK    600 /* records each */
#define RECORDS	    (TASKS * PER_TASK)
#define DIR_ENTRIES 150

static char dir[64];

/* What one task reports: records it moved and the sum of their values. */
struct tally {
	long count;
	long sum;
};

/* Waits for the parent to close the go pipe, so all tasks start at once. */
static void wait_go(int go)
{
	char c;

	while (read(go, &c, 1) > 0)
		;
}

/* Reads 4-byte records at the shared position until the end. */
static struct tally read_records(int fd)
{
	struct tally t = {0, 0};
	uint32_t v;

	while (read(fd, &v, sizeof v) == sizeof v) {
		t.count++;
		t.sum += v;
	}
	return t;
}

/* Writes values first, first + TASKS, ... at the shared position. */
static struct tally write_records(int fd, uint32_t first)
{
	struct tally t = {0, 0};

	for (uint32_t v = first; v < RECORDS; v += TASKS) {
		if (write(fd, &v, sizeof v) != sizeof v)
			break;
		t.count++;
		t.sum += v;
	}
	return t;
}

/* Reads the directory one entry per call at the shared position. */
static struct tally read_entries(int fd)
{
	struct tally t = {0, 0};
	char buf[40]; /* one entry "eNNN" (32 bytes) and no second */
	unsigned short reclen;
	long n;

	/* linux_dirent64: d_ino, d_off, then d_reclen at byte 16 */
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
		for (long off = 0; off < n; off += reclen) {
			memcpy(&reclen, buf + off + 16, sizeof reclen);
			if (!reclen)
				break;
			t.count++;
		}
	return t;
}

enum job { READ, WRITE, GETDENTS };

static struct tally run_job(enum job job, int fd, int i)
{
	if (job == READ)
		return read_records(fd);
	if (job == WRITE)
		return write_records(fd, (uint32_t)i);
	return read_entries(fd);
}

/* TASKS children share fd, each runs job; returns the summed tallies. */
static struct tally in_processes(enum job job, int fd)
{
	struct tally all = {0, 0}, t;
	int go[2], res[2];

	require(pipe(go) == 0 && pipe(res) == 0, "pipe");
	for (int i = 0; i < TASKS; i++) {
		pid_t pid = fork();

		require(pid >= 0, "fork");
		if (pid == 0) {
			close(go[1]);
			wait_go(go[0]);
			t = run_job(job, fd, i);
			_exit(write(res[1], &t, sizeof t) == sizeof t ? 0 : 1);
		}
	}
	close(go[0]);
	close(go[1]);
	close(res[1]);
	while (read(res[0], &t, sizeof t) == sizeof t) {
		all.count += t.count;
		all.sum += t.sum;
	}
	close(res[0]);
	while (wait(NULL) > 0)
		;
	return all;
}

struct thread_arg {
	enum job job;
	int fd, i, go;
	struct tally t;
};

static void *job_thread(void *p)
{
	struct thread_arg *a = p;

	wait_go(a->go);
	a->t = run_job(a->job, a->fd, a->i);
	return NULL;
}

/* The same with TASKS threads sharing the files table. */
static struct tally in_threads(enum job job, int fd)
{
	struct thread_arg args[TASKS];
	pthread_t th[TASKS];
	struct tally all = {0, 0};
	int go[2];

	require(pipe(go) == 0, "pipe");
	for (int i = 0; i < TASKS; i++) {
		args[i] = (struct thread_arg){.job = job, .fd = fd, .i = i, .go = go[0]};
		th[i] = start_thread(job_thread, &args[i]);
	}
	close(go[1]);
	for (int i = 0; i < TASKS; i++) {
		pthread_join(th[i], NULL);
		all.count += args[i].t.count;
		all.sum += args[i].t.sum;
	}
	close(go[0]);
	return all;
}

static const long records_sum = (long)RECORDS * (RECORDS - 1) / 2;

static int open_records(const char *name, int flags)
{
	char path[96];

	snprintf(path, sizeof path, "%s/%s", dir, name);
	return open(path, flags | O_CREAT, 0644);
}

static void test_readers(bool threads)
{
	int fd = open_records("records", O_RDWR | O_TRUNC);
	uint32_t all[RECORDS];
	struct tally t;

	require(fd >= 0, "open records");
	for (uint32_t v = 0; v < RECORDS; v++)
		all[v] = v;
	require(write(fd, all, sizeof all) == sizeof all, "write records");
	require(lseek(fd, 0, SEEK_SET) == 0, "lseek");
	t = threads ? in_threads(READ, fd) : in_processes(READ, fd);
	is_int(t.count, RECORDS, "%d %s reading one fd read %d records, each once", TASKS,
	       threads ? "threads" : "processes", RECORDS);
	is_int(t.sum, records_sum, "and together saw every value");
	is_int(lseek(fd, 0, SEEK_CUR), sizeof all, "the shared position is at the end");
	close(fd);
}

/* Every value 0..RECORDS-1 exactly once in the file written through fd. */
static bool each_record_once(int fd)
{
	static uint32_t got[RECORDS + 1];
	static unsigned char seen[RECORDS];
	long n = pread(fd, got, sizeof got, 0);

	if (n != (long)(RECORDS * sizeof(uint32_t)))
		return false;
	memset(seen, 0, sizeof seen);
	for (int i = 0; i < RECORDS; i++) {
		if (got[i] >= RECORDS || seen[got[i]])
			return false;
		seen[got[i]] = 1;
	}
	return true;
}

static void test_writers(bool threads)
{
	int fd = open_records("written", O_RDWR | O_TRUNC);
	struct stat st;
	struct tally t;

	require(fd >= 0, "open written");
	t = threads ? in_threads(WRITE, fd) : in_processes(WRITE, fd);
	is_int(t.count, RECORDS, "%d %s wrote %d records through one fd", TASKS,
	       threads ? "threads" : "processes", RECORDS);
	ok(fstat(fd, &st) == 0 && st.st_size == (off_t)(RECORDS * sizeof(uint32_t)),
	   "the file holds all of them (no write over another)");
	ok(each_record_once(fd), "each value is in the file exactly once");
	close(fd);
}

static void test_getdents(void)
{
	char path[96];
	struct tally t;
	int fd;

	snprintf(path, sizeof path, "%s/d", dir);
	require(mkdir(path, 0755) == 0, "mkdir");
	for (int i = 0; i < DIR_ENTRIES; i++) {
		snprintf(path, sizeof path, "%s/d/e%03d", dir, i);
		require(close(open(path, O_CREAT | O_WRONLY, 0644)) == 0, "create entry");
	}
	snprintf(path, sizeof path, "%s/d", dir);
	fd = open(path, O_RDONLY | O_DIRECTORY);
	require(fd >= 0, "open dir");
	t = in_processes(GETDENTS, fd);
	is_int(t.count, DIR_ENTRIES + 2, "%d processes' getdents64 on one fd saw each entry once",
	       TASKS);
	close(fd);
	for (int i = 0; i < DIR_ENTRIES; i++) {
		snprintf(path, sizeof path, "%s/d/e%03d", dir, i);
		unlink(path);
	}
	snprintf(path, sizeof path, "%s/d", dir);
	rmdir(path);
}

int main(void)
{
	char path[96];

	plan(14);
	snprintf(dir, sizeof dir, "/tmp/fpos.XXXXXX");
	require(mkdtemp(dir) != NULL, "mkdtemp");
	test_readers(false);
	test_readers(true);
	test_writers(false);
	test_writers(true);
	test_getdents();
	snprintf(path, sizeof path, "%s/records", dir);
	unlink(path);
	snprintf(path, sizeof path, "%s/written", dir);
	unlink(path);
	ok(rmdir(dir) == 0, "scratch directory removed");
	return done();
}
