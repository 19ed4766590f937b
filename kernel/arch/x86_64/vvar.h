/*
 * The vDSO's data page, [vvar] (docs/vdso.md): what the kernel's clock
 * is, read by user space without a system call.  The kernel's tick on
 * CPU 0 (and boot) is its only writer (arch/x86_64/vclock.c); readers
 * anywhere, the kernel's own clock_monotonic_ns too, read it under the
 * seqlock seq: odd while it is being written, bumped twice per write.
 * Shared by the kernel and vdso/vdso.c: plain C, fixed-size types only.
 */
#ifndef ARCH_VVAR_H
#define ARCH_VVAR_H

#include <stdint.h>

/* How the vDSO answers a clock (vvar_data.kind). */
#define VKIND_SYSCALL 0 /* not here: the system call */
#define VKIND_HRES    1 /* base + the TSC since */
#define VKIND_COARSE  2 /* base alone: the last tick's time */

#define VGETCPU_SYSCALL 0
#define VGETCPU_RDPID	1 /* IA32_TSC_AUX holds the CPU number */
#define VGETCPU_RDTSCP	2

#define VVAR_CLOCKS 12 /* clock ids below this have a base here */
#define VVAR_SHIFT  24 /* 1 GiB of TSC delta times mult stays far below 2^64 */

/* A clock's time at the last update: sec, and ns shifted left by shift
 * (VVAR_SHIFT: the fraction a TSC delta adds is kept, so an update never
 * moves a reading back). */
struct vvar_base {
	uint64_t sec;
	uint64_t snsec;
};

struct vvar_data {
	uint32_t seq;
	uint32_t getcpu_mode;	   /* VGETCPU_* */
	uint64_t tsc_base;	   /* the TSC at the last update */
	uint64_t mult;		   /* ns = (tsc - tsc_base) * mult >> VVAR_SHIFT */
	uint64_t res_ns;	   /* clock_getres of the clocks answered here */
	uint8_t kind[VVAR_CLOCKS]; /* VKIND_* of each clock id */
	struct vvar_base base[VVAR_CLOCKS];
	int32_t tz_minuteswest, tz_dsttime; /* gettimeofday's struct timezone */
};

#endif
