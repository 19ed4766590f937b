/*
 * signalfd(2) and signalfd4(2): files that read the reader's pending
 * signals (signalfd.c).  The system calls are the only way in; the rest
 * of the kernel needs only the clean-up below.
 */
#ifndef FS_SIGNALFD_H
#define FS_SIGNALFD_H

struct thread_group;

/* g is being freed: epolls stop listening on its signalfd queue (their
 * items stay, as the signalfd files may stay open elsewhere). */
void signalfd_group_free(struct thread_group *g);

#endif
