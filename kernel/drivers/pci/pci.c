/*
 * PCI enumeration: a depth-first walk of the buses from bus 0 through the
 * bridges' secondary bus numbers (as the firmware assigned them), each
 * function's BARs decoded and sized, one lspci-style line logged per
 * function, then the drivers probed.  Runs once at boot on CPU 0; the
 * table is constant afterwards (pci.h's rule).
 */
#include "drivers/pci/pci.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/layout.h"
#include "arch/x86_64/mmio.h"
#include <uapi/errno.h>

#define HEADER_MULTIFUNCTION 0x80
#define HEADER_BRIDGE	     0x01
#define BAR_IO		     0x1u
#define BAR_MEM64	     0x4u
#define BAR_PREFETCH	     0x8u
#define MAX_BUS_DEPTH	     8

static struct pci_dev devs[PCI_MAX_DEVS];
static int ndevs;

int pci_count(void)
{
	return ndevs;
}

struct pci_dev *pci_get(int i)
{
	return &devs[i];
}

void pci_name(const struct pci_dev *d, char *buf)
{
	snprintk(buf, 13, "0000:%02x:%02x.%x", d->bus, d->slot, d->fn);
}

/* Writes all ones to the BAR register at off and reads back which bits
 * stick (the size mask), restoring the value; decoding is off meanwhile
 * so the device never answers at the probe address. */
static uint32_t bar_probe(struct pci_dev *d, uint16_t off, uint32_t ones)
{
	uint32_t old = pci_read32(d, off), mask;

	pci_write32(d, off, ones);
	mask = pci_read32(d, off);
	pci_write32(d, off, old);
	return mask;
}

/* BAR n at off: its base, size and flags; returns how many BAR registers
 * it used (2 for a 64-bit memory BAR). */
static int bar_decode(struct pci_dev *d, int n, uint16_t off)
{
	uint32_t lo = pci_read32(d, off), mask = bar_probe(d, off, 0xffffffff);
	struct pci_bar *b = &d->bar[n];

	if (lo & BAR_IO) {
		uint32_t size = ~(mask & ~3u) + 1;
		if ((mask & ~3u) && (size & 0xffff)) {
			*b = (struct pci_bar){lo & ~3u, size & 0xffff,
					      PCI_RES_IO | PCI_RES_SIZEALIGN | (lo & 3u), NULL};
		}
		return 1;
	}
	uint64_t base = lo & ~0xfu, smask = 0xffffffff00000000UL | (mask & ~0xfu);
	int used = 1;
	if ((lo & 6u) == BAR_MEM64 && n + 1 < PCI_NBARS) {
		base |= (uint64_t)pci_read32(d, off + 4) << 32;
		smask = (smask & 0xffffffffUL) | (uint64_t)bar_probe(d, off + 4, 0xffffffff) << 32;
		used = 2;
	}
	if (!(mask & ~0xfu) && used == 1)
		return used; /* no BAR here */
	b->base = base;
	b->size = ~smask + 1;
	b->flags = PCI_RES_MEM | PCI_RES_SIZEALIGN | (lo & 0xfu) |
		   (lo & BAR_PREFETCH ? PCI_RES_PREFETCH : 0) | (used == 2 ? PCI_RES_MEM64 : 0);
	return used;
}

/* The expansion ROM's window, sized as a 32-bit memory BAR (bit 0 is its
 * enable, left as it was). */
static void rom_decode(struct pci_dev *d, uint16_t off)
{
	uint32_t lo = pci_read32(d, off), mask = bar_probe(d, off, 0xfffff800);

	if (!(mask & 0xfffff800))
		return;
	d->bar[PCI_NBARS] = (struct pci_bar){
	    lo & 0xfffff800, ~(mask & 0xfffff800) + 1,
	    PCI_RES_MEM | PCI_RES_PREFETCH | PCI_RES_READONLY | PCI_RES_SIZEALIGN, NULL};
}

static void bars_decode(struct pci_dev *d)
{
	bool bridge = (d->header_type & 0x7f) == HEADER_BRIDGE;
	int nbars = bridge ? 2 : PCI_NBARS;
	uint16_t cmd = pci_read16(d, PCI_COMMAND);

	pci_write16(d, PCI_COMMAND, cmd & ~(PCI_CMD_IO | PCI_CMD_MEMORY));
	for (int n = 0; n < nbars;)
		n += bar_decode(d, n, PCI_BAR0 + 4 * n);
	rom_decode(d, bridge ? PCI_BRIDGE_ROM : PCI_ROM_ADDRESS);
	pci_write16(d, PCI_COMMAND, cmd);
}

/*
 * The GSI of the function's INTx line.  Without ACPI's AML (no _PRT to
 * read) this is the board's knowledge.  On QEMU's q35 (ICH9, host bridge
 * 8086:29c0) a device in slot s of bus 0 raising INT(A+p) drives PIRQ
 * E..H as (s + p) mod 4 (the chipset's default routing, the one its DSDT
 * describes), which the I/O APIC sees on GSI 16 + PIRQ; behind a bridge
 * the pin is swizzled by each bridge's slot (PCI-to-PCI Bridge 1.2, 9.1)
 * up to bus 0; slots 25..31 (the chipset's own functions) have routing
 * registers of their own: not routed (0).  Elsewhere (the i440FX `pc`
 * machine) the firmware's choice, the interrupt line register: an ISA
 * IRQ, identity-mapped to its GSI.
 */
