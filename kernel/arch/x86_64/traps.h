/* Exception and interrupt dispatch. */
#ifndef ARCH_TRAPS_H
#define ARCH_TRAPS_H

#include "arch/x86_64/trapframe.h"

typedef void (*irq_handler_t)(struct trapframe *tf);

/* Installs the handler for legacy IRQ line `irq` and unmasks it. */
void irq_register(int irq, irq_handler_t handler);

void trap_dispatch(struct trapframe *tf);

/* Prints every register of a frame (used by panic reports). */
void trapframe_dump(const struct trapframe *tf);

#endif
