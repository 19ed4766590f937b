/*
 * /dev/console: the serial port COM1 as a terminal (tty.h), its input fed
 * by the receive interrupt.
 */
#ifndef TTY_CONSOLE_H
#define TTY_CONSOLE_H

#include <stddef.h>

struct file;

/* Sets up the console's terminal and the receive interrupt (IRQ 4). */
void console_init(void);
/* Opening the console as f (tty_file_ops): 0. */
int console_open(struct file *f, unsigned flags);
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
