/*
 * Device interrupt vectors: VEC_DEV_BASE .. + VEC_DEV_COUNT, handed out to
 * drivers for MSI-X messages and PCI INTx lines routed through the I/O
 * APIC.  Each vector calls one handler with its data on whichever CPU the
 * message or the redirection entry names.
 */
#ifndef ARCH_IRQVEC_H
#define ARCH_IRQVEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef void (*dev_irq_fn)(void *data);

/*
 * A free vector for fn(data), named name in /proc/interrupts ("PCI-MSIX"
 * or "IO-APIC" in chip); -ENOSPC when all are taken.  The handler runs
 * with interrupts off and must not sleep; it may wake tasks.  A vector is
 * never given back: devices are found once at boot and never go away, so
 * fn and data stay valid for the kernel's life (their owner's rule).
 */
int irqvec_alloc(const char *chip, const char *name, dev_irq_fn fn, void *data);
/* The LAPIC id of the CPU a vector numbered n of a device should go to:
 * the online CPUs in turn, so queues spread over them. */
uint32_t irqvec_target_apic(int n);
/* trap_dispatch's part: runs the vector's handler, then the EOI (after,
 * so a level-triggered line is acknowledged by its device first). */
void irqvec_dispatch(int vec);
/* Appends /proc/interrupts' rows of the device vectors in use. */
void irqvec_format(char *buf, size_t size, size_t *len);

#endif
