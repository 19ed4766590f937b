/*
 * The kernel's virtual memory layout (docs/architecture.md) and the
 * conversions between physical addresses and their kernel mappings.
 */
#ifndef MM_LAYOUT_H
#define MM_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#define PAGE_SIZE  4096UL
#define PAGE_SHIFT 12
#define PAGE_MASK  (PAGE_SIZE - 1)
#define HUGE_SIZE  (2UL << 20) /* a 2 MiB page */

#define PAGE_ALIGN_DOWN(x) ((uint64_t)(x) & ~PAGE_MASK)
#define PAGE_ALIGN_UP(x)   (((uint64_t)(x) + PAGE_MASK) & ~PAGE_MASK)

/* User half: the lower canonical half, [0, USER_END). */
#define USER_END 0x0000800000000000UL
/* Kernel half: PML4 entries 256..511, shared by every address space. */
#define KERNEL_HALF_BASE 0xffff800000000000UL

/* Direct map of all physical memory, RW+NX (PML4 entry 256 onwards). */
#define PHYS_MAP_BASE 0xffff800000000000UL
/* Large kmalloc allocations: page-backed, not physically contiguous. */
#define HEAP_LARGE_BASE 0xffffc00000000000UL
#define HEAP_LARGE_END	0xffffc08000000000UL /* 512 GiB */
/* Kernel stacks, one 32 KiB slot per task: an unmapped guard, then the stack. */
#define KSTACK_REGION 0xffffff0000000000UL
/* Device registers, 4 KiB uncached pages (arch/x86_64/mmio.c). */
#define MMIO_BASE 0xffffc20000000000UL
/* One page the mm self-test maps and unmaps; nothing else lives here. */
#define MM_SELFTEST_VA 0xffffc10000000000UL
/* Kernel image: linked here, loaded at physical 1 MiB. */
#define KERNEL_VMA 0xffffffff80000000UL

#define P2V(pa) ((void *)((uint64_t)(pa) + PHYS_MAP_BASE))
#define V2P(va) ((uint64_t)(va)-PHYS_MAP_BASE)
/* Physical address of a symbol in the kernel image. */
#define KIMG_V2P(va) ((uint64_t)(va)-KERNEL_VMA)

/* Linker symbols (linker.ld). */
extern char _kernel_start[], _text_start[], _text_end[], _rodata_start[], _rodata_end[],
    _data_start[], _kernel_end[], _kernel_phys_start[], _kernel_phys_end[];

static inline bool in_kernel_half(uint64_t va)
{
	return va >= KERNEL_HALF_BASE;
}

#endif
