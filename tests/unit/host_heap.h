/*
 * Host stand-in for the kernel heap (kmalloc/kzalloc/kfree) with accounting
 * and fault injection, so tests can check for leaks and fail the Nth allocation.
 */
#ifndef HOST_HEAP_H
#define HOST_HEAP_H

#include <stddef.h>

/* Make the @nth allocation from now fail (1 = the next one); 0 disarms. */
void heap_fail_nth(unsigned long nth);
/* Blocks and bytes currently handed out. */
size_t heap_live_blocks(void);
size_t heap_live_bytes(void);

#endif
