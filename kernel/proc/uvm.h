/*
 * The layout of a process's user address space and the operations that
 * grow it: brk, anonymous mmap, the stack growing on demand.
 *
 *   0x400000 ...               the ELF image, then the brk heap (grows up)
 *   ... USER_MMAP_TOP          anonymous mmaps (allocated downwards)
 *   guard page                 never mapped
 *   USER_STACK_TOP - 8 MiB ... the stack, mapped on demand as it grows
 */
#ifndef PROC_UVM_H
#define PROC_UVM_H

#include <stdbool.h>
#include <stdint.h>
#include "mm/layout.h"

#define USER_STACK_TOP	  (USER_END - PAGE_SIZE)
#define USER_STACK_MAX	  (8UL << 20)
#define USER_STACK_BOTTOM (USER_STACK_TOP - USER_STACK_MAX)
#define USER_MMAP_TOP	  (USER_STACK_BOTTOM - 16 * PAGE_SIZE) /* gap holds the guard */
#define USER_IMAGE_MIN	  0x10000UL /* nothing below: NULL stays unmapped */

struct task;

/*
 * A fault at user address va with the page-fault error code: resolves it
 * (copy-on-write, stack growth) and returns true, or returns false if the
 * access is invalid.
 */
bool uvm_handle_fault(struct task *t, uint64_t va, uint64_t error);

#endif
