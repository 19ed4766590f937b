/*
 * The clock, kept in the vDSO's data page (arch/x86_64/vvar.h) so that
 * user space reads the same time the kernel does, without a system call.
 * Time is a base per clock plus the TSC since the base's update, turned
 * into ns by a multiply and a shift; CPU 0's tick moves the bases up (a
 * single writer, under the page's seqlock), so the TSC delta stays small.
 * Every CPU reads its own TSC: they are assumed synchronised (QEMU gives
 * all its vCPUs one), as Linux assumes once it trusts the TSC; the boot
 * word tsc=unstable makes the vDSO's TSC clocks fall back to system calls
 * (the kernel has no other clock).
 */
#include "arch/x86_64/vclock.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/timer.h"
#include "cmdline.h"
#include "lib/printk.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "mm/frame.h"
#include "mm/layout.h"
#include "proc/proc.h"
#include "time/ntp.h"
#include <uapi/errno.h>

#define MSR_TSC_AUX 0xc0000103
#define NSEC	    1000000000UL

/* Before vclock_init: all zero, the clock reads 0.  Then the data page,
 * a frame mapped read-only into every process (vvar_frame). */
static struct vvar_data boot_vvar;
static struct vvar_data *vvar = &boot_vvar;
static uint64_t vvar_pa;
/* The page's writers: CPU 0's tick and the calls that set the clock. */
static struct spinlock vclock_lock = SPINLOCK_INIT("vclock");
/* CLOCK_REALTIME - CLOCK_MONOTONIC in ns, never negative (clock_settime
 * refuses a real time before the monotonic one, as Linux), and
 * CLOCK_TAI - CLOCK_REALTIME in seconds (adjtimex's ADJ_TAI): written
 * under vclock_lock and the page's seqlock. */
static int64_t realtime_off, tai_off;
/* The TSC's calibrated multiplier (the page's mult is it scaled by the
 * NTP discipline) and CLOCK_MONOTONIC_RAW's base, which it alone moves:
 * written under vclock_lock and the page's seqlock. */
static uint64_t raw_mult;
static struct vvar_base raw_base;

static inline uint64_t rdtsc_ordered(void)
{
	asm volatile("lfence" ::: "memory");
	return rdtsc();
}

static uint64_t tsc_delta(const struct vvar_data *d)
{
	uint64_t now = rdtsc_ordered(), base = __atomic_load_n(&d->tsc_base, __ATOMIC_RELAXED);

	return now > base ? now - base : 0; /* a TSC a hair behind CPU 0's */
}

/* The time of base (a clock's in the page, or the raw one) now, in ns:
 * it plus the TSC since, at *mult (at the last update's if coarse). */
