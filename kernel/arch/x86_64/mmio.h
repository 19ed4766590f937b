/* Device registers mapped uncached in the kernel half. */
#ifndef ARCH_MMIO_H
#define ARCH_MMIO_H

#include <stdint.h>

/* Maps the 4 KiB register page holding pa uncached (PCD|PWT) and returns
 * pa's address there.  Boot only, CPU 0 only: the mappings are never
 * removed, and the kernel half is shared by every address space. */
volatile void *mmio_map(uint64_t pa);
/* The same for the len bytes from pa (len > 0): their pages, contiguous. */
volatile void *mmio_map_range(uint64_t pa, uint64_t len);

#endif
