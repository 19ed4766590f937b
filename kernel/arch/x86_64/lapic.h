/*
 * The local APIC (xAPIC, MMIO through the direct map): interrupt
 * acknowledgement and the per-CPU periodic timer.  Each CPU programs its
 * own; the registers are private to the CPU that reads them, so no lock.
 */
#ifndef ARCH_LAPIC_H
#define ARCH_LAPIC_H

#include <stdbool.h>
#include <stdint.h>

/* Finds the local APICs (boot CPU, once) and enables this CPU's. */
void lapic_init(void);
/* Enables this CPU's local APIC (spurious vector, accept all priorities). */
void lapic_init_cpu(void);
/* True once lapic_init ran: interrupts are acknowledged at the LAPIC. */
bool lapic_enabled(void);
uint32_t lapic_id(void);
void lapic_eoi(void);
/* Counts the timer's ticks (divide by 16) per ms over a TSC interval. */
uint32_t lapic_timer_calibrate(uint64_t tsc_per_ms);
/* Starts the periodic timer on VEC_LAPIC_TIMER, one interrupt per count
 * ticks. */
void lapic_timer_start(uint32_t count);
/* An interrupt on vector at the CPU whose LAPIC id is apic_id. */
void lapic_send_fixed(uint32_t apic_id, uint8_t vector);
/* Start-up IPIs: INIT, then STARTUP at start_pa (page aligned, < 1 MiB). */
void lapic_send_init(uint32_t apic_id);
void lapic_send_startup(uint32_t apic_id, uint64_t start_pa);

#endif
