/*
 * fcntl's record-lock commands (fcntl_lock.c), called by sys_fd.c's fcntl.
 */
#ifndef FS_FCNTL_LOCK_H
#define FS_FCNTL_LOCK_H

struct file;

/*
 * F_GETLK, F_SETLK, F_SETLKW and the F_OFD_ ones on f (open as fd) with
 * the struct flock at uarg: 0, -EFAULT for a bad pointer, -EINVAL,
 * -EOVERFLOW, -EBADF (wrong open mode), -EAGAIN, -EDEADLK, -ENOLCK, or
 * -ERESTARTSYS when a signal ends a wait.
 */
long fcntl_lock(struct file *f, int fd, unsigned int cmd, void *uarg);

#endif
