/* Starting the other CPUs (application processors). */
#ifndef ARCH_SMP_H
#define ARCH_SMP_H

/* CPUs running, the boot CPU included; written by smp_boot only. */
extern int smp_cpus_online;

/* Starts every CPU the MADT lists; each parks in an idle loop (hlt with
 * interrupts on) and takes no tasks.  After timer_init, interrupts on. */
void smp_boot(void);
/* Runs fn(arg) on CPU `cpu` (0 ..< smp_cpus_online, not this one) in its
 * interrupt context and returns when fn has.  Cross-CPU calls are one at a
 * time; the caller spins with interrupts off, so a CPU must not call while
 * another could be calling it: today only CPU 0 calls (docs/smp.md). */
void smp_call(int cpu, void (*fn)(void *arg), void *arg);
/* VEC_IPI_CALL: runs this CPU's pending call (traps.c). */
void smp_call_handle(void);
void smp_selftest(void);
void smp_call_selftest(void);

#endif
