/* Multiboot2 boot information parsing (fills boot_info). */
#ifndef ARCH_MULTIBOOT_H
#define ARCH_MULTIBOOT_H

#include <stdint.h>

#define MULTIBOOT2_BOOTLOADER_MAGIC 0x36d76289

void multiboot_parse(uint64_t info_pa);
void multiboot_print_summary(void);

#endif
