/*
 * BSD file locks (flock): advisory, whole-file, shared or exclusive, held
 * by an open file description, so dup'd and inherited fds share them.
 */
#ifndef FS_FLOCK_H
#define FS_FLOCK_H

struct file;

/* The last reference to f is going: its lock, if any, is released and
 * waiters woken (file_put). */
void flock_release(struct file *f);
/* Locks currently held (leak accounting). */
unsigned long flock_count(void);

#endif
