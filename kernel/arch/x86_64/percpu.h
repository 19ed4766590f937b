/*
 * Per-CPU data.  Everything that belongs to one CPU sits in struct cpu and
 * is reached only through this_cpu(), so moving to SMP (one struct per CPU,
 * found through GS) changes this file alone.
 */
#ifndef ARCH_PERCPU_H
#define ARCH_PERCPU_H

#include <stdbool.h>
#include <stdint.h>

struct cpu {
	int id;
	int irq_off_depth;    /* nesting of irq_push_off() */
	bool irq_were_on;     /* IF before the outermost irq_push_off() */
	uint64_t ticks;       /* timer interrupts taken on this CPU */
};

extern struct cpu cpu0;

static inline struct cpu *this_cpu(void)
{
	return &cpu0;
}

#endif
