/*
 * ACPI, only as far as SMP bring-up and PCI need it: the RSDP (from the
 * boot loader or a BIOS scan), the RSDT/XSDT, the MADT's CPUs, I/O APIC
 * and ISA interrupt overrides, and the MCFG's configuration space.  Parsed once at boot into
 * acpi_info, read-only afterwards (no lock).
 */
#ifndef ARCH_ACPI_H
#define ARCH_ACPI_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86_64/percpu.h"

#define ACPI_MAX_CPUS MAX_CPUS

/* MADT interrupt source override flags (ACPI 6.5, 5.2.12.5). */
#define ACPI_IRQ_POLARITY_LOW  (3u << 0) /* both bits set: active low */
#define ACPI_IRQ_TRIGGER_LEVEL (3u << 2) /* both bits set: level */

struct acpi_info {
	bool found;			   /* a valid MADT was parsed */
	int ncpus;			   /* enabled (or online-capable) CPUs */
	uint32_t lapic_ids[ACPI_MAX_CPUS]; /* in MADT order; the BSP need not be first */
	uint64_t lapic_pa;		   /* local APIC MMIO base */
	uint64_t ioapic_pa;		   /* the first I/O APIC (0: none) */
	uint32_t ioapic_gsi_base;	   /* first GSI it serves */
	uint8_t ioapic_id;
	/* ISA IRQ n arrives on GSI isa_gsi[n] with isa_flags[n] (MPS INTI
	 * flags; 0 = the bus default: edge, active high). */
	uint32_t isa_gsi[16];
	uint16_t isa_flags[16];
	/* PCI segment 0's memory-mapped configuration space (the MCFG,
	 * PCI Firmware 3.2 4.1.2): buses ecam_bus_start..ecam_bus_end at
	 * ecam_pa + (bus << 20); ecam_pa 0 without an MCFG (legacy ports). */
	uint64_t ecam_pa;
	uint8_t ecam_bus_start, ecam_bus_end;
};

extern struct acpi_info acpi_info;

/* A table's common header (ACPI 5.2.6). */
struct acpi_sdt {
	char sig[4];
	uint32_t length;
	uint8_t revision;
	uint8_t checksum;
	char oem_id[6];
	char oem_table_id[8];
	uint32_t oem_revision;
	uint32_t creator_id;
	uint32_t creator_revision;
} __attribute__((packed));

/* Finds and parses the MADT into acpi_info and prints what it found.  With
 * no ACPI the machine is taken as one CPU with the PC defaults. */
void acpi_init(void);
/* Parses one MADT into *out (exposed for the self-test); false if its
 * checksum or length is wrong. */
bool acpi_parse_madt(const struct acpi_sdt *madt, struct acpi_info *out);
/* Takes segment 0's entry of an MCFG into *out; false if it has none. */
bool acpi_parse_mcfg(const struct acpi_sdt *mcfg, struct acpi_info *out);
void acpi_selftest(void);

#endif
