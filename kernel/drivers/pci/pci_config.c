/*
 * PCI configuration space access.  ECAM (PCIe's memory-mapped space, one
 * 4 KiB window per function at base + (bus << 20 | slot << 15 | fn << 12))
 * when ACPI's MCFG gives its base; otherwise the legacy mechanism #1: an
 * address written to port 0xcf8, the data at 0xcfc, a pair of accesses
 * that pci_port_lock keeps together.  ECAM accesses are single loads and
 * stores of the access's width: no lock.
 */
#include "arch/x86_64/acpi.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/mmio.h"
#include "drivers/pci/pci.h"
#include "lib/spinlock.h"

#define PCI_ADDR_PORT 0xcf8
#define PCI_DATA_PORT 0xcfc
#define ECAM_BUS_SIZE (1UL << 20)

/* Protects the 0xcf8 address latch from another access's (all CPUs). */
static struct spinlock pci_port_lock = SPINLOCK_INIT("pci_port");
/* Each bus's ECAM mapping, made at its first scan (boot CPU only). */
static volatile uint8_t *ecam_bus[256];

volatile uint8_t *pci_ecam_window(uint8_t bus, uint8_t slot, uint8_t fn)
{
	if (!acpi_info.ecam_pa || bus < acpi_info.ecam_bus_start || bus > acpi_info.ecam_bus_end)
		return NULL;
	if (!ecam_bus[bus])
		ecam_bus[bus] = mmio_map_range(
		    acpi_info.ecam_pa + ((uint64_t)(bus - acpi_info.ecam_bus_start) << 20),
		    ECAM_BUS_SIZE);
	return ecam_bus[bus] + ((uint32_t)slot << 15 | (uint32_t)fn << 12);
}

static uint32_t port_address(const struct pci_dev *d, uint16_t off)
{
	return 1u << 31 | (uint32_t)d->bus << 16 | (uint32_t)d->slot << 11 | (uint32_t)d->fn << 8 |
	       (off & 0xfc);
}

/* The aligned dword holding off through the ports. */
static uint32_t port_read(const struct pci_dev *d, uint16_t off)
{
	uint32_t v;

	spin_lock(&pci_port_lock);
	outl(PCI_ADDR_PORT, port_address(d, off));
	v = inl(PCI_DATA_PORT);
	spin_unlock(&pci_port_lock);
	return v;
}

uint32_t pci_read32(const struct pci_dev *d, uint16_t off)
{
	if (d->ecam)
		return *(volatile uint32_t *)(d->ecam + off);
	return off < 256 ? port_read(d, off) : 0xffffffff;
}

uint16_t pci_read16(const struct pci_dev *d, uint16_t off)
{
	if (d->ecam)
		return *(volatile uint16_t *)(d->ecam + off);
	return (uint16_t)(pci_read32(d, off & ~3) >> ((off & 2) * 8));
}

uint8_t pci_read8(const struct pci_dev *d, uint16_t off)
{
	if (d->ecam)
		return d->ecam[off];
	return (uint8_t)(pci_read32(d, off & ~3) >> ((off & 3) * 8));
}

void pci_write32(const struct pci_dev *d, uint16_t off, uint32_t v)
{
	if (d->ecam) {
		*(volatile uint32_t *)(d->ecam + off) = v;
		return;
	}
	if (off >= 256)
		return;
	spin_lock(&pci_port_lock);
	outl(PCI_ADDR_PORT, port_address(d, off));
	outl(PCI_DATA_PORT, v);
	spin_unlock(&pci_port_lock);
}

/* The ports move dwords: a word write is a read-modify-write of its
 * dword.  The command register's neighbour is the status register, whose
 * error bits clear when written as 1: the read-back status is written as
 * 0 instead, which changes nothing. */
void pci_write16(const struct pci_dev *d, uint16_t off, uint16_t v)
{
	uint32_t dw, shift = (off & 2) * 8;

	if (d->ecam) {
		*(volatile uint16_t *)(d->ecam + off) = v;
		return;
	}
	dw = pci_read32(d, off & ~3);
	if ((off & ~3) == PCI_COMMAND)
		dw &= 0xffff;
	dw = (dw & ~(0xffffu << shift)) | (uint32_t)v << shift;
	pci_write32(d, off & ~3, dw);
}

int pci_config_size(const struct pci_dev *d)
{
	return d->ecam ? 4096 : 256;
}

uint8_t pci_find_cap(const struct pci_dev *d, uint8_t id, uint8_t after)
{
	uint8_t at;

	if (!(pci_read16(d, PCI_STATUS) & PCI_STATUS_CAPS))
		return 0;
	at = after ? pci_read8(d, after + 1) : pci_read8(d, PCI_CAP_PTR);
	/* 48 capabilities at most fit in 256 bytes: a loop in a broken list
	 * ends there. */
	for (int n = 0; n < 48 && at >= 0x40; n++) {
		at &= ~3;
		if (pci_read8(d, at) == id)
			return at;
		at = pci_read8(d, at + 1);
	}
	return 0;
}
