/*
 * io_uring for the rest of the kernel: the leak check's count of rings,
 * which files are rings, and a task's registered rings dropped at its
 * exit and exec.  The subsystem's own header is io_uring_int.h.
 */
#ifndef ASYNC_IO_URING_H
#define ASYNC_IO_URING_H

struct file;
struct io_ring;
struct task;

/* f's ring if f is an io_uring file, else NULL. */
struct io_ring *io_ring_of(struct file *f);

/* Live rings (freed when their file and last request are gone). */
unsigned long io_ring_count(void);
/* Registered-file slots of every ring (async/io_uring_files.c). */
unsigned long io_fixed_slot_count(void);
/* Drops t's registered rings (IORING_REGISTER_RING_FDS), at its exit
 * (after async_task_exit, as its files' closing) and its exec. */
void io_uring_task_exit(struct task *t);

/* The process g ends (its last thread exits) or execs: its SQ threads
 * end, waited for (async/io_uring_sqpoll.c; Linux's SQ thread is one of
 * the process's threads, which any other may outlive). */
struct thread_group;
void io_sq_group_exit(struct thread_group *g);
/* Process g dies (proc_lock held): its SQ threads stop and the calls
 * their workers run are interrupted, as Linux's SQ thread, a thread of
 * the process, takes its SIGKILL (async.h). */
void io_sq_group_killed_locked(struct thread_group *g);

#endif
