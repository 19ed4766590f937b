/* The vDSO: found through AT_SYSINFO_EHDR and read with this program's
 * own ELF parsing (versioned symbols, LINUX_2.6), its clock and CPU
 * answers against the system calls' (each call bracketed by two system
 * calls, the monotonic clock never back across many calls, CPUs and
 * threads), getcpu after pinning, [vdso]/[vvar] in /proc/self/maps, kept
 * by fork, and what munmap, mremap and mprotect may do to them (Linux's
 * special mappings).  Built static with musl and with glibc: both libcs
 * call the vDSO from a static program too. */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

typedef long (*gettime_fn)(long, struct timespec *);
typedef long (*gettimeofday_fn)(struct timeval *, void *);
typedef long (*time_fn)(long *);
typedef long (*getcpu_fn)(unsigned *, unsigned *, void *);

static const char *const names[] = {"__vdso_clock_gettime",
				    "__vdso_gettimeofday",
				    "__vdso_time",
				    "__vdso_getcpu",
				    "__vdso_clock_getres",
				    "clock_gettime",
				    "gettimeofday",
				    "time",
				    "getcpu",
				    "clock_getres"};
#define NNAMES (sizeof(names) / sizeof(names[0]))

static gettime_fn vgettime, vgetres;
static gettimeofday_fn vgettimeofday;
static time_fn vtime;
static getcpu_fn vgetcpu;

/* The vDSO's dynamic symbols, read from the image in memory. */
struct vdso_syms {
	uintptr_t base;
	const Elf64_Sym *sym;
	const char *str;
	const Elf64_Half *versym;
	const Elf64_Verdef *verdef;
	uint32_t nsym;
};

static bool vdso_open(uintptr_t base, struct vdso_syms *s)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(base + eh->e_phoff);
	const Elf64_Dyn *dyn = NULL;

	memset(s, 0, sizeof(*s));
	s->base = base;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_type != ET_DYN)
		return false;
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_DYNAMIC)
			dyn = (const Elf64_Dyn *)(base + ph[i].p_offset);
	for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
		uintptr_t at = base + dyn->d_un.d_ptr;
		switch (dyn->d_tag) {
		case DT_SYMTAB:
			s->sym = (const Elf64_Sym *)at;
			break;
		case DT_STRTAB:
			s->str = (const char *)at;
			break;
		case DT_HASH:
			s->nsym = ((const uint32_t *)at)[1];
			break;
		case DT_VERSYM:
			s->versym = (const Elf64_Half *)at;
			break;
		case DT_VERDEF:
			s->verdef = (const Elf64_Verdef *)at;
			break;
		}
	}
	return s->sym && s->str && s->nsym && s->versym && s->verdef;
}

/* The name of version index ndx in the image's version definitions. */
static const char *version_name(const struct vdso_syms *s, Elf64_Half ndx)
{
	const Elf64_Verdef *d = s->verdef;

	for (;;) {
		if ((d->vd_ndx & 0x7fff) == (ndx & 0x7fff))
			return s->str +
			       ((const Elf64_Verdaux *)((const char *)d + d->vd_aux))->vda_name;
		if (!d->vd_next)
			return NULL;
		d = (const Elf64_Verdef *)((const char *)d + d->vd_next);
	}
}

/* The address of name@version, defined as a function, or NULL. */
static void *vdso_sym(const struct vdso_syms *s, const char *name, const char *version)
{
	for (uint32_t i = 1; i < s->nsym; i++) {
		const Elf64_Sym *sym = &s->sym[i];
		const char *v = version_name(s, s->versym[i]);
		if (ELF64_ST_TYPE(sym->st_info) == STT_FUNC && sym->st_shndx != SHN_UNDEF &&
		    !strcmp(s->str + sym->st_name, name) && v && !strcmp(v, version))
			return (void *)(s->base + sym->st_value);
	}
	return NULL;
}

static uintptr_t vdso_base;

