/*
 * 8259A PIC pair.  Remapped above the exceptions, everything masked until a
 * driver registers a handler.  With an I/O APIC (kmain) they stay masked.
 */
#include "arch/x86_64/pic.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/idt.h"

#define PIC1_CMD       0x20
#define PIC1_DATA      0x21
#define PIC2_CMD       0xa0
#define PIC2_DATA      0xa1
#define ICW1_INIT_ICW4 0x11
#define ICW4_8086      0x01
#define OCW3_READ_ISR  0x0b
#define PIC_EOI	       0x20

static uint16_t irq_mask = 0xffff & ~(1 << 2); /* cascade line stays open */

static void write_mask(void)
{
	outb(PIC1_DATA, irq_mask & 0xff);
	outb(PIC2_DATA, irq_mask >> 8);
}

void pic_init(void)
{
	outb(PIC1_CMD, ICW1_INIT_ICW4);
	outb(PIC2_CMD, ICW1_INIT_ICW4);
	outb(PIC1_DATA, VEC_IRQ_BASE);
	outb(PIC2_DATA, VEC_IRQ_BASE + 8);
	outb(PIC1_DATA, 4); /* slave on IRQ 2 */
	outb(PIC2_DATA, 2);
	outb(PIC1_DATA, ICW4_8086);
	outb(PIC2_DATA, ICW4_8086);
	write_mask();
}

void pic_unmask(int irq)
{
	irq_mask &= ~(1u << irq);
	write_mask();
}

void pic_disable(void)
{
	irq_mask = 0xffff;
	write_mask();
}

void pic_eoi(int irq)
{
	if (irq >= 8)
		outb(PIC2_CMD, PIC_EOI);
	outb(PIC1_CMD, PIC_EOI);
}

bool pic_is_spurious(int irq)
{
	if (irq != 7 && irq != 15)
		return false;
	outb(irq == 7 ? PIC1_CMD : PIC2_CMD, OCW3_READ_ISR);
	if ((irq == 7 ? inb(PIC1_CMD) : inb(PIC2_CMD)) & 0x80)
		return false;
	if (irq == 15)
		outb(PIC1_CMD, PIC_EOI); /* the master did see the cascade */
	return true;
}
