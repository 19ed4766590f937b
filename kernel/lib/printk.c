/*
 * printk: formatted output to the console.  Lines are formatted into a
 * buffer first so concurrent printers never interleave inside a line, then
 * kept in the kernel log (lib/klog.h) for syslog(2).
 */
#include "lib/printk.h"
#include "arch/x86_64/serial.h"
#include "lib/klog.h"
#include "lib/spinlock.h"

int printk_quiet;

/* Serialises output on the console; panic() writes without it. */
static struct spinlock console_lock = SPINLOCK_INIT("console");

int vprintk(const char *fmt, va_list ap)
{
	char buf[512];
	int n = vsnprintk(buf, sizeof(buf), fmt, ap);
	size_t len = (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1;

	spin_lock(&console_lock);
	serial_write(buf, len);
	spin_unlock(&console_lock);
	klog_append(buf, len);
	return n;
}

int printk(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}
