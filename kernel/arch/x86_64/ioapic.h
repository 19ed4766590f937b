/*
 * The I/O APIC: routes the ISA interrupt lines (through the MADT's
 * overrides) to vectors VEC_IRQ_BASE + irq on the boot CPU.
 */
#ifndef ARCH_IOAPIC_H
#define ARCH_IOAPIC_H

#include <stdbool.h>

/* Masks every input; false if the MADT named no I/O APIC. */
bool ioapic_init(void);
/* Routes ISA IRQ irq to VEC_IRQ_BASE + irq on the boot CPU, unmasked. */
void ioapic_route_isa(int irq);

#endif
