/* ipc namespaces, as Linux: a process that unshares CLONE_NEWIPC sees
 * none of the System V objects of its old namespace (by key or id, nor
 * in /proc/sysvipc), has Linux's default limits in /proc/sys/kernel, and
 * what it makes and sets is its own; setns into its namespace (through
 * /proc/<pid>/ns/ipc) sees its objects, which an open ns file keeps after
 * its last process; an attach keeps working after its process left the
 * namespace; unshare(CLONE_NEWIPC) applies the caller's semaphore undos
 * to the old namespace's sets; clone with CLONE_NEWIPC and CLONE_SYSVSEM
 * is EINVAL, an unshare without CAP_SYS_ADMIN EPERM.  Run as root. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <unistd.h>

#include "cred_util.h"
#include "testutil.h"

#define CAP_SYS_ADMIN_BIT (1ULL << 21)

static key_t key;
static int shmid, semid, msqid;

/* Whether /proc/sysvipc/<kind> has a line for id. */
static bool listed(const char *kind, int id)
{
	static char text[65536];
	char path[64], want[32];

	snprintf(path, sizeof path, "/proc/sysvipc/%s", kind);
	snprintf(want, sizeof want, " %d ", id);
	return read_text(path, text, sizeof text) > 0 && strstr(text, want);
}

static long sysctl_long(const char *name)
{
	char path[64], text[64];

	snprintf(path, sizeof path, "/proc/sys/kernel/%s", name);
	return read_text(path, text, sizeof text) > 0 ? atol(text) : -1;
}

static int child_status_of(pid_t pid)
{
	int status = -1;

	waitpid(pid, &status, 0);
	return status;
}

/* In a new namespace: the old objects are not there; its own are. */
static int fresh_namespace(void)
{
	int bits = 0, id;

	if (unshare(CLONE_NEWIPC))
		return 100;
	bits |= shmget(key, 0, 0) == -1 && errno == ENOENT ? 0 : 1;
	bits |= semget(key, 0, 0) == -1 && errno == ENOENT ? 0 : 2;
	bits |= msgget(key, 0) == -1 && errno == ENOENT ? 0 : 4;
	bits |= shmctl(shmid, IPC_STAT, &(struct shmid_ds){0}) == -1 && errno == EINVAL ? 0 : 8;
	bits |= !listed("shm", shmid) && !listed("sem", semid) && !listed("msg", msqid) ? 0 : 16;
	bits |= sysctl_long("msgmax") == 8192 && sysctl_long("shmmni") == 4096 ? 0 : 32;
	id = shmget(key, 4096, IPC_CREAT | IPC_EXCL | 0600);
	bits |= id >= 0 && listed("shm", id) ? 0 : 64;
	bits |= write_text("/proc/sys/kernel/msgmax", "4000\n") == 0 ? 0 : 128;
	return bits;
}

static void check_fresh(void)
{
	long msgmax = sysctl_long("msgmax");
	pid_t pid = fork();

	if (pid == 0)
		_exit(fresh_namespace());
	is_int(child_status_of(pid), 0,
	       "unshare(CLONE_NEWIPC): none of ours, default limits, its own objects");
	ok(sysctl_long("msgmax") == msgmax && shmget(key, 0, 0) == shmid,
	   "its msgmax and same-key segment are not ours");
}

/* A process in a new namespace with a segment of its key holding "ns": it
 * says its segment's id and waits for a byte on go. */
static pid_t holder(int go, int say)
{
	pid_t pid = fork();
	int id;
	char c, *p;

	if (pid)
		return pid;
	if (unshare(CLONE_NEWIPC) || (id = shmget(key, 4096, IPC_CREAT | 0600)) < 0 ||
	    (p = shmat(id, NULL, 0)) == (void *)-1)
		_exit(1);
	strcpy(p, "ns");
	shmdt(p);
	write(say, &id, sizeof id);
	read(go, &c, 1);
	_exit(0);
}

/* setns into fd's namespace: the segment of key reads "ns". */
static int enter_and_read(int fd)
{
	int id;
	char *p;

	if (setns(fd, CLONE_NEWIPC) || (id = shmget(key, 0, 0)) < 0 ||
	    (p = shmat(id, NULL, SHM_RDONLY)) == (void *)-1)
		return 1;
	return strcmp(p, "ns") ? 2 : 0;
}

