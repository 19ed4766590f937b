/* Exception and interrupt dispatch. */
#ifndef ARCH_TRAPS_H
#define ARCH_TRAPS_H

#include "arch/x86_64/trapframe.h"

typedef void (*irq_handler_t)(struct trapframe *tf);

/* Installs the handler for legacy IRQ line `irq` and unmasks it; name is
 * its device's, as /proc/interrupts shows it. */
void irq_register(int irq, const char *name, irq_handler_t handler);
/* The device name of IRQ line irq, or NULL if it has no handler. */
const char *irq_name(int irq);

/*
 * Installs the handler of the software interrupt VEC_SELFTEST (NULL: none),
 * so self-tests can run code on a real interrupt entry.  The gates have
 * DPL 0: only the kernel can raise it, a user `int` is a #GP.
 */
void trap_register_selftest(irq_handler_t handler);

void trap_dispatch(struct trapframe *tf);

/* NMIs received so far (none of the kernel's own making: QEMU's `nmi`
 * monitor command, a watchdog), counted and otherwise ignored. */
unsigned long trap_nmi_count(void);

/* Prints every register of a frame (used by panic reports). */
void trapframe_dump(const struct trapframe *tf);

#endif
