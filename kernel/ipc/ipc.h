/*
 * System V IPC (kernel/ipc/, docs/ipc.md): what the rest of the kernel
 * sees of it.  Segments, semaphore sets and message queues live in a
 * registry per kind of their ipc namespace (ipc/ids.h) until removed;
 * an attach is a mapping (mm/vma.h's vma_ops), undo lists belong to
 * processes.
 */
#ifndef IPC_IPC_H
#define IPC_IPC_H

#include <stdbool.h>

/* The initial namespace's registries (kmain, before any process). */
void ipc_init(void);

/* Live objects of every namespace, for the leak check: segments,
 * semaphore sets, undo structures, message queues, bytes of queued
 * messages. */
unsigned long shm_segment_count(void);
unsigned long sem_set_count(void);
unsigned long sem_undo_count(void);
unsigned long msg_queue_count(void);
unsigned long msg_queued_bytes(void);

/* /proc/sysvipc/shm, sem and msg. */
struct file_ops;
extern const struct file_ops sysvipc_shm_ops, sysvipc_sem_ops, sysvipc_msg_ops;

/*
 * A clone's semaphore undo list: the parent's shared with CLONE_SYSVSEM
 * (made first if it has none), else none.  0 or -ENOMEM.
 */
struct task;
int sem_undo_fork(struct task *child, struct task *parent, bool share);
/* t exits or unshares CLONE_SYSVSEM: it drops its undo list; the last
 * user applies the undos, as Linux's exit_sem. */
void sem_undo_exit(struct task *t);

#endif
