/*
 * Signal numbers: Linux x86_64 values, shared by kernel and libc/.  An
 * X-macro list so libc/ can translate newlib's numbering by name.
 */
#ifndef UAPI_SIGNAL_H
#define UAPI_SIGNAL_H

#include <stdint.h>

/* X(name, Linux value) */
#define UAPI_SIGNAL_LIST(X)                                                                        \
	X(SIGHUP, 1)                                                                               \
	X(SIGINT, 2)                                                                               \
	X(SIGQUIT, 3)                                                                              \
	X(SIGILL, 4)                                                                               \
	X(SIGTRAP, 5)                                                                              \
	X(SIGABRT, 6)                                                                              \
	X(SIGBUS, 7)                                                                               \
	X(SIGFPE, 8)                                                                               \
	X(SIGKILL, 9)                                                                              \
	X(SIGUSR1, 10)                                                                             \
	X(SIGSEGV, 11)                                                                             \
	X(SIGUSR2, 12)                                                                             \
	X(SIGPIPE, 13)                                                                             \
	X(SIGALRM, 14)                                                                             \
	X(SIGTERM, 15)                                                                             \
	X(SIGSTKFLT, 16)                                                                           \
	X(SIGCHLD, 17)                                                                             \
	X(SIGCONT, 18)                                                                             \
	X(SIGSTOP, 19)                                                                             \
	X(SIGTSTP, 20)                                                                             \
	X(SIGTTIN, 21)                                                                             \
	X(SIGTTOU, 22)                                                                             \
	X(SIGURG, 23)                                                                              \
	X(SIGXCPU, 24)                                                                             \
	X(SIGXFSZ, 25)                                                                             \
	X(SIGVTALRM, 26)                                                                           \
	X(SIGPROF, 27)                                                                             \
	X(SIGWINCH, 28)                                                                            \
	X(SIGIO, 29)                                                                               \
	X(SIGPWR, 30)                                                                              \
	X(SIGSYS, 31)

#define UAPI_NSIG 64 /* signals 1..64; sigset_t is 64 bits */

#ifndef UAPI_NO_SIGNAL_NAMES
enum uapi_signal {
#define UAPI_SIGNAL_ENUM(name, value) name = value,
	UAPI_SIGNAL_LIST(UAPI_SIGNAL_ENUM)
#undef UAPI_SIGNAL_ENUM
};
#endif

/* rt_sigprocmask() `how` (newlib numbers them differently: libc/ maps). */
#define UAPI_SIG_BLOCK	 0
#define UAPI_SIG_UNBLOCK 1
#define UAPI_SIG_SETMASK 2

#define UAPI_SIG_DFL 0UL
#define UAPI_SIG_IGN 1UL

/* sa_flags.  x86_64 requires SA_RESTORER: a handler returns into
 * sa_restorer, which calls rt_sigreturn. */
#define UAPI_SA_NOCLDSTOP 0x00000001UL
#define UAPI_SA_NOCLDWAIT 0x00000002UL
#define UAPI_SA_SIGINFO	  0x00000004UL
#define UAPI_SA_RESTORER  0x04000000UL
#define UAPI_SA_ONSTACK	  0x08000000UL
#define UAPI_SA_RESTART	  0x10000000UL
#define UAPI_SA_NODEFER	  0x40000000UL
#define UAPI_SA_RESETHAND 0x80000000UL

/* The rt_sigaction() argument (sigsetsize 8); sigset bit n-1 is signal n. */
struct uapi_sigaction {
	uint64_t handler;  /* UAPI_SIG_DFL, UAPI_SIG_IGN or a function address */
	uint64_t flags;	   /* UAPI_SA_* */
	uint64_t restorer; /* where the handler returns to */
	uint64_t mask;	   /* blocked while the handler runs */
};

/* sigaltstack()'s stack_t, also the uc_stack of a signal frame. */
struct uapi_stack {
	uint64_t ss_sp;
	int32_t ss_flags; /* UAPI_SS_* */
	int32_t pad;
	uint64_t ss_size;
};
#define UAPI_SS_ONSTACK	   1
#define UAPI_SS_DISABLE	   2
#define UAPI_SS_AUTODISARM (1U << 31) /* disarmed while a handler runs on it */
#define UAPI_MINSIGSTKSZ   2048

#endif
