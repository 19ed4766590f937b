/*
 * io_uring for the rest of the kernel: the leak check's count of rings.
 * The subsystem's own header is io_uring_int.h.
 */
#ifndef ASYNC_IO_URING_H
#define ASYNC_IO_URING_H

/* Live rings (freed when their file and last request are gone). */
unsigned long io_ring_count(void);
/* Registered-file slots of every ring (async/io_uring_files.c). */
unsigned long io_fixed_slot_count(void);

#endif
