/*
 * Signals, first stage: sending, pending sets and the default actions
 * (terminate or ignore).  Handlers, masks and sigreturn come with the
 * signals issue; the interfaces here stay.
 */
#ifndef PROC_SIGNAL_H
#define PROC_SIGNAL_H

#include <stdbool.h>
#include "arch/x86_64/trapframe.h"

struct task;

/* Marks sig pending on t and wakes t if it sleeps.  sig in 1..64. */
void signal_send(struct task *t, int sig);
bool signal_is_pending(struct task *t);
/* kill(-1, sig): every process but init and the caller; -ESRCH if none. */
int signal_broadcast(int sig);
/* On the way back to user mode: act on pending signals (may not return). */
void signal_deliver(struct trapframe *tf);
/* A user-mode fault: the current task gets sig (and dies by default). */
void signal_force_fault(struct trapframe *tf, int sig);

#endif
