/* System V semaphores, call by call: semget's sizes and keys, every semctl
 * command with good and bad ids, numbers, values and buffers, semop's
 * atomicity, limits and errors, semtimedop's timeout, /proc/sysvipc/sem.
 * Waiting, undo at exit and removal under waiters are sysv_sem_life's.
 * Keys are made from the pid, so runs beside each other do not meet. */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

union semun {
	int val;
	struct semid_ds *buf;
	unsigned short *array;
	struct seminfo *info;
};

static key_t key_of(int n)
{
	return (key_t)(0x5c000000 | (getpid() & 0xfffff) << 4 | n);
}

static struct semid_ds stat_of(int id)
{
	struct semid_ds ds;

	memset(&ds, 0xa5, sizeof(ds));
	if (semctl(id, 0, IPC_STAT, (union semun){.buf = &ds}))
		memset(&ds, 0, sizeof(ds));
	return ds;
}

static int op(int id, unsigned short num, short delta, short flags)
{
	struct sembuf sb = {num, delta, flags};

	return semop(id, &sb, 1);
}

static int val(int id, int num)
{
	return semctl(id, num, GETVAL);
}

static void test_get(void)
{
	key_t key = key_of(1);
	time_t t0 = time(NULL) - 1; /* Linux's seconds are its last tick's: they may trail time() */
	int id = semget(key, 3, IPC_CREAT | IPC_EXCL | 0640);
	struct semid_ds ds = stat_of(id);

	ok(id >= 0, "semget with a new key");
	ok(ds.sem_nsems == 3 && ds.sem_otime == 0 && ds.sem_ctime >= t0 &&
	       ds.sem_ctime <= time(NULL),
	   "IPC_STAT: three semaphores, no operation yet, ctime the creation's");
	ok(ds.sem_perm.__ipc_perm_key == key && (ds.sem_perm.mode & 0777) == 0640 &&
	       ds.sem_perm.uid == getuid() && ds.sem_perm.cuid == getuid() &&
	       ds.sem_perm.gid == getgid() && ds.sem_perm.cgid == getgid(),
	   "IPC_STAT: key, mode, owner and creator");
	is_int(semget(key, 2, 0), id, "the key finds it with fewer semaphores");
	is_int(semget(key, 0, 0), id, "and with nsems 0");
	is_errno(semget(key, 4, 0), EINVAL, "asking more semaphores than it has: EINVAL");
	is_errno(semget(key, 3, IPC_CREAT | IPC_EXCL), EEXIST, "IPC_CREAT|IPC_EXCL: EEXIST");
	is_errno(semget(key_of(2), 1, 0), ENOENT, "an unknown key without IPC_CREAT: ENOENT");
	is_errno(semget(IPC_PRIVATE, 0, 0600), EINVAL, "a new set of no semaphores: EINVAL");
	is_errno(semget(IPC_PRIVATE, -1, 0600), EINVAL, "nsems -1: EINVAL");
	is_errno(semget(IPC_PRIVATE, 32001, 0600), EINVAL, "nsems above SEMMSL: EINVAL");
	is_int(semctl(id, 0, IPC_RMID), 0, "IPC_RMID");
	is_errno(semget(key, 1, 0), ENOENT, "the key is gone with it");
}

static void test_values(void)
{
	int id = semget(IPC_PRIVATE, 3, 0600);
	unsigned short all[3] = {9, 9, 9}, set[3] = {1, 2, 3}, bad[3] = {1, 40000, 3};

	ok(semctl(id, 0, GETALL, (union semun){.array = all}) == 0 && !all[0] && !all[1] && !all[2],
	   "a new set's semaphores are 0 (GETALL)");
	ok(semctl(id, 1, SETVAL, (union semun){.val = 5}) == 0 && val(id, 1) == 5 &&
	       semctl(id, 1, GETPID) == getpid(),
	   "SETVAL, GETVAL, GETPID");
	is_errno(semctl(id, 1, SETVAL, (union semun){.val = -1}), ERANGE, "SETVAL -1: ERANGE");
	is_errno(semctl(id, 1, SETVAL, (union semun){.val = 32768}), ERANGE,
		 "SETVAL above SEMVMX: ERANGE");
	is_errno(semctl(id, 3, SETVAL, (union semun){.val = 1}), EINVAL,
		 "SETVAL of semaphore 3 of 3: EINVAL");
	is_errno(semctl(id, -1, GETVAL), EINVAL, "GETVAL of semaphore -1: EINVAL");
	is_errno(semctl(id, 3, GETPID), EINVAL, "GETPID of semaphore 3: EINVAL");
	ok(semctl(id, 0, SETALL, (union semun){.array = set}) == 0 &&
	       semctl(id, 0, GETALL, (union semun){.array = all}) == 0 && all[0] == 1 &&
	       all[1] == 2 && all[2] == 3,
	   "SETALL, GETALL");
	is_errno(semctl(id, 0, SETALL, (union semun){.array = bad}), ERANGE,
		 "SETALL with a value above SEMVMX: ERANGE");
	is_int(val(id, 1), 2, "and changes nothing");
	is_errno(semctl(id, 0, GETALL, (union semun){.array = (void *)16}), EFAULT,
		 "GETALL to a bad buffer: EFAULT");
	is_errno(semctl(id, 0, SETALL, (union semun){.array = (void *)16}), EFAULT,
		 "SETALL from a bad buffer: EFAULT");
	ok(semctl(id, 0, GETNCNT) == 0 && semctl(id, 0, GETZCNT) == 0, "GETNCNT, GETZCNT: 0");
	is_errno(semctl(id + 1, 0, GETVAL), EINVAL, "GETVAL of a bad id: EINVAL");
	semctl(id, 0, IPC_RMID);
}

