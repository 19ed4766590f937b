/* The legacy 8259 interrupt controllers, remapped to vectors 32..47. */
#ifndef ARCH_PIC_H
#define ARCH_PIC_H

#include <stdbool.h>

void pic_init(void);
void pic_unmask(int irq);
/* Masks every line, the cascade too: the I/O APIC takes over. */
void pic_disable(void);
void pic_eoi(int irq);
/* True for a spurious IRQ 7/15 that must not be acknowledged. */
bool pic_is_spurious(int irq);

#endif
