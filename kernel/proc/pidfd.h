/*
 * pidfds (docs/pidfd.md): fds that name a process by its identity, not
 * its number.  The thread-group side: what exit, the reap and group_free
 * tell the identity a pidfd holds.
 */
#ifndef PROC_PIDFD_H
#define PROC_PIDFD_H

#include <stdbool.h>

struct thread_group;
struct pid_ident;

/* g's state changed to GROUP_ZOMBIE or GROUP_DEAD (proc_lock held):
 * pidfds of it become readable, and once it is reaped they stop naming
 * it. */
void pidfd_group_state_locked(struct thread_group *g);
/* group_free: the group's identity, if any, stops pointing at it (no
 * lock held). */
void pidfd_group_free(struct thread_group *g);

/* waitid(P_PIDFD): the identity fd holds, referenced, in *out, and
 * whether its file is O_NONBLOCK: 0 or -EBADF (no fd, not a pidfd). */
int pidfd_ident_of_fd(int fd, struct pid_ident **out, bool *nonblock);
void pid_ident_put(struct pid_ident *id);
struct file;
/* setns: the pid of the process pidfd f names, -ESRCH once it is
 * reaped, -EBADF when f is no pidfd. */
int pidfd_file_pid(struct file *f);
/* /proc/<pid> (fs/proc/proc_pid.c): the identity of process pid,
 * referenced, in *out: 0, -ESRCH (none, or reaped), -ENOENT (a thread's
 * id), -ENOMEM. */
int pid_ident_find(int pid, struct pid_ident **out);
/* Whether id's process is not reaped yet (no lock: it may be at once). */
bool pid_ident_alive(const struct pid_ident *id);
/* Whether g is the process id names (proc_lock held): false once reaped. */
bool pid_ident_is_locked(const struct pid_ident *id, const struct thread_group *g);

/* clone(CLONE_PIDFD): a new pidfd for the new process g (not yet
 * running; proc_lock not held), the fd reserved close-on-exec: the fd
 * or -errno; pidfd_clone_install() installs it once the child exists,
 * pidfd_clone_cancel() gives it back if clone fails. */
int pidfd_clone_reserve(struct file **out);
void pidfd_clone_install(int fd, struct file *f, struct thread_group *g);
void pidfd_clone_cancel(int fd, struct file *f);

/* Identities alive (leak accounting). */
unsigned long pidfd_ident_count(void);

#endif
