/*
 * What the boot loader told us, copied out of the Multiboot2 information
 * structure early in kmain (multiboot.c) so nothing later depends on that
 * memory staying intact.  All addresses are physical.
 */
#ifndef ARCH_BOOTINFO_H
#define ARCH_BOOTINFO_H

#include <stdbool.h>
#include <stdint.h>

#define BOOT_MAX_RANGES	 64
#define BOOT_MAX_MODULES 8
#define BOOT_CMDLINE_MAX 256

struct mem_range {
	uint64_t base;
	uint64_t len;
};

struct boot_module {
	uint64_t start; /* physical, inclusive */
	uint64_t end;	/* physical, exclusive */
	char cmdline[64];
};

struct boot_info {
	/* RAM the firmware marks available (Multiboot2 type 1). */
	struct mem_range usable[BOOT_MAX_RANGES];
	int nusable;
	/* Ranges inside usable RAM that must never be handed out: the kernel
	 * image, the Multiboot2 information, the modules. */
	struct mem_range reserved[BOOT_MAX_RANGES];
	int nreserved;
	struct boot_module modules[BOOT_MAX_MODULES];
	int nmodules;
	char cmdline[BOOT_CMDLINE_MAX];
	uint64_t phys_top; /* end of the highest usable range */
	bool uefi;	   /* booted by UEFI firmware (an EFI system table tag) */
	/* A copy of the ACPI RSDP the boot loader found (tag 15 over tag 14);
	 * rsdp_len 0: none given, acpi.c scans the BIOS area. */
	uint8_t rsdp[36];
	uint32_t rsdp_len;
};

extern struct boot_info boot_info;

#endif
