/* /proc/sys/kernel's System V IPC files: they show the limits IPC_INFO
 * reports, refuse bad writes as Linux does, and <kind>_next_id gives the
 * next object its id.  Writes that change a limit run only inside
 * fdkernel: on the host they would change the limits of every program on
 * the machine (the refused writes and the next ids run on both). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <unistd.h>

#include "testutil.h"

#define KDIR "/proc/sys/kernel/"

static bool read_file(const char *name, char *buf, size_t size)
{
	int fd = open(name, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);

	if (fd >= 0)
		close(fd);
	if (n < 0)
		return false;
	buf[n] = '\0';
	return true;
}

static long read_long(const char *name)
{
	char buf[64];

	return read_file(name, buf, sizeof buf) ? strtol(buf, NULL, 10) : -2;
}

static unsigned long read_ulong(const char *name)
{
	char buf[64];

	return read_file(name, buf, sizeof buf) ? strtoul(buf, NULL, 10) : 0;
}

/* write(2) of text to name: its result, errno kept. */
static long write_file(const char *name, const char *text)
{
	int fd = open(name, O_WRONLY);
	long r = fd < 0 ? -1 : write(fd, text, strlen(text));
	int err = errno;

	if (fd >= 0)
		close(fd);
	errno = err;
	return r;
}

static void test_values(void)
{
	struct shminfo shm;
	struct seminfo sem;
	struct msginfo msg;
	int a, b, c, d;
	char buf[128];

	shmctl(0, IPC_INFO, (struct shmid_ds *)&shm);
	semctl(0, 0, IPC_INFO, (union semun *)&sem);
	msgctl(0, IPC_INFO, (struct msqid_ds *)&msg);
	ok(read_ulong(KDIR "shmmax") == shm.shmmax && read_ulong(KDIR "shmall") == shm.shmall &&
	       read_long(KDIR "shmmni") == (long)shm.shmmni,
	   "shmmax, shmall, shmmni are IPC_INFO's");
	ok(read_file(KDIR "sem", buf, sizeof buf) &&
	       sscanf(buf, "%d\t%d\t%d\t%d\n", &a, &b, &c, &d) == 4 && a == sem.semmsl &&
	       b == sem.semmns && c == sem.semopm && d == sem.semmni,
	   "sem is semmsl, semmns, semopm, semmni, tab-separated");
	ok(read_long(KDIR "msgmax") == msg.msgmax && read_long(KDIR "msgmnb") == msg.msgmnb &&
	       read_long(KDIR "msgmni") == msg.msgmni,
	   "msgmax, msgmnb, msgmni are IPC_INFO's");
	ok(read_long(KDIR "shm_next_id") == -1 && read_long(KDIR "sem_next_id") == -1 &&
	       read_long(KDIR "msg_next_id") == -1,
	   "the next ids read -1");
}

static void test_refused(void)
{
	is_errno(write_file(KDIR "shmmni", "40000\n"), EINVAL, "shmmni above 32768: EINVAL");
	is_errno(write_file(KDIR "msgmni", "-1\n"), EINVAL, "msgmni -1: EINVAL");
	is_errno(write_file(KDIR "msgmax", "abc\n"), EINVAL, "not a number: EINVAL");
	long mnb = read_long(KDIR "msgmnb");
	char text[32];
	snprintf(text, sizeof text, "%ld x\n", mnb); /* the value it has: harmless on the host */
	ok(write_file(KDIR "msgmnb", text) == (long)strlen(text) - 2 &&
	       read_long(KDIR "msgmnb") == mnb,
	   "a value and more: the value is taken, the rest left unwritten (a short count)");
	is_errno(write_file(KDIR "shmmax", "-5\n"), EINVAL, "a negative shmmax: EINVAL");
	is_errno(write_file(KDIR "sem", "32000 1024000000 500 40000\n"), ERANGE,
		 "sem with semmni above 32768: ERANGE");
	is_errno(write_file(KDIR "shm_next_id", "-2\n"), EINVAL, "shm_next_id -2: EINVAL");
	ok(read_long(KDIR "shmmni") == 4096 || !on_fdkernel(), "nothing changed");
}

/* The next object gets the id written, and the file reads -1 again; an id
 * in use gives the next free index with that sequence number. */
static void test_next_id(void)
{
	int want = 30000 + getpid() % 2000, id, taken;
	char text[32];

	snprintf(text, sizeof text, "%d\n", want);
	ok(write_file(KDIR "shm_next_id", text) == (long)strlen(text), "shm_next_id written");
	id = shmget(IPC_PRIVATE, 4096, 0600);
	is_int(id, want, "the next segment has that id");
	is_int(read_long(KDIR "shm_next_id"), -1, "and the file reads -1 again");
	write_file(KDIR "shm_next_id", text);
	taken = shmget(IPC_PRIVATE, 4096, 0600);
	is_int(taken, want + 1, "an id in use: the next free index, same sequence number");
	shmctl(id, IPC_RMID, NULL);
	shmctl(taken, IPC_RMID, NULL);
	snprintf(text, sizeof text, "%d", (1 << 15) + want % 1000);
	write_file(KDIR "sem_next_id", text);
	id = semget(IPC_PRIVATE, 1, 0600);
	is_int(id, (1 << 15) + want % 1000, "sem_next_id, with a sequence number");
	semctl(id, 0, IPC_RMID);
	write_file(KDIR "msg_next_id", text);
	id = msgget(IPC_PRIVATE, 0600);
	is_int(id, (1 << 15) + want % 1000, "msg_next_id");
	msgctl(id, IPC_RMID, NULL);
}

/* Limits written take effect (fdkernel only: see the head of the file). */
static void test_limits(void)
{
	struct msqid_ds ds;
	struct shm_info info;
	int q, ids[8];
	char buf[64];

	if (!on_fdkernel()) {
		for (int i = 0; i < 6; i++)
			skip("changes the host's limits", "writes of limits");
		return;
	}
	ok(write_file(KDIR "msgmnb", "1000\n") == 5 && read_long(KDIR "msgmnb") == 1000,
	   "msgmnb 1000");
	q = msgget(IPC_PRIVATE, 0600);
	ok(msgctl(q, IPC_STAT, &ds) == 0 && ds.msg_qbytes == 1000,
	   "a new queue's msg_qbytes is 1000");
	msgctl(q, IPC_RMID, NULL);
	write_file(KDIR "msgmnb", "16384");
	ok(write_file(KDIR "sem", "250") == 3 && read_file(KDIR "sem", buf, sizeof buf) &&
	       !strcmp(buf, "250\t1024000000\t500\t32000\n"),
	   "sem: a write of one value sets semmsl only");
	is_errno(semget(IPC_PRIVATE, 251, 0600), EINVAL, "a set above semmsl 250: EINVAL");
	write_file(KDIR "sem", "32000 1024000000 500 32000");
	for (int i = 0; i < 8; i++)
		ids[i] = shmget(IPC_PRIVATE, 4096, 0600);
	shmctl(0, SHM_INFO, (struct shmid_ds *)&info);
	snprintf(buf, sizeof buf, "%d", info.__used_ids);
	ok(write_file(KDIR "shmmni", buf) > 0, "shmmni lowered to the segments in use");
	is_errno(shmget(IPC_PRIVATE, 4096, 0600), ENOSPC, "one more: ENOSPC");
	write_file(KDIR "shmmni", "4096");
	for (int i = 0; i < 8; i++)
		shmctl(ids[i], IPC_RMID, NULL);
}

int main(void)
{
	plan(24);
	test_values();
	test_refused();
	test_next_id();
	test_limits();
	return done();
}
