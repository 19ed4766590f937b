/* The kernel's clock in the vDSO's data page (arch/x86_64/vclock.c). */
#ifndef ARCH_VCLOCK_H
#define ARCH_VCLOCK_H

#include <stdbool.h>
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
/* CLOCK_REALTIME - CLOCK_MONOTONIC, in ns (0 until proc_time_init). */
int64_t vclock_realtime_offset(void);
/* CLOCK_TAI - CLOCK_REALTIME, in seconds (adjtimex's ADJ_TAI). */
int64_t vclock_tai_offset(void);
/* Sets the real time to realtime_ns (relative: moves it by that much),
 * for every reader at once, the vDSO's too: 0, or -EINVAL if it would
 * fall before the monotonic clock (Linux's rule). */
int vclock_set(int64_t realtime_ns, bool relative);
void vclock_set_tai(int64_t seconds);
/* adjtimex changed the clock's rate (ntp_second_length): it runs at the
 * new one from now on, without a jump. */
void vclock_rate_changed(void);
/* CLOCK_MONOTONIC_RAW, in ns: the TSC at its calibrated rate, which no
 * adjtimex disciplines. */
uint64_t clock_monotonic_raw_ns(void);
/* gettimeofday's struct timezone (settimeofday). */
void vclock_set_timezone(int32_t minuteswest, int32_t dsttime);
void vclock_timezone(int32_t *minuteswest, int32_t *dsttime);
/* The data page's frame (mm/vdso.c maps it), 0 before vclock_init. */
uint64_t vvar_frame(void);

#endif
