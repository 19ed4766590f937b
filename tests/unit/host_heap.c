/*
 * Host kmalloc: libc malloc with a header recording the size, counters for
 * leak checks, and a countdown that makes one chosen allocation fail.
 */
#include <stdlib.h>
#include <string.h>

#include "host_heap.h"

/* Keeps the kernel heap's 16-byte alignment. */
struct header {
	size_t size;
	size_t pad;
};

static size_t live_blocks, live_bytes;
static unsigned long fail_countdown; /* 0: never fail */

void heap_fail_nth(unsigned long nth)
{
	fail_countdown = nth;
}

size_t heap_live_blocks(void)
{
	return live_blocks;
}

size_t heap_live_bytes(void)
{
	return live_bytes;
}

void *kmalloc(size_t size)
{
	struct header *h;

	if (fail_countdown && --fail_countdown == 0)
		return NULL;
	h = malloc(sizeof(*h) + size);
	if (!h)
		return NULL;
	h->size = size;
	live_blocks++;
	live_bytes += size;
	return h + 1;
}

void *kzalloc(size_t size)
{
	void *p = kmalloc(size);

	if (p)
		memset(p, 0, size);
	return p;
}

void kfree(void *ptr)
{
	struct header *h;

	if (!ptr)
		return;
	h = (struct header *)ptr - 1;
	live_blocks--;
	live_bytes -= h->size;
	free(h);
}
