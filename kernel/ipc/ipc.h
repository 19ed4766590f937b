/*
 * System V IPC (kernel/ipc/, docs/ipc.md): what the rest of the kernel
 * sees of it.  Segments, semaphore sets and message queues live in a
 * registry per kind (ipc/ids.h) until removed; an attach is a mapping
 * (proc/vma.h's vma_ops), undo lists belong to processes.
 */
#ifndef IPC_IPC_H
#define IPC_IPC_H

/* The registries (kmain, before any process). */
void ipc_init(void);

/* Live objects, for the leak check: segments. */
unsigned long shm_segment_count(void);

/* /proc/sysvipc/shm. */
struct file_ops;
extern const struct file_ops sysvipc_shm_ops;

#endif
