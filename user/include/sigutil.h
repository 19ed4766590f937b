/* Raw Linux signal calls for the sig_* and ind_* tests: Linux numbers and
 * masks, SA_SIGINFO handlers and our own restorer, which newlib's sigaction
 * cannot express; the same binaries run on fdkernel and on the host Linux. */
#ifndef USER_SIGUTIL_H
#define USER_SIGUTIL_H

#include <fdkernel.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#define UAPI_NO_SIGNAL_NAMES
#include <uapi/signal.h>

#include "testutil.h"

/* Linux signal numbers as LSIGUSR1 ... (newlib's SIGUSR1 differs). */
enum {
#define LSIG_ENUM(name, value) L##name = value,
	UAPI_SIGNAL_LIST(LSIG_ENUM)
#undef LSIG_ENUM
};

/* The mask bit of Linux signal SIG. */
#define LBIT(sig) (1UL << ((sig)-1))

#define LSI_USER 0 /* si_code of a kill() */

/* Linux's x86_64 siginfo_t, the fields the tests read. */
struct lsiginfo {
	int32_t si_signo, si_errno, si_code, pad;
	union {
		struct {
			int32_t pid;
			uint32_t uid;
		} kill;
		uint64_t addr;
		uint8_t bytes[112];
	};
};

typedef void (*lhandler_t)(int sig);
typedef void (*linfo_handler_t)(int sig, struct lsiginfo *info, void *uc);

/* Handlers return here: rt_sigreturn (x86_64 requires SA_RESTORER). */
void sigutil_restorer(void);
__asm__(".text\n"
	".globl sigutil_restorer\n"
	".type sigutil_restorer, @function\n"
	"sigutil_restorer:\n"
	"	mov $15, %eax\n"
	"	syscall\n"
	"	hlt\n");

/* rt_sigaction for Linux signal SIG: HANDLER (a function, SIG_DFL 0 or
 * SIG_IGN 1) with UAPI_SA_* FLAGS and MASK blocked while it runs.  Returns
 * 0, or -1 with errno. */
static inline long lsig_action(int sig, uint64_t handler, uint64_t flags, uint64_t mask)
{
	struct uapi_sigaction act = {handler, flags | UAPI_SA_RESTORER, (uint64_t)sigutil_restorer,
				     mask};

	return syscall(__NR_rt_sigaction, sig, &act, NULL, 8);
}

/* A plain handler with FLAGS and nothing extra blocked. */
static inline long lsig_handle(int sig, lhandler_t fn, uint64_t flags)
{
	return lsig_action(sig, (uint64_t)fn, flags, 0);
}

/* An SA_SIGINFO handler with FLAGS. */
static inline long lsig_handle_info(int sig, linfo_handler_t fn, uint64_t flags)
{
	return lsig_action(sig, (uint64_t)fn, flags | UAPI_SA_SIGINFO, 0);
}

/* rt_sigprocmask with Linux's how and a 64-bit mask; *old gets the
 * previous mask when old is not NULL. */
static inline long lsig_procmask(int how, uint64_t set, uint64_t *old)
{
	return syscall(__NR_rt_sigprocmask, how, &set, old, 8);
}

/* The blocked set now. */
static inline uint64_t lsig_blocked(void)
{
	uint64_t old = 0;

	syscall(__NR_rt_sigprocmask, UAPI_SIG_BLOCK, NULL, &old, 8);
	return old;
}

/* The pending set now (of the blocked signals). */
static inline uint64_t lsig_pending(void)
{
	uint64_t set = 0;

	syscall(__NR_rt_sigpending, &set, 8);
	return set;
}

static inline long lsig_kill(pid_t pid, int sig)
{
	return syscall(__NR_kill, pid, sig);
}

/* Forks a child that sends SIG to the caller and exits; returns once the
 * child is reaped, so the signal is pending (or was delivered) by then. */
static inline bool lsig_from_child(int sig)
{
	pid_t parent = getpid(), pid;
	int status;

	fflush(stdout);
	if ((pid = fork()) == 0)
		_exit(lsig_kill(parent, sig) == 0 ? 0 : 1);
	return pid > 0 && waitpid(pid, &status, 0) == pid && exited_with(status, 0);
}

/* Forks a child that sends SIG to the caller every INTERVAL ms until it is
 * killed; returns its pid.  Stop it with lsig_stop_sender(). */
static inline pid_t lsig_sender(int sig, long interval)
{
	pid_t parent = getpid(), pid;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		for (;;) {
			sleep_ms(interval);
			lsig_kill(parent, sig);
		}
	}
	return pid;
}

static inline void lsig_stop_sender(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

#endif
