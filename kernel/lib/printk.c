/*
 * printk: formatted output to the console.  Lines are formatted into a
 * buffer first so concurrent printers never interleave inside a line, then
 * kept in the kernel log (lib/klog.h) for syslog(2); the console shows
 * those whose level is below the console level (Linux's console_loglevel,
 * /proc/sys/kernel/printk, syslog's console actions).
 */
#include "lib/printk.h"
#include "arch/x86_64/serial.h"
#include "lib/klog.h"
#include "lib/spinlock.h"

int printk_quiet;

/* Serialises output on the console; panic() writes without it. */
static struct spinlock console_lock = SPINLOCK_INIT("console");

enum { CONSOLE_LEVEL, DEFAULT_MESSAGE, MINIMUM_CONSOLE, DEFAULT_CONSOLE };
/* Linux's defaults.  Each read and written atomically (printk reads them
 * without a lock); level_lock orders the syslog actions that change two
 * (the level and saved_level). */
static int levels[CONSOLE_LEVELS] = {7, 4, 1, 7};
/* The level CONSOLE_OFF replaced, or -1 (Linux's LOGLEVEL_DEFAULT). */
static int saved_level = -1;
static struct spinlock level_lock = SPINLOCK_INIT("console_level");

static int level_get(int which)
{
	return __atomic_load_n(&levels[which], __ATOMIC_RELAXED);
}

static void level_set(int which, int v)
{
	__atomic_store_n(&levels[which], v, __ATOMIC_RELAXED);
}

static int vprintk_level(int level, const char *fmt, va_list ap)
{
	char buf[512];
	int n = vsnprintk(buf, sizeof(buf), fmt, ap);
	size_t len = (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1;

	if (level < level_get(CONSOLE_LEVEL)) {
		spin_lock(&console_lock);
		serial_write(buf, len);
		spin_unlock(&console_lock);
	}
	klog_append(buf, len);
	return n;
}

int vprintk(const char *fmt, va_list ap)
{
	return vprintk_level(level_get(DEFAULT_MESSAGE), fmt, ap);
}

int printk(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}

int printk_level(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = vprintk_level(level, fmt, ap);
	va_end(ap);
	return n;
}

void printk_set_quiet(bool quiet)
{
	printk_quiet = quiet;
	level_set(CONSOLE_LEVEL, quiet ? 5 : 7);
}

void console_levels_get(int out[CONSOLE_LEVELS])
{
	for (int i = 0; i < CONSOLE_LEVELS; i++)
		out[i] = level_get(i);
}

void console_levels_set(const int *in, int n)
{
	spin_lock(&level_lock);
	for (int i = 0; i < n && i < CONSOLE_LEVELS; i++)
		level_set(i, in[i]);
	spin_unlock(&level_lock);
}

void console_off(void)
{
	spin_lock(&level_lock);
	if (saved_level == -1)
		saved_level = level_get(CONSOLE_LEVEL);
	level_set(CONSOLE_LEVEL, level_get(MINIMUM_CONSOLE));
	spin_unlock(&level_lock);
}

void console_on(void)
{
	spin_lock(&level_lock);
	if (saved_level != -1) {
		level_set(CONSOLE_LEVEL, saved_level);
		saved_level = -1;
	}
	spin_unlock(&level_lock);
}

void console_set_level(int level)
{
	spin_lock(&level_lock);
	if (level < level_get(MINIMUM_CONSOLE))
		level = level_get(MINIMUM_CONSOLE);
	level_set(CONSOLE_LEVEL, level);
	saved_level = -1;
	spin_unlock(&level_lock);
}
