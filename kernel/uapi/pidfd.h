/*
 * pidfd_open(2) flags: Linux x86_64 values (O_NONBLOCK's bit, numeric since
 * user space sees newlib's O_* values).  Shared by the kernel and libc/.
 */
#ifndef UAPI_PIDFD_H
#define UAPI_PIDFD_H

#define PIDFD_NONBLOCK 00004000

/* pidfd_send_signal(2) flags (Linux 6.9): whom the signal is for. */
#define PIDFD_SIGNAL_THREAD	   (1U << 0) /* the thread whose tid is the pid */
#define PIDFD_SIGNAL_THREAD_GROUP  (1U << 1) /* the process (the default) */
#define PIDFD_SIGNAL_PROCESS_GROUP (1U << 2) /* the process group of that id */

#endif
