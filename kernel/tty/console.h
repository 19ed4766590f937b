/*
 * /dev/console: the serial port COM1 as a terminal, with a canonical line
 * discipline (echo, erase, kill, end of file) fed by the receive interrupt.
 */
#ifndef FS_CONSOLE_H
#define FS_CONSOLE_H

#include <stddef.h>

struct file_ops;

extern const struct file_ops console_ops;

/* Sets up the input queue and the receive interrupt (IRQ 4). */
void console_init(void);
/* One received byte through the line discipline (the IRQ handler's work). */
void console_input(char c);
/*
 * Takes input without sleeping: at most one line in canonical mode.  Bytes
 * taken, 0 for end of file (^D), -EAGAIN if no complete line is waiting.
 */
long console_take(char *kbuf, size_t len);
/* Turns echo off or on (returns the old setting); the self-test uses it. */
int console_set_echo(int on);

#endif
