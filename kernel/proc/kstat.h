/* /proc/kstat: the kernel's resource counters for user programs. */
#ifndef PROC_KSTAT_H
#define PROC_KSTAT_H

struct file_ops;

extern const struct file_ops kstat_ops;

#endif