static void test_semop(void)
{
	int id = semget(IPC_PRIVATE, 3, 0600);
	struct sembuf two[2] = {{0, -1, IPC_NOWAIT}, {1, -1, IPC_NOWAIT}}, many[501];
	time_t t0 = time(NULL) - 1; /* Linux's seconds are its last tick's: they may trail time() */

	semctl(id, 0, SETVAL, (union semun){.val = 2});
	ok(op(id, 0, -1, 0) == 0 && val(id, 0) == 1, "semop -1");
	ok(stat_of(id).sem_otime >= t0 && semctl(id, 0, GETPID) == getpid(),
	   "otime and sempid set");
	is_errno(op(id, 0, -2, IPC_NOWAIT), EAGAIN, "more than there is, IPC_NOWAIT: EAGAIN");
	is_errno(op(id, 0, 0, IPC_NOWAIT), EAGAIN, "wait for zero on 1, IPC_NOWAIT: EAGAIN");
	ok(op(id, 1, 0, 0) == 0, "wait for zero on 0 returns at once");
	is_errno(semop(id, two, 2), EAGAIN, "two operations, the second would wait: EAGAIN");
	is_int(val(id, 0), 1, "and the first did not happen (all or none)");
	two[1].sem_op = 1;
	ok(semop(id, two, 2) == 0 && val(id, 0) == 0 && val(id, 1) == 1, "two operations at once");
	semctl(id, 2, SETVAL, (union semun){.val = 32767});
	is_errno(op(id, 2, 1, 0), ERANGE, "above SEMVMX: ERANGE");
	is_errno(op(id, 3, 1, 0), EFBIG, "semaphore 3 of 3: EFBIG");
	for (int i = 0; i < 501; i++)
		many[i] = (struct sembuf){0, 0, IPC_NOWAIT};
	is_errno(semop(id, many, 501), E2BIG, "501 operations (above SEMOPM): E2BIG");
	ok(semop(id, many, 500) == 0, "500 operations");
	is_errno(semop(id, many, 0), EINVAL, "no operation: EINVAL");
	is_errno(semop(id + 1, many, 1), EINVAL, "a bad id: EINVAL");
	is_errno(semop(-1, many, 1), EINVAL, "id -1: EINVAL");
	is_errno(semop(id, (void *)16, 1), EFAULT, "a bad operations pointer: EFAULT");
	is_errno(syscall(SYS_semop, id, (void *)16, 501), E2BIG,
		 "too many is checked before the copy");
	semctl(id, 0, IPC_RMID);
}

/* The undo value of a semaphore is bounded: [-SEMAEM-1, SEMAEM]. */
static void test_undo_range(void)
{
	int id = semget(IPC_PRIVATE, 1, 0600);

	ok(op(id, 0, 32767, SEM_UNDO) == 0 && op(id, 0, -32767, 0) == 0 &&
	       op(id, 0, 1, SEM_UNDO) == 0,
	   "undo value -32768 (-SEMAEM-1) is allowed");
	ok(op(id, 0, -1, 0) == 0, "set-up");
	is_errno(op(id, 0, 1, SEM_UNDO), ERANGE, "undo value -32769: ERANGE");
	is_int(val(id, 0), 0, "and the value did not change");
	semctl(id, 0, IPC_RMID);
}

static void test_timed(void)
{
	int id = semget(IPC_PRIVATE, 1, 0600);
	struct sembuf sb = {0, -1, 0};
	struct timespec ms = {0, 1000000}, bad = {0, 1000000000}, neg = {-1, 0};

	is_errno(semtimedop(id, &sb, 1, &ms), EAGAIN, "semtimedop past its timeout: EAGAIN");
	ok(semctl(id, 0, GETNCNT) == 0, "and no longer waits");
	is_errno(semtimedop(id, &sb, 1, &bad), EINVAL, "tv_nsec 1e9: EINVAL");
	is_errno(semtimedop(id, &sb, 1, &neg), EINVAL, "a negative timeout: EINVAL");
	is_errno(semtimedop(id, &sb, 1, (void *)16), EFAULT, "a bad timeout pointer: EFAULT");
	sb.sem_op = 1;
	ok(semtimedop(id, &sb, 1, &ms) == 0 && val(id, 0) == 1, "one that need not wait succeeds");
	semctl(id, 0, IPC_RMID);
}

