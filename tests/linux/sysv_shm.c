/* System V shared memory, call by call: shmget's sizes, keys and flags,
 * shmat's addresses and flags, shmdt, every shmctl command with good and
 * bad ids and buffers, and /proc/sysvipc/shm.  The segment's lifetime
 * across fork, exec and exit is sysv_shm_life's.  Keys are made from the
 * pid, so that runs beside each other on the host do not meet. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "testutil.h"

#define PAGE 4096UL

static key_t key_of(int n)
{
	return (key_t)(0x5e000000 | (getpid() & 0xfffff) << 4 | n);
}

static struct shmid_ds stat_of(int id)
{
	struct shmid_ds ds;

	memset(&ds, 0xa5, sizeof(ds));
	if (shmctl(id, IPC_STAT, &ds))
		memset(&ds, 0, sizeof(ds));
	return ds;
}

static void test_get(void)
{
	key_t key = key_of(1);
	time_t t0 = time(NULL) - 1; /* Linux's seconds are its last tick's: they may trail time() */
	int id = shmget(key, 3 * PAGE + 1, IPC_CREAT | IPC_EXCL | 0640), other, second;
	struct shmid_ds ds = stat_of(id);

	ok(id >= 0, "shmget with a new key and IPC_CREAT|IPC_EXCL");
	ok(ds.shm_segsz == 3 * PAGE + 1 && ds.shm_nattch == 0 && ds.shm_cpid == getpid() &&
	       ds.shm_lpid == 0 && ds.shm_atime == 0 && ds.shm_dtime == 0,
	   "IPC_STAT: size, no attach, creator pid, no last pid, no times");
	ok(ds.shm_ctime >= t0 && ds.shm_ctime <= time(NULL), "IPC_STAT: ctime is the creation's");
	ok(ds.shm_perm.__ipc_perm_key == key && (ds.shm_perm.mode & 0777) == 0640 &&
	       ds.shm_perm.uid == getuid() && ds.shm_perm.cuid == getuid() &&
	       ds.shm_perm.gid == getgid() && ds.shm_perm.cgid == getgid(),
	   "IPC_STAT: key, mode, owner and creator");
	is_int(shmget(key, 3 * PAGE + 1, 0), id, "the key finds it");
	is_int(shmget(key, 100, IPC_CREAT), id,
	       "IPC_CREAT alone finds it too, a smaller size is fine");
	is_errno(shmget(key, 4 * PAGE, 0), EINVAL, "asking more than its size: EINVAL");
	is_errno(shmget(key, PAGE, IPC_CREAT | IPC_EXCL), EEXIST, "IPC_CREAT|IPC_EXCL: EEXIST");
	is_errno(shmget(key_of(2), PAGE, 0), ENOENT, "an unknown key without IPC_CREAT: ENOENT");
	is_errno(shmget(key_of(2), PAGE, IPC_EXCL), ENOENT, "IPC_EXCL alone does not create");
	is_errno(shmget(IPC_PRIVATE, 0, 0600), EINVAL, "size 0 (below SHMMIN): EINVAL");
	is_errno(shmget(IPC_PRIVATE, -PAGE, 0600), EINVAL, "a size above SHMMAX: EINVAL");
	is_errno(shmget(IPC_PRIVATE, 1UL << 46, 0600), ENOMEM,
		 "a segment larger than memory: ENOMEM (heuristic overcommit)");
	other = shmget(IPC_PRIVATE, PAGE, 0600);
	second = shmget(IPC_PRIVATE, PAGE, 0600);
	ok(other >= 0 && second >= 0 && other != id && second != other,
	   "IPC_PRIVATE makes a new segment each time");
	shmctl(other, IPC_RMID, NULL);
	shmctl(second, IPC_RMID, NULL);
	is_int(shmctl(id, IPC_RMID, NULL), 0, "IPC_RMID");
	is_errno(shmget(key, PAGE, 0), ENOENT, "the key is gone with it");
	is_errno(shmctl(id, IPC_STAT, &ds), EINVAL, "IPC_STAT of a removed id: EINVAL");
}

/* Two attaches of one segment in one process are two views of the same
 * pages, and each counts. */