static uint64_t read_base(const struct vvar_base *base, const uint64_t *mult, bool coarse)
{
	const struct vvar_data *d = vvar;
	uint64_t s, sn;
	uint32_t seq;

	do {
		while ((seq = __atomic_load_n(&d->seq, __ATOMIC_ACQUIRE)) & 1)
			cpu_relax();
		s = base->sec;
		sn = base->snsec + (coarse ? 0 : tsc_delta(d) * *mult);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (__atomic_load_n(&d->seq, __ATOMIC_RELAXED) != seq);
	sn >>= VVAR_SHIFT;
	return (s + sn / NSEC) * NSEC + sn % NSEC;
}

uint64_t clock_monotonic_raw_ns(void)
{
	return read_base(&raw_base, &raw_mult, false);
}

uint64_t clock_monotonic_ns(void)
{
	return read_base(&vvar->base[VCLOCK_MONOTONIC], &vvar->mult, false);
}

int64_t vclock_coarse_ns(int clk)
{
	return (int64_t)read_base(&vvar->base[clk], &vvar->mult, true);
}

static void base_add(struct vvar_base *b, uint64_t snsec)
{
	const uint64_t second = NSEC << VVAR_SHIFT;

	b->snsec += snsec;
	while (b->snsec >= second) {
		b->snsec -= second;
		b->sec++;
	}
}

/* base plus off ns (off >= 0). */
static struct vvar_base base_plus(const struct vvar_base *base, int64_t off)
{
	struct vvar_base b = {base->sec + (uint64_t)off / NSEC, base->snsec};

	base_add(&b, (uint64_t)off % NSEC << VVAR_SHIFT);
	return b;
}

/* The other clocks' bases from the monotonic one: the real-time clock is
 * it plus realtime_off, BOOTTIME equal (no suspend), TAI the real time
 * plus tai_off seconds; the coarse ones the same, truncated to the ns. */
static void derive_bases(struct vvar_data *d)
{
	const struct vvar_base *mono = &d->base[VCLOCK_MONOTONIC];
	struct vvar_base whole = {mono->sec, mono->snsec >> VVAR_SHIFT << VVAR_SHIFT};

	d->base[VCLOCK_REALTIME] = base_plus(mono, realtime_off);
	d->base[VCLOCK_BOOTTIME] = *mono;
	d->base[VCLOCK_TAI] = base_plus(mono, realtime_off + tai_off * (int64_t)NSEC);
	d->base[VCLOCK_MONOTONIC_COARSE] = whole;
	d->base[VCLOCK_REALTIME_COARSE] = base_plus(&whole, realtime_off);
}

/* The monotonic and raw bases move up to now (vclock_lock held, seqlock
 * open). */
static void advance(struct vvar_data *d)
{
	uint64_t now = rdtsc_ordered(), cycles = now > d->tsc_base ? now - d->tsc_base : 0;

	__atomic_store_n(&d->tsc_base, now, __ATOMIC_RELAXED);
	base_add(&d->base[VCLOCK_MONOTONIC], cycles * d->mult);
	base_add(&raw_base, cycles * raw_mult);
}

/* The multiplier for the NTP's second length (ns scaled by 2^32; whole
 * ns are precise enough, 1 ppb): the calibrated one when the second is
 * nominal.  Below 2^64: raw_mult < 2^32 for any TSC above 4 MHz, and a
 * second is at most 1.1e9 ns. */
static void set_rate(struct vvar_data *d)
{
	d->mult = raw_mult * (uint64_t)(ntp_second_length() >> 32) / NSEC;
}

static void write_begin(struct vvar_data *d)
{
	spin_lock(&vclock_lock);
	__atomic_store_n(&d->seq, d->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static void write_end(struct vvar_data *d)
{
	derive_bases(d);
	__atomic_store_n(&d->seq, d->seq + 1, __ATOMIC_RELEASE);
	spin_unlock(&vclock_lock);
}

void vclock_rate_changed(void)
{
	struct vvar_data *d = vvar;

	write_begin(d);
	advance(d);
	set_rate(d);
	write_end(d);
}

int64_t vclock_realtime_offset(void)
{
	return __atomic_load_n(&realtime_off, __ATOMIC_RELAXED);
}

int64_t vclock_tai_offset(void)
{
	return __atomic_load_n(&tai_off, __ATOMIC_RELAXED);
}

int vclock_set(int64_t realtime_ns, bool relative)
{
	struct vvar_data *d = vvar;
	int err = 0;

	write_begin(d);
	advance(d);
	int64_t mono = (int64_t)(d->base[VCLOCK_MONOTONIC].sec * NSEC +
				 (d->base[VCLOCK_MONOTONIC].snsec >> VVAR_SHIFT));
	int64_t target = relative ? mono + realtime_off + realtime_ns : realtime_ns;
	if (target < mono)
		err = -EINVAL;
	else
		__atomic_store_n(&realtime_off, target - mono, __ATOMIC_RELAXED);
	write_end(d);
	return err;
}

void vclock_set_tai(int64_t seconds)
{
	struct vvar_data *d = vvar;

	write_begin(d);
	__atomic_store_n(&tai_off, seconds, __ATOMIC_RELAXED);
	write_end(d);
}

void vclock_set_timezone(int32_t minuteswest, int32_t dsttime)
{
	struct vvar_data *d = vvar;

	write_begin(d);
	d->tz_minuteswest = minuteswest;
	d->tz_dsttime = dsttime;
	write_end(d);
}

/*
 * The real time crossed into second sec: the leap-second state machine
 * (time/ntp.c) may step the clock back a second (an inserted 23:59:60
 * reads 23:59:59 again, as Linux) or forward (a deleted 23:59:59).
 */
static void second_overflow(struct vvar_data *d)
{
	int64_t sec = (int64_t)d->base[VCLOCK_REALTIME].sec;
	int leap = ntp_second_overflow(sec);

	set_rate(d);
	if (leap && realtime_off + leap * (int64_t)NSEC >= 0) {
		__atomic_store_n(&realtime_off, realtime_off + leap * (int64_t)NSEC,
				 __ATOMIC_RELAXED);
		derive_bases(d);
	}
}

void vclock_timezone(int32_t *minuteswest, int32_t *dsttime)
{
	spin_lock(&vclock_lock);
	*minuteswest = vvar->tz_minuteswest;
	*dsttime = vvar->tz_dsttime;
	spin_unlock(&vclock_lock);
}

void vclock_tick(void)
{
	struct vvar_data *d = vvar;
	uint64_t before;

	write_begin(d);
	before = d->base[VCLOCK_REALTIME].sec;
	advance(d);
	derive_bases(d);
	if (d->base[VCLOCK_REALTIME].sec != before)
		second_overflow(d);
	write_end(d);
}

/* Which instruction gives user space its CPU number (IA32_TSC_AUX). */
static uint32_t getcpu_mode(void)
{
	uint32_t a, b, c, d;

	cpuid(0, 0, &a, &b, &c, &d);
	if (a >= 7) {
		cpuid(7, 0, &a, &b, &c, &d);
		if (c & (1u << 22))
			return VGETCPU_RDPID;
	}
	cpuid(0x80000000, 0, &a, &b, &c, &d);
	if (a >= 0x80000001) {
		cpuid(0x80000001, 0, &a, &b, &c, &d);
		if (d & (1u << 27))
			return VGETCPU_RDTSCP;
	}
	return VGETCPU_SYSCALL;
}

/* How the vDSO answers clk: from the TSC unless tsc=unstable; the coarse
 * clocks need no TSC. */
static uint8_t clock_kind(int clk)
{
	switch (clk) {
	case VCLOCK_REALTIME:
	case VCLOCK_MONOTONIC:
	case VCLOCK_BOOTTIME:
	case VCLOCK_TAI:
		return kopts.tsc_unstable ? VKIND_SYSCALL : VKIND_HRES;
	case VCLOCK_REALTIME_COARSE:
	case VCLOCK_MONOTONIC_COARSE:
		return VKIND_COARSE;
	}
	return VKIND_SYSCALL;
}

void vclock_cpu_init(int cpu)
{
	/* Linux's layout: the node above bit 12 (always 0 here). */
	if (vvar->getcpu_mode != VGETCPU_SYSCALL)
		wrmsr(MSR_TSC_AUX, (uint64_t)cpu);
}

void vclock_init(uint64_t tsc_per_ms)
{
	struct vvar_data *d;

	if (!(vvar_pa = frame_zalloc()))
		panic("vclock: no frame for the vDSO data page");
	d = P2V(vvar_pa);
	d->tsc_base = rdtsc_ordered();
	d->mult = raw_mult = (1000000UL << VVAR_SHIFT) / tsc_per_ms;
	d->getcpu_mode = getcpu_mode();
	for (int clk = 0; clk < VVAR_CLOCKS; clk++)
		d->kind[clk] = clock_kind(clk);
	d->res_ns = TICK_NS;
	derive_bases(d);
	__atomic_store_n(&vvar, d, __ATOMIC_RELEASE);
	vclock_cpu_init(0);
}

uint64_t vvar_frame(void)
{
	return vvar_pa;
}
