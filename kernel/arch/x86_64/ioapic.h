/*
 * The I/O APIC: routes the ISA interrupt lines (through the MADT's
 * overrides) to vectors VEC_IRQ_BASE + irq on the boot CPU.
 */
#ifndef ARCH_IOAPIC_H
#define ARCH_IOAPIC_H

#include <stdbool.h>
#include <stdint.h>

/* Masks every input; false if the MADT named no I/O APIC. */
bool ioapic_init(void);
/* Routes ISA IRQ irq to VEC_IRQ_BASE + irq on the boot CPU, unmasked. */
void ioapic_route_isa(int irq);
/* Routes GSI gsi (level-triggered or edge, active high: a PCI INTx line
 * as the chipset presents it, inverted, to the I/O APIC) to vector at the
 * CPU whose LAPIC id is apic_id, unmasked; false if no input of the I/O
 * APIC is that GSI. */
bool ioapic_route_gsi(uint32_t gsi, int vector, bool level, uint32_t apic_id);

#endif