static void check_symbols(void)
{
	struct vdso_syms s;
	unsigned found = 0;

	vdso_base = getauxval(AT_SYSINFO_EHDR);
	ok(vdso_base != 0, "AT_SYSINFO_EHDR %#lx", (unsigned long)vdso_base);
	require(vdso_base && vdso_open(vdso_base, &s), "parse the vDSO's dynamic section");
	for (unsigned i = 0; i < NNAMES; i++)
		found += vdso_sym(&s, names[i], "LINUX_2.6") != NULL;
	ok(found == NNAMES, "all %u symbols found at version LINUX_2.6 (%u)", (unsigned)NNAMES,
	   found);
	ok(vdso_sym(&s, "__vdso_clock_gettime", "LINUX_2.5") == NULL, "none at another version");
	vgettime = (gettime_fn)vdso_sym(&s, "__vdso_clock_gettime", "LINUX_2.6");
	vgetres = (gettime_fn)vdso_sym(&s, "__vdso_clock_getres", "LINUX_2.6");
	vgettimeofday = (gettimeofday_fn)vdso_sym(&s, "__vdso_gettimeofday", "LINUX_2.6");
	vtime = (time_fn)vdso_sym(&s, "__vdso_time", "LINUX_2.6");
	vgetcpu = (getcpu_fn)vdso_sym(&s, "__vdso_getcpu", "LINUX_2.6");
	require(vgettime && vgetres && vgettimeofday && vtime && vgetcpu, "the functions");
}

static int64_t ts_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

static int64_t sys_ns(clockid_t clk)
{
	struct timespec t;

	require(syscall(SYS_clock_gettime, clk, &t) == 0, "clock_gettime");
	return ts_ns(&t);
}

/* Whether clk read through the vDSO lies between two system calls, ns for
 * ns; how far from each in *early and *late. */
static bool bracketed(clockid_t clk, int64_t *early, int64_t *late)
{
	struct timespec t;
	int64_t a = sys_ns(clk), b;
	long ret = vgettime(clk, &t);

	b = ts_ns(&t);
	*early = b - a;
	*late = sys_ns(clk) - b;
	return ret == 0 && *early >= 0 && *late >= 0 && t.tv_nsec < 1000000000;
}

/* Each clock through the vDSO lies between two system calls, ns for ns. */
static void check_clocks(void)
{
	static const struct {
		clockid_t id;
		const char *name;
	} clocks[] = {{CLOCK_REALTIME, "REALTIME"},
		      {CLOCK_MONOTONIC, "MONOTONIC"},
		      {CLOCK_BOOTTIME, "BOOTTIME"},
		      {CLOCK_TAI, "TAI"},
		      {CLOCK_REALTIME_COARSE, "REALTIME_COARSE"},
		      {CLOCK_MONOTONIC_COARSE, "MONOTONIC_COARSE"}};
	struct timespec t, r1, r2;
	int64_t early, late;

	for (unsigned i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		ok(bracketed(clocks[i].id, &early, &late),
		   "CLOCK_%s: the vDSO's between two system calls (%+ld, %+ld ns)", clocks[i].name,
		   (long)early, (long)late);
		ok(vgetres(clocks[i].id, &r1) == 0 &&
		       syscall(SYS_clock_getres, clocks[i].id, &r2) == 0 &&
		       r1.tv_sec == r2.tv_sec && r1.tv_nsec == r2.tv_nsec,
		   "CLOCK_%s: clock_getres as the system call's", clocks[i].name);
	}
	ok(bracketed(CLOCK_PROCESS_CPUTIME_ID, &early, &late),
	   "CLOCK_PROCESS_CPUTIME_ID through the vDSO (the system call answers it)");
	ok(vgettime(1000, &t) == -EINVAL && vgetres(1000, &t) == -EINVAL,
	   "a bad clock id: the system call's -EINVAL, returned raw");
}

static void check_time_of_day(void)
{
	struct timeval a, b, c;
	long t1, t2, t3;

	require(syscall(SYS_gettimeofday, &a, NULL) == 0, "gettimeofday");
	require(vgettimeofday(&b, NULL) == 0, "vDSO gettimeofday");
	require(syscall(SYS_gettimeofday, &c, NULL) == 0, "gettimeofday");
	ok(timercmp(&a, &b, <=) && timercmp(&b, &c, <=) && b.tv_usec < 1000000,
	   "gettimeofday through the vDSO between two system calls");
	t1 = syscall(SYS_time, NULL);
	t2 = vtime(&t3);
	ok(t1 <= t2 && t2 == t3 && t2 <= syscall(SYS_time, NULL),
	   "time through the vDSO between two system calls, stored too");
	ok(time(NULL) >= t1 && clock_gettime(CLOCK_MONOTONIC, &(struct timespec){0}) == 0,
	   "the libc's time and clock_gettime work");
}

