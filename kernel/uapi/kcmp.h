/*
 * kcmp(2): the kinds of kernel object two processes may be asked whether
 * they share, and KCMP_EPOLL_TFD's slot, Linux x86_64 values.  Semantics:
 * docs/processes.md ("kcmp").
 */
#ifndef UAPI_KCMP_H
#define UAPI_KCMP_H

#include <stdint.h>

#define KCMP_FILE      0 /* the open file descriptions behind two fds */
#define KCMP_VM	       1 /* address spaces */
#define KCMP_FILES     2 /* fd tables */
#define KCMP_FS	       3 /* fs contexts (cwd, root, umask) */
#define KCMP_SIGHAND   4 /* signal handler tables */
#define KCMP_IO	       5 /* I/O contexts */
#define KCMP_SYSVSEM   6 /* System V semaphore undo lists */
#define KCMP_EPOLL_TFD 7 /* a file against a target of an epoll */
#define KCMP_TYPES     8

/* KCMP_EPOLL_TFD's idx2 points at one: the toff-th target registered
 * under fd number tfd in the epoll on fd efd of the second process. */
struct kcmp_epoll_slot {
	uint32_t efd;
	uint32_t tfd;
	uint32_t toff;
};

#endif
