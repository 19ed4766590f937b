/*
 * sysfs: /sys, the kernel's device model as files.  Drivers add their
 * entries at boot (drivers/pci/pci_sysfs.c), before any user task runs;
 * then sysfs_seal makes the instance read-only for good.  Attribute files
 * are regular files holding the value as it stands once the driver has
 * probed (devices are found once and never change afterwards); the
 * sysfs_dyn_* calls serve what does change (block/block_sysfs.c).
 */
#ifndef FS_SYSFS_H
#define FS_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* path is absolute ("/sys/..."); parents exist.  0 or -errno. */
int sysfs_mkdir(const char *path);
int sysfs_add_file(const char *path, uint32_t perm, const void *data, size_t len);
int sysfs_add_link(const char *path, const char *target);
/* No entry is added by the calls above after this (kmain, once the
 * drivers are probed). */
void sysfs_seal(void);

/*
 * Entries of devices that come and go or change after boot (block/'s
 * disks: a loop device's size, its partitions), made under the kernel's
 * own hand whether sealed or not.  rel is relative to /sys ("block/vda");
 * parents exist.  The caller serialises changes of one entry; a reader
 * sees each file's old or new text.  0 or -errno.
 */
int sysfs_dyn_mkdir(const char *rel);
/* Creates the read-only file rel if needed and sets its text. */
int sysfs_dyn_set(const char *rel, const char *text);
/* Removes the directory rel with its files and subdirectories (two
 * levels: a disk and its partitions). */
void sysfs_dyn_remove(const char *rel);
/*
 * Creates the read-only file rel whose text show writes at each read (a
 * value that changes all the time: a disk's I/O statistics), into buf of
 * size bytes; key (a device number, say) is handed back to it.  show
 * returns false when what the file shows is gone: the read is ENODEV, as
 * Linux's for a removed attribute.
 */
typedef bool (*sysfs_show_fn)(uint32_t key, char *buf, size_t size);
int sysfs_dyn_show(const char *rel, sysfs_show_fn show, uint32_t key);

#endif
