/*
 * syslog(2) (glibc's klogctl): reading and clearing the kernel log
 * (lib/klog.h), as busybox dmesg does.  The console-level actions are
 * accepted and change nothing (the console prints everything, or nothing
 * but faults with the "quiet" boot word).  The blocking read (action 2)
 * is not offered: EINVAL, the same as an unknown action.  As Linux with
 * dmesg_restrict 0 (its default), anyone may read the whole log and its
 * size; every other action needs CAP_SYSLOG or CAP_SYS_ADMIN (EPERM,
 * before any other check).
 */
#include "arch/x86_64/uaccess.h"
#include "lib/klog.h"
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
	case SYSLOG_ACTION_READ_ALL:
		return read_log(ubuf, len, false);
	case SYSLOG_ACTION_READ_CLEAR:
		return read_log(ubuf, len, true);
	case SYSLOG_ACTION_CLEAR:
		klog_clear();
		return 0;
	case SYSLOG_ACTION_CONSOLE_OFF:
	case SYSLOG_ACTION_CONSOLE_ON:
		return 0;
	case SYSLOG_ACTION_CONSOLE_LEVEL:
		return len < 1 || len > 8 ? -EINVAL : 0;
	case SYSLOG_ACTION_SIZE_UNREAD:
		return klog_used();
	case SYSLOG_ACTION_SIZE_BUFFER:
		return KLOG_SIZE;
	default:
		return -EINVAL;
	}
}
