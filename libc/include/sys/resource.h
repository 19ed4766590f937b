/*
 * Resource limits and usage.  Replaces newlib's <sys/resource.h>, which has
 * only a two-field struct rusage: this one has Linux's layouts.
 */
#ifndef _SYS_RESOURCE_H_
#define _SYS_RESOURCE_H_

#include <sys/time.h>
#include <sys/types.h>
#include <uapi/resource.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint64_t rlim_t;

#define RUSAGE_SELF	0
#define RUSAGE_CHILDREN (-1)

struct rusage {
	struct timeval ru_utime; /* user time used */
	struct timeval ru_stime; /* system time used */
	long ru_maxrss, ru_ixrss, ru_idrss, ru_isrss, ru_minflt, ru_majflt, ru_nswap;
	long ru_inblock, ru_oublock, ru_msgsnd, ru_msgrcv, ru_nsignals, ru_nvcsw, ru_nivcsw;
};

int getrlimit(int resource, struct rlimit *rlim);
int setrlimit(int resource, const struct rlimit *rlim);
int prlimit(pid_t pid, int resource, const struct rlimit *new_limit, struct rlimit *old_limit);
int getrusage(int who, struct rusage *usage);

#ifdef __cplusplus
}
#endif
#endif
