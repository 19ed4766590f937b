/*
 * The kernel log: the last KLOG_SIZE bytes printk wrote, kept in a ring so
 * that syslog(2) (and busybox dmesg) can read them after they scrolled
 * past on the serial console.
 */
#ifndef LIB_KLOG_H
#define LIB_KLOG_H

#include <stddef.h>

#define KLOG_SIZE (16 * 1024)

/* Appends len bytes (printk, after writing them to the console). */
void klog_append(const char *s, size_t len);
/* Copies the newest min(len, bytes held) bytes into dst; returns how many. */
size_t klog_read_all(char *dst, size_t len);
/* Bytes held (at most KLOG_SIZE). */
size_t klog_used(void);
/* Forgets everything held (SYSLOG_ACTION_CLEAR). */
void klog_clear(void);

#endif