static void check_setns(void)
{
	int go[2], back[2], fd, id = -1, status;
	char path[64];
	pid_t a, b;

	require(pipe(go) == 0 && pipe(back) == 0, "pipes");
	a = holder(go[0], back[1]);
	close(back[1]); /* a holder that fails ends the read */
	require(read(back[0], &id, sizeof id) == sizeof id, "holder ready");
	snprintf(path, sizeof path, "/proc/%d/ns/ipc", (int)a);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if ((b = fork()) == 0)
		_exit(enter_and_read(fd));
	is_int(child_status_of(b), 0, "setns(ipc file): its objects");
	write(go[1], "x", 1);
	status = child_status_of(a);
	if ((b = fork()) == 0)
		_exit(enter_and_read(fd));
	is_int(child_status_of(b), 0, "an open ns file keeps the namespace, objects and all");
	ok(status == 0 && shmget(key, 0, 0) == shmid, "ours is untouched");
	close(fd);
	close(go[0]);
	close(go[1]);
	close(back[0]);
}

/* Attaches in a new namespace, goes back to the old one (fd), and still
 * reads and writes through the attach. */
static int attach_outlives(int fd)
{
	int id;
	char *p;

	if (unshare(CLONE_NEWIPC) || (id = shmget(IPC_PRIVATE, 4096, 0600)) < 0 ||
	    (p = shmat(id, NULL, 0)) == (void *)-1)
		return 1;
	if (setns(fd, CLONE_NEWIPC))
		return 2;
	strcpy(p, "still");
	if (strcmp(p, "still") || shmget(key, 0, 0) != shmid)
		return 3;
	return shmdt(p) ? 4 : 0;
}

static void check_attach(void)
{
	int fd = open("/proc/self/ns/ipc", O_RDONLY | O_CLOEXEC);
	pid_t pid = fork();

	if (pid == 0)
		_exit(attach_outlives(fd));
	is_int(child_status_of(pid), 0, "an attach works after its process left the namespace");
	close(fd);
}

/* A SEM_UNDO +1 on our set, then unshare(CLONE_NEWIPC): the undo goes
 * back to our set (Linux: CLONE_NEWIPC implies CLONE_SYSVSEM). */
static void check_undo(void)
{
	int go[2], back[2];
	int up_val = -1, after = -1;
	char c = 0;
	pid_t pid;

	require(pipe(go) == 0 && pipe(back) == 0, "pipes");
	if ((pid = fork()) == 0) {
		struct sembuf up = {0, 1, SEM_UNDO};
		c = semop(semid, &up, 1) ? 'f' : 'u';
		write(back[1], &c, 1);
		read(go[0], &c, 1);
		c = unshare(CLONE_NEWIPC) ? 'f' : 'n';
		write(back[1], &c, 1);
		read(go[0], &c, 1);
		_exit(0);
	}
	close(back[1]); /* a child that fails ends the reads */
	if (read(back[0], &c, 1) == 1 && c == 'u')
		up_val = semctl(semid, 0, GETVAL);
	write(go[1], "x", 1);
	if (read(back[0], &c, 1) == 1 && c == 'n')
		after = semctl(semid, 0, GETVAL);
	ok(up_val == 1 && after == 0, "unshare(CLONE_NEWIPC) applies the undos first");
	write(go[1], "x", 1);
	is_int(child_status_of(pid), 0, "the child went on");
	close(go[0]);
	close(go[1]);
	close(back[0]);
}

static void check_errors(void)
{
	pid_t pid = (pid_t)syscall(SYS_clone, CLONE_NEWIPC | CLONE_SYSVSEM | SIGCHLD, 0, 0, 0, 0);

	if (pid == 0)
		_exit(0);
	is_errno(pid, EINVAL, "clone(CLONE_NEWIPC | CLONE_SYSVSEM): EINVAL");
	if ((pid = fork()) == 0) {
		struct caps c = caps_of(0);
		if (caps_set(c.eff & ~CAP_SYS_ADMIN_BIT, c.prm & ~CAP_SYS_ADMIN_BIT, 0))
			_exit(3);
		_exit(unshare(CLONE_NEWIPC) == -1 && errno == EPERM ? 0 : 1);
	}
	is_int(child_status_of(pid), 0, "unshare(CLONE_NEWIPC) without CAP_SYS_ADMIN: EPERM");
}

int main(void)
{
	if (geteuid() || access("/proc/self/ns/ipc", F_OK))
		skip_all("not root, or no /proc/self/ns/ipc");
	key = 0x4e530000 | (getpid() & 0xffff);
	shmid = shmget(key, 4096, IPC_CREAT | IPC_EXCL | 0600);
	semid = semget(key, 1, IPC_CREAT | IPC_EXCL | 0600);
	msqid = msgget(key, IPC_CREAT | IPC_EXCL | 0600);
	require(shmid >= 0 && semid >= 0 && msqid >= 0, "objects of a fresh key");
	plan(10);
	check_fresh();
	check_setns();
	check_attach();
	check_undo();
	check_errors();
	shmctl(shmid, IPC_RMID, NULL);
	semctl(semid, 0, IPC_RMID);
	msgctl(msqid, IPC_RMID, NULL);
	return done();
}
