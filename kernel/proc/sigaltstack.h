/*
 * The alternate signal stack (sigaltstack): per thread, where SA_ONSTACK
 * handlers run, so a handler can catch a stack overflow.  Linux x86_64
 * semantics: docs/processes.md, "Signals".
 */
#ifndef PROC_SIGALTSTACK_H
#define PROC_SIGALTSTACK_H

#include <stdbool.h>
#include <stdint.h>
#include <uapi/signal.h>

struct task;

/*
 * A thread's alternate stack, own (only the thread itself changes it, or
 * clone before the child runs).  size 0: none (SS_DISABLE), so a zeroed
 * task has none.  flags are the ss_flags it was set with, as Linux keeps
 * them.  fork copies it; a CLONE_VM clone without CLONE_VFORK (a thread)
 * starts without one; exec drops it.
 */
struct sig_altstack {
	uint64_t sp, size;
	uint32_t flags;
};

/* What a signal frame's uc_stack records of t's stack. */
struct uapi_stack altstack_saved(const struct task *t);
/*
 * Where a handler's frame goes below: the top of t's alternate stack if
 * SA_ONSTACK is in act_flags and t is not on it already at sp, else sp
 * less the red zone.  -1 (an address no frame fits under) when sp is on
 * the alternate stack and the frame of frame_size would run off it.
 */
uint64_t altstack_frame_top(const struct task *t, uint64_t act_flags, uint64_t sp,
			    uint64_t frame_size);
/* A handler was set up: an SS_AUTODISARM stack is dropped while it runs. */
void altstack_handler_started(struct task *t);
/* Linux's do_sigaltstack: t's stack becomes ss, as seen from user sp:
 * 0, -EPERM (t runs on its stack), -EINVAL (flags) or -ENOMEM (too
 * small).  sigaltstack and rt_sigreturn (the frame's uc_stack). */
int altstack_set(struct task *t, const struct uapi_stack *ss, uint64_t sp);

#endif
