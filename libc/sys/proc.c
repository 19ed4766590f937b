/*
 * Processes: exit, fork, execve, the wait family (status translated),
 * identity, resource limits and uname.
 */
#include <errno.h>
#include <fdkernel.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "syscall.h"
#include "translate.h"

void _exit(int status)
{
	for (;;)
		sys_raw(__NR_exit_group, status);
}

pid_t fork(void)
{
	return sys_call(__NR_fork);
}

int execve(const char *path, char *const argv[], char *const envp[])
{
	return sys_call(__NR_execve, path, argv, envp);
}

pid_t wait4(pid_t pid, int *status, int options, struct rusage *usage)
{
	int lstatus;
	long ret = sys_call(__NR_wait4, pid, status ? &lstatus : NULL, options, usage);

	if (ret > 0 && status)
		*status = wait_status_from_linux(lstatus);
	return ret;
}

/* WNOHANG and WUNTRACED have Linux's values in newlib too. */
pid_t waitpid(pid_t pid, int *status, int options)
{
	return wait4(pid, status, options, NULL);
}

pid_t wait(int *status)
{
	return wait4(-1, status, 0, NULL);
}

pid_t getpid(void)
{
	return sys_call(__NR_getpid);
}

pid_t getppid(void)
{
	return sys_call(__NR_getppid);
}

int getrlimit(int resource, struct rlimit *rlim)
{
	return sys_call(__NR_getrlimit, resource, rlim);
}

int setrlimit(int resource, const struct rlimit *rlim)
{
	return sys_call(__NR_setrlimit, resource, rlim);
}

int prlimit(pid_t pid, int resource, const struct rlimit *new, struct rlimit *old)
{
	return sys_call(__NR_prlimit64, pid, resource, new, old);
}

int getrusage(int who, struct rusage *usage)
{
	return sys_call(__NR_getrusage, who, usage);
}

int uname(struct utsname *buf)
{
	return sys_call(__NR_uname, buf);
}

/* For arc4random(); at most 256 bytes, as POSIX says. */
int getentropy(void *buf, size_t len)
{
	if (len > 256) {
		errno = EIO;
		return -1;
	}
	return sys_call(__NR_getrandom, buf, len, 0) < 0 ? -1 : 0;
}
