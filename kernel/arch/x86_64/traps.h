/* Exception and interrupt dispatch. */
#ifndef ARCH_TRAPS_H
#define ARCH_TRAPS_H

#include "arch/x86_64/trapframe.h"

typedef void (*irq_handler_t)(struct trapframe *tf);

/* Installs the handler for legacy IRQ line `irq` and unmasks it. */
void irq_register(int irq, irq_handler_t handler);

/*
 * Installs the handler of the software interrupt VEC_SELFTEST (NULL: none),
 * so self-tests can run code on a real interrupt entry.  The gates have
 * DPL 0: only the kernel can raise it, a user `int` is a #GP.
 */
void trap_register_selftest(irq_handler_t handler);

void trap_dispatch(struct trapframe *tf);

/* Prints every register of a frame (used by panic reports). */
void trapframe_dump(const struct trapframe *tf);

#endif
