/*
 * syslog(2) (glibc's klogctl): reading and clearing the kernel log
 * (lib/klog.h), as busybox dmesg does, and the console's level (which
 * messages printk shows: lib/printk.h), also /proc/sys/kernel/printk.
 * The blocking read (action 2) is not offered: after Linux's checks of
 * its arguments (EINVAL for a NULL buffer or a negative length, 0 for
 * length 0), EINVAL, the same as an unknown action.  As Linux with
 * dmesg_restrict 0 (its default), anyone may read the whole log and its
 * size; every other action needs CAP_SYSLOG or CAP_SYS_ADMIN (EPERM,
 * before any other check).
 */
#include "arch/x86_64/uaccess.h"
#include "fs/proc/proc_sys.h"
#include "lib/klog.h"
#include "lib/printk.h"
#include "mm/heap.h"
#include "proc/cred.h"
#include "sys/syscall.h"
#include <uapi/errno.h>

enum {
	SYSLOG_ACTION_CLOSE,
	SYSLOG_ACTION_OPEN,
	SYSLOG_ACTION_READ,
	SYSLOG_ACTION_READ_ALL,
	SYSLOG_ACTION_READ_CLEAR,
	SYSLOG_ACTION_CLEAR,
	SYSLOG_ACTION_CONSOLE_OFF,
	SYSLOG_ACTION_CONSOLE_ON,
	SYSLOG_ACTION_CONSOLE_LEVEL,
	SYSLOG_ACTION_SIZE_UNREAD,
	SYSLOG_ACTION_SIZE_BUFFER,
};

/* The newest bytes of the log, at most len, into ubuf; the log cleared
 * after if clear.  Linux's checks: EINVAL for a NULL buffer or a
 * negative length, 0 for length 0, EFAULT. */
static long read_log(char *ubuf, int len, bool clear)
{
	char *kbuf;
	size_t n;
	long err;

	if (!ubuf || len < 0)
		return -EINVAL;
	if (!len)
		return 0;
	if ((size_t)len > KLOG_SIZE)
		len = KLOG_SIZE;
	if (!(kbuf = kmalloc(len)))
		return -ENOMEM;
	n = klog_read_all(kbuf, len);
	err = copy_to_user(ubuf, kbuf, n) ? -EFAULT : (long)n;
	kfree(kbuf);
	if (clear && err >= 0)
		klog_clear();
	return err;
}

SYSCALL_DEFINE3(syslog, int, type, char *, ubuf, int, len)
{
	if (type != SYSLOG_ACTION_READ_ALL && type != SYSLOG_ACTION_SIZE_BUFFER &&
	    !capable(CAP_SYSLOG) && !capable(CAP_SYS_ADMIN))
		return -EPERM;
	switch (type) {
	case SYSLOG_ACTION_CLOSE:
	case SYSLOG_ACTION_OPEN:
		return 0;
	case SYSLOG_ACTION_READ:
		return !ubuf || len < 0 ? -EINVAL : len == 0 ? 0 : -EINVAL;
	case SYSLOG_ACTION_READ_ALL:
		return read_log(ubuf, len, false);
	case SYSLOG_ACTION_READ_CLEAR:
		return read_log(ubuf, len, true);
	case SYSLOG_ACTION_CLEAR:
		klog_clear();
		return 0;
	case SYSLOG_ACTION_CONSOLE_OFF:
		console_off();
		return 0;
	case SYSLOG_ACTION_CONSOLE_ON:
		console_on();
		return 0;
	case SYSLOG_ACTION_CONSOLE_LEVEL:
		if (len < 1 || len > 8)
			return -EINVAL;
		console_set_level(len);
		return 0;
	case SYSLOG_ACTION_SIZE_UNREAD:
		return klog_used();
	case SYSLOG_ACTION_SIZE_BUFFER:
		return KLOG_SIZE;
	default:
		return -EINVAL;
	}
}

/* /proc/sys/kernel/printk: the four console levels, tab-separated. */
static long printk_levels_show(const struct proc_sys_row *row, char *buf, size_t size)
{
	int v[CONSOLE_LEVELS];

	(void)row;
	console_levels_get(v);
	return snprintk(buf, size, "%d\t%d\t%d\t%d\n", v[0], v[1], v[2], v[3]);
}

/* As Linux's proc_dointvec on the four: one to four ints, the first ones
 * set; text after a fourth is left unread, text that is no number after
 * a first is EINVAL (the ones before it set all the same); a write past
 * position 0 is taken and ignored. */
static long printk_levels_store(const struct proc_sys_row *row, const char *text, size_t len,
				uint64_t *pos)
{
	int v[CONSOLE_LEVELS], n = 0, err = 0;
	size_t done = 0, used;
	long value;

	(void)row;
	if (*pos) {
		*pos += len;
		return (long)len;
	}
	while (n < CONSOLE_LEVELS && done < len && !err) {
		err = proc_sys_parse_long(text + done, len - done, &value, &used);
		if (!err && (value < INT32_MIN || value > INT32_MAX))
			err = -EINVAL;
		if (!err) {
			v[n++] = (int)value;
			done += used;
		}
	}
	if (!n)
		return -EINVAL;
	console_levels_set(v, n);
	if (err)
		return err;
	*pos += done;
	return (long)done;
}

PROC_SYS_ROW(printk_row, .path = "kernel/printk", .mode = 0644, .show = printk_levels_show,
	     .store = printk_levels_store);
