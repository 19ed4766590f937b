/*
 * prctl: the options programs commonly ask at start-up.  PR_SET_NAME and
 * PR_GET_NAME read and change the thread's name (Linux's comm: at most 15
 * bytes shown); PR_GET_DUMPABLE answers 1 and PR_SET_DUMPABLE accepts 0 and
 * 1 (nothing dumps core here).  Any other option is EINVAL, as Linux's
 * answer to an option it does not know.
 */
#include "arch/x86_64/uaccess.h"
#include "lib/string.h"
#include "proc/task.h"
#include "sched/sched.h"
#include "sys/syscall.h"
#include <uapi/errno.h>

#define PR_GET_DUMPABLE 3
#define PR_SET_DUMPABLE 4
#define PR_SET_NAME	15
#define PR_GET_NAME	16
#define TASK_COMM_LEN	16 /* Linux's comm buffer, NUL included */

/* The caller's name becomes the string at uname, cut to 15 bytes.  The
 * name is the task's own; other tasks only print it (a reader racing with
 * this may see a mix of old and new bytes, still NUL-terminated: the
 * last of the 32 bytes is always 0). */
static long set_name(const char *uname)
{
	char comm[TASK_COMM_LEN];
	long n = strncpy_from_user(comm, uname, sizeof(comm));

	if (n < 0 && n != -ENAMETOOLONG) /* a longer name is cut, as Linux */
		return n;
	comm[TASK_COMM_LEN - 1] = '\0';
	memcpy(current()->name, comm, TASK_COMM_LEN);
	return 0;
}

static long get_name(char *uname)
{
	char comm[TASK_COMM_LEN] = {0};

	strlcpy(comm, current()->name, sizeof(comm));
	return copy_to_user(uname, comm, sizeof(comm)) ? -EFAULT : 0;
}

SYSCALL_DEFINE5(prctl, int, option, unsigned long, arg2, unsigned long, arg3, unsigned long, arg4,
		unsigned long, arg5)
{
	(void)arg3, (void)arg4, (void)arg5;
	switch (option) {
	case PR_SET_NAME:
		return set_name((const char *)arg2);
	case PR_GET_NAME:
		return get_name((char *)arg2);
	case PR_GET_DUMPABLE:
		return 1;
	case PR_SET_DUMPABLE:
		return arg2 <= 1 ? 0 : -EINVAL;
	default:
		return -EINVAL;
	}
}
