/*
 * PCI interrupts: MSI-X (a table of message address/data pairs in one of
 * the device's BARs, PCI 3.0 6.8.2), each entry a write to a local APIC
 * (address 0xfee00000 | apic_id << 12, data = vector: fixed delivery,
 * edge), or the legacy INTx line through the I/O APIC.  Both are set up
 * by a driver's probe at boot, on CPU 0.
 */
#include "arch/x86_64/ioapic.h"
#include "arch/x86_64/lapic.h"
#include "cmdline.h"
#include "drivers/pci/pci.h"
#include "lib/printk.h"
#include <uapi/errno.h>

#define MSIX_CONTROL	  2
#define MSIX_TABLE	  4
#define MSIX_ENABLE	  (1u << 15)
#define MSIX_FUNC_MASK	  (1u << 14)
#define MSIX_ENTRY_SIZE	  16
#define MSIX_ENTRY_MASKED 1u
#define MSI_ADDRESS_BASE  0xfee00000u

/* Entry i of the table: address, upper address, data, vector control. */
static void msix_entry_set(volatile uint32_t *e, uint32_t apic_id, int vector)
{
	e[0] = MSI_ADDRESS_BASE | apic_id << 12;
	e[1] = 0;
	e[2] = (uint32_t)vector;
	e[3] = 0; /* unmasked */
}

int pci_enable_msix(struct pci_dev *d, int n, const struct pci_irq *irqs)
{
	uint8_t cap = pci_find_cap(d, PCI_CAP_ID_MSIX, 0);
	uint16_t ctl;
	uint32_t table;
	volatile uint8_t *bar;

	if (!cap || kopts.pci_nomsi || !lapic_enabled())
		return -ENODEV;
	ctl = pci_read16(d, cap + MSIX_CONTROL);
	table = pci_read32(d, cap + MSIX_TABLE);
	if (n > (ctl & 0x7ff) + 1 || !(bar = pci_map_bar(d, table & 7)) ||
	    (table & ~7u) + (uint64_t)n * MSIX_ENTRY_SIZE > d->bar[table & 7].size)
		return -ENODEV;
	/* Enabled with the function masked: no message goes out while the
	 * entries are half written. */
	pci_write16(d, cap + MSIX_CONTROL, ctl | MSIX_ENABLE | MSIX_FUNC_MASK);
	for (int i = 0; i < n; i++) {
		int vec = irqvec_alloc("PCI-MSIX", irqs[i].name, irqs[i].fn, irqs[i].data);
		if (vec < 0) {
			pci_write16(d, cap + MSIX_CONTROL, ctl & ~MSIX_ENABLE);
			return vec; /* the vectors taken stay unused: never raised */
		}
		msix_entry_set((volatile uint32_t *)(bar + (table & ~7u) + i * MSIX_ENTRY_SIZE),
			       irqvec_target_apic(i), vec);
	}
	pci_write16(d, PCI_COMMAND, pci_read16(d, PCI_COMMAND) | PCI_CMD_INTX_OFF);
	pci_write16(d, cap + MSIX_CONTROL, (ctl | MSIX_ENABLE) & ~MSIX_FUNC_MASK);
	d->msix_count = n;
	return 0;
}

int pci_enable_intx(struct pci_dev *d, const struct pci_irq *irq)
{
	int vec;

	if (!d->gsi || !lapic_enabled())
		return -ENODEV;
	vec = irqvec_alloc("IO-APIC", irq->name, irq->fn, irq->data);
	if (vec < 0)
		return vec;
	if (!ioapic_route_gsi(d->gsi, vec, true, lapic_id()))
		return -ENODEV;
	pci_write16(d, PCI_COMMAND, pci_read16(d, PCI_COMMAND) & ~PCI_CMD_INTX_OFF);
	return 0;
}
