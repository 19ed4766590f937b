/* Starting the other CPUs (application processors). */
#ifndef ARCH_SMP_H
#define ARCH_SMP_H

#include <stdbool.h>
#include <stdint.h>

/* CPUs running, the boot CPU included; written by smp_boot only. */
extern int smp_cpus_online;
/* Bit n: CPU n is online (set by the CPU itself before it says so). */
extern uint32_t smp_online_mask;
/* Tasks run on every CPU (after smp_sched_start); with smp=off on CPU 0. */
extern bool smp_sched_on;

/* The CPUs that take tasks, bit n for CPU n. */
static inline uint64_t smp_task_cpus(void)
{
	return smp_sched_on ? smp_online_mask : 1;
}

/* Starts every CPU the MADT lists; each parks in an idle loop (hlt with
 * interrupts on) and takes no tasks.  After timer_init, interrupts on. */
void smp_boot(void);
/* Unless smp=off, lets the parked CPUs take tasks (kmain, after self-tests). */
void smp_sched_start(void);
/*
 * Runs fn(arg) on every online CPU of the mask cpus (bit n: CPU n) but
 * this one, in their interrupt context, and returns when each has: one
 * IPI round.  Each called CPU has its own queue (struct cpu.call_queue),
 * so callers to different CPUs, or to the same ones, do not wait for each
 * other's turn.  Any CPU may call, with or without spinlocks held, except
 * from inside fn: a CPU that waits with interrupts off serves its own
 * queue meanwhile (smp_call_poll in smp_call_many, spin_lock and the
 * other waiting loops), so no two CPUs wait for each other.  fn must not
 * sleep or take a lock its caller might hold.
 */
void smp_call_many(uint32_t cpus, void (*fn)(void *arg), void *arg);
/* smp_call_many on one CPU (0 ..< smp_cpus_online; this one: no call). */
void smp_call(int cpu, void (*fn)(void *arg), void *arg);
/* CPU id's struct cpu (0 ..< smp_cpus_online are online). */
struct cpu *cpu_get(int id);
/* Sends CPU cpu a VEC_IPI_RESCHED: an idle CPU looks at the run queue. */
void smp_resched(int cpu);
/* Sends CPU cpu a VEC_IPI_KICK: its way back to user mode runs (signals). */
void smp_kick(int cpu);
/* Runs work once on AP cpu, parked (before smp_sched_start: the
 * self-tests), without waiting for it. */
void smp_park_run(int cpu, void (*work)(void));
void smp_selftest(void);
void smp_call_selftest(void);

#endif
