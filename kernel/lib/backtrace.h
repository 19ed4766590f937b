/* Symbolised stack backtraces for panics and kernel faults. */
#ifndef LIB_BACKTRACE_H
#define LIB_BACKTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Prints "#n 0xaddr function+0xoff" for rip, then walks the rbp chain.
 * rsp is the stack pointer at rip, used to find the caller when rip's
 * function keeps no frame (a leaf, assembly, a prologue); 0 when rip is a
 * return address, whose function made a call and so has its frame.
 */
void backtrace_from(uint64_t rip, uint64_t rsp, uint64_t rbp);

/* Saves at most max return addresses of the rbp chain from the frame rbp
 * (__builtin_frame_address(0): the caller's own first); returns how many. */
int backtrace_save(uint64_t rbp, uint64_t *rets, int max);

/* The function containing addr and addr's offset in it, or NULL. */
const char *ksym_lookup(uint64_t addr, uint64_t *offset);

/* Index of the function containing addr in the symbol table, or -1. */
long ksym_index(uint64_t addr);
/* Entries in the symbol table, and the name of entry i. */
size_t ksym_total(void);
const char *ksym_name(size_t i);

#endif