static void test_attach(void)
{
	int id = shmget(IPC_PRIVATE, 2 * PAGE, 0600);
	char *a = shmat(id, NULL, 0), *b = shmat(id, NULL, 0);
	struct shmid_ds ds = stat_of(id);

	ok(a != (void *)-1 && b != (void *)-1 && a != b && !((uintptr_t)a % SHMLBA),
	   "two attaches at two page-aligned addresses");
	if (a == (void *)-1 || b == (void *)-1)
		return;
	ok(a[0] == 0 && a[2 * PAGE - 1] == 0, "a new segment reads as zeroes");
	strcpy(a + PAGE + 10, "through a");
	ok(!strcmp(b + PAGE + 10, "through a"),
	   "a write through one attach is read through the other");
	ok(ds.shm_nattch == 2 && ds.shm_lpid == getpid() && ds.shm_atime != 0,
	   "nattch 2, last pid and attach time set");
	is_int(shmdt(b), 0, "shmdt");
	ds = stat_of(id);
	ok(ds.shm_nattch == 1 && ds.shm_dtime != 0, "nattch 1, detach time set");
	is_errno(shmdt(b), EINVAL, "shmdt again: EINVAL");
	ok(mprotect(a, PAGE, PROT_READ) == 0 && stat_of(id).shm_nattch == 2,
	   "mprotect splitting the attach: two vmas, nattch 2 (as Linux)");
	ok(mprotect(a, PAGE, PROT_READ | PROT_WRITE) == 0 && stat_of(id).shm_nattch == 2,
	   "putting the protection back does not merge them");
	is_int(shmdt(a), 0, "shmdt takes both pieces");
	ok(stat_of(id).shm_nattch == 0, "nattch 0");
	shmctl(id, IPC_RMID, NULL);
}

static sigjmp_buf fault_env;

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(fault_env, 1);
}

/* Whether writing to p faults. */
static bool write_faults(volatile char *p)
{
	struct sigaction sa = {.sa_handler = on_segv}, old;
	volatile bool faulted = false;

	sigaction(SIGSEGV, &sa, &old);
	if (sigsetjmp(fault_env, 1))
		faulted = true;
	else
		*p = 1;
	sigaction(SIGSEGV, &old, NULL);
	return faulted;
}

