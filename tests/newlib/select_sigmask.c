/*
 * The article's point: pselect and ppoll exist only to apply a signal mask,
 * and syscall_indirect(SYSIND_SIGMASK, mask, select or poll) does the same.
 * Each scenario (ready, timeout, closed fd, a pending signal the mask lets
 * through or holds back, one arriving during the call, a pending signal
 * against a zero timeout) runs through ppoll and pselect6, checked against
 * Linux's results, and on fdkernel through syscall_indirect, which must
 * give the same results: return value, errno, ready bits, handler runs,
 * the mask and pending set after.
 */
#include "event_util.h"
#include "indirect.h"
#include "sigutil.h"

#include <sys/select.h>

enum fdkind { READY, EMPTY, CLOSED };
enum call { PPOLL, IND_POLL, PSELECT, IND_SELECT };

struct outcome {
	long ret;
	int err, bits, hits;
	uint64_t blocked, pending;
};

struct scenario {
	const char *name;
	enum fdkind fd;
	uint64_t caller_mask, call_mask;
	bool raise;   /* SIGUSR1 sent to itself (blocked) before the call */
	int send_ms;  /* > 0: a child sends SIGUSR1 that long into the call */
	long timeout; /* ms */
	struct outcome poll, select;
};

#define USR1	  LBIT(LSIGUSR1)
#define CLOSED_FD 63 /* the last of newlib's 64-bit fd_set */
#define EINTR_OUT                                                                                  \
	{                                                                                          \
		-1, EINTR, 0, 1, USR1, 0                                                           \
	}

static const struct scenario scenarios[] = {
    {"ready", READY, 0, 0, false, 0, 0, {1, 0, POLLIN, 0, 0, 0}, {1, 0, 1, 0, 0, 0}},
    {"timeout", EMPTY, 0, 0, false, 0, 20, {0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0}},
    {"closed fd", CLOSED, 0, 0, false, 0, 0, {1, 0, POLLNVAL, 0, 0, 0}, {-1, EBADF, 0, 0, 0, 0}},
    {"pending, let through", EMPTY, USR1, 0, true, 0, 1000, EINTR_OUT, EINTR_OUT},
    {"pending, zero timeout", EMPTY, USR1, 0, true, 0, 0, EINTR_OUT, EINTR_OUT},
    {"pending, held back",
     EMPTY,
     USR1,
     USR1,
     true,
     0,
     20,
     {0, 0, 0, 0, USR1, USR1},
     {0, 0, 0, 0, USR1, USR1}},
    {"arrives, held back", EMPTY, 0, USR1, false, 30, 150, {0, 0, 0, 1, 0, 0}, {0, 0, 0, 1, 0, 0}},
};

#define NSCENARIOS (sizeof(scenarios) / sizeof(scenarios[0]))

static volatile sig_atomic_t hits;

static void count_handler(int sig)
{
	(void)sig;
	hits++;
}

/* Runs call c on fd with the scenario's mask and timeout. */
static struct outcome run(enum call c, int fd, const struct scenario *s)
{
	struct pollfd p = {fd, POLLIN, 0};
	struct timespec ts = {s->timeout / 1000, s->timeout % 1000 * 1000000L};
	struct timeval tv = {s->timeout / 1000, s->timeout % 1000 * 1000L};
	uint64_t mask = s->call_mask;
	unsigned long pack[2] = {(unsigned long)&mask, 8};
	struct outcome o = {0};
	fd_set r;

	FD_ZERO(&r);
	FD_SET(fd, &r);
	switch (c) {
	case PPOLL:
		o.ret = syscall(__NR_ppoll, &p, 1, &ts, &mask, 8);
		break;
	case IND_POLL:
		o.ret = IND_CALL(SYSIND_SIGMASK, mask, __NR_poll, (unsigned long)&p, 1, s->timeout);
		break;
	case PSELECT:
		o.ret = syscall(__NR_pselect6, fd + 1, &r, NULL, NULL, &ts, pack);
		break;
	case IND_SELECT:
		o.ret = IND_CALL(SYSIND_SIGMASK, mask, __NR_select, fd + 1, (unsigned long)&r, 0, 0,
				 (unsigned long)&tv);
		break;
	}
	o.hits = hits;
	o.err = o.ret < 0 ? errno : 0;
	o.blocked = lsig_blocked();
	o.pending = lsig_pending();
	if (o.ret >= 0)
		o.bits = c == PPOLL || c == IND_POLL ? p.revents : FD_ISSET(fd, &r) != 0;
	return o;
}

/* Sets up the scenario, runs c, and puts everything back. */
static struct outcome play(const struct scenario *s, enum call c)
{
	int p[2], fd;
	pid_t pid = 0, parent = getpid();
	struct outcome o;

	require(pipe(p) == 0, "pipe");
	fd = p[0];
	if (s->fd == CLOSED)
		close(fd = CLOSED_FD);
	if (s->fd == READY)
		write(p[1], "x", 1);
	lsig_procmask(UAPI_SIG_SETMASK, s->caller_mask, NULL);
	hits = 0;
	if (s->raise)
		lsig_kill(parent, LSIGUSR1);
	fflush(stdout);
	if (s->send_ms && (pid = fork()) == 0) {
		sleep_ms(s->send_ms);
		lsig_kill(parent, LSIGUSR1);
		_exit(0);
	}
	o = run(c, fd, s);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	lsig_procmask(UAPI_SIG_SETMASK, 0, NULL); /* a held-back signal runs here */
	close(p[0]);
	close(p[1]);
	return o;
}

static bool same(const struct outcome *a, const struct outcome *b)
{
	return a->ret == b->ret && a->err == b->err && a->bits == b->bits && a->hits == b->hits &&
	       a->blocked == b->blocked && a->pending == b->pending;
}

static void show(const char *what, const struct outcome *o)
{
	diag("%s: ret %ld errno %d bits %#x handler runs %d blocked %#llx pending %#llx", what,
	     o->ret, o->err, o->bits, o->hits, (unsigned long long)o->blocked,
	     (unsigned long long)o->pending);
}

/* The call's outcome against Linux's, then the indirect one against it. */
static void compare(const struct scenario *s, enum call c, const struct outcome *want)
{
	const char *name = c == PPOLL ? "ppoll" : "pselect6";
	struct outcome got = play(s, c), ind;

	if (!ok(same(&got, want), "%s: %s as Linux", s->name, name)) {
		show("got", &got);
		show("want", want);
	}
	if (!on_fdkernel() || !indirect_available()) {
		skip("syscall_indirect is fdkernel's", name);
		return;
	}
	ind = play(s, c + 1);
	if (!ok(same(&ind, &got), "%s: syscall_indirect(SYSIND_SIGMASK, %s) gives the same",
		s->name, c == PPOLL ? "poll" : "select")) {
		show("indirect", &ind);
		show(name, &got);
	}
}

int main(void)
{
	int before = next_fd();

	plan(4 * NSCENARIOS + 1);
	lsig_handle(LSIGUSR1, count_handler, 0);
	for (size_t i = 0; i < NSCENARIOS; i++) {
		compare(&scenarios[i], PPOLL, &scenarios[i].poll);
		compare(&scenarios[i], PSELECT, &scenarios[i].select);
	}
	is_int(next_fd(), before, "no fd left open");
	return done();
}
