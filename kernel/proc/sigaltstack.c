/*
 * sigaltstack: the per-thread alternate signal stack, chosen for
 * SA_ONSTACK handlers by the frame builder (arch/x86_64/sigframe.c).
 * Linux's rules: changing it while running on it is EPERM; a stack under
 * MINSIGSTKSZ is ENOMEM; SS_AUTODISARM drops it while a handler runs.
 */
#include "proc/sigaltstack.h"
#include "arch/x86_64/uaccess.h"
#include "proc/task.h"
#include "sys/syscall.h"
#include <uapi/errno.h>

#define RED_ZONE 128 /* below a user rsp the x86_64 ABI lets code use */

/* True if sp lies on t's alternate stack (the stack grows down from
 * sp + size).  Never, for an SS_AUTODISARM stack: it may be re-armed by a
 * handler running on it. */
static bool on_altstack(const struct task *t, uint64_t sp)
{
	const struct sig_altstack *a = &t->sig.altstack;

	if (a->flags & UAPI_SS_AUTODISARM)
		return false;
	return sp > a->sp && sp - a->sp <= a->size;
}

/* The mode sigaltstack reports at sp: SS_DISABLE, SS_ONSTACK or 0. */
static int32_t altstack_mode(const struct task *t, uint64_t sp)
{
	if (!t->sig.altstack.size)
		return UAPI_SS_DISABLE;
	return on_altstack(t, sp) ? UAPI_SS_ONSTACK : 0;
}

struct uapi_stack altstack_saved(const struct task *t)
{
	const struct sig_altstack *a = &t->sig.altstack;

	return (struct uapi_stack){
	    .ss_sp = a->sp,
	    .ss_size = a->size,
	    .ss_flags = (int32_t)(a->flags | (a->size ? 0 : UAPI_SS_DISABLE)),
	};
}

uint64_t altstack_frame_top(const struct task *t, uint64_t act_flags, uint64_t sp,
			    uint64_t frame_size)
{
	bool was_on = on_altstack(t, sp);
	uint64_t top = sp - RED_ZONE;

	if ((act_flags & UAPI_SA_ONSTACK) && altstack_mode(t, top) == 0)
		top = t->sig.altstack.sp + t->sig.altstack.size;
	if (was_on && (top < frame_size || !on_altstack(t, top - frame_size)))
		return (uint64_t)-1;
	return top;
}

void altstack_handler_started(struct task *t)
{
	if (t->sig.altstack.flags & UAPI_SS_AUTODISARM)
		t->sig.altstack = (struct sig_altstack){0};
}

int altstack_set(struct task *t, const struct uapi_stack *ss, uint64_t sp)
{
	uint32_t mode = (uint32_t)ss->ss_flags & ~UAPI_SS_AUTODISARM;
	struct sig_altstack a = {ss->ss_sp, ss->ss_size, (uint32_t)ss->ss_flags};

	if (on_altstack(t, sp))
		return -EPERM;
	if (mode != 0 && mode != UAPI_SS_ONSTACK && mode != UAPI_SS_DISABLE)
		return -EINVAL;
	if (mode == UAPI_SS_DISABLE)
		a.sp = a.size = 0;
	else if (a.size < UAPI_MINSIGSTKSZ)
		return -ENOMEM;
	t->sig.altstack = a;
	return 0;
}

SYSCALL_DEFINE2(sigaltstack, const struct uapi_stack *, uss, struct uapi_stack *, uoss)
{
	struct task *t = current();
	uint64_t sp = t->tf->rsp;
	struct uapi_stack ss, old = altstack_saved(t);
	int err = 0;

	old.ss_flags = altstack_mode(t, sp) | (int32_t)(t->sig.altstack.flags & UAPI_SS_AUTODISARM);
	if (uss && copy_from_user(&ss, uss, sizeof(ss)))
		return -EFAULT;
	if (uss)
		err = altstack_set(t, &ss, sp);
	/* As Linux: a new stack is kept even when the old cannot be written. */
	if (!err && uoss && copy_to_user(uoss, &old, sizeof(old)))
		err = -EFAULT;
	return err;
}