static void test_ctl(void)
{
	int id = semget(IPC_PRIVATE, 4, 0600), idx, found = 0;
	struct seminfo info;
	struct semid_ds ds;

	idx = semctl(0, 0, IPC_INFO, (union semun){.info = &info});
	ok(idx >= (id & 0x7fff) && info.semmsl == 32000 && info.semmns == 1024000000 &&
	       info.semopm == 500 && info.semmni == 32000 && info.semvmx == 32767 &&
	       info.semaem == 32767 && info.semusz == 20,
	   "IPC_INFO: Linux's limits, the highest index");
	idx = semctl(0, 0, SEM_INFO, (union semun){.info = &info});
	ok(idx >= (id & 0x7fff) && info.semusz >= 1 && info.semaem >= 4,
	   "SEM_INFO: sets and semaphores in use");
	for (int i = 0; i <= idx; i++)
		found +=
		    semctl(i, 0, SEM_STAT, (union semun){.buf = &ds}) == id && ds.sem_nsems == 4;
	is_int(found, 1, "SEM_STAT by index finds it once, returning its id");
	is_int(semctl(id & 0x7fff, 0, SEM_STAT_ANY, (union semun){.buf = &ds}), id,
	       "SEM_STAT_ANY by its index");
	is_errno(semctl(idx + 1, 0, SEM_STAT, (union semun){.buf = &ds}), EINVAL,
		 "SEM_STAT past the highest index: EINVAL");
	is_errno(semctl(id, 0, IPC_STAT, (union semun){.buf = (void *)16}), EFAULT,
		 "IPC_STAT to a bad buffer: EFAULT");
	is_errno(semctl(0, 0, IPC_INFO, (union semun){.buf = (void *)16}), EFAULT,
		 "IPC_INFO to a bad buffer: EFAULT");
	is_errno(semctl(id, 0, IPC_SET, (union semun){.buf = (void *)16}), EFAULT,
		 "IPC_SET from a bad buffer: EFAULT");
	is_errno(semctl(-1, 0, IPC_STAT, (union semun){.buf = &ds}), EINVAL, "id -1: EINVAL");
	is_errno(semctl(id + 0x8000, 0, IPC_STAT, (union semun){.buf = &ds}), EINVAL,
		 "the right index with another sequence number: EINVAL");
	is_errno(syscall(SYS_semctl, id, 0, 99, 0), EINVAL, "an unknown command: EINVAL");
	ds = stat_of(id);
	ds.sem_perm.mode = 0444;
	ds.sem_perm.uid = 1234;
	ds.sem_perm.gid = 567;
	ok(semctl(id, 0, IPC_SET, (union semun){.buf = &ds}) == 0, "IPC_SET");
	ds = stat_of(id);
	ok((ds.sem_perm.mode & 0777) == 0444 && ds.sem_perm.uid == 1234 && ds.sem_perm.gid == 567 &&
	       ds.sem_perm.cuid == getuid(),
	   "IPC_SET changes the mode, uid and gid only");
	ds.sem_perm.gid = (gid_t)-1;
	is_errno(semctl(id, 0, IPC_SET, (union semun){.buf = &ds}), EINVAL,
		 "IPC_SET to gid -1: EINVAL");
	ok(semctl(id, 0, IPC_RMID) == 0, "IPC_RMID");
	is_errno(semctl(id, 0, IPC_RMID), EINVAL, "IPC_RMID again: EINVAL");
	is_errno(op(id, 0, 1, 0), EINVAL, "semop on a removed set: EINVAL");
}

/* /proc/sysvipc/sem: Linux's columns, one line per set. */
static void test_proc(void)
{
	key_t key = key_of(3);
	int id = semget(key, 5, IPC_CREAT | 0600);
	FILE *f = fopen("/proc/sysvipc/sem", "r");
	bool header = false, found = false;
	char line[256];

	op(id, 0, 1, 0);
	while (f && fgets(line, sizeof line, f)) {
		int k, i, mode;
		unsigned nsems, uid;
		long otime, ctime;
		if (strstr(line, "       key      semid perms      nsems   uid   gid  cuid  cgid"))
			header = true;
		else if (sscanf(line, "%d %d %o %u %u %*u %*u %*u %ld %ld", &k, &i, &mode, &nsems,
				&uid, &otime, &ctime) == 7 &&
			 i == id)
			found = k == key && mode == 0600 && nsems == 5 && uid == getuid() &&
				otime == stat_of(id).sem_otime && otime != 0 && ctime != 0;
	}
	ok(f && header, "/proc/sysvipc/sem has Linux's header");
	ok(found, "and a line for the set: key, id, mode, nsems, uid, times");
	if (f)
		fclose(f);
	semctl(id, 0, IPC_RMID);
}

int main(void)
{
	plan(73);
	test_get();
	test_values();
	test_semop();
	test_undo_range();
	test_timed();
	test_ctl();
	test_proc();
	return done();
}
