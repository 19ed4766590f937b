/*
 * The interrupt descriptor table: every vector points at its stub in
 * isr.asm.  Double fault and NMI run on their own IST stacks so a blown
 * kernel stack still produces a readable report.
 */
#include <stdint.h>
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/idt.h"

struct idt_gate {
	uint16_t offset_lo;
	uint16_t selector;
	uint8_t ist;
	uint8_t type_attr;
	uint16_t offset_mid;
	uint32_t offset_hi;
	uint32_t zero;
} __attribute__((packed));

#define GATE_INTERRUPT 0x8e /* present, DPL 0, 64-bit interrupt gate (IF cleared) */
#define GATE_USER      0xee /* the same with DPL 3: user code may raise it with int */

extern const uint64_t isr_stub_table[256];
static struct idt_gate idt[256];

static void set_gate(int vec, uint64_t handler, uint8_t ist, uint8_t type)
{
	idt[vec] = (struct idt_gate){
	    .offset_lo = handler & 0xffff,
	    .selector = KERNEL_CS,
	    .ist = ist,
	    .type_attr = type,
	    .offset_mid = (handler >> 16) & 0xffff,
	    .offset_hi = handler >> 32,
	};
}

void idt_load(void)
{
	struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) ptr = {sizeof(idt) - 1, (uint64_t)idt};

	asm volatile("lidt %0" : : "m"(ptr));
}

/* The table is shared by every CPU and never changes after idt_init. */
void idt_init(void)
{
	for (int v = 0; v < 256; v++)
		set_gate(v, isr_stub_table[v], 0, GATE_INTERRUPT);
	set_gate(VEC_DOUBLE_FAULT, isr_stub_table[VEC_DOUBLE_FAULT], IST_DOUBLE_FAULT,
		 GATE_INTERRUPT);
	set_gate(VEC_NMI, isr_stub_table[VEC_NMI], IST_NMI, GATE_INTERRUPT);
	/* int3 and int $4 are instructions a program may use (Linux's system
	 * gates): SIGTRAP and SIGSEGV from their handlers, not a #GP. */
	set_gate(VEC_BREAKPOINT, isr_stub_table[VEC_BREAKPOINT], 0, GATE_USER);
	set_gate(VEC_OVERFLOW, isr_stub_table[VEC_OVERFLOW], 0, GATE_USER);
	idt_load();
}
