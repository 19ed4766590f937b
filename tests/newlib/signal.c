/*
 * Signals through the glue: handlers see newlib's numbers, sigprocmask
 * blocks and sigpending reports, unblocking delivers, SIG_IGN ignores.
 */
#include <signal.h>
#include <unistd.h>

#include "tap.h"

static volatile sig_atomic_t got_sig, count;

static void handler(int sig)
{
	got_sig = sig;
	count++;
}

int main(void)
{
	struct sigaction sa = {.sa_handler = handler}, old;
	sigset_t set, pending;

	plan(10);
	sigemptyset(&sa.sa_mask);
	is_int(sigaction(SIGUSR1, &sa, NULL), 0, "sigaction SIGUSR1");
	raise(SIGUSR1);
	is_int(got_sig, SIGUSR1, "handler called with newlib's SIGUSR1");
	ok(sigaction(SIGUSR1, NULL, &old) == 0 && old.sa_handler == handler,
	   "sigaction reports the handler back");

	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	signal(SIGUSR2, handler);
	is_int(sigprocmask(SIG_BLOCK, &set, NULL), 0, "block SIGUSR2");
	count = 0;
	kill(getpid(), SIGUSR2);
	is_int(count, 0, "blocked: not delivered");
	ok(sigpending(&pending) == 0 && sigismember(&pending, SIGUSR2), "sigpending shows it");
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	ok(count == 1 && got_sig == SIGUSR2, "unblocking delivers it");

	signal(SIGTERM, SIG_IGN);
	is_int(raise(SIGTERM), 0, "SIGTERM ignored");
	is_errno(sigaction(0, &sa, NULL), EINVAL, "sigaction of signal 0");
	is_errno(kill(getpid(), 1000), EINVAL, "kill with an invalid signal");
	return done();
}
