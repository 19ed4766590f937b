/*
 * eventfd(2) and eventfd2(2) flags: Linux x86_64 values (the open flags'
 * bits, numeric since user space sees newlib's O_* values), plus
 * EFD_CLOFORK, fdkernel's, on O_CLOFORK's bit as SOCK_CLOFORK is.  Shared
 * by the kernel and libc/.
 */
#ifndef UAPI_EVENTFD_H
#define UAPI_EVENTFD_H

#define EFD_SEMAPHORE 1
#define EFD_NONBLOCK  00004000
#define EFD_CLOEXEC   02000000
#define EFD_CLOFORK   040000000 /* fdkernel: the new fd is close-on-fork */

#endif
