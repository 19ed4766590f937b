/* The scheduling-policy calls with Linux's answers: the priority ranges,
 * the normal policies set and read back (SCHED_RESET_ON_FORK too, and a
 * child without it), sched_setattr/getattr with nice, and every bad
 * argument's errno.  SCHED_FIFO and SCHED_RR: tests/linux/sched_rt.c. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "sched_attr.h"

int main(void)
{
	struct sched_param p = {0};
	struct timespec ts;
	struct attr a;

	plan(22);
	ok(sched_get_priority_max(SCHED_FIFO) == 99 && sched_get_priority_min(SCHED_FIFO) == 1 &&
	       sched_get_priority_max(SCHED_RR) == 99 && sched_get_priority_min(SCHED_RR) == 1,
	   "FIFO and RR priorities are 1..99");
	ok(sched_get_priority_max(SCHED_OTHER) == 0 && sched_get_priority_min(SCHED_BATCH) == 0 &&
	       sched_get_priority_max(SCHED_IDLE) == 0,
	   "the normal policies have priority 0");
	is_int(sys(SYS_sched_get_priority_max, 4, 0, 0, 0), -EINVAL, "priority_max(4): EINVAL");
	is_int(sys(SYS_sched_get_priority_min, -1, 0, 0, 0), -EINVAL, "priority_min(-1): EINVAL");

	is_int(sys(SYS_sched_getscheduler, 0, 0, 0, 0), SCHED_OTHER,
	       "a process starts SCHED_OTHER");
	ok(sys(SYS_sched_setscheduler, 0, SCHED_BATCH, (long)&p, 0) == 0 &&
	       sys(SYS_sched_getscheduler, 0, 0, 0, 0) == SCHED_BATCH,
	   "SCHED_BATCH is set and read back");
	ok(sys(SYS_sched_setscheduler, 0, SCHED_IDLE | SCHED_RESET_ON_FORK, (long)&p, 0) == 0 &&
	       sys(SYS_sched_getscheduler, 0, 0, 0, 0) == (SCHED_IDLE | SCHED_RESET_ON_FORK),
	   "SCHED_IDLE with SCHED_RESET_ON_FORK");
	pid_t child = fork();
	if (child == 0)
		_exit(sys(SYS_sched_getscheduler, 0, 0, 0, 0) == SCHED_IDLE ? 0 : 1);
	int status;
	waitpid(child, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "the child keeps the policy without the reset flag");
	p.sched_priority = 1;
	is_int(sys(SYS_sched_setscheduler, 0, SCHED_OTHER, (long)&p, 0), -EINVAL,
	       "SCHED_OTHER with priority 1: EINVAL");
	p.sched_priority = 0;
	is_int(sys(SYS_sched_setscheduler, 0, SCHED_FIFO, (long)&p, 0), -EINVAL,
	       "SCHED_FIFO with priority 0: EINVAL");
	is_int(sys(SYS_sched_setscheduler, 0, 7, (long)&p, 0), -EINVAL, "policy 7: EINVAL");
	is_int(sys(SYS_sched_setscheduler, 0, -1, (long)&p, 0), -EINVAL, "policy -1: EINVAL");
	is_int(sys(SYS_sched_setscheduler, -1, SCHED_OTHER, (long)&p, 0), -EINVAL,
	       "pid -1: EINVAL");
	is_int(sys(SYS_sched_setscheduler, 0, SCHED_OTHER, 0, 0), -EINVAL, "NULL param: EINVAL");
	is_int(sys(SYS_sched_setscheduler, 0, SCHED_OTHER, 8, 0), -EFAULT, "bad param: EFAULT");
	is_int(sys(SYS_sched_getparam, 999999, (long)&p, 0, 0), -ESRCH, "no such pid: ESRCH");
	is_int(sys(SYS_sched_setparam, 0, (long)&p, 0, 0), 0, "setparam keeps the policy");
	p.sched_priority = 50;
	long fifo = sys(SYS_sched_setscheduler, 0, SCHED_FIFO, (long)&p, 0);
	is_int(fifo, 0, "SCHED_FIFO 50 as root: taken (sched_rt tests what it does)");
	p.sched_priority = 0;
	sys(SYS_sched_setscheduler, 0, SCHED_OTHER, (long)&p, 0);

	ts.tv_sec = -1;
	ok(sys(SYS_sched_rr_get_interval, 0, (long)&ts, 0, 0) == 0 && ts.tv_sec == 0 &&
	       ts.tv_nsec >= 0 && ts.tv_nsec < 1000000000,
	   "sched_rr_get_interval of a normal task: a slice under a second (%ld ns)", ts.tv_nsec);

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a), a.policy = SCHED_BATCH, a.nice = 5;
	ok(sys(SYS_sched_setattr, 0, (long)&a, 0, 0) == 0 && getpriority(PRIO_PROCESS, 0) == 5,
	   "sched_setattr sets the policy and nice");
	memset(&a, 0, sizeof(a));
	ok(sys(SYS_sched_getattr, 0, (long)&a, sizeof(a), 0) == 0 && a.policy == SCHED_BATCH &&
	       a.nice == 5 && a.size == sizeof(a),
	   "sched_getattr reads them back");
	a.size = 8;
	is_int(sys(SYS_sched_setattr, 0, (long)&a, 0, 0), -E2BIG, "a sched_attr of 8 bytes: E2BIG");
	return done();
}
