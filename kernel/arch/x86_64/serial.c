/*
 * COM1 output, polled.  Transmission waits for the holding register only
 * when it is full, so the common case is one port read and one write.
 */
#include "arch/x86_64/serial.h"
#include "arch/x86_64/cpu.h"

#define COM1	       0x3f8
#define REG_DATA       0
#define REG_IER	       1
#define REG_FCR	       2
#define REG_LCR	       3
#define REG_MCR	       4
#define REG_LSR	       5
#define LSR_DATA_READY 0x01
#define LSR_THR_EMPTY  0x20
#define IER_RX_DATA    0x01
#define LCR_DLAB       0x80
#define LCR_8N1	       0x03
#define BAUD_DIVISOR   1 /* 115200 / 115200 */

void serial_init(void)
{
	outb(COM1 + REG_IER, 0x00);
	outb(COM1 + REG_LCR, LCR_DLAB);
	outb(COM1 + REG_DATA, BAUD_DIVISOR & 0xff);
	outb(COM1 + REG_IER, BAUD_DIVISOR >> 8);
	outb(COM1 + REG_LCR, LCR_8N1);
	outb(COM1 + REG_FCR, 0xc7); /* enable and clear FIFOs, 14-byte threshold */
	outb(COM1 + REG_MCR, 0x0b); /* DTR, RTS, OUT2 (needed for interrupts later) */
}

static void serial_putc(char c)
{
	while (!(inb(COM1 + REG_LSR) & LSR_THR_EMPTY))
		cpu_relax();
	outb(COM1 + REG_DATA, c);
}

void serial_write(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			serial_putc('\r');
		serial_putc(s[i]);
	}
}

void serial_write_raw(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		serial_putc(s[i]);
}

void serial_enable_rx_irq(void)
{
	outb(COM1 + REG_IER, IER_RX_DATA);
}

int serial_getc(void)
{
	if (!(inb(COM1 + REG_LSR) & LSR_DATA_READY))
		return -1;
	return inb(COM1 + REG_DATA);
}
