/*
 * sysfs: /sys, the kernel's device model as files.  Drivers add their
 * entries at boot (drivers/pci/pci_sysfs.c), before any user task runs;
 * then sysfs_seal makes the instance read-only for good.  Attribute files
 * are regular files holding the value as it stands once the driver has
 * probed (devices are found once and never change afterwards).
 */
#ifndef FS_SYSFS_H
#define FS_SYSFS_H

#include <stddef.h>
#include <stdint.h>

/* path is absolute ("/sys/..."); parents exist.  0 or -errno. */
int sysfs_mkdir(const char *path);
int sysfs_add_file(const char *path, uint32_t perm, const void *data, size_t len);
int sysfs_add_link(const char *path, const char *target);
/* No entry is added after this (kmain, once the drivers are probed). */
void sysfs_seal(void);

#endif
