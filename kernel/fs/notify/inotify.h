/*
 * inotify's limits and counts (fs/notify/inotify.c, docs/inotify.md).  The
 * limits are /proc/sys/fs/inotify's (Linux's defaults), one user's
 * (root's), read when an instance is made or a watch added.
 */
#ifndef FS_INOTIFY_H
#define FS_INOTIFY_H

extern int inotify_max_user_instances; /* inotify fds: EMFILE past it */
extern int inotify_max_user_watches;   /* watches: ENOSPC past it */
extern int inotify_max_queued_events;  /* per fd: IN_Q_OVERFLOW past it */

/* Watches and queued events in the system (leak accounting). */
unsigned long inotify_watch_count(void);
unsigned long inotify_event_count(void);

#endif
