/* COM1 serial port: the kernel console (115200 8N1). */
#ifndef ARCH_SERIAL_H
#define ARCH_SERIAL_H

#include <stddef.h>

void serial_init(void);
void serial_write(const char *s, size_t n);
/* The bytes as they are (serial_write sends a newline as CR LF): the
 * console's terminal, whose line discipline did that already. */
void serial_write_raw(const char *s, size_t n);
/* Receive side, for the console driver (tty/console.c). */
void serial_enable_rx_irq(void); /* IRQ 4 on each received byte */
int serial_getc(void);		 /* a received byte, or -1 if none is waiting */

#endif
