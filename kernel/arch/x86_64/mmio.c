/*
 * Uncached mappings for device registers.  The direct map covers the low
 * 4 GiB with write-back 2 MiB pages; a register page read through it could
 * be cached or its writes combined on real hardware, so the APICs and PCI
 * (ECAM, BARs) get their own strongly-uncached 4 KiB mappings from
 * MMIO_BASE up.
 */
#include "arch/x86_64/mmio.h"
#include "lib/printk.h"
#include "mm/layout.h"
#include "mm/paging.h"

static uint64_t next_va = MMIO_BASE; /* CPU 0 at boot only: no lock */

volatile void *mmio_map(uint64_t pa)
{
	return mmio_map_range(pa, 1);
}

volatile void *mmio_map_range(uint64_t pa, uint64_t len)
{
	uint64_t va = next_va, first = PAGE_ALIGN_DOWN(pa);
	uint64_t pages = (PAGE_ALIGN_UP(pa + len) - first) / PAGE_SIZE;

	for (uint64_t i = 0; i < pages; i++)
		if (map_page(vm_kernel(), va + i * PAGE_SIZE, first + i * PAGE_SIZE,
			     PTE_WRITE | PTE_NX | PTE_PCD | PTE_PWT))
			panic("mmio_map: cannot map %lx", first + i * PAGE_SIZE);
	next_va += pages * PAGE_SIZE;
	return (volatile void *)(va + (pa & PAGE_MASK));
}
