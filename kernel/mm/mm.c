/*
 * Memory-manager bring-up, in dependency order: the frame allocator feeds the
 * final page tables, and the page tables give the heap its large region.
 */
#include "mm/mm.h"

#include "mm/frame.h"
#include "mm/heap.h"
#include "mm/paging.h"

void mm_init(void)
{
	frame_init();
	paging_init();
	heap_init();
}
