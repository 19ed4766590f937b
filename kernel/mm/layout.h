/*
 * The kernel's virtual memory layout (docs/architecture.md) and the
 * conversions between physical addresses and their kernel mappings.
 */
#ifndef MM_LAYOUT_H
#define MM_LAYOUT_H

#include <stdint.h>

#define PAGE_SIZE 4096UL
#define PAGE_SHIFT 12

/* Kernel image: linked here, loaded at physical 1 MiB. */
#define KERNEL_VMA 0xffffffff80000000UL
/* Direct map of all physical memory. */
#define PHYS_MAP_BASE 0xffff800000000000UL

#define P2V(pa) ((void *)((uint64_t)(pa) + PHYS_MAP_BASE))
#define V2P(va) ((uint64_t)(va) - PHYS_MAP_BASE)
/* Physical address of a symbol in the kernel image. */
#define KIMG_V2P(va) ((uint64_t)(va) - KERNEL_VMA)

/* Linker symbols (linker.ld). */
extern char _kernel_start[], _text_start[], _text_end[], _rodata_start[], _rodata_end[],
	_data_start[], _kernel_end[], _kernel_phys_start[], _kernel_phys_end[];

#endif
