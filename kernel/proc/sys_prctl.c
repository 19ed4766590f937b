/*
 * prctl: the options programs commonly ask at start-up.  PR_SET_NAME and
 * PR_GET_NAME read and change the thread's name (Linux's comm: at most 15
 * bytes shown); PR_GET_DUMPABLE and PR_SET_DUMPABLE (0 or 1) the address
 * space's dumpable flag, which a core dump obeys (proc/coredump.c),
 * reset to 1 by exec; the parent-death signal, the child
 * subreaper (proc/exit.c acts on both), the timer slack (kept and
 * reported: sleeps end at the tick anyway) and the TSC mode (CR4.TSD
 * while the thread runs, sched/sched.c); the options on capabilities
 * and no_new_privs are proc/capability.c's.  Any other option is EINVAL,
 * as Linux's answer to an option it does not know.  personality(2) is
 * here too.
 */
#include "arch/x86_64/uaccess.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "proc/cred.h"
#include "proc/group.h"
#include "proc/proc.h"
#include "proc/task.h"
#include "mm/uvm.h"
#include "sched/sched.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/personality.h>

#define PR_SET_PDEATHSIG       1
#define PR_GET_PDEATHSIG       2
#define PR_GET_DUMPABLE	       3
#define PR_SET_DUMPABLE	       4
#define PR_SET_NAME	       15
#define PR_GET_NAME	       16
#define PR_GET_TSC	       25
#define PR_SET_TSC	       26
#define PR_TSC_ENABLE	       1
#define PR_TSC_SIGSEGV	       2
#define PR_SET_TIMERSLACK      29
#define PR_GET_TIMERSLACK      30
#define PR_SET_CHILD_SUBREAPER 36
#define PR_GET_CHILD_SUBREAPER 37
#define TASK_COMM_LEN	       16      /* Linux's comm buffer, NUL included */
#define TIMER_SLACK_DEFAULT    50000UL /* ns, Linux's */

/* The caller's name becomes the string at uname, cut to 15 bytes.  The
 * name is the task's own; other tasks only print it (a reader racing with
 * this may see a mix of old and new bytes, still NUL-terminated: the
 * last of the 32 bytes is always 0). */
static long set_name(const char *uname)
{
	char comm[TASK_COMM_LEN];
	long n = strncpy_from_user(comm, uname, sizeof(comm));

	if (n < 0 && n != -ENAMETOOLONG) /* a longer name is cut, as Linux */
		return n;
	comm[TASK_COMM_LEN - 1] = '\0';
	memcpy(current()->name, comm, TASK_COMM_LEN);
	return 0;
}

static long get_name(char *uname)
{
	char comm[TASK_COMM_LEN] = {0};

	strlcpy(comm, current()->name, sizeof(comm));
	return copy_to_user(uname, comm, sizeof(comm)) ? -EFAULT : 0;
}

/* Writes an int option's value to the user's int. */
static long put_int(unsigned long uaddr, int value)
{
	return copy_to_user((int *)uaddr, &value, sizeof(value)) ? -EFAULT : 0;
}

static long set_pdeathsig(unsigned long sig)
{
	if (sig > UAPI_NSIG)
		return -EINVAL;
	spin_lock(&proc_lock); /* read by the parent thread's exit */
	current()->pdeath_signal = (int)sig;
	spin_unlock(&proc_lock);
	return 0;
}

static long set_subreaper(unsigned long on)
{
	spin_lock(&proc_lock);
	current()->group->child_subreaper = on != 0;
	spin_unlock(&proc_lock);
	return 0;
}

static long set_tsc(unsigned long mode)
{
	if (mode != PR_TSC_ENABLE && mode != PR_TSC_SIGSEGV)
		return -EINVAL;
	current()->tsc_sigsegv = mode == PR_TSC_SIGSEGV;
	tsc_mode_load(current());
	return 0;
}

SYSCALL_DEFINE5(prctl, int, option, unsigned long, arg2, unsigned long, arg3, unsigned long, arg4,
		unsigned long, arg5)
{
	struct task *t = current();

	switch (option) {
	case PR_SET_NAME:
		return set_name((const char *)arg2);
	case PR_GET_NAME:
		return get_name((char *)arg2);
	case PR_GET_DUMPABLE: /* per address space, as Linux's mm flag */
		return __atomic_load_n(&t->uvm->dumpable, __ATOMIC_RELAXED);
	case PR_SET_DUMPABLE:
		if (arg2 > 1) /* SUID_DUMP_ROOT (2) is not for prctl, as Linux */
			return -EINVAL;
		__atomic_store_n(&t->uvm->dumpable, (int)arg2, __ATOMIC_RELAXED);
		return 0;
	case PR_SET_PDEATHSIG:
		return set_pdeathsig(arg2);
	case PR_GET_PDEATHSIG:
		return put_int(arg2, t->pdeath_signal);
	case PR_SET_CHILD_SUBREAPER:
		return set_subreaper(arg2);
	case PR_GET_CHILD_SUBREAPER:
		return put_int(arg2, t->group->child_subreaper);
	case PR_SET_TIMERSLACK:
		t->timer_slack_ns = arg2 ? arg2 : t->default_slack_ns; /* 0: the default */
		return 0;
	case PR_GET_TIMERSLACK:
		return (long)(t->timer_slack_ns ? t->timer_slack_ns : TIMER_SLACK_DEFAULT);
	case PR_SET_TSC:
		return set_tsc(arg2);
	case PR_GET_TSC:
		return put_int(arg2, t->tsc_sigsegv ? PR_TSC_SIGSEGV : PR_TSC_ENABLE);
	default:
		return prctl_cred(option, arg2, arg3, arg4, arg5);
	}
}

void prctl_clone(struct task *child, const struct task *parent)
{
	/* The child's default slack is its parent's current one (Linux). */
	child->timer_slack_ns =
	    parent->timer_slack_ns ? parent->timer_slack_ns : TIMER_SLACK_DEFAULT;
	child->default_slack_ns = child->timer_slack_ns;
	child->tsc_sigsegv = parent->tsc_sigsegv;
	child->personality = parent->personality;
	child->pdeath_signal = 0;
	child->no_new_privs = parent->no_new_privs;
}

/* The persona is stored and reported; of its flags STICKY_TIMEOUTS acts
 * (select and ppoll leave the timeout alone: fs/event/select.c) and
 * ADDR_NO_RANDOMIZE (exec's layout: mm/randomize.c); no other ABI is
 * emulated.  0xffffffff
 * only queries; any other value is taken, unknown ones too, as Linux. */
SYSCALL_DEFINE1(personality, unsigned int, persona)
{
	unsigned int old = current()->personality;

	if (persona != PERSONALITY_QUERY)
		current()->personality = persona;
	return old;
}
