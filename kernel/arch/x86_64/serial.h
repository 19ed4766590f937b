/* COM1 serial port: the kernel console (115200 8N1). */
#ifndef ARCH_SERIAL_H
#define ARCH_SERIAL_H

#include <stddef.h>

void serial_init(void);
void serial_write(const char *s, size_t n);

#endif
