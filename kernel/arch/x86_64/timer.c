/*
 * The periodic tick (TIMER_HZ, kept low: each tick is an emulated device
 * access under QEMU) from the local APIC timer, or PIT channel 0 on a
 * machine without an I/O APIC; the TSC as the clock, calibrated against
 * the PIT once at boot so reading time never touches a port (the clock
 * itself: arch/x86_64/vclock.c).  The LAPIC timer is calibrated against
 * the TSC.
 */
#include "arch/x86_64/timer.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/lapic.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/smp.h"
#include "arch/x86_64/traps.h"
#include "arch/x86_64/vclock.h"
#include "lib/printk.h"
#include "lib/profile.h"
#include "sched/ktimer.h"
#include "sched/sched.h"

#define PIT_HZ	     1193182
#define PIT_CH0	     0x40
#define PIT_CH2	     0x42
#define PIT_CMD	     0x43
#define PIT_GATE     0x61
#define CALIBRATE_MS 20

static uint64_t tsc_per_ms;
static uint32_t lapic_per_tick; /* LAPIC timer count per tick, for every CPU */

void timer_interrupt(struct trapframe *tf)
{
	struct cpu *c = this_cpu();

	c->ticks++;
	if (c->id) { /* time, kernel timers and profiling are CPU 0's */
		if (smp_sched_on)
			sched_tick(tf);
		return;
	}
	vclock_tick();
	profile_sample(tf, task_sched(current())->name);
	ktimer_run_expired();
	sched_tick(tf);
}

/* Counts TSC ticks across CALIBRATE_MS measured by PIT channel 2. */
static void calibrate_tsc(void)
{
	uint16_t count = PIT_HZ * CALIBRATE_MS / 1000;
	uint8_t gate = inb(PIT_GATE);

	outb(PIT_GATE, (gate & ~0x02) | 0x01); /* speaker off, gate on */
	outb(PIT_CMD, 0xb0);		       /* ch2, lo/hi, mode 0 */
	outb(PIT_CH2, count & 0xff);
	outb(PIT_CH2, count >> 8);
	uint64_t start = rdtsc();
	while (!(inb(PIT_GATE) & 0x20))
		cpu_relax();
	tsc_per_ms = (rdtsc() - start) / CALIBRATE_MS;
	outb(PIT_GATE, gate);
	if (!tsc_per_ms)
		panic("TSC calibration failed");
}

/* PIT channel 0 as a rate generator on IRQ 0: the tick without a LAPIC. */
static void pit_tick_start(void)
{
	uint16_t divisor = PIT_HZ / TIMER_HZ;

	outb(PIT_CMD, 0x34); /* ch0, lo/hi, rate generator */
	outb(PIT_CH0, divisor & 0xff);
	outb(PIT_CH0, divisor >> 8);
	irq_register(0, "timer", timer_interrupt);
}

void timer_init(void)
{
	calibrate_tsc();
	vclock_init(tsc_per_ms);
	if (lapic_enabled()) {
		lapic_per_tick = lapic_timer_calibrate(tsc_per_ms) * 1000 / TIMER_HZ;
		lapic_timer_start(lapic_per_tick);
	} else {
		pit_tick_start();
	}
	printk_info("timer: %d Hz tick from the %s, TSC %lu.%03lu MHz\n", TIMER_HZ,
		    lapic_enabled() ? "local APIC" : "PIT", tsc_per_ms / 1000, tsc_per_ms % 1000);
}

void timer_start_cpu(void)
{
	vclock_cpu_init(this_cpu()->id);
	lapic_timer_start(lapic_per_tick);
}

uint64_t timer_tsc_khz(void)
{
	return tsc_per_ms;
}

uint64_t timer_ticks(void)
{
	return __atomic_load_n(&cpu0.ticks, __ATOMIC_RELAXED); /* the system's: CPU 0's */
}
