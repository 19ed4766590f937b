/* remap_file_pages as Linux 4.0+ emulates it: pages of a shared file
 * mapping (a tmpfs file, a System V shm attach) show other pages of the
 * file; every EINVAL and EOVERFLOW in Linux's order; a removed segment
 * whose last attach is remapped is gone (EINVAL, the mapping with it),
 * one with another attach is not; a thread remaps while another removes
 * and recreates segments (LTP shmctl05's race), nothing leaking. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "testutil.h"
#include "tmpfs_dir.h"

#define PAGE 4096UL

static long remap(void *addr, unsigned long size, unsigned long prot, unsigned long pgoff,
		  unsigned long flags)
{
	return syscall(SYS_remap_file_pages, addr, size, prot, pgoff, flags);
}

/* A shared mapping of a 4-page tmpfs file whose page i holds "page<i>". */
static char *file_mapping(const char *dir, int *fdp)
{
	char path[96], text[16];
	int fd;

	snprintf(path, sizeof path, "%s/remap-%d", dir, (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	require(fd >= 0 && unlink(path) == 0 && ftruncate(fd, 4 * PAGE) == 0, "file");
	for (int i = 0; i < 4; i++) {
		snprintf(text, sizeof text, "page%d", i);
		require(pwrite(fd, text, strlen(text) + 1, i * PAGE) > 0, "pwrite");
	}
	char *p = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	require(p != MAP_FAILED, "mmap");
	*fdp = fd;
	return p;
}

static void test_file(const char *dir)
{
	int fd;
	char *p = file_mapping(dir, &fd), buf[8];

	ok(remap(p, PAGE, 0, 3, 0) == 0 && !strcmp(p, "page3"), "page 0 now shows file page 3");
	ok(!strcmp(p + PAGE, "page1"), "the next page is untouched");
	strcpy(p, "new3");
	ok(pread(fd, buf, 5, 3 * PAGE) == 5 && !strcmp(buf, "new3"),
	   "a store through it reaches file page 3");
	ok(remap(p + PAGE, 2 * PAGE, 0, 0, MAP_NONBLOCK) == 0 && !strcmp(p + PAGE, "page0") &&
	       !strcmp(p + 2 * PAGE, "page1"),
	   "two pages at once (MAP_NONBLOCK taken)");
	ok(remap(p, 4 * PAGE, 0, 0, 0x12345) == 0 && !strcmp(p + 3 * PAGE, "new3"),
	   "over pieces of one mapping back to linear (unknown flags ignored)");
	ok(remap(p + 3 * PAGE, PAGE, 0, 100, 0) == 0, "an offset past the file's end is taken");
	ok(remap(p + 5, PAGE + 7, 0, 1, 0) == 0 && !strcmp(p, "page1"),
	   "start and size are rounded down to pages");
	munmap(p, 4 * PAGE);
	close(fd);
}

static void test_errors(const char *dir)
{
	int fd;
	char *p = file_mapping(dir, &fd);
	char *priv = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 0);

	require(priv != MAP_FAILED, "mmap private");
	is_errno(remap(p, PAGE, PROT_READ, 0, 0), EINVAL, "prot not 0: EINVAL");
	is_errno(remap(p, 0, 0, 0, 0), EINVAL, "size 0: EINVAL");
	is_errno(remap(p + 1, PAGE - 1, 0, 0, 0), EINVAL, "size rounding to 0: EINVAL");
	is_errno(remap(p, PAGE, 0, ~0UL, 0), EINVAL, "pgoff wrapping: EINVAL");
	is_errno(remap(p, PAGE, 0, ~0UL >> 12, 0), EOVERFLOW,
		 "pgoff past the largest file: EOVERFLOW");
	is_errno(remap(p, 5 * PAGE, 0, 0, 0), EINVAL, "past the mapping's end: EINVAL");
	is_errno(remap(priv, PAGE, 0, 0, 0), EINVAL, "a private mapping: EINVAL");
	is_errno(remap((void *)PAGE, PAGE, 0, 0, 0), EINVAL, "no mapping there: EINVAL");
	require(mprotect(p + PAGE, PAGE, PROT_READ) == 0, "mprotect");
	is_errno(remap(p, 2 * PAGE, 0, 0, 0), EINVAL, "across two protections: EINVAL");
	char *anon = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	is_errno(remap(anon, PAGE, 0, 0, 0), EINVAL, "private anonymous memory: EINVAL");
	munmap(anon, PAGE);
	munmap(priv, PAGE);
	munmap(p, 4 * PAGE);
	close(fd);
}

static long nattch(int id)
{
	struct shmid_ds ds;

	return shmctl(id, IPC_STAT, &ds) ? -1 : (long)ds.shm_nattch;
}

static void test_shm(void)
{
	int id = shmget(IPC_PRIVATE, 2 * PAGE, 0600);
	char *a = shmat(id, NULL, 0);

	require(id >= 0 && a != (void *)-1, "shmget, shmat");
	strcpy(a, "seg0");
	strcpy(a + PAGE, "seg1");
	ok(remap(a, PAGE, 0, 1, 0) == 0 && !strcmp(a, "seg1"), "a shm attach: page 0 shows page 1");
	ok(nattch(id) >= 1, "the segment stays attached (nattch %ld)", nattch(id));
	ok(shmdt(a) == 0, "shmdt finds the attach by its page still at its offset");
	is_int(nattch(id), 1, "the remapped page stays attached, as Linux: nattch 1");
	munmap(a, PAGE);
	is_int(nattch(id), 0, "until unmapped");
	ok(shmctl(id, IPC_RMID, NULL) == 0, "IPC_RMID");

	/* removed while attached once: the remap ends it */
	id = shmget(IPC_PRIVATE, PAGE, 0600);
	a = shmat(id, NULL, 0);
	require(a != (void *)-1 && shmctl(id, IPC_RMID, NULL) == 0, "shmat, IPC_RMID");
	is_errno(remap(a, PAGE, 0, 0, 0), EINVAL, "a removed segment's last attach: EINVAL");
	is_errno(remap(a, PAGE, 0, 0, 0), EINVAL, "... and the mapping is gone");
	is_errno(shmdt(a), EINVAL, "shmdt then: EINVAL");

	/* removed, attached twice: the other attach keeps it */
	id = shmget(IPC_PRIVATE, PAGE, 0600);
	a = shmat(id, NULL, 0);
	char *b = shmat(id, NULL, 0);
	require(b != (void *)-1 && shmctl(id, IPC_RMID, NULL) == 0, "two attaches, IPC_RMID");
	strcpy(b, "both");
	ok(remap(a, PAGE, 0, 0, 0) == 0 && !strcmp(a, "both"), "another attach keeps it: remapped");
	ok(shmdt(a) == 0 && shmdt(b) == 0, "both detach");
}

/* LTP shmctl05's race: remap until the segment is removed under us. */
static volatile int stop;
static void *remover(void *arg)
{
	(void)arg;
	while (!stop) {
		int id = shmget(0x5eed, PAGE, IPC_CREAT | 0600);
		if (id >= 0)
			shmctl(id, IPC_RMID, NULL);
	}
	return NULL;
}

static void test_race(void)
{
	pthread_t th;
	int bad = 0, rounds = 0;

	require(pthread_create(&th, NULL, remover, NULL) == 0, "pthread_create");
	for (; rounds < 200; rounds++) {
		int id = shmget(0x5eed, PAGE, IPC_CREAT | 0600);
		char *a = id < 0 ? (void *)-1 : shmat(id, NULL, 0);
		long r = 0;
		if (a == (void *)-1)
			continue;
		while (r == 0) /* the remover runs all along: it ends */
			r = remap(a, PAGE, 0, 0, 0);
		if (errno != EINVAL && errno != EIDRM && !bad++)
			diag("remap: %s", strerror(errno));
		shmdt(a);
	}
	stop = 1;
	pthread_join(th, NULL);
	int id = shmget(0x5eed, PAGE, 0);
	if (id >= 0)
		shmctl(id, IPC_RMID, NULL);
	is_int(bad, 0, "remap against IPC_RMID: EINVAL or EIDRM once removed (%d rounds)", rounds);
}

int main(void)
{
	const char *dir = tmpfs_dir();

	if (!dir)
		skip_all("no tmpfs to compare with");
	plan(29);
	test_file(dir);
	test_errors(dir);
	test_shm();
	test_race();
	return done();
}