/* Many calls: the monotonic clock never goes back, through the vDSO, the
 * system call, and both mixed, on each CPU in turn. */
static void check_monotonic(void)
{
	cpu_set_t all, one;
	int64_t last = 0, now;
	bool back = false;
	int ncpu = 0;

	require(sched_getaffinity(0, sizeof(all), &all) == 0, "sched_getaffinity");
	for (int cpu = 0; cpu < CPU_SETSIZE && ncpu < 8; cpu++) {
		if (!CPU_ISSET(cpu, &all))
			continue;
		ncpu++;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		require(sched_setaffinity(0, sizeof(one), &one) == 0, "pin");
		for (int i = 0; i < 20000; i++) {
			struct timespec t;
			if (i % 64 == 0)
				now = sys_ns(CLOCK_MONOTONIC);
			else
				vgettime(CLOCK_MONOTONIC, &t), now = ts_ns(&t);
			back |= now < last;
			last = now;
		}
	}
	require(sched_setaffinity(0, sizeof(all), &all) == 0, "unpin");
	ok(!back, "CLOCK_MONOTONIC never back over 20000 calls on each of %d CPUs", ncpu);
}

/* Threads on different CPUs take turns under a lock: each reading must be
 * at least the one before it, whichever CPU made it. */
static pthread_mutex_t turn = PTHREAD_MUTEX_INITIALIZER;
static int64_t shared_last;
static bool shared_back;

static void *reader(void *arg)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET((int)(intptr_t)arg, &one);
	sched_setaffinity(0, sizeof(one), &one);
	for (int i = 0; i < 20000; i++) {
		struct timespec t;
		pthread_mutex_lock(&turn);
		vgettime(CLOCK_MONOTONIC, &t);
		shared_back |= ts_ns(&t) < shared_last;
		shared_last = ts_ns(&t);
		pthread_mutex_unlock(&turn);
	}
	return NULL;
}

static void check_across_cpus(void)
{
	cpu_set_t all;
	pthread_t th[2];
	int cpus[2], n = 0;

	require(sched_getaffinity(0, sizeof(all), &all) == 0, "sched_getaffinity");
	for (int cpu = 0; cpu < CPU_SETSIZE && n < 2; cpu++)
		if (CPU_ISSET(cpu, &all))
			cpus[n++] = cpu;
	if (n < 2)
		cpus[1] = cpus[0];
	for (int i = 0; i < 2; i++)
		require(pthread_create(&th[i], NULL, reader, (void *)(intptr_t)cpus[i]) == 0,
			"pthread_create");
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	ok(!shared_back, "two threads on CPUs %d and %d: CLOCK_MONOTONIC never back", cpus[0],
	   cpus[1]);
}

static void check_getcpu(void)
{
	cpu_set_t all, one;
	bool agree = true;
	int n = 0;

	require(sched_getaffinity(0, sizeof(all), &all) == 0, "sched_getaffinity");
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		unsigned vc = ~0u, vn = ~0u, sc = ~0u;
		if (!CPU_ISSET(cpu, &all))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		require(sched_setaffinity(0, sizeof(one), &one) == 0, "pin");
		vgetcpu(&vc, &vn, NULL);
		syscall(SYS_getcpu, &sc, NULL, NULL);
		agree &=
		    vc == (unsigned)cpu && sc == (unsigned)cpu && vn == 0 && sched_getcpu() == cpu;
		n++;
	}
	require(sched_setaffinity(0, sizeof(all), &all) == 0, "unpin");
	ok(agree, "getcpu through the vDSO, the system call and sched_getcpu agree on %d CPUs", n);
}

/* The start and end of the mapping named name, or 0. */
static uintptr_t mapping(const char *name, uintptr_t *end, char perms[5])
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	unsigned long s = 0, e = 0;

	require(f != NULL, "open /proc/self/maps");
	while (fgets(line, sizeof line, f))
		if (strstr(line, name) && sscanf(line, "%lx-%lx %4s", &s, &e, perms) == 3)
			break;
		else
			s = 0;
	fclose(f);
	*end = e;
	return s;
}

