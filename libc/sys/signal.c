/*
 * Signals on the kernel's rt_sigaction/rt_sigprocmask.  newlib numbers
 * signals its own way, so every handler is entered through dispatch(), which
 * hands the program newlib's number; masks and `how` are translated too.
 * raise() is newlib's (built with SIGNAL_PROVIDED): kill(getpid(), sig).
 */
#include <errno.h>
#include <signal.h>
#include <unistd.h>

#define UAPI_NO_SIGNAL_NAMES
#include <uapi/signal.h>

#include "syscall.h"
#include "translate.h"

/* x86_64 handlers return here (SA_RESTORER); rt_sigreturn never returns. */
void __fdk_sigreturn(void);
__asm__(".text\n"
	".globl __fdk_sigreturn\n"
	".type __fdk_sigreturn, @function\n"
	"__fdk_sigreturn:\n"
	"	mov $15, %eax\n" /* __NR_rt_sigreturn */
	"	syscall\n"
	"	hlt\n");

/* The program's handlers, by newlib signal number. */
static _sig_func_ptr handlers[NSIG];

static void dispatch(int lsig)
{
	int sig = signal_from_linux(lsig);

	handlers[sig](sig);
}

static int is_function(_sig_func_ptr h)
{
	return h != SIG_DFL && h != SIG_IGN;
}

/* sa_flags: newlib's SA_NOCLDSTOP is Linux's; other Linux SA_* bits pass. */
int sigaction(int sig, const struct sigaction *act, struct sigaction *oact)
{
	int lsig = sig > 0 && sig < NSIG ? signal_to_linux(sig) : 0;
	_sig_func_ptr old = lsig ? handlers[sig] : SIG_DFL;
	struct uapi_sigaction lact, loact;
	long ret;

	if (!lsig) {
		errno = EINVAL;
		return -1;
	}
	if (act) {
		lact.handler =
		    is_function(act->sa_handler) ? (uint64_t)dispatch : (uint64_t)act->sa_handler;
		lact.flags = (unsigned)act->sa_flags | UAPI_SA_RESTORER;
		lact.restorer = (uint64_t)__fdk_sigreturn;
		lact.mask = sigset_to_linux(&act->sa_mask);
		handlers[sig] = act->sa_handler;
	}
	ret = sys_call(__NR_rt_sigaction, lsig, act ? &lact : NULL, oact ? &loact : NULL, 8);
	if (ret < 0) {
		handlers[sig] = old;
		return -1;
	}
	if (oact) {
		oact->sa_handler =
		    loact.handler == (uint64_t)dispatch ? old : (_sig_func_ptr)loact.handler;
		oact->sa_flags = loact.flags & ~UAPI_SA_RESTORER;
		sigset_from_linux(&oact->sa_mask, loact.mask);
	}
	return 0;
}

/* BSD semantics, as glibc: interrupted calls restart. */
_sig_func_ptr signal(int sig, _sig_func_ptr handler)
{
	struct sigaction act = {.sa_handler = handler, .sa_flags = UAPI_SA_RESTART}, old;

	sigemptyset(&act.sa_mask);
	return sigaction(sig, &act, &old) < 0 ? SIG_ERR : old.sa_handler;
}

int sigprocmask(int how, const sigset_t *set, sigset_t *oset)
{
	int lhow = sighow_to_linux(how);
	unsigned long lset, loset;

	if (set && lhow < 0) {
		errno = EINVAL;
		return -1;
	}
	if (set)
		lset = sigset_to_linux(set);
	if (sys_call(__NR_rt_sigprocmask, lhow, set ? &lset : NULL, oset ? &loset : NULL, 8) < 0)
		return -1;
	if (oset)
		sigset_from_linux(oset, loset);
	return 0;
}

int sigpending(sigset_t *set)
{
	unsigned long lset;

	if (sys_call(__NR_rt_sigpending, &lset, 8) < 0)
		return -1;
	sigset_from_linux(set, lset);
	return 0;
}

int sigsuspend(const sigset_t *mask)
{
	unsigned long lset = sigset_to_linux(mask);

	return sys_call(__NR_rt_sigsuspend, &lset, 8);
}

int pause(void)
{
	return sys_call(__NR_pause);
}

/* Signal 0 (existence check) is 0 on both sides. */
int kill(pid_t pid, int sig)
{
	int lsig = signal_to_linux(sig);

	if (sig != 0 && !lsig) {
		errno = EINVAL;
		return -1;
	}
	return sys_call(__NR_kill, pid, lsig);
}
