/* Symbolised stack backtraces for panics and kernel faults. */
#ifndef LIB_BACKTRACE_H
#define LIB_BACKTRACE_H

#include <stdint.h>

/* Prints "#n 0xaddr function+0xoff" for rip, then walks the rbp chain. */
void backtrace_from(uint64_t rip, uint64_t rbp);

/* The function containing addr and addr's offset in it, or NULL. */
const char *ksym_lookup(uint64_t addr, uint64_t *offset);

#endif
