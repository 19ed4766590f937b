/* Queued signals as Linux keeps them: several instances of a real-time
 * signal all delivered, in order, each with its value; a standard signal
 * pending once; lower real-time numbers first; rt_sigqueueinfo and
 * rt_tgsigqueueinfo with their EPERM (a forged si_code to another
 * process), EINVAL, ESRCH, EFAULT; RLIMIT_SIGPENDING: a real-time signal
 * with information past it is EAGAIN (tgkill too, as LTP tgkill02
 * expects), kill() still gets through without information, and so does a
 * standard signal. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

static long sys(long nr, long a, long b, long c, long d)
{
	long r = syscall(nr, a, b, c, d);
	return r < 0 ? -errno : r;
}

static void block(int sig)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, sig);
	sigprocmask(SIG_BLOCK, &s, NULL);
}

/* The next pending signal of sig, taken without its handler; its info. */
static int take(int sig, siginfo_t *si)
{
	sigset_t s;
	struct timespec zero = {0, 0};

	sigemptyset(&s);
	sigaddset(&s, sig);
	return sigtimedwait(&s, si, &zero);
}

static siginfo_t info_with(int code, int value)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	si.si_code = code;
	si.si_pid = getpid();
	si.si_value.sival_int = value;
	return si;
}

static void test_order(void)
{
	siginfo_t si;
	int in_order = 1, n = 0;

	block(SIGRTMIN);
	block(SIGRTMIN + 2);
	block(SIGUSR1);
	for (int i = 1; i <= 5; i++)
		sigqueue(getpid(), SIGRTMIN, (union sigval){.sival_int = i});
	for (int i = 1; i <= 5; i++) {
		if (take(SIGRTMIN, &si) != SIGRTMIN)
			break;
		n++;
		in_order &=
		    si.si_value.sival_int == i && si.si_code == SI_QUEUE && si.si_pid == getpid();
	}
	ok(n == 5 && in_order,
	   "five instances of one real-time signal, in order, with their values");
	ok(take(SIGRTMIN, &si) == -1 && errno == EAGAIN, "and no sixth");
	sigqueue(getpid(), SIGUSR1, (union sigval){.sival_int = 1});
	sigqueue(getpid(), SIGUSR1, (union sigval){.sival_int = 2});
	ok(take(SIGUSR1, &si) == SIGUSR1 && si.si_value.sival_int == 1 && take(SIGUSR1, &si) == -1,
	   "a standard signal sent twice is pending once, with the first value");
	sigqueue(getpid(), SIGRTMIN + 2, (union sigval){.sival_int = 7});
	sigqueue(getpid(), SIGRTMIN, (union sigval){.sival_int = 8});
	sigset_t both;
	sigemptyset(&both);
	sigaddset(&both, SIGRTMIN);
	sigaddset(&both, SIGRTMIN + 2);
	ok(sigtimedwait(&both, &si, &(struct timespec){0, 0}) == SIGRTMIN &&
	       si.si_value.sival_int == 8 && take(SIGRTMIN + 2, &si) == SIGRTMIN + 2,
	   "the lower real-time signal first");
}

static void test_sigqueueinfo(void)
{
	siginfo_t si = info_with(SI_QUEUE, 77), got;
	pid_t child = fork();

	if (child == 0) {
		pause();
		_exit(0);
	}
	is_int(sys(SYS_rt_sigqueueinfo, getpid(), SIGRTMIN, (long)&si, 0), 0,
	       "rt_sigqueueinfo SI_QUEUE to self");
	ok(take(SIGRTMIN, &got) == SIGRTMIN && got.si_value.sival_int == 77 &&
	       got.si_code == SI_QUEUE,
	   "delivered with the caller's si_value and si_code");
	si = info_with(SI_USER, 1);
	is_int(sys(SYS_rt_sigqueueinfo, getpid(), SIGRTMIN, (long)&si, 0), 0,
	       "si_code SI_USER to oneself is allowed");
	take(SIGRTMIN, &got);
	is_int(sys(SYS_rt_sigqueueinfo, child, SIGUSR2, (long)&si, 0), -EPERM,
	       "si_code SI_USER to another process: EPERM");
	si.si_code = SI_TKILL;
	is_int(sys(SYS_rt_sigqueueinfo, child, SIGUSR2, (long)&si, 0), -EPERM,
	       "SI_TKILL to another process: EPERM");
	si.si_code = SI_KERNEL;
	is_int(sys(SYS_rt_sigqueueinfo, child, SIGUSR2, (long)&si, 0), -EPERM,
	       "SI_KERNEL to another process: EPERM");
	si.si_code = SI_QUEUE;
	is_int(sys(SYS_rt_sigqueueinfo, child, 65, (long)&si, 0), -EINVAL, "signal 65: EINVAL");
	is_int(sys(SYS_rt_sigqueueinfo, 999999, SIGUSR2, (long)&si, 0), -ESRCH,
	       "no process: ESRCH");
	is_int(sys(SYS_rt_sigqueueinfo, child, SIGUSR2, 8, 0), -EFAULT, "bad siginfo: EFAULT");
	is_int(sys(SYS_rt_sigqueueinfo, child, SIGTERM, (long)&si, 0), 0,
	       "SI_QUEUE to another process");
	int status;
	waitpid(child, &status, 0);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "which it receives");
}

