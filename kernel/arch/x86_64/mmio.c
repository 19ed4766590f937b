/*
 * Uncached mappings for device registers.  The direct map covers the low
 * 4 GiB with write-back 2 MiB pages; a register page read through it could
 * be cached or its writes combined on real hardware, so the APICs get
 * their own strongly-uncached 4 KiB mappings from MMIO_BASE up.
 */
#include "arch/x86_64/mmio.h"
#include "lib/printk.h"
#include "mm/layout.h"
#include "mm/paging.h"

static uint64_t next_va = MMIO_BASE; /* CPU 0 at boot only: no lock */

volatile void *mmio_map(uint64_t pa)
{
	uint64_t va = next_va;

	if (map_page(vm_kernel(), va, PAGE_ALIGN_DOWN(pa), PTE_WRITE | PTE_NX | PTE_PCD | PTE_PWT))
		panic("mmio_map: cannot map %lx", pa);
	next_va += PAGE_SIZE;
	return (volatile void *)(va + (pa & PAGE_MASK));
}
