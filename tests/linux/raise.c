/* raise and abort through musl: both signal the calling thread itself
 * (tkill with its own tid), so a handler runs before raise returns, and
 * abort ends the process with SIGABRT even when SIGABRT is caught. */
#define _GNU_SOURCE
#include <signal.h>
#include <unistd.h>

#include "testutil.h"

static volatile int caught;

static void on_signal(int sig)
{
	caught = sig;
}

static void aborts(void)
{
	signal(SIGABRT, on_signal); /* abort ends the process anyway */
	abort();
}

static void raises_term(void)
{
	raise(SIGTERM);
	_exit(0);
}

int main(void)
{
	plan(4);
	signal(SIGUSR1, on_signal);
	ok(raise(SIGUSR1) == 0 && caught == SIGUSR1, "raise: the handler ran before it returned");
	is_errno(raise(1000), EINVAL, "raise(1000): EINVAL");
	ok(killed_by(child_status(raises_term), SIGTERM), "raise(SIGTERM) kills");
	ok(killed_by(child_status(aborts), SIGABRT), "abort() with SIGABRT caught still kills");
	return done();
}