static volatile pid_t target_tid;
static volatile int thread_got;

static void *waiter(void *arg)
{
	siginfo_t si;
	sigset_t s;

	(void)arg;
	sigemptyset(&s);
	sigaddset(&s, SIGRTMIN + 1);
	target_tid = gettid();
	if (sigwaitinfo(&s, &si) == SIGRTMIN + 1)
		thread_got = si.si_value.sival_int;
	return NULL;
}

static void test_tgsigqueueinfo(void)
{
	siginfo_t si = info_with(SI_QUEUE, 99);
	pthread_t t;

	block(SIGRTMIN + 1); /* the thread inherits it: only sigwaitinfo takes it */
	pthread_create(&t, NULL, waiter, NULL);
	while (!target_tid)
		sched_yield();
	is_int(sys(SYS_rt_tgsigqueueinfo, getpid(), 0, SIGRTMIN + 1, (long)&si), -EINVAL,
	       "rt_tgsigqueueinfo tid 0: EINVAL");
	is_int(sys(SYS_rt_tgsigqueueinfo, 1, target_tid, SIGRTMIN + 1, (long)&si), -ESRCH,
	       "a tid of another process: ESRCH");
	is_int(sys(SYS_rt_tgsigqueueinfo, getpid(), target_tid, SIGRTMIN + 1, (long)&si), 0,
	       "rt_tgsigqueueinfo to a thread");
	pthread_join(t, NULL);
	ok(thread_got == 99, "that thread takes it, with its value");
}

static void test_limit(void)
{
	struct rlimit old, zero, some;
	siginfo_t si;
	int sent = 0;

	/* Soft limits only: the hard one stays, so the old one comes back
	 * without CAP_SYS_RESOURCE. */
	getrlimit(RLIMIT_SIGPENDING, &old);
	zero = (struct rlimit){0, old.rlim_max};
	some = (struct rlimit){16, old.rlim_max};
	block(SIGRTMIN);
	setrlimit(RLIMIT_SIGPENDING, &zero);
	errno = 0;
	is_errno(sigqueue(getpid(), SIGRTMIN, (union sigval){.sival_int = 1}), EAGAIN,
		 "RLIMIT_SIGPENDING 0: sigqueue of a real-time signal is EAGAIN");
	is_int(sys(SYS_tgkill, getpid(), gettid(), SIGRTMIN, 0), -EAGAIN, "and tgkill too");
	ok(kill(getpid(), SIGRTMIN) == 0 && take(SIGRTMIN, &si) == SIGRTMIN &&
	       si.si_code == SI_USER && si.si_pid == 0,
	   "kill() still makes it pending, without its information");
	ok(sigqueue(getpid(), SIGUSR1, (union sigval){.sival_int = 3}) == 0 &&
	       take(SIGUSR1, &si) == SIGUSR1 && si.si_code == SI_USER,
	   "a standard signal gets through, without its information");
	setrlimit(RLIMIT_SIGPENDING, &some);
	while (sent < 100 && sigqueue(getpid(), SIGRTMIN, (union sigval){.sival_int = sent}) == 0)
		sent++;
	/* The count is the user's, every process's: on a host where root has
	 * signals pending elsewhere fewer than 16 fit. */
	ok(sent <= 16 && errno == EAGAIN, "RLIMIT_SIGPENDING 16: EAGAIN after at most 16 (%d)",
	   sent);
	while (take(SIGRTMIN, &si) == SIGRTMIN)
		;
	if (sent)
		ok(sigqueue(getpid(), SIGRTMIN, (union sigval){.sival_int = 0}) == 0,
		   "room again once they are taken");
	else
		skip("other processes of the user hold the 16", "room again once they are taken");
	take(SIGRTMIN, &si);
	setrlimit(RLIMIT_SIGPENDING, &old);
}

static void test_signalfd(void)
{
	struct signalfd_siginfo ssi;
	sigset_t s;
	int fd;

	sigemptyset(&s);
	sigaddset(&s, SIGRTMIN + 3);
	sigprocmask(SIG_BLOCK, &s, NULL);
	fd = signalfd(-1, &s, SFD_NONBLOCK);
	sigqueue(getpid(), SIGRTMIN + 3, (union sigval){.sival_int = 1234});
	ok(read(fd, &ssi, sizeof(ssi)) == sizeof(ssi) && ssi.ssi_int == 1234 &&
	       ssi.ssi_code == SI_QUEUE && ssi.ssi_pid == (unsigned)getpid(),
	   "signalfd reads the value, code and sender");
	close(fd);
}

int main(void)
{
	plan(26);
	test_order();
	test_sigqueueinfo();
	test_tgsigqueueinfo();
	test_limit();
	test_signalfd();
	return done();
}
