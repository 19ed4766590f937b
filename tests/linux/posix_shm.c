/* POSIX shared memory and named semaphores, which libc keeps in /dev/shm:
 * /dev/shm is a tmpfs, shm_open's object is shared through mmap with a
 * forked child and gone after shm_unlink, and a named semaphore made by
 * one process is posted by another. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#define TMPFS_MAGIC 0x01021994

int main(void)
{
	char name[64], sname[64];
	struct statfs st;
	int status;

	plan(8);
	snprintf(name, sizeof name, "/fdk-shm-%d", (int)getpid());
	snprintf(sname, sizeof sname, "/fdk-sem-%d", (int)getpid());
	ok(statfs("/dev/shm", &st) == 0 && st.f_type == TMPFS_MAGIC, "/dev/shm is a tmpfs");

	int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
	ok(fd >= 0 && ftruncate(fd, 4096) == 0, "shm_open and ftruncate");
	char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	require(p != MAP_FAILED, "mmap of the object");
	pid_t pid = fork();
	if (pid == 0) {
		int cfd = shm_open(name, O_RDWR, 0);
		char *c = cfd < 0 ? MAP_FAILED
				  : mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, cfd, 0);
		if (c == MAP_FAILED)
			_exit(1);
		strcpy(c, "from the child");
		_exit(0);
	}
	waitpid(pid, &status, 0);
	ok(exited_with(status, 0) && !strcmp(p, "from the child"),
	   "a child's shm_open of the name maps the same memory");
	munmap(p, 4096);
	close(fd);
	ok(shm_unlink(name) == 0, "shm_unlink");
	is_errno(shm_open(name, O_RDWR, 0), ENOENT, "the name is gone: ENOENT");

	sem_t *s = sem_open(sname, O_CREAT | O_EXCL, 0600, 0);
	ok(s != SEM_FAILED, "sem_open makes a named semaphore at 0");
	if ((pid = fork()) == 0) {
		sem_t *c = sem_open(sname, 0);
		_exit(c == SEM_FAILED || sem_post(c) != 0);
	}
	ok(s != SEM_FAILED && sem_wait(s) == 0, "another process posts it, this one waits");
	waitpid(pid, &status, 0);
	ok(exited_with(status, 0) && sem_close(s) == 0 && sem_unlink(sname) == 0,
	   "sem_close and sem_unlink");
	return done();
}
