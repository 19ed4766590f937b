/* I/O priorities (Linux's include/uapi/linux/ioprio.h): a class in the
 * top three bits of 16, a level in the low three.  io_uring's reads and
 * writes take one in sqe->ioprio. */
#ifndef UAPI_IOPRIO_H
#define UAPI_IOPRIO_H

#define IOPRIO_CLASS_SHIFT 13
#define IOPRIO_CLASS_NONE  0
#define IOPRIO_CLASS_RT	   1
#define IOPRIO_CLASS_BE	   2
#define IOPRIO_CLASS_IDLE  3

#endif
