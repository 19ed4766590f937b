/*
 * Kernel heap.  kmalloc returns memory aligned to 16 bytes, or NULL when
 * memory runs out; any size works (large requests are page-backed and need
 * not be physically contiguous).  kfree(NULL) does nothing.
 */
#ifndef MM_HEAP_H
#define MM_HEAP_H

#include <stdbool.h>
#include <stddef.h>

void heap_init(void);
void *kmalloc(size_t size);
void *kzalloc(size_t size);
void kfree(void *ptr);
/* A kmalloc'd copy of the string s, or NULL. */
char *kstrdup(const char *s);
/* Gives back what the heap keeps for reuse: unmaps the freed large
 * allocations still waiting for a batched TLB shootdown (kfree does it
 * every few dozen) and frees the empty slabs kept per class.  The leak
 * check calls it before it counts frames. */
void heap_purge(void);
#define HEAP_LAZY_MAX	32 /* freed large allocations per purge, at most */
#define HEAP_KEEP_EMPTY 4  /* emptied slab pages kept per size class */
/* Bytes currently handed out by kmalloc (for leak accounting). */
size_t heap_bytes_in_use(void);
/* Why kfree(ptr) would panic ("double free", "not a heap pointer" ...), or
 * NULL if ptr is a live allocation. */
const char *heap_free_problem(const void *ptr);
/* For the self-test: whether a freed small object, whose slab page is still
 * in use, is as kfree left it (what kmalloc checks before reusing it). */
bool heap_poison_intact(const void *freed);
void heap_selftest(void);

#endif
