/* Interrupt vectors and the IDT. */
#ifndef ARCH_IDT_H
#define ARCH_IDT_H

#define VEC_DIVIDE	   0
#define VEC_DEBUG	   1
#define VEC_NMI		   2
#define VEC_BREAKPOINT	   3
#define VEC_OVERFLOW	   4
#define VEC_INVALID_OPCODE 6
#define VEC_DOUBLE_FAULT   8
#define VEC_GP		   13
#define VEC_PAGE_FAULT	   14
#define VEC_IRQ_BASE	   32 /* ISA IRQ 0..15 land at 32..47 (PIC or I/O APIC) */
#define VEC_TIMER	   (VEC_IRQ_BASE + 0)
#define VEC_COM1	   (VEC_IRQ_BASE + 4)
#define VEC_DEV_BASE	   48 /* device vectors (MSI-X, PCI INTx): irqvec.h */
#define VEC_DEV_COUNT	   32
#define VEC_LAPIC_TIMER	   0xec /* each CPU's local APIC timer */
#define VEC_IPI_CALL	   0xeb /* run a function on another CPU (smp.c) */
#define VEC_IPI_RESCHED	   0xea /* wake an idle CPU: tasks are queued (sched.c) */
#define VEC_IPI_KICK	   0xe9 /* a signal for the task this CPU runs (sched.c) */
#define VEC_SELFTEST	   0xf0 /* software interrupt for self-tests (traps.h) */
#define VEC_SPURIOUS	   0xff

void idt_init(void);
/* Loads the IDT into this CPU (the APs; idt_init loads it on CPU 0). */
void idt_load(void);

#endif
