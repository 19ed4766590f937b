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

/*
 * Message levels, Linux's (KERN_EMERG 0 ... KERN_DEBUG 7): the console
 * shows a message whose level is below its console level; the kernel log
 * keeps them all.  printk() is at the default message level (a warning,
 * 4, unless /proc/sys/kernel/printk says otherwise), printk_info() at
 * KERN_INFO: progress a quiet boot does not show.
 */
#define LOGLEVEL_INFO 6
int printk_level(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define printk_info(...) printk_level(LOGLEVEL_INFO, __VA_ARGS__)

/* Set by the `quiet` command-line word: the console level becomes 5
 * (warnings and worse), else 7 (all but debug). */
extern int printk_quiet;
void printk_set_quiet(bool quiet);

/* Linux's console_printk, as /proc/sys/kernel/printk shows it: the
 * console level, the default message level, the lowest console level
 * syslog may set, the default console level. */
#define CONSOLE_LEVELS 4
void console_levels_get(int levels[CONSOLE_LEVELS]);
/* The first n of them (n <= CONSOLE_LEVELS) become levels[0..n). */
void console_levels_set(const int *levels, int n);
/* syslog(2)'s console actions, as Linux's: CONSOLE_OFF keeps the level
 * and sets the lowest, CONSOLE_ON brings the kept one back, CONSOLE_LEVEL
 * sets level (1..8, raised to the lowest) and forgets a kept one. */
void console_off(void);
void console_on(void);
void console_set_level(int level);

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
