/*
 * Kernel console output and fatal errors.  printk writes to the serial
 * console; panic prints registers and a symbolised backtrace, then halts.
 */
#ifndef LIB_PRINTK_H
#define LIB_PRINTK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* Formats: %d %i %u %o %x %X %lx %ld %lu %llx %zu %zx %p %s %c %%, with width,
 * '0' and '-' flags. */
int printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int vprintk(const char *fmt, va_list ap);
int snprintk(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int vsnprintk(char *buf, size_t size, const char *fmt, va_list ap);
/* Appends to a text of *len bytes in buf (size bytes, *len < size): *len
 * grows by what fit, so a text too long for buf is cut, never overrun. */
void appendk(char *buf, size_t size, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Set by the `quiet` command-line word: printk_info() prints nothing. */
extern int printk_quiet;
#define printk_info(...)                                                                           \
	do {                                                                                       \
		if (!printk_quiet)                                                                 \
			printk(__VA_ARGS__);                                                       \
	} while (0)

__attribute__((noreturn, format(printf, 1, 2))) void panic(const char *fmt, ...);
/* With test on, a panic ends QEMU with a failure status (kmain, from the
 * command line's `test`), so a test run never hangs. */
void panic_set_test_mode(bool test);

#define kassert(cond)                                                                              \
	do {                                                                                       \
		if (__builtin_expect(!(cond), 0))                                                  \
			panic("assertion failed: %s at %s:%d", #cond, __FILE__, __LINE__);         \
	} while (0)

#endif
