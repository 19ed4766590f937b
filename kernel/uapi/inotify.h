/*
 * inotify(7): Linux x86_64 event bits, inotify_add_watch flags,
 * inotify_init1 flags (the open flags' bits, numeric since user space sees
 * newlib's O_* values) plus IN_CLOFORK, fdkernel's, on O_CLOFORK's bit as
 * EFD_CLOFORK is, and the event record read(2) returns.  Shared by the
 * kernel and libc/.
 */
#ifndef UAPI_INOTIFY_H
#define UAPI_INOTIFY_H

#include <stdint.h>

#define IN_ACCESS	 0x00000001 /* read */
#define IN_MODIFY	 0x00000002 /* written, truncated */
#define IN_ATTRIB	 0x00000004 /* mode, owner, times, link count */
#define IN_CLOSE_WRITE	 0x00000008 /* a file open for writing closed */
#define IN_CLOSE_NOWRITE 0x00000010 /* a file not open for writing closed */
#define IN_OPEN		 0x00000020
#define IN_MOVED_FROM	 0x00000040 /* a name moved out of the directory */
#define IN_MOVED_TO	 0x00000080 /* a name moved into it */
#define IN_CREATE	 0x00000100
#define IN_DELETE	 0x00000200
#define IN_DELETE_SELF	 0x00000400 /* the watched file or directory is gone */
#define IN_MOVE_SELF	 0x00000800 /* it was renamed */
#define IN_UNMOUNT	 0x00002000 /* never: no mounts */
#define IN_Q_OVERFLOW	 0x00004000 /* events were lost (wd -1) */
#define IN_IGNORED	 0x00008000 /* the watch is gone */
#define IN_CLOSE	 (IN_CLOSE_WRITE | IN_CLOSE_NOWRITE)
#define IN_MOVE		 (IN_MOVED_FROM | IN_MOVED_TO)
#define IN_ALL_EVENTS	 0x00000fff

#define IN_ONLYDIR     0x01000000 /* add_watch: the path must be a directory */
#define IN_DONT_FOLLOW 0x02000000 /* add_watch: a final link is not followed */
#define IN_EXCL_UNLINK 0x04000000 /* no events for children once unlinked */
#define IN_MASK_CREATE 0x10000000 /* add_watch: EEXIST if watched already */
#define IN_MASK_ADD    0x20000000 /* add_watch: add to the mask, not replace it */
#define IN_ISDIR       0x40000000 /* in an event: the subject is a directory */
#define IN_ONESHOT     0x80000000 /* one event, then IN_IGNORED */

#define IN_NONBLOCK 00004000
#define IN_CLOEXEC  02000000
#define IN_CLOFORK  040000000 /* fdkernel: the new fd is close-on-fork */

/* One event as read(2) returns it: len bytes of name follow, NUL-padded
 * to a multiple of sizeof(struct inotify_event) (0 for the watched
 * object itself). */
struct inotify_event {
	int32_t wd;
	uint32_t mask;
	uint32_t cookie; /* pairs IN_MOVED_FROM with its IN_MOVED_TO */
	uint32_t len;
};

#endif
