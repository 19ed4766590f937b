/*
 * I/O APIC: an index register and a data window; redirection entry n is
 * the register pair 0x10 + 2n.  Written only at boot, by irq_register
 * and ioapic_route_gsi (boot time too), by the boot CPU: no lock.
 */
#include "arch/x86_64/ioapic.h"
#include "arch/x86_64/acpi.h"
#include "arch/x86_64/idt.h"
#include "arch/x86_64/lapic.h"
#include "lib/printk.h"
#include "arch/x86_64/mmio.h"

#define IOREGSEL     0x00
#define IOWIN	     0x10
#define IOAPIC_VER   0x01
#define IOAPIC_REDIR 0x10

#define REDIR_ACTIVE_LOW (1u << 13)
#define REDIR_LEVEL	 (1u << 15)
#define REDIR_MASKED	 (1u << 16)

static volatile uint32_t *ioapic;
static uint32_t ninputs;

static uint32_t ioapic_read(uint32_t reg)
{
	ioapic[IOREGSEL / 4] = reg;
	return ioapic[IOWIN / 4];
}

static void ioapic_write(uint32_t reg, uint32_t v)
{
	ioapic[IOREGSEL / 4] = reg;
	ioapic[IOWIN / 4] = v;
}

bool ioapic_init(void)
{
	if (!acpi_info.ioapic_pa)
		return false;
	ioapic = mmio_map(acpi_info.ioapic_pa);
	ninputs = (ioapic_read(IOAPIC_VER) >> 16 & 0xff) + 1;
	for (uint32_t i = 0; i < ninputs; i++) {
		ioapic_write(IOAPIC_REDIR + 2 * i, REDIR_MASKED);
		ioapic_write(IOAPIC_REDIR + 2 * i + 1, 0);
	}
	return true;
}

void ioapic_route_isa(int irq)
{
	uint32_t pin = acpi_info.isa_gsi[irq] - acpi_info.ioapic_gsi_base;
	uint16_t flags = acpi_info.isa_flags[irq];
	uint32_t lo = (uint32_t)(VEC_IRQ_BASE + irq); /* fixed delivery, physical */

	if (pin >= ninputs) {
		printk("ioapic: IRQ %d on GSI %u is not ours\n", irq, acpi_info.isa_gsi[irq]);
		return;
	}
	if ((flags & ACPI_IRQ_POLARITY_LOW) == ACPI_IRQ_POLARITY_LOW)
		lo |= REDIR_ACTIVE_LOW;
	if ((flags & ACPI_IRQ_TRIGGER_LEVEL) == ACPI_IRQ_TRIGGER_LEVEL)
		lo |= REDIR_LEVEL;
	ioapic_write(IOAPIC_REDIR + 2 * pin + 1, lapic_id() << 24);
	ioapic_write(IOAPIC_REDIR + 2 * pin, lo);
}

bool ioapic_route_gsi(uint32_t gsi, int vector, bool level, uint32_t apic_id)
{
	uint32_t pin = gsi - acpi_info.ioapic_gsi_base;
	uint32_t lo = (uint32_t)vector; /* fixed delivery, physical destination */

	if (!ioapic || gsi < acpi_info.ioapic_gsi_base || pin >= ninputs)
		return false;
	if (level)
		lo |= REDIR_LEVEL;
	ioapic_write(IOAPIC_REDIR + 2 * pin + 1, apic_id << 24);
	ioapic_write(IOAPIC_REDIR + 2 * pin, lo);
	return true;
}
