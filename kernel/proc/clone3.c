/*
 * clone3: clone's arguments in a versioned structure (Linux 5.3+).  This
 * file reads and checks the structure as Linux does, then hands the
 * request to do_clone (clone.c).
 */
#include "arch/x86_64/uaccess.h"
#include "lib/string.h"
#include "mm/layout.h"
#include "proc/clone.h"
#include "sys/syscall.h"
#include "proc/pid_ns.h"
#include <uapi/errno.h>
#include <uapi/sched.h>
#include <uapi/signal.h>

#define CLONE_ARGS_SIZE_VER0 64 /* up to tls */
#define CLONE_LEGACY_FLAGS   0xffffffffULL
#define CLONE_CLEAR_SIGHAND  0x100000000ULL
#define CLONE_INTO_CGROUP    0x200000000ULL

/* struct clone_args (Linux's VER2 layout, 88 bytes). */
struct clone_args_k {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
	uint64_t set_tid, set_tid_size, cgroup;
};

/* Copies size bytes of clone_args, whose newer versions may be larger:
 * 0, -EINVAL (older than version 0), -E2BIG or -EFAULT. */
static int copy_clone_args(struct clone_args_k *a, const char *uargs, size_t size)
{
	if (size < CLONE_ARGS_SIZE_VER0)
		return -EINVAL;
	if (size > PAGE_SIZE)
		return -E2BIG;
	return copy_struct_from_user(a, sizeof(*a), uargs, size);
}

/* Linux's checks of the structure, in its order: 0 or -EINVAL.  No
 * cgroups here: asking for one is EINVAL.  set_tid's numbers are
 * checked by the clone (proc/pid_ns.h). */
static int check_clone_args(const struct clone_args_k *a)
{
	if (a->set_tid_size > MAX_PID_NS_LEVEL || (!a->set_tid && a->set_tid_size) ||
	    (a->set_tid && !a->set_tid_size))
		return -EINVAL;
	if ((a->exit_signal & ~CSIGNAL) || a->exit_signal > UAPI_NSIG)
		return -EINVAL;
	if (a->flags & ~(CLONE_LEGACY_FLAGS | CLONE_CLEAR_SIGHAND | CLONE_INTO_CGROUP))
		return -EINVAL;
	if (a->flags & (CLONE_DETACHED | (CSIGNAL & ~CLONE_NEWTIME)))
		return -EINVAL; /* bits clone3 keeps for later */
	if ((a->flags & CLONE_SIGHAND) && (a->flags & CLONE_CLEAR_SIGHAND))
		return -EINVAL;
	if ((a->flags & (CLONE_THREAD | CLONE_PARENT)) && a->exit_signal)
		return -EINVAL;
	if (a->stack ? !a->stack_size || !user_range_ok(a->stack, a->stack_size) : a->stack_size)
		return -EINVAL;
	if (a->flags & CLONE_INTO_CGROUP)
		return -EINVAL;
	return 0;
}

SYSCALL_DEFINE2(clone3, const char *, uargs, size_t, size)
{
	struct clone_args_k a;
	struct clone_req r;
	int set_tid[MAX_PID_NS_LEVEL], err = copy_clone_args(&a, uargs, size);

	if (!err)
		err = check_clone_args(&a);
	if (err)
		return err;
	if (a.set_tid_size &&
	    copy_from_user(set_tid, (const void *)a.set_tid, a.set_tid_size * sizeof(int)))
		return -EFAULT;
	r = (struct clone_req){
	    .flags = (unsigned long)(a.flags & CLONE_LEGACY_FLAGS & ~CSIGNAL) |
		     (unsigned long)a.exit_signal,
	    .stack = a.stack ? a.stack + a.stack_size : 0, /* the top: stacks grow down */
	    .parent_tid = a.parent_tid,
	    .child_tid = a.child_tid,
	    .tls = a.tls,
	    .clear_sighand = a.flags & CLONE_CLEAR_SIGHAND,
	    .pidfd = a.pidfd,
	    .newtime = a.flags & CLONE_NEWTIME,
	    .set_tid = set_tid,
	    .set_tid_size = (int)a.set_tid_size,
	};
	return do_clone(&r);
}
