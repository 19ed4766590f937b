/*
 * The ramfs's size limit, as tmpfs's size= option: file data pages are
 * charged against it and a write past it gets ENOSPC.
 */
#ifndef FS_RAMFS_SPACE_H
#define FS_RAMFS_SPACE_H

#include <stdbool.h>
#include <stddef.h>

/* Sets the limit from the command line (ramfs_size=, default half of
 * memory).  Before the initrd is unpacked. */
void ramfs_space_init(void);
/*
 * The limit in pages for a ramfs_size= value s, as tmpfs's size=: bytes
 * with an optional K, M or G, or a percentage of the total frames; 0 means
 * no limit (SIZE_MAX; the frame reserve still applies).  Half of total if s
 * is empty or malformed.
 */
size_t ramfs_limit_pages(const char *s, size_t total);
/* Charges n pages of file data at once: false (ENOSPC) past the limit or
 * when free memory would fall to the frame reserve. */
bool ramfs_charge_pages(size_t n);
/* Gives back n pages charged by ramfs_charge_page. */
void ramfs_uncharge_pages(size_t n);
/* Pages charged now, and the limit (both in pages). */
size_t ramfs_pages_used(void);
size_t ramfs_pages_max(void);

#endif
