/* Symbolised stack backtraces for panics and kernel faults. */
#ifndef LIB_BACKTRACE_H
#define LIB_BACKTRACE_H

#include <stddef.h>
#include <stdint.h>

/* Prints "#n 0xaddr function+0xoff" for rip, then walks the rbp chain. */
void backtrace_from(uint64_t rip, uint64_t rbp);

/* The function containing addr and addr's offset in it, or NULL. */
const char *ksym_lookup(uint64_t addr, uint64_t *offset);

/* Index of the function containing addr in the symbol table, or -1. */
long ksym_index(uint64_t addr);
/* Entries in the symbol table, and the name of entry i. */
size_t ksym_total(void);
const char *ksym_name(size_t i);

#endif
