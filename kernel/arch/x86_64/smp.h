/* Starting the other CPUs (application processors). */
#ifndef ARCH_SMP_H
#define ARCH_SMP_H

/* CPUs running, the boot CPU included; written by smp_boot only. */
extern int smp_cpus_online;

/* Starts every CPU the MADT lists; each parks in an idle loop (hlt with
 * interrupts on) and takes no tasks.  After timer_init, interrupts on. */
void smp_boot(void);
void smp_selftest(void);

#endif
