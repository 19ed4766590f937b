/* /proc/config.gz (sys/kconfig.c): the kernel's configuration. */
#ifndef SYS_KCONFIG_H
#define SYS_KCONFIG_H

extern const struct file_ops config_gz_ops;

#endif
