/*
 * PCI: the devices found on the bus at boot (docs/drivers.md).  The bus is
 * scanned once, on the boot CPU, before any task runs; struct pci_dev
 * entries live for the kernel's life (no hot-plug), so drivers keep plain
 * pointers to them.  Configuration space goes through ECAM when ACPI's
 * MCFG names it, else through the legacy ports 0xcf8/0xcfc.
 */
#ifndef DRIVERS_PCI_H
#define DRIVERS_PCI_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86_64/irqvec.h"

#define PCI_MAX_DEVS 64 /* functions kept; more are logged and ignored */
#define PCI_NBARS    6

/* Configuration space offsets (PCI Local Bus 3.0, 6.1; PCIe 7.5). */
#define PCI_VENDOR_ID	   0x00
#define PCI_DEVICE_ID	   0x02
#define PCI_COMMAND	   0x04
#define PCI_STATUS	   0x06
#define PCI_REVISION	   0x08
#define PCI_CLASS_PROG	   0x09
#define PCI_HEADER_TYPE	   0x0e
#define PCI_BAR0	   0x10
#define PCI_SUBSYS_VENDOR  0x2c
#define PCI_SUBSYS_ID	   0x2e
#define PCI_ROM_ADDRESS	   0x30
#define PCI_CAP_PTR	   0x34
#define PCI_INTERRUPT_LINE 0x3c
#define PCI_INTERRUPT_PIN  0x3d
#define PCI_SECONDARY_BUS  0x19
#define PCI_BRIDGE_ROM	   0x38
#define PCI_CMD_IO	   (1u << 0)
#define PCI_CMD_MEMORY	   (1u << 1)
#define PCI_CMD_MASTER	   (1u << 2)
#define PCI_CMD_INTX_OFF   (1u << 10)
#define PCI_STATUS_CAPS	   (1u << 4)
#define PCI_CAP_ID_MSIX	   0x11
#define PCI_CAP_ID_VENDOR  0x09

/* A BAR as decoded at boot (Linux's resource flags, for sysfs). */
#define PCI_RES_IO	  0x00000100u
#define PCI_RES_MEM	  0x00000200u
#define PCI_RES_PREFETCH  0x00002000u
#define PCI_RES_READONLY  0x00004000u
#define PCI_RES_SIZEALIGN 0x00040000u
#define PCI_RES_MEM64	  0x00100000u
struct pci_bar {
	uint64_t base, size; /* size 0: no BAR here */
	uint32_t flags;	     /* PCI_RES_*, and the BAR's low type bits */
	volatile void *mmio; /* the uncached mapping, once pci_map_bar made it */
};

/*
 * One function.  Every field is set by the scan and constant after,
 * except mmio mappings, irq and driver, which its driver sets during its
 * probe, on the boot CPU, before /sys is made.
 */
struct pci_dev {
	uint8_t bus, slot, fn;
	uint16_t vendor, device, subsys_vendor, subsys_device;
	uint8_t revision, header_type, irq_pin;
	uint32_t class;			   /* class << 16 | subclass << 8 | prog-if */
	struct pci_bar bar[PCI_NBARS + 1]; /* the six BARs, then the ROM */
	volatile uint8_t *ecam;		   /* its 4 KiB of ECAM, or NULL: ports */
	struct pci_dev *parent;		   /* the bridge it sits behind, or NULL */
	/* The legacy interrupt line's GSI (pin and routing), or 0: none. */
	uint32_t gsi;
	const char *driver; /* the bound driver's name, or NULL */
	int msix_count;	    /* MSI-X vectors enabled by the driver (0: none) */
};

/* A driver: probe is called for each function whose vendor and device
 * match (device 0xffff: any of the vendor's within [dev_min, dev_max]). */
struct pci_driver {
	const char *name;
	uint16_t vendor, dev_min, dev_max;
	int (*probe)(struct pci_dev *d);
};

/* The drivers in link order (the pci_drivers section, linker.ld). */
#define PCI_DRIVER(var)                                                                            \
	static const struct pci_driver *const var##_ptr                                            \
	    __attribute__((used, section("pci_drivers"))) = &var

/* Scans the bus, logs one line per function and probes the drivers.
 * Boot CPU, after smp_boot (MSI-X vectors may target any CPU) and
 * vfs_init (drivers make device nodes). */
void pci_init(void);
int pci_count(void);
struct pci_dev *pci_get(int i);

uint8_t pci_read8(const struct pci_dev *d, uint16_t off);
uint16_t pci_read16(const struct pci_dev *d, uint16_t off);
uint32_t pci_read32(const struct pci_dev *d, uint16_t off);
void pci_write16(const struct pci_dev *d, uint16_t off, uint16_t v);
void pci_write32(const struct pci_dev *d, uint16_t off, uint32_t v);
/* For the scan: the ECAM window of bus:slot.fn (mapped at the bus's
 * first use), or NULL when configuration space goes through the ports. */
volatile uint8_t *pci_ecam_window(uint8_t bus, uint8_t slot, uint8_t fn);
/* Bytes of configuration space: 4096 through ECAM (PCIe), else 256. */
int pci_config_size(const struct pci_dev *d);

/* The offset of the first (after: next) capability with id, or 0. */
uint8_t pci_find_cap(const struct pci_dev *d, uint8_t id, uint8_t after);
/* Maps BAR n uncached (boot only) and enables memory decoding and bus
 * mastering; NULL if it is no memory BAR. */
volatile void *pci_map_bar(struct pci_dev *d, int n);

/* One interrupt of a device: fn(data) runs on a CPU, interrupts off. */
struct pci_irq {
	const char *name; /* in /proc/interrupts; constant string */
	dev_irq_fn fn;
	void *data;
};
/*
 * Gives the device n MSI-X vectors, entry i calling irqs[i] on the online
 * CPUs in turn.  0, or -ENODEV without MSI-X (or with pci=nomsi on the
 * command line), -ENOSPC without vectors: use pci_enable_intx then.
 */
int pci_enable_msix(struct pci_dev *d, int n, const struct pci_irq *irqs);
/* The legacy line through the I/O APIC to the boot CPU (level-triggered,
 * shared: irq's handler must check that its device raised it).  0,
 * -ENODEV (no line), -ENOSPC (too many lines or sharers). */
int pci_enable_intx(struct pci_dev *d, const struct pci_irq *irq);

/* "0000:00:01.0" into buf (at least 13 bytes). */
void pci_name(const struct pci_dev *d, char *buf);

/* Makes /sys/bus/pci and /sys/devices/pci0000:00 (pci_sysfs.c). */
void pci_sysfs_init(void);

#endif
