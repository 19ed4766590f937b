/*
 * Signal sending and default actions.  Until handlers exist every signal
 * either terminates the process (the Linux default for most) or is
 * ignored (SIGCHLD, SIGURG, SIGWINCH, SIGCONT).
 */
#include "proc/signal.h"
#include "lib/printk.h"
#include "proc/exit.h"
#include "proc/proc.h"
#include "proc/sched.h"
#include "proc/task.h"
#include <uapi/errno.h>
#include <uapi/signal.h>

#define SIGBIT(sig) (1UL << ((sig) - 1))
#define IGNORED_BY_DEFAULT (SIGBIT(SIGCHLD) | SIGBIT(SIGURG) | SIGBIT(SIGWINCH) | SIGBIT(SIGCONT))

void signal_send(struct task *t, int sig)
{
	if (SIGBIT(sig) & IGNORED_BY_DEFAULT)
		return;
	__atomic_or_fetch(&t->pending_signals, SIGBIT(sig), __ATOMIC_RELEASE);
	sched_wake(t);
}

bool signal_is_pending(struct task *t)
{
	return __atomic_load_n(&t->pending_signals, __ATOMIC_ACQUIRE) != 0;
}

void signal_deliver(struct trapframe *tf)
{
	struct task *t = current();
	uint64_t pending = __atomic_load_n(&t->pending_signals, __ATOMIC_ACQUIRE);

	(void)tf;
	if (!pending)
		return;
	/* Lowest-numbered first, as Linux delivers synchronous signals. */
	task_exit(W_SIGNALED(__builtin_ctzl(pending) + 1));
}

void signal_force_fault(struct trapframe *tf, int sig)
{
	struct task *t = current();

	printk_info("%s[%d]: %s at rip %lx, killed by signal %d\n", t->name, t->pid,
		    sig == SIGSEGV ? "segfault" : "fault", tf->rip, sig);
	signal_send(t, sig);
}

struct broadcast {
	int sig;
	int hit;
};

static bool broadcast_one(struct task *t, void *arg)
{
	struct broadcast *b = arg;

	if (t->pid > 1 && t != current() && t->state != TASK_ZOMBIE) {
		b->hit++;
		if (b->sig)
			signal_send(t, b->sig);
	}
	return true;
}

int signal_broadcast(int sig)
{
	struct broadcast b = {sig, 0};

	task_for_each(broadcast_one, &b);
	return b.hit ? 0 : -ESRCH;
}
