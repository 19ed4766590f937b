/*
 * Resource limits: Linux x86_64 resource numbers and struct rlimit, shared by
 * the kernel and libc/.  RLIMIT_NOFILE bounds the sequential fd area.
 */
#ifndef UAPI_RESOURCE_H
#define UAPI_RESOURCE_H

#include <stdint.h>

#define RLIMIT_CPU    0
#define RLIMIT_FSIZE  1
#define RLIMIT_DATA   2
#define RLIMIT_STACK  3
#define RLIMIT_CORE   4
#define RLIMIT_NPROC  6
#define RLIMIT_NOFILE 7
#define RLIMIT_AS     9
#define RLIM_NLIMITS  16

#define RLIM_INFINITY (~0UL)

struct rlimit {
	uint64_t rlim_cur;
	uint64_t rlim_max;
};

#endif
