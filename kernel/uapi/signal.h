/*
 * Signal numbers: Linux x86_64 values, shared by kernel and libc/.  An
 * X-macro list so libc/ can translate newlib's numbering by name.
 */
#ifndef UAPI_SIGNAL_H
#define UAPI_SIGNAL_H

/* X(name, Linux value) */
#define UAPI_SIGNAL_LIST(X) \
	X(SIGHUP, 1) \
	X(SIGINT, 2) \
	X(SIGQUIT, 3) \
	X(SIGILL, 4) \
	X(SIGTRAP, 5) \
	X(SIGABRT, 6) \
	X(SIGBUS, 7) \
	X(SIGFPE, 8) \
	X(SIGKILL, 9) \
	X(SIGUSR1, 10) \
	X(SIGSEGV, 11) \
	X(SIGUSR2, 12) \
	X(SIGPIPE, 13) \
	X(SIGALRM, 14) \
	X(SIGTERM, 15) \
	X(SIGSTKFLT, 16) \
	X(SIGCHLD, 17) \
	X(SIGCONT, 18) \
	X(SIGSTOP, 19) \
	X(SIGTSTP, 20) \
	X(SIGTTIN, 21) \
	X(SIGTTOU, 22) \
	X(SIGURG, 23) \
	X(SIGXCPU, 24) \
	X(SIGXFSZ, 25) \
	X(SIGVTALRM, 26) \
	X(SIGPROF, 27) \
	X(SIGWINCH, 28) \
	X(SIGIO, 29) \
	X(SIGPWR, 30) \
	X(SIGSYS, 31)

#define UAPI_NSIG 64 /* signals 1..64; sigset_t is 64 bits */

#ifndef UAPI_NO_SIGNAL_NAMES
enum uapi_signal {
#define UAPI_SIGNAL_ENUM(name, value) name = value,
	UAPI_SIGNAL_LIST(UAPI_SIGNAL_ENUM)
#undef UAPI_SIGNAL_ENUM
};
#endif

#endif
