/*
 * Resource limits: Linux x86_64 resource numbers and struct rlimit, shared by
 * the kernel and libc/.  RLIMIT_NOFILE bounds the sequential fd area.
 */
#ifndef UAPI_RESOURCE_H
#define UAPI_RESOURCE_H

#include <stdint.h>

#define RLIMIT_CPU	  0
#define RLIMIT_FSIZE	  1
#define RLIMIT_DATA	  2
#define RLIMIT_STACK	  3
#define RLIMIT_CORE	  4
#define RLIMIT_NPROC	  6
#define RLIMIT_RSS	  5
#define RLIMIT_NOFILE	  7
#define RLIMIT_MEMLOCK	  8
#define RLIMIT_AS	  9
#define RLIMIT_LOCKS	  10
#define RLIMIT_SIGPENDING 11
#define RLIMIT_MSGQUEUE	  12
#define RLIMIT_NICE	  13
#define RLIMIT_RTPRIO	  14
#define RLIMIT_RTTIME	  15
#define RLIM_NLIMITS	  16

#define RLIM_INFINITY (~0UL)

/* getpriority/setpriority: which, and the nice range. */
#define PRIO_PROCESS 0 /* who: a thread id (0: the caller) */
#define PRIO_PGRP    1 /* who: a process group (0: the caller's) */
#define PRIO_USER    2 /* who: a user id (0: the caller's) */
#define NICE_MIN     (-20)
#define NICE_MAX     19

struct rlimit {
	uint64_t rlim_cur;
	uint64_t rlim_max;
};

#endif
