/* clone(2) flags and the scheduling policies: Linux x86_64 values. */
#ifndef UAPI_SCHED_H
#define UAPI_SCHED_H

#define CSIGNAL		     0x000000ffUL /* the exit signal, in the low byte */
#define CLONE_VM	     0x00000100UL
#define CLONE_FS	     0x00000200UL
#define CLONE_FILES	     0x00000400UL
#define CLONE_SIGHAND	     0x00000800UL
#define CLONE_PIDFD	     0x00001000UL
#define CLONE_PTRACE	     0x00002000UL
#define CLONE_VFORK	     0x00004000UL
#define CLONE_PARENT	     0x00008000UL
#define CLONE_THREAD	     0x00010000UL
#define CLONE_NEWNS	     0x00020000UL
#define CLONE_SYSVSEM	     0x00040000UL
#define CLONE_SETTLS	     0x00080000UL
#define CLONE_PARENT_SETTID  0x00100000UL
#define CLONE_CHILD_CLEARTID 0x00200000UL
#define CLONE_DETACHED	     0x00400000UL
#define CLONE_UNTRACED	     0x00800000UL
#define CLONE_CHILD_SETTID   0x01000000UL
#define CLONE_NEWCGROUP	     0x02000000UL
#define CLONE_NEWUTS	     0x04000000UL
#define CLONE_NEWIPC	     0x08000000UL
#define CLONE_NEWUSER	     0x10000000UL
#define CLONE_NEWPID	     0x20000000UL
#define CLONE_NEWNET	     0x40000000UL
#define CLONE_IO	     0x80000000UL

/* Scheduling policies (sched_setscheduler, sched_setattr): Linux's. */
#define SCHED_OTHER	    0
#define SCHED_FIFO	    1
#define SCHED_RR	    2
#define SCHED_BATCH	    3
#define SCHED_IDLE	    5
#define SCHED_DEADLINE	    6
#define SCHED_RESET_ON_FORK 0x40000000

/* clone3 and unshare only (clone's low byte is the exit signal); refused */
#define CLONE_NEWTIME 0x00000080UL

#endif
