/* lseek's SEEK_DATA and SEEK_HOLE on tmpfs files and memfds (fdkernel's
 * ramfs; /tmp or /dev/shm on the host): written pages are data, pages
 * never written, punched or only fallocated are holes, the end of the file
 * is a hole, and the errors for offsets, pipes and directories. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "testutil.h"
#include "tmpfs_dir.h"

#define PAGE 4096L

static long seek(int fd, long off, int whence)
{
	return (long)lseek(fd, off, whence);
}

/* A file of 8 pages: data in page 2 (one byte at its end) and page 5. */
static void test_sparse(int fd)
{
	require(ftruncate(fd, 8 * PAGE) == 0, "ftruncate");
	is_int(seek(fd, 0, SEEK_HOLE), 0, "a file never written is all hole");
	is_errno(seek(fd, 0, SEEK_DATA), ENXIO, "no data at all: ENXIO");
	require(pwrite(fd, "x", 1, 3 * PAGE - 1) == 1 && pwrite(fd, "y", 1, 5 * PAGE + 9) == 1,
		"pwrite");
	is_int(seek(fd, 0, SEEK_DATA), 2 * PAGE, "SEEK_DATA finds the page of the first write");
	is_int(seek(fd, 2 * PAGE + 7, SEEK_DATA), 2 * PAGE + 7, "inside data: the offset itself");
	is_int(seek(fd, 2 * PAGE + 7, SEEK_HOLE), 3 * PAGE, "SEEK_HOLE: the page after the data");
	is_int(seek(fd, 3 * PAGE, SEEK_DATA), 5 * PAGE, "from a hole: the next data page");
	is_int(seek(fd, 6 * PAGE, SEEK_DATA), -1, "no data after the last: fails");
	is_errno(seek(fd, 6 * PAGE, SEEK_DATA), ENXIO, "... with ENXIO");
	is_int(seek(fd, 0, SEEK_CUR), 5 * PAGE, "a failed seek keeps the position");
	is_int(seek(fd, 6 * PAGE + 3, SEEK_HOLE), 6 * PAGE + 3, "inside a hole: the offset itself");
	require(pwrite(fd, "z", 1, 8 * PAGE - 1) == 1, "pwrite at the end");
	is_int(seek(fd, 7 * PAGE + 5, SEEK_HOLE), 8 * PAGE, "data to the end: the end is a hole");
	require(ftruncate(fd, 8 * PAGE - 100) == 0, "ftruncate into the last page");
	is_int(seek(fd, 7 * PAGE, SEEK_HOLE), 8 * PAGE - 100, "a partial last page: the size");
}

static void test_offsets(int fd)
{
	long size = 8 * PAGE - 100;

	is_errno(seek(fd, size, SEEK_DATA), ENXIO, "SEEK_DATA at the size: ENXIO");
	is_errno(seek(fd, size, SEEK_HOLE), ENXIO, "SEEK_HOLE at the size: ENXIO");
	is_errno(seek(fd, size + PAGE, SEEK_HOLE), ENXIO, "past the size: ENXIO");
	is_errno(seek(fd, -1, SEEK_HOLE), ENXIO, "a negative offset: ENXIO");
	is_errno(seek(fd, -1, SEEK_DATA), ENXIO, "a negative offset for SEEK_DATA: ENXIO");
	is_errno(seek(fd, 0, 5), EINVAL, "whence 5: EINVAL");
}

/* Punched pages become holes; fallocated ones stay holes until written. */
static void test_punch_and_allocate(int fd)
{
	require(ftruncate(fd, 0) == 0 && ftruncate(fd, 4 * PAGE) == 0, "ftruncate");
	require(pwrite(fd, "a", 1, 0) == 1 && pwrite(fd, "b", 1, PAGE) == 1, "pwrite");
	require(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, PAGE) == 0, "punch");
	is_int(seek(fd, 0, SEEK_DATA), PAGE, "a punched page is a hole");
	require(fallocate(fd, 0, 2 * PAGE, 2 * PAGE) == 0, "fallocate");
	is_int(seek(fd, PAGE, SEEK_HOLE), 2 * PAGE, "fallocated pages are holes until written");
	is_errno(seek(fd, 2 * PAGE, SEEK_DATA), ENXIO, "... SEEK_DATA passes them");
	char c;
	require(pread(fd, &c, 1, 2 * PAGE) == 1 && c == 0, "pread");
	is_errno(seek(fd, 2 * PAGE, SEEK_DATA), ENXIO, "reading one leaves it a hole");
	require(pwrite(fd, "c", 1, 3 * PAGE) == 1, "pwrite");
	is_int(seek(fd, 2 * PAGE, SEEK_DATA), 3 * PAGE, "writing one makes it data");
}

/* A memfd's shared mapping makes the page it touches data. */
static void test_memfd(void)
{
	int fd = memfd_create("seek", 0);

	require(fd >= 0 && ftruncate(fd, 3 * PAGE) == 0, "memfd");
	is_errno(seek(fd, 0, SEEK_DATA), ENXIO, "a new memfd is all hole");
	volatile char *p = mmap(NULL, 3 * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	require(p != MAP_FAILED, "mmap");
	(void)p[PAGE];
	is_int(seek(fd, 0, SEEK_DATA), PAGE, "a shared mapping's read fault makes the page data");
	is_int(seek(fd, PAGE, SEEK_HOLE), 2 * PAGE, "... and only that page");
	munmap((void *)p, 3 * PAGE);
	close(fd);
}

static void test_not_files(const char *dir)
{
	int p[2], d = open(dir, O_RDONLY | O_DIRECTORY);

	require(pipe(p) == 0 && d >= 0, "pipe, directory");
	is_errno(seek(p[0], 0, SEEK_DATA), ESPIPE, "a pipe: ESPIPE");
	is_errno(seek(p[1], 0, SEEK_HOLE), ESPIPE, "a pipe's write end: ESPIPE");
	is_errno(seek(d, 0, SEEK_DATA), EINVAL, "a tmpfs directory: EINVAL");
	is_errno(seek(d, 0, SEEK_HOLE), EINVAL, "... SEEK_HOLE too");
	close(p[0]);
	close(p[1]);
	close(d);
}

int main(void)
{
	const char *dir = tmpfs_dir();
	char path[96];
	int fd;

	if (!dir)
		skip_all("no tmpfs to compare with");
	plan(31);
	snprintf(path, sizeof path, "%s/seekdata-%d", dir, (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	require(fd >= 0, "create");
	test_sparse(fd);
	test_offsets(fd);
	test_punch_and_allocate(fd);
	test_memfd();
	test_not_files(dir);
	close(fd);
	ok(unlink(path) == 0, "unlink");
	return done();
}
