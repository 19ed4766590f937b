/*
 * Exception-table lookup.  Entries are (faulting instruction, fixup) pairs
 * collected by the linker between __ex_table_start and __ex_table_end.
 * The table is short, so a linear scan is enough.
 */
#include "arch/x86_64/extable.h"

struct extable_entry {
	uint64_t insn;
	uint64_t fixup;
};

extern const struct extable_entry __ex_table_start[], __ex_table_end[];

uint64_t extable_fixup(uint64_t rip)
{
	for (const struct extable_entry *e = __ex_table_start; e < __ex_table_end; e++)
		if (e->insn == rip)
			return e->fixup;
	return 0;
}
