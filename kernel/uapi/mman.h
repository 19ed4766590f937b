/*
 * mmap(2) protection and flag bits, Linux x86_64 values, shared by the
 * kernel and libc/.  fdkernel maps anonymous memory only.
 */
#ifndef UAPI_MMAN_H
#define UAPI_MMAN_H

#define PROT_NONE  0x0
#define PROT_READ  0x1
#define PROT_WRITE 0x2
#define PROT_EXEC  0x4
#define PROT_SEM   0x8 /* accepted, means nothing on x86 */

#define MAP_SHARED    0x01
#define MAP_PRIVATE   0x02
#define MAP_FIXED     0x10
#define MAP_ANONYMOUS 0x20
#define MAP_ANON      MAP_ANONYMOUS
#define MAP_NORESERVE 0x4000
#define MAP_STACK     0x20000 /* a hint Linux ignores; glibc's thread stacks pass it */

#define MAP_FAILED ((void *)-1)

#endif
