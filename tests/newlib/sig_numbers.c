/* libc's signal-mask translation (docs/libc.md): newlib numbers signals
 * differently from Linux, and sigprocmask() and the syscall_indirect()
 * wrapper hand the kernel a mask in Linux's numbering.  Every newlib signal
 * must land on its Linux bit, alone and all together; the mask is read back
 * raw (rt_sigprocmask), so a wrong bit shows.  On the host Linux the
 * syscall_indirect checks skip. */
#include <fdkernel.h>
#include <signal.h>
#include <unistd.h>

#include "indirect.h"
#include "sigutil.h"

/* Linux's number for each newlib signal the tests name (uapi/signal.h). */
static const struct {
	int sig, lsig;
} pairs[] = {
    {SIGHUP, 1},   {SIGQUIT, 3},   {SIGBUS, 7},	  {SIGUSR1, 10}, {SIGUSR2, 12},
    {SIGPIPE, 13}, {SIGALRM, 14},  {SIGCHLD, 17}, {SIGCONT, 18}, {SIGTSTP, 20},
    {SIGURG, 23},  {SIGWINCH, 28}, {SIGIO, 29},	  {SIGSYS, 31},
};
#define NPAIRS (int)(sizeof pairs / sizeof pairs[0])

/* Linux signals 1..31 that a full newlib set blocks: not KILL and STOP (never
 * blocked), not STKFLT and PWR (newlib has no names for them). */
#define FULL_LMASK (0x7fffffffUL & ~(LBIT(9) | LBIT(16) | LBIT(19) | LBIT(30)))

static void test_procmask(void)
{
	sigset_t set;

	for (int i = 0; i < NPAIRS; i++) {
		sigemptyset(&set);
		sigaddset(&set, pairs[i].sig);
		sigprocmask(SIG_SETMASK, &set, NULL);
		is_int(lsig_blocked(), LBIT(pairs[i].lsig), "newlib signal %d blocks Linux's %d",
		       pairs[i].sig, pairs[i].lsig);
	}
	sigfillset(&set);
	sigprocmask(SIG_SETMASK, &set, NULL);
	is_int(lsig_blocked(), FULL_LMASK, "a full set blocks every Linux signal newlib names");
	sigemptyset(&set);
	sigprocmask(SIG_SETMASK, &set, NULL);
	is_int(lsig_blocked(), 0, "an empty set blocks none");
}

/* The wrapper's mask is in force during the call: rt_sigprocmask reads it. */
static void test_indirect(void)
{
	unsigned long args[6] = {UAPI_SIG_BLOCK, 0, 0, 8};
	uint64_t seen = ~0ULL;
	sigset_t set;

	if (!indirect_available()) {
		skip("no syscall_indirect (fdkernel only)", "syscall_indirect's mask, one signal");
		skip("no syscall_indirect (fdkernel only)", "syscall_indirect's mask, full");
		return;
	}
	args[2] = (unsigned long)&seen;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	syscall_indirect(SYSIND_SIGMASK, set, __NR_rt_sigprocmask, args);
	is_int(seen, LBIT(10), "syscall_indirect's mask {SIGUSR1} is Linux's signal 10");
	sigfillset(&set);
	syscall_indirect(SYSIND_SIGMASK, set, __NR_rt_sigprocmask, args);
	is_int(seen, FULL_LMASK, "syscall_indirect's full mask: every signal newlib names");
}

int main(void)
{
	plan(NPAIRS + 4);
	test_procmask();
	test_indirect();
	return done();
}
