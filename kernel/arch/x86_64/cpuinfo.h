/*
 * /proc/cpuinfo (cpuinfo.c): each CPU's CPUID, recorded as it comes up.
 */
#ifndef ARCH_CPUINFO_H
#define ARCH_CPUINFO_H

/* Records what CPUID says on this CPU, number cpu: run by the CPU itself,
 * once its CR0 and CR4 are final and before it is online. */
void cpuinfo_identify(int cpu);

struct file_ops;
extern const struct file_ops cpuinfo_ops;

#endif
