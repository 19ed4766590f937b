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
#include "lib/spinlock.h"
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

/*
 * INTx lines are shared (four pins, many devices): a line's vector calls
 * every handler on it in turn, and each asks its own device whether it
 * raised the line (virtio: the ISR byte).  Entries are added at boot by
 * probes on CPU 0 under intx_lock, each complete before its device may
 * raise the line, and never removed: the handler walks them without the
 * lock, up to the count it reads with acquire.
 */
#define INTX_MAX_LINES 8
#define INTX_MAX_SHARE 8
struct intx_line {
	uint32_t gsi;
	int nhandlers;
	struct pci_irq handlers[INTX_MAX_SHARE];
};
static struct spinlock intx_lock = SPINLOCK_INIT("pci_intx"); /* protects intx_lines */
static struct intx_line intx_lines[INTX_MAX_LINES];
static int nlines;

static void intx_dispatch(void *data)
{
	struct intx_line *l = data;
	int n = __atomic_load_n(&l->nhandlers, __ATOMIC_ACQUIRE);

	for (int i = 0; i < n; i++)
		l->handlers[i].fn(l->handlers[i].data);
}

/* The line of gsi, routed to a vector of its own at its first user; NULL
 * when none is left.  Under intx_lock. */
static struct intx_line *intx_line_get(uint32_t gsi, const char *name)
{
	struct intx_line *l;
	int vec;

	for (int i = 0; i < nlines; i++)
		if (intx_lines[i].gsi == gsi)
			return &intx_lines[i];
	if (nlines == INTX_MAX_LINES)
		return NULL;
	l = &intx_lines[nlines];
	l->gsi = gsi;
	if ((vec = irqvec_alloc("IO-APIC", name, intx_dispatch, l)) < 0 ||
	    !ioapic_route_gsi(gsi, vec, true, lapic_id()))
		return NULL;
	nlines++;
	return l;
}

int pci_enable_intx(struct pci_dev *d, const struct pci_irq *irq)
{
	struct intx_line *l;
	int err = -ENOSPC;

	if (!d->gsi || !lapic_enabled())
		return -ENODEV;
	spin_lock(&intx_lock);
	if ((l = intx_line_get(d->gsi, irq->name)) && l->nhandlers < INTX_MAX_SHARE) {
		l->handlers[l->nhandlers] = *irq;
		__atomic_store_n(&l->nhandlers, l->nhandlers + 1, __ATOMIC_RELEASE);
		err = 0;
	}
	spin_unlock(&intx_lock);
	if (!err)
		pci_write16(d, PCI_COMMAND, pci_read16(d, PCI_COMMAND) & ~PCI_CMD_INTX_OFF);
	return err;
}
