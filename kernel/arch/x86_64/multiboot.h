/* Multiboot2 boot information parsing (fills boot_info). */
#ifndef ARCH_MULTIBOOT_H
#define ARCH_MULTIBOOT_H

#include <stdint.h>

#define MULTIBOOT2_BOOTLOADER_MAGIC 0x36d76289

struct boot_info;

void multiboot_parse(uint64_t info_pa);
/* The tags of a Multiboot2 information structure into bi (which the caller
 * zeroed); multiboot_parse adds the ranges the kernel and the structure use. */
void multiboot_parse_tags(const uint8_t *info, struct boot_info *bi);
/* Kernel self-test: the EFI memory map is read when there is no other. */
void multiboot_selftest(void);
void multiboot_rsdp_selftest(void);
void multiboot_print_summary(void);

#endif
