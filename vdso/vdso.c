/*
 * The vDSO (docs/vdso.md): a small shared object the kernel maps into
 * every process, whose functions answer clock_gettime, gettimeofday,
 * time, clock_getres and getcpu in user space from the kernel's data page
 * ([vvar], arch/x86_64/vvar.h, one page below this image).  Built
 * position-independent with no relocations (vdso/vdso.mk checks); each
 * function falls back to the system call for what the page does not
 * answer (CPU-time clocks, a TSC the kernel distrusts, bad clock ids).
 */
#include <stdint.h>
#include "arch/x86_64/vvar.h"

#define NSEC 1000000000UL

/* The data page, at a fixed distance below the image (vdso.lds). */
extern const volatile struct vvar_data vvar __attribute__((visibility("hidden")));

struct vdso_timespec {
	int64_t tv_sec, tv_nsec;
};
struct vdso_timeval {
	int64_t tv_sec, tv_usec;
};
struct vdso_timezone {
	int32_t tz_minuteswest, tz_dsttime;
};

#define NR_gettimeofday	 96
#define NR_clock_gettime 228
#define NR_clock_getres	 229
#define NR_time		 201
#define NR_getcpu	 309

static inline long syscall3(long nr, long a, long b, long c)
{
	long ret;

	asm volatile("syscall"
		     : "=a"(ret)
		     : "a"(nr), "D"(a), "S"(b), "d"(c)
		     : "rcx", "r11", "memory");
	return ret;
}

static inline uint64_t rdtsc_ordered(void)
{
	uint32_t lo, hi;

	asm volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi)::"memory");
	return (uint64_t)hi << 32 | lo;
}

static inline uint32_t seq_begin(void)
{
	uint32_t seq;

	while ((seq = vvar.seq) & 1)
		asm volatile("pause" ::: "memory");
	asm volatile("" ::: "memory");
	return seq;
}

static inline int seq_retry(uint32_t seq)
{
	asm volatile("" ::: "memory");
	return vvar.seq != seq;
}

/* The system call behind a function, out of line so that the fast paths
 * save no registers. */
static __attribute__((noinline)) long fallback(long nr, long a, long b, long c)
{
	return syscall3(nr, a, b, c);
}

/* clk's time (a VKIND_HRES or VKIND_COARSE clock) into ts. */
static inline void read_clock(uint32_t clk, uint32_t kind, struct vdso_timespec *ts)
{
	const volatile struct vvar_base *base = &vvar.base[clk];
	uint64_t sec, sn;
	uint32_t seq;

	do {
		seq = seq_begin();
		sec = base->sec;
		sn = base->snsec;
		if (kind == VKIND_HRES) {
			/* A TSC a hair behind CPU 0's counts as no time passed. */
			int64_t delta = (int64_t)(rdtsc_ordered() - vvar.tsc_base);
			if (delta > 0)
				sn += (uint64_t)delta * vvar.mult;
		}
	} while (seq_retry(seq));
	sn >>= VVAR_SHIFT;
	/* Less than a few seconds past the base: a loop, not a division. */
	while (sn >= NSEC) {
		sn -= NSEC;
		sec++;
	}
	ts->tv_sec = (int64_t)sec;
	ts->tv_nsec = (int64_t)sn;
}

/* How the page answers clk: VKIND_SYSCALL for ids it has no base for. */
static inline uint32_t clock_kind(int clk)
{
	return (uint32_t)clk < VVAR_CLOCKS ? vvar.kind[clk] : VKIND_SYSCALL;
}

int __vdso_clock_gettime(int clk, struct vdso_timespec *ts)
{
	uint32_t kind = clock_kind(clk);

	if (kind == VKIND_SYSCALL)
		return (int)fallback(NR_clock_gettime, clk, (long)ts, 0);
	read_clock((uint32_t)clk, kind, ts);
	return 0;
}

int __vdso_gettimeofday(struct vdso_timeval *tv, struct vdso_timezone *tz)
{
	struct vdso_timespec ts;

	if (vvar.kind[0] != VKIND_HRES) /* CLOCK_REALTIME */
		return (int)fallback(NR_gettimeofday, (long)tv, (long)tz, 0);
	if (tv) {
		read_clock(0, VKIND_HRES, &ts);
		tv->tv_sec = ts.tv_sec;
		tv->tv_usec = ts.tv_nsec / 1000;
	}
	if (tz) {
		tz->tz_minuteswest = vvar.tz_minuteswest;
		tz->tz_dsttime = vvar.tz_dsttime;
	}
	return 0;
}

/* The seconds of the last tick, as the kernel's time() (no seqlock: one
 * aligned word). */
int64_t __vdso_time(int64_t *t)
{
	if (vvar.kind[5] == VKIND_SYSCALL) /* CLOCK_REALTIME_COARSE: a time namespace's page */
		return fallback(NR_time, (long)t, 0, 0);
	int64_t sec = (int64_t)vvar.base[5].sec;

	if (t)
		*t = sec;
	return sec;
}

int __vdso_clock_getres(int clk, struct vdso_timespec *res)
{
	if (clock_kind(clk) == VKIND_SYSCALL)
		return (int)fallback(NR_clock_getres, clk, (long)res, 0);
	if (res) {
		res->tv_sec = 0;
		res->tv_nsec = (int64_t)vvar.res_ns;
	}
	return 0;
}

/* IA32_TSC_AUX holds (node << 12) | cpu on every CPU (vclock_cpu_init). */
long __vdso_getcpu(unsigned *cpu, unsigned *node, void *unused)
{
	uint64_t aux;

	if (vvar.getcpu_mode == VGETCPU_RDPID) {
		asm volatile("rdpid %0" : "=r"(aux));
	} else if (vvar.getcpu_mode == VGETCPU_RDTSCP) {
		uint32_t lo, hi, c;
		asm volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(c));
		aux = c;
	} else {
		return fallback(NR_getcpu, (long)cpu, (long)node, (long)unused);
	}
	if (cpu)
		*cpu = (unsigned)(aux & 0xfff);
	if (node)
		*node = (unsigned)(aux >> 12);
	return 0;
}

/* The plain names, as Linux's vDSO has them. */
int clock_gettime(int, struct vdso_timespec *) __attribute__((weak, alias("__vdso_clock_gettime")));
int gettimeofday(struct vdso_timeval *, struct vdso_timezone *)
    __attribute__((weak, alias("__vdso_gettimeofday")));
int64_t time(int64_t *) __attribute__((weak, alias("__vdso_time")));
int clock_getres(int, struct vdso_timespec *) __attribute__((weak, alias("__vdso_clock_getres")));
long getcpu(unsigned *, unsigned *, void *) __attribute__((weak, alias("__vdso_getcpu")));
