/*
 * dnotify (fcntl F_NOTIFY; docs/inotify.md, "dnotify"): an open directory
 * asks that its owner be signalled when the directory or its entries
 * change.  The events are inotify's, from the same hooks (fs/notify/fsnotify.h,
 * which call dnotify_event); the signal is signal-driven I/O's
 * (fs/fasync.h: SIGIO, or F_SETSIG's with si_code POLL_MSG and si_fd).
 */
#ifndef FS_DNOTIFY_H
#define FS_DNOTIFY_H

#include <stdbool.h>
#include <stdint.h>
#include "fs/inode.h"

struct file;
struct files_table;

/*
 * An event's internal bit beside the IN_* ones: a name changed within one
 * directory (Linux's FS_RENAME, dnotify's DN_RENAME).  No inotify watch
 * asks for it (it is outside IN_ALL_EVENTS), so inotify never queues it.
 */
#define FSN_RENAME 0x00001000u

/* F_NOTIFY on f, reached through fd: 0 or -errno, as Linux's. */
long dnotify_fcntl(struct file *f, int fd, unsigned int arg);

void __dnotify_event(struct inode *dir, uint32_t mask);

/* An event (IN_* bits, FSN_RENAME, IN_ISDIR) of dir itself or of one of
 * its entries: dir's watchers are signalled.  Called by fs/notify/inotify.c's
 * hooks, with no lock held. */
static inline void dnotify_event(struct inode *dir, uint32_t mask)
{
	if (dir && __atomic_load_n(&dir->dnotify, __ATOMIC_RELAXED))
		__dnotify_event(dir, mask);
}

/* files closed an fd of f: the watch f holds for files goes (Linux's
 * dnotify_flush from filp_close: whichever fd asked). */
void dnotify_close(struct file *f, struct files_table *files);
/* f's last reference is going: every watch it holds goes. */
void dnotify_release(struct file *f);
/* Whether any watch exists (a racy read, as fsnotify_any). */
bool dnotify_any(void);
/* Watches in the system (leak accounting). */
unsigned long dnotify_count(void);

#endif