static void test_attach_flags(void)
{
	int id = shmget(IPC_PRIVATE, PAGE, 0600);
	char *area = mmap(NULL, 4 * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *p, *ro;

	is_errno((long)shmat(-1, NULL, 0), EINVAL, "shmat of id -1: EINVAL");
	is_errno((long)shmat(id + 1, NULL, 0), EINVAL, "shmat of an id no segment has: EINVAL");
	is_errno((long)shmat(id, area + 1, 0), EINVAL,
		 "an unaligned address without SHM_RND: EINVAL");
	is_errno((long)shmat(id, NULL, SHM_REMAP), EINVAL, "SHM_REMAP without an address: EINVAL");
	is_errno((long)shmat(id, area, 0), EINVAL,
		 "an address where something is mapped, without SHM_REMAP: EINVAL");
	p = shmat(id, area + PAGE + 123, SHM_RND | SHM_REMAP);
	ok(p == area + PAGE, "SHM_RND rounds down to SHMLBA, SHM_REMAP replaces the mapping");
	if (p == area + PAGE) {
		strcpy(p, "remapped");
		ok(!strcmp(area + PAGE, "remapped"), "and the attach is there");
	} else {
		ok(0, "and the attach is there");
	}
	shmdt(p);
	is_errno((long)shmat(id, (void *)0xffff800000000000UL, 0), ENOMEM,
		 "a kernel address: ENOMEM (Linux: past TASK_SIZE)");
	is_errno((long)shmat(id, (void *)0x7ffffffff000UL, 0), ENOMEM,
		 "an attach ending past the top of user space: ENOMEM");
	is_errno((long)shmat(id, (void *)-PAGE, 0), EINVAL, "an address whose end wraps: EINVAL");
	is_errno((long)shmat(id, (void *)-PAGE, SHM_REMAP), ENOMEM,
		 "the same with SHM_REMAP: ENOMEM");
	ro = shmat(id, NULL, SHM_RDONLY);
	ok(ro != (void *)-1 && ro[0] == 'r', "SHM_RDONLY attaches for reading");
	if (ro != (void *)-1) {
		ok(write_faults(ro), "a write to a SHM_RDONLY attach faults");
		is_errno(mprotect(ro, PAGE, PROT_READ | PROT_WRITE), EACCES,
			 "mprotect cannot make it writable: EACCES");
		shmdt(ro);
	} else {
		ok(0, "a write to a SHM_RDONLY attach faults");
		ok(0, "mprotect cannot make it writable: EACCES");
	}
	p = shmat(id, NULL, SHM_EXEC);
	ok(p != (void *)-1, "SHM_EXEC attaches");
	if (p != (void *)-1)
		shmdt(p);
	is_errno(shmdt(area + 1), EINVAL, "shmdt of an unaligned address: EINVAL");
	is_errno(shmdt(area + 2 * PAGE), EINVAL, "shmdt of an address no attach starts at: EINVAL");
	munmap(area, 4 * PAGE);
	shmctl(id, IPC_RMID, NULL);
}

/* munmap of an attach's first page leaves the rest attached; shmdt at the
 * attach address still finds and removes the rest (Linux's fragments). */
static void test_detach_fragments(void)
{
	int id = shmget(IPC_PRIVATE, 3 * PAGE, 0600);
	char *p = shmat(id, NULL, 0);

	ok(p != (void *)-1 && munmap(p, PAGE) == 0 && stat_of(id).shm_nattch == 1,
	   "munmap of the first page: still attached");
	if (p == (void *)-1)
		return;
	p[2 * PAGE] = 7;
	is_int(shmdt(p), 0, "shmdt at the attach address removes what is left");
	ok(stat_of(id).shm_nattch == 0, "nattch 0");
	shmctl(id, IPC_RMID, NULL);
}

/* IPC_RMID of an attached segment: it lives on under its id, its key
 * private, until the last detach. */
static void test_rmid_attached(void)
{
	key_t key = key_of(3);
	int id = shmget(key, PAGE, IPC_CREAT | IPC_EXCL | 0600);
	char *p = shmat(id, NULL, 0), *q;
	struct shmid_ds ds;

	ok(p != (void *)-1 && shmctl(id, IPC_RMID, NULL) == 0, "IPC_RMID while attached");
	ds = stat_of(id);
	ok((ds.shm_perm.mode & SHM_DEST) && ds.shm_perm.__ipc_perm_key == IPC_PRIVATE &&
	       ds.shm_nattch == 1,
	   "still there: SHM_DEST in its mode, key IPC_PRIVATE, nattch 1");
	is_errno(shmget(key, PAGE, 0), ENOENT, "its key finds nothing");
	q = shmat(id, NULL, 0);
	ok(q != (void *)-1 && stat_of(id).shm_nattch == 2, "shmat by id still works (as Linux)");
	if (p != (void *)-1)
		strcpy(p, "kept");
	ok(q != (void *)-1 && !strcmp(q, "kept"), "and sees the same pages");
	shmdt(q);
	shmdt(p);
	is_errno(shmctl(id, IPC_STAT, &ds), EINVAL, "the last detach freed it: EINVAL");
}

static void test_ctl(void)
{
	int id = shmget(IPC_PRIVATE, 5 * PAGE, 0600), idx, found = 0;
	struct shminfo info;
	struct shm_info sinfo;
	struct shmid_ds ds;
	char *p = shmat(id, NULL, 0);

	if (p != (void *)-1)
		p[0] = p[PAGE] = 1; /* two resident pages */
	idx = shmctl(0, IPC_INFO, (struct shmid_ds *)&info);
	ok(idx >= (id & 0x7fff) && info.shmmin == 1 && info.shmmni == 4096 &&
	       info.shmmax == ~0UL - (1UL << 24) && info.shmall == ~0UL - (1UL << 24) &&
	       info.shmseg == 4096,
	   "IPC_INFO: Linux's limits, the highest index");
	idx = shmctl(0, SHM_INFO, (struct shmid_ds *)&sinfo);
	ok(idx >= (id & 0x7fff) && sinfo.__used_ids >= 1 && sinfo.shm_tot >= 5 &&
	       sinfo.shm_rss >= 2,
	   "SHM_INFO: ids in use, pages of segments, resident pages");
	for (int i = 0; i <= idx; i++) {
		int r = shmctl(i, SHM_STAT, &ds);
		found += r == id && ds.shm_segsz == 5 * PAGE && ds.shm_nattch == 1;
	}
	is_int(found, 1, "SHM_STAT by index finds it once, returning its id");
	is_int(shmctl(id & 0x7fff, SHM_STAT_ANY, &ds), id, "SHM_STAT_ANY by its index");
	is_errno(shmctl(idx + 1, SHM_STAT, &ds), EINVAL, "SHM_STAT past the highest index: EINVAL");
	is_errno(shmctl(id, IPC_STAT, (void *)16), EFAULT, "IPC_STAT to a bad buffer: EFAULT");
	is_errno(shmctl(0, IPC_INFO, (void *)16), EFAULT, "IPC_INFO to a bad buffer: EFAULT");
	is_errno(shmctl(id, IPC_SET, (void *)16), EFAULT, "IPC_SET from a bad buffer: EFAULT");
	is_errno(shmctl(-1, IPC_STAT, &ds), EINVAL, "a negative id: EINVAL");
	is_errno(shmctl(id + 0x8000, IPC_STAT, &ds), EINVAL,
		 "the right index with another sequence number: EINVAL");
	is_errno(syscall(SYS_shmctl, id, 99, &ds), EINVAL, "an unknown command: EINVAL");
	is_errno(syscall(SYS_shmctl, id, -1, &ds), EINVAL, "a negative command: EINVAL");
	is_errno(syscall(SYS_shmctl, id, IPC_STAT | 0x100, &ds), EINVAL,
		 "IPC_64 (0x100) is no flag on x86_64: EINVAL");
	ds = stat_of(id);
	ds.shm_perm.mode = 0444 | 01000;
	ds.shm_perm.uid = 1234;
	ds.shm_perm.gid = 567;
	ok(shmctl(id, IPC_SET, &ds) == 0, "IPC_SET");
	ds = stat_of(id);
	ok((ds.shm_perm.mode & 0777) == 0444 && !(ds.shm_perm.mode & SHM_DEST) &&
	       ds.shm_perm.uid == 1234 && ds.shm_perm.gid == 567 && ds.shm_perm.cuid == getuid(),
	   "IPC_SET changes the permission bits, uid and gid only");
	ds.shm_perm.uid = (uid_t)-1;
	is_errno(shmctl(id, IPC_SET, &ds), EINVAL, "IPC_SET to uid -1: EINVAL");
	ok(shmctl(id, SHM_LOCK, NULL) == 0 && (stat_of(id).shm_perm.mode & SHM_LOCKED),
	   "SHM_LOCK: SHM_LOCKED in the mode");
	ok(shmctl(id, SHM_UNLOCK, NULL) == 0 && !(stat_of(id).shm_perm.mode & SHM_LOCKED),
	   "SHM_UNLOCK clears it");
	is_errno(shmctl(id + 1, SHM_LOCK, NULL), EINVAL, "SHM_LOCK of a bad id: EINVAL");
	shmdt(p);
	ok(shmctl(id, IPC_RMID, NULL) == 0, "IPC_RMID");
	is_errno(shmctl(id, IPC_RMID, NULL), EINVAL, "IPC_RMID again: EINVAL");
	is_errno(shmctl(id, IPC_SET, &ds), EINVAL, "IPC_SET of a removed id: EINVAL");
}

/* /proc/self/maps names an attach as Linux: device 00:01, the id as
 * inode, /SYSV<the key it was made with> (deleted), after IPC_RMID too. */
static void test_maps(void)
{
	key_t key = key_of(5);
	int id = shmget(key, 2 * PAGE, IPC_CREAT | IPC_EXCL | 0600), found = 0;
	char *p = shmat(id, NULL, 0), line[512], want[128];
	FILE *f;

	snprintf(want, sizeof want, "%lx-%lx rw-s 00000000 00:01 %d ", (unsigned long)p,
		 (unsigned long)p + 2 * PAGE, id);
	shmctl(id, IPC_RMID, NULL);
	f = fopen("/proc/self/maps", "r");
	while (f && fgets(line, sizeof line, f)) {
		char name[64];
		snprintf(name, sizeof name, "/SYSV%08x (deleted)\n", (unsigned)key);
		found += !strncmp(line, want, strlen(want)) && strstr(line, name) != NULL;
	}
	if (f)
		fclose(f);
	is_int(found, 1, "maps: the attach, 00:01, its id, /SYSV<key> (deleted)");
	shmdt(p);
}

/* /proc/sysvipc/shm: Linux's columns, one line per segment. */
static void test_proc(void)
{
	key_t key = key_of(4);
	int id = shmget(key, 3 * PAGE, IPC_CREAT | 0600);
	char *p = shmat(id, NULL, 0), line[512];
	FILE *f = fopen("/proc/sysvipc/shm", "r");
	bool header = false, found = false;

	if (p != (void *)-1)
		p[0] = 1;
	while (f && fgets(line, sizeof line, f)) {
		int k, i, mode, cpid, lpid;
		unsigned long size, nattch, rss;
		unsigned uid;
		if (strstr(line,
			   "       key      shmid perms                  size  cpid  lpid nattch"))
			header = true;
		else if (sscanf(line, "%d %d %o %lu %d %d %lu %u %*u %*u %*u %*d %*d %*d %lu", &k,
				&i, &mode, &size, &cpid, &lpid, &nattch, &uid, &rss) == 9 &&
			 i == id)
			found = k == key && mode == 0600 && size == 3 * PAGE && cpid == getpid() &&
				lpid == getpid() && nattch == 1 && uid == getuid() && rss == PAGE;
	}
	ok(f && header, "/proc/sysvipc/shm has Linux's header");
	ok(found, "and a line for the segment: key, id, mode, size, pids, nattch, uid, rss");
	if (f)
		fclose(f);
	shmdt(p);
	shmctl(id, IPC_RMID, NULL);
}

int main(void)
{
	plan(79);
	test_get();
	test_attach();
	test_attach_flags();
	test_detach_fragments();
	test_rmid_attached();
	test_ctl();
	test_proc();
	test_maps();
	return done();
}
