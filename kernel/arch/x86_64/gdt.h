/* Segment descriptors and the task-state segment. */
#ifndef ARCH_GDT_H
#define ARCH_GDT_H

#include <stdint.h>

/* Selectors.  The user pair is ordered for SYSRET: 32-bit code (unused),
 * user data, user code. */
#define KERNEL_CS 0x08
#define KERNEL_DS 0x10
#define USER_CS32 0x1b
#define USER_DS	  0x23
#define USER_CS	  0x2b
#define TSS_SEL	  0x30

/* Interrupt stack table slots (1-based, as the IDT encodes them). */
#define IST_DOUBLE_FAULT 1
#define IST_NMI		 2

/* Builds and loads this CPU's GDT and TSS (this_cpu()->id picks them). */
void gdt_init(void);
/* Stack the CPU switches to on an interrupt from user mode. */
void tss_set_kernel_stack(uint64_t rsp0);

#endif
