/* The kernel's clock in the vDSO's data page (arch/x86_64/vclock.c). */
#ifndef ARCH_VCLOCK_H
#define ARCH_VCLOCK_H

#include <stdint.h>
#include "arch/x86_64/vvar.h"

/* Linux's clock ids that have a base in the page. */
#define VCLOCK_REALTIME		0
#define VCLOCK_MONOTONIC	1
#define VCLOCK_REALTIME_COARSE	5
#define VCLOCK_MONOTONIC_COARSE 6
#define VCLOCK_BOOTTIME		7
#define VCLOCK_TAI		11
_Static_assert(VCLOCK_TAI < VVAR_CLOCKS, "every clock has its base");

/* Starts the clock at 0 with the TSC's calibration (timer_init). */
void vclock_init(uint64_t tsc_per_ms);
/* This CPU's number where user space reads it (IA32_TSC_AUX). */
void vclock_cpu_init(int cpu);
/* CPU 0's tick: the bases move up to now. */
void vclock_tick(void);
/* A coarse clock (VCLOCK_*_COARSE): its time at the last tick, in ns. */
int64_t vclock_coarse_ns(int clk);
/* The data page's frame (mm/vdso.c maps it), 0 before vclock_init. */
uint64_t vvar_frame(void);

#endif
