/*
 * eventfd inside the kernel: what other subsystems signal through an
 * eventfd a process gave them (io_uring's REGISTER_EVENTFD).
 */
#ifndef FS_EVENT_EVENTFD_H
#define FS_EVENT_EVENTFD_H

struct file;

/* Adds 1 to f's counter, waking its readers and pollers; nothing if f is
 * no eventfd or its counter is full. */
void eventfd_signal(struct file *f);

#endif