static void check_maps(void)
{
	uintptr_t vdso_end, vvar_end, vvar;
	char perms[5] = "", vperms[5] = "";

	ok(mapping("[vdso]", &vdso_end, perms) == vdso_base && !strcmp(perms, "r-xp"),
	   "/proc/self/maps: [vdso] r-xp at AT_SYSINFO_EHDR");
	vvar = mapping("[vvar]", &vvar_end, vperms);
	ok(vvar && vvar < vdso_base && !strcmp(vperms, "r--p"), "[vvar] r--p below it");
}

static uintptr_t vdso_len(void)
{
	uintptr_t end;
	char perms[5];

	mapping("[vdso]", &end, perms);
	return end - vdso_base;
}

static void child_fork_keeps(void)
{
	uintptr_t end;
	char perms[5];
	struct timespec t;

	_exit(mapping("[vdso]", &end, perms) == vdso_base && vgettime(CLOCK_MONOTONIC, &t) == 0
		  ? 0
		  : 1);
}

static void child_vvar_fixed(void)
{
	uintptr_t end;
	char perms[5];
	uintptr_t vvar = mapping("[vvar]", &end, perms);

	_exit(mprotect((void *)vvar, 4096, PROT_READ | PROT_WRITE) == -1 && errno == EACCES &&
		      mprotect((void *)vvar, 4096, PROT_READ | PROT_EXEC) == -1 && errno == EACCES
		  ? 0
		  : 1);
}

static void child_no_grow(void)
{
	uintptr_t len = vdso_len();

	_exit(mremap((void *)vdso_base, len, len + 4096, 0) == MAP_FAILED && errno == EFAULT &&
		      mremap((void *)vdso_base, len, len + 4096, MREMAP_MAYMOVE) == MAP_FAILED &&
		      errno == EFAULT
		  ? 0
		  : 1);
}

/* Written after mprotect: this process's copy changes, not the image. */
static void child_write(void)
{
	volatile unsigned char *p = (volatile unsigned char *)vdso_base + 8;
	unsigned char was = *p;

	if (mprotect((void *)vdso_base, vdso_len(), PROT_READ | PROT_WRITE) != 0)
		_exit(1);
	*p = (unsigned char)(was ^ 0xff);
	_exit(*p == (unsigned char)(was ^ 0xff) ? 0 : 2);
}

static void child_move(void)
{
	uintptr_t len = vdso_len(), end;
	void *to = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char perms[5];

	if (to == MAP_FAILED ||
	    mremap((void *)vdso_base, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, to) != to)
		_exit(1);
	_exit(mapping("[vdso]", &end, perms) == (uintptr_t)to && end - (uintptr_t)to == len ? 0
											    : 2);
}

static void child_unmap(void)
{
	uintptr_t end;
	char perms[5];

	if (munmap((void *)vdso_base, vdso_len()) != 0)
		_exit(1);
	_exit(mapping("[vdso]", &end, perms) == 0 ? 0 : 2);
}

static void check_special(void)
{
	unsigned char first = ((const unsigned char *)vdso_base)[8];

	ok(exited_with(child_status(child_fork_keeps), 0), "a fork child has [vdso] where it was");
	ok(exited_with(child_status(child_vvar_fixed), 0),
	   "[vvar] cannot be made writable or executable: EACCES");
	ok(exited_with(child_status(child_no_grow), 0), "[vdso] cannot grow: EFAULT");
	ok(exited_with(child_status(child_write), 0) &&
	       ((const unsigned char *)vdso_base)[8] == first,
	   "mprotect makes [vdso] writable; a write changes only the writer's copy");
	ok(exited_with(child_status(child_move), 0), "mremap moves [vdso] whole; maps follows");
	ok(exited_with(child_status(child_unmap), 0), "munmap removes [vdso]");
}

int main(void)
{
	plan(31);
	check_symbols();
	check_clocks();
	check_time_of_day();
	check_monotonic();
	check_across_cpus();
	check_getcpu();
	check_maps();
	check_special();
	return done();
}
