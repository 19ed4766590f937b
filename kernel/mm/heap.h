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
/*
 * One direct-mapped page for an object of over SMALL_MAX bytes and at most a
 * page that is made on every fork (a task, a sighand): kmalloc would map a
 * large allocation, zero it and give it a guard page, then unmap it on free;
 * this is a frame_alloc.  Not zeroed, not poisoned; the frame is counted
 * (free frames), not heap bytes.  page_obj_free(NULL) does nothing.
 */
void *page_obj_alloc(void);
void page_obj_free(void *obj);
/* A kmalloc'd copy of the string s, or NULL. */
char *kstrdup(const char *s);
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
