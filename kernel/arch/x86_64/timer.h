/* The periodic timer and the TSC clock. */
#ifndef ARCH_TIMER_H
#define ARCH_TIMER_H

#include <stdint.h>

struct trapframe;

#define TIMER_HZ 100
/* One tick in ns: the resolution of CPU time and of the coarse clocks. */
#define TICK_NS (1000000000UL / TIMER_HZ)

void timer_init(void);
/* Nanoseconds since boot, from the TSC calibrated against the PIT
 * (arch/x86_64/vclock.c). */
uint64_t clock_monotonic_ns(void);
/* The system's tick count: CPU 0's (cpu->ticks counts each CPU's own). */
uint64_t timer_ticks(void);
/* The TSC frequency calibrated at boot, in kHz (/proc/cpuinfo's MHz). */
uint64_t timer_tsc_khz(void);
/* Starts this CPU's LAPIC timer with CPU 0's calibration (an AP). */
void timer_start_cpu(void);
/* The tick: the PIT's IRQ 0 or the local APIC timer's vector (traps.c). */
void timer_interrupt(struct trapframe *tf);

#endif
