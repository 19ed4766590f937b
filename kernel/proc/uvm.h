/*
 * The layout of a process's user address space and the operations that
 * grow it: brk, anonymous mmap, the stack growing on demand.
 *
 *   0x400000 ...               the ELF image, then the brk heap (grows up)
 *   ... USER_MMAP_TOP          anonymous mmaps (allocated downwards)
 *   guard gap, 256 pages       mmap never places anything here
 *   USER_STACK_TOP - 8 MiB ... the stack, mapped on demand as it grows
 *
 * The stack owns [USER_STACK_BOTTOM, USER_STACK_TOP): nothing else is mapped
 * there (MAP_FIXED refuses it), so the stack never grows into a mapping.  The
 * gap below it is Linux's stack_guard_gap: a large stack frame that jumps
 * past the stack's limit faults in the gap rather than landing in the
 * topmost mapping.
 */
#ifndef PROC_UVM_H
#define PROC_UVM_H

#include <stdbool.h>
#include <stdint.h>
#include "mm/layout.h"

#define USER_STACK_TOP	  (USER_END - PAGE_SIZE)
#define USER_STACK_MAX	  (8UL << 20)
#define USER_STACK_BOTTOM (USER_STACK_TOP - USER_STACK_MAX)
#define STACK_GUARD_GAP	  (256 * PAGE_SIZE)
#define USER_MMAP_TOP	  (USER_STACK_BOTTOM - STACK_GUARD_GAP)
#define USER_IMAGE_MIN	  0x10000UL /* nothing below: NULL stays unmapped */

struct task;

/*
 * A fault at user address va with the page-fault error code: resolves it
 * (copy-on-write, stack growth) and returns true, or returns false if the
 * access is invalid.
 */
bool uvm_handle_fault(struct task *t, uint64_t va, uint64_t error);

#endif
