/*
 * The kernel log ring (lib/klog.h).  klog_lock guards the ring and is a
 * leaf: taken with interrupts off (spin_lock) and nothing else taken
 * inside, so printk can log from any context that may print.
 */
#include "lib/klog.h"
#include "lib/spinlock.h"
#include "lib/string.h"

static struct spinlock klog_lock = SPINLOCK_INIT("klog");
static char ring[KLOG_SIZE]; /* klog_lock */
static size_t head;	     /* total bytes ever appended (klog_lock) */
static size_t held;	     /* bytes still in the ring, <= KLOG_SIZE (klog_lock) */

void klog_append(const char *s, size_t len)
{
	spin_lock(&klog_lock);
	for (size_t i = 0; i < len; i++)
		ring[(head + i) % KLOG_SIZE] = s[i];
	head += len;
	held = held + len < KLOG_SIZE ? held + len : KLOG_SIZE;
	spin_unlock(&klog_lock);
}

size_t klog_read_all(char *dst, size_t len)
{
	spin_lock(&klog_lock);
	if (len > held)
		len = held;
	for (size_t i = 0; i < len; i++)
		dst[i] = ring[(head - len + i) % KLOG_SIZE];
	spin_unlock(&klog_lock);
	return len;
}

size_t klog_used(void)
{
	spin_lock(&klog_lock);
	size_t n = held;
	spin_unlock(&klog_lock);
	return n;
}

void klog_clear(void)
{
	spin_lock(&klog_lock);
	held = 0;
	spin_unlock(&klog_lock);
}
