/*
 * Pending signals with their information, as Linux's struct sigpending:
 * a set of pending signal numbers and a queue of instances in the order
 * they were sent.  A standard signal (1..31) is pending at most once, its
 * later sends merged into the first; a real-time signal (32..64) is
 * queued once per send, so several instances are all delivered, in
 * order, each with its own information.
 *
 * An instance costs one allocation, counted against the receiving
 * process's RLIMIT_SIGPENDING (all processes together: they are one
 * user, as Linux counts per user).  Past it a real-time signal sent with
 * information (sigqueue, tgkill, a timer) fails with EAGAIN; a standard
 * signal, or any kill(), is still made pending without its information
 * (Linux's rule).  A POSIX timer's signal uses the timer's own entry.
 */
#ifndef PROC_SIGQUEUE_H
#define PROC_SIGQUEUE_H

#include <stdbool.h>
#include <stdint.h>
#include "lib/list.h"

#define SIGRTMIN_K 32 /* the first real-time signal (the kernel's SIGRTMIN) */

/* si_code values (Linux). */
#define SI_USER	    0
#define SI_KERNEL   0x80
#define SI_QUEUE    (-1) /* sigqueue, rt_sigqueueinfo */
#define SI_TIMER    (-2) /* a POSIX timer */
#define SI_MESGQ    (-3)
#define SI_ASYNCIO  (-4)
#define SI_SIGIO    (-5)
#define SI_TKILL    (-6) /* tkill, tgkill */
#define SEGV_MAPERR 1
#define SEGV_ACCERR 2
#define BUS_ADRALN  1
#define BUS_ADRERR  2
#define ILL_ILLOPN  2
#define FPE_INTDIV  1
#define TRAP_BRKPT  1
#define TRAP_TRACE  2
#define POLL_IN	    1 /* SIGIO and F_SETSIG signals (fs/fasync.c) */
#define POLL_OUT    2
#define POLL_MSG    3
#define POLL_ERR    4
#define POLL_PRI    5
#define POLL_HUP    6

/*
 * What a receiver learns of one instance: Linux's kernel_siginfo after
 * si_signo, so the union's 32 bytes sit where siginfo_t has them (offset
 * 16) and are copied as they are.  Which view is meaningful follows from
 * the signal and code (sigqueue.c, siginfo_layout).
 */
struct sig_info {
	int32_t code;
	int32_t err; /* si_errno */
	union {
		uint8_t raw[32];
		struct {	      /* SI_USER, SI_TKILL, SI_QUEUE, real-time */
			int32_t pid;  /* the sender's process */
			uint32_t uid; /* the sender's real uid */
			uint64_t value;
		} kill;
		struct { /* SI_TIMER */
			int32_t tid;
			int32_t overrun;
			uint64_t value;
		} timer;
		struct { /* SIGCHLD */
			int32_t pid;
			uint32_t uid;
			int32_t status;
			int32_t pad;
			int64_t utime, stime;
		} chld;
		struct { /* faults: SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP */
			uint64_t addr;
		} fault;
		struct {	      /* POLL_* codes: signal-driven I/O */
			int64_t band; /* si_band: the POLL* events */
			int32_t fd;   /* si_fd */
		} poll;
	};
};

/* One pending instance.  Lifetime: on a queue (its group's siglock)
 * until taken; then freed, unless it is a timer's (SIGQ_TIMER), which
 * belongs to its POSIX timer and only leaves the queue. */
struct sigpending;
struct sigqueue {
	struct list_head link;
	struct sigpending *on; /* a timer's entry: the queue it is on (SIGQ_QUEUED) */
	int sig;
	unsigned int flags;
	struct sig_info info;
};
#define SIGQ_TIMER  1u /* a POSIX timer's entry (proc/posix_timer.c) */
#define SIGQ_QUEUED 2u /* on a queue now (timer entries: siglock) */

/* A thread's or a process's pending signals.  The set is read without a
 * lock (atomic: the return to user mode tests it); set and queue are
 * written under the group's siglock (proc/group.h). */
struct sigpending {
	uint64_t set;
	struct list_head queue;
};

void sigpending_init(struct sigpending *p);
/*
 * Makes sig pending on p with info (siglock held): 0 (pending, with its
 * information or without it), or -EAGAIN for a real-time signal with
 * information that finds no room under limit (RLIMIT_SIGPENDING).
 */
int sigpending_queue_locked(struct sigpending *p, int sig, const struct sig_info *info,
			    uint64_t limit);
/* Queues a timer's own entry q, `missed` periods late (siglock held):
 * false if it was queued already, and then this expiry and the missed
 * periods are added to its overrun. */
bool sigpending_queue_timer_locked(struct sigpending *p, struct sigqueue *q, int missed);
/* Charges one timer's entry to the queued count within limit: 0 or
 * -EAGAIN (timer_create); uncharged when the timer is deleted. */
int sigqueue_charge(uint64_t limit);
void sigqueue_uncharge(void);
/* Takes the lowest pending signal of mask, its first instance (siglock
 * held): the signal, its information in *info; 0 if none. */
int sigpending_take_locked(struct sigpending *p, uint64_t mask, struct sig_info *info);
/* Drops every instance of the signals of set (siglock held). */
void sigpending_discard_locked(struct sigpending *p, uint64_t set);
/* Takes a timer's entry off whatever queue holds it (siglock held). */
void sigqueue_unqueue_locked(struct sigqueue *q);
/* Which view of sig_info a signal and code use (Linux's siginfo_layout,
 * for signalfd's record, which spells each field out). */
enum sig_layout { SIL_KILL, SIL_TIMER, SIL_POLL, SIL_FAULT, SIL_CHLD, SIL_RT };
enum sig_layout siginfo_layout(int sig, int code);
/* Instances queued now plus the POSIX timers' own entries (charged at
 * timer_create), every process's: what RLIMIT_SIGPENDING bounds, and the
 * leak check's count. */
unsigned long sigqueue_count(void);

#endif