static uint32_t intx_gsi(const struct pci_dev *d)
{
	int pin = d->irq_pin - 1;
	const struct pci_dev *at = d;
	uint8_t line;

	if (d->irq_pin < 1 || d->irq_pin > 4)
		return 0;
	if (devs[0].vendor != 0x8086 || devs[0].device != 0x29c0) {
		line = pci_read8(d, PCI_INTERRUPT_LINE);
		return line >= 1 && line < 16 ? line : 0;
	}
	for (; at->parent; at = at->parent)
		pin = (pin + at->slot) % 4;
	if (at->slot >= 25)
		return 0;
	return 16 + 4 + (at->slot + pin) % 4;
}

static void scan_bus(uint8_t bus, struct pci_dev *parent, int depth);

static void add_function(uint8_t bus, uint8_t slot, uint8_t fn, struct pci_dev *parent, int depth)
{
	struct pci_dev *d;

	if (ndevs == PCI_MAX_DEVS) {
		printk("pci: more than %d functions, %02x:%02x.%x ignored\n", PCI_MAX_DEVS, bus,
		       slot, fn);
		return;
	}
	d = &devs[ndevs++];
	d->bus = bus, d->slot = slot, d->fn = fn, d->parent = parent;
	d->ecam = pci_ecam_window(bus, slot, fn);
	d->vendor = pci_read16(d, PCI_VENDOR_ID);
	d->device = pci_read16(d, PCI_DEVICE_ID);
	d->revision = pci_read8(d, PCI_REVISION);
	d->class = pci_read32(d, PCI_REVISION) >> 8;
	d->header_type = pci_read8(d, PCI_HEADER_TYPE);
	if ((d->header_type & 0x7f) == 0) {
		d->subsys_vendor = pci_read16(d, PCI_SUBSYS_VENDOR);
		d->subsys_device = pci_read16(d, PCI_SUBSYS_ID);
	}
	d->irq_pin = pci_read8(d, PCI_INTERRUPT_PIN);
	d->gsi = intx_gsi(d);
	bars_decode(d);
	if ((d->header_type & 0x7f) == HEADER_BRIDGE && depth < MAX_BUS_DEPTH) {
		uint8_t sec = pci_read8(d, PCI_SECONDARY_BUS);
		if (sec > bus) /* 0 or backwards: unassigned or broken, not followed */
			scan_bus(sec, d, depth + 1);
	}
}

static bool function_present(uint8_t bus, uint8_t slot, uint8_t fn)
{
	struct pci_dev probe = {.bus = bus, .slot = slot, .fn = fn};

	probe.ecam = pci_ecam_window(bus, slot, fn);
	return pci_read16(&probe, PCI_VENDOR_ID) != 0xffff;
}

static void scan_bus(uint8_t bus, struct pci_dev *parent, int depth)
{
	for (uint8_t slot = 0; slot < 32; slot++) {
		struct pci_dev probe = {.bus = bus, .slot = slot};
		int nfn = 1;

		if (!function_present(bus, slot, 0))
			continue;
		probe.ecam = pci_ecam_window(bus, slot, 0);
		if (pci_read8(&probe, PCI_HEADER_TYPE) & HEADER_MULTIFUNCTION)
			nfn = 8;
		for (uint8_t fn = 0; fn < nfn; fn++)
			if (function_present(bus, slot, fn))
				add_function(bus, slot, fn, parent, depth);
	}
}

volatile void *pci_map_bar(struct pci_dev *d, int n)
{
	struct pci_bar *b = &d->bar[n];

	if (n >= PCI_NBARS || !(b->flags & PCI_RES_MEM) || !b->size)
		return NULL;
	if (!b->mmio)
		b->mmio = mmio_map_range(b->base, b->size);
	pci_write16(d, PCI_COMMAND, pci_read16(d, PCI_COMMAND) | PCI_CMD_MEMORY | PCI_CMD_MASTER);
	return b->mmio;
}

/* The boot log's line, as `lspci -nn` would put it in short. */
static void log_function(const struct pci_dev *d)
{
	char name[13], bars[160];
	size_t len = 0;

	pci_name(d, name);
	bars[0] = '\0';
	for (int i = 0; i <= PCI_NBARS; i++) {
		const struct pci_bar *b = &d->bar[i];
		if (b->size)
			appendk(bars, sizeof bars, &len, " %s%d %s %lx+%lx",
				i == PCI_NBARS ? "rom" : "bar", i == PCI_NBARS ? 0 : i,
				b->flags & PCI_RES_IO	   ? "io"
				: b->flags & PCI_RES_MEM64 ? "mem64"
							   : "mem",
				b->base, b->size);
	}
	printk("pci %s: [%04x:%04x] class %06x rev %02x%s%s\n", name, d->vendor, d->device,
	       d->class, d->revision, d->irq_pin ? " irq" : "", bars);
}

extern const struct pci_driver *const __pci_drivers_start[], *const __pci_drivers_end[];

static void probe_drivers(struct pci_dev *d)
{
	for (const struct pci_driver *const *p = __pci_drivers_start; p < __pci_drivers_end; p++) {
		const struct pci_driver *drv = *p;
		char name[13];
		int err;

		if (drv->vendor != d->vendor || d->device < drv->dev_min ||
		    d->device > drv->dev_max)
			continue;
		pci_name(d, name);
		if ((err = drv->probe(d)) == 0) {
			d->driver = drv->name;
			return;
		}
		if (err != -ENODEV)
			printk("pci %s: %s: probe failed (%d)\n", name, drv->name, err);
	}
}

void pci_init(void)
{
	scan_bus(0, NULL, 0);
	printk("pci: %d functions, configuration space through %s\n", ndevs,
	       devs[0].ecam ? "ECAM" : "ports 0xcf8/0xcfc");
	for (int i = 0; i < ndevs; i++)
		log_function(&devs[i]);
	for (int i = 0; i < ndevs; i++)
		probe_drivers(&devs[i]);
	pci_sysfs_init();
}
