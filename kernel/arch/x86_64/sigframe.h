/*
 * Signal frames on the user stack, in Linux x86_64's rt_sigframe layout
 * (so SA_SIGINFO handlers and debuggers read what they expect).
 */
#ifndef ARCH_SIGFRAME_H
#define ARCH_SIGFRAME_H

#include <stdint.h>
#include "arch/x86_64/trapframe.h"

struct uapi_sigaction;
struct sig_info;

/* The most a signal frame takes of a stack (AT_MINSIGSTKSZ). */
uint64_t sigframe_size(void);
/* Saves tf, the FPU state and old_mask on the user stack and points tf at
 * the handler.  0, or -EFAULT if the stack cannot take the frame. */
int sigframe_setup(struct trapframe *tf, int sig, const struct uapi_sigaction *act,
		   const struct sig_info *info, uint64_t old_mask);

/* rt_sigreturn: restores registers, FPU state and the mask saved in the
 * frame at tf->rsp.  0, or -EFAULT for an unreadable frame. */
int sigframe_restore(struct trapframe *tf, uint64_t *mask);

/* Writes sig's 128-byte siginfo_t (what a SA_SIGINFO handler gets) to
 * uinfo: 0 or -EFAULT.  rt_sigtimedwait, signalfd. */
int siginfo_to_user(void *uinfo, int sig, const struct sig_info *info);
/* The same 128 bytes into kernel memory (a core's NT_SIGINFO). */
void siginfo_fill(void *si128, int sig, const struct sig_info *info);

#endif
