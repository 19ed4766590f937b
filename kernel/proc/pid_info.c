/*
 * The figures of /proc/<pid>/stat, status, cmdline, comm and syscall, and
 * of /proc/<pid>/task/<tid>/ (the same about one thread).  Each report is
 * taken in one proc_lock section (a consistent snapshot of the group),
 * then formatted outside it.
 */
#include "proc/pid_info.h"
#include "proc/pid_info_internal.h"
#include "arch/x86_64/smp.h"
#include "arch/x86_64/trapframe.h"
#include "fd/fdtable.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/paging.h"
#include "proc/coredump.h"
#include "proc/cred.h"
#include "proc/pid_ns.h"
#include "proc/rlimit.h"
#include "proc/rusage.h"
#include "proc/user_namespace.h"
#include "mm/uvm.h"
#include "mm/vma.h"
#include "sched/sched.h"
#include <uapi/errno.h>
#include <uapi/resource.h>
#include <uapi/sched.h>

#define COMM_LEN 16 /* Linux's TASK_COMM_LEN: 15 bytes shown */

struct pid_info {
	int pid, tgid, ppid, pgid, sid, threads, exit_signal, nice, rt_prio, policy;
	char state; /* R, S or Z */
	char comm[COMM_LEN];
	uint64_t utime, stime, cutime, cstime; /* ticks (TIMER_HZ = USER_HZ = 100) */
	uint64_t rss_pages;		       /* user pages mapped; 0 without user memory */
	uint64_t hiwater_pages;		       /* the most there have been (VmHWM) */
	uint64_t vsize;			       /* bytes of the mapping list; 0 without */
	uint64_t locked;		       /* bytes of it mlock'd (VmLck) */
	bool has_mm;			       /* the leader has user memory (not a zombie) */
	uint64_t cpus;			       /* the CPUs the thread (or leader) may run on */
	bool no_new_privs;		       /* the thread's (or leader's) */
	const struct cred *cred;	       /* status only: referenced, put by the reader */
	struct pid_namespace *pidns;	       /* status only: its pid namespace, the same */
};

/* A process's state is its main thread's, as Linux shows it (a waiter
 * for 'S' must see it while another thread runs): R or S; Z once the
 * leader exited, even while other threads live. */
static char group_state_locked(struct thread_group *g)
{
	const struct task *leader = g->leader;

	if (g->state == GROUP_ZOMBIE || task_exited(leader))
		return 'Z';
	return leader->state == TASK_RUNNABLE ? 'R' : 'S';
}

/* About the process g, or only its thread t if t is not NULL. */
static void gather_locked(struct thread_group *g, struct task *t, struct pid_info *in)
{
	in->pid = t ? t->pid : g->tgid;
	in->tgid = g->tgid;
	in->ppid = g->parent ? g->parent->tgid : 0;
	in->pgid = g->pgid;
	in->sid = g->sid;
	in->threads = g->live ? g->live : 1; /* a zombie counts its leader, as Linux */
	in->exit_signal = g->exit_signal;
	/* the thread's, or the process's: its leader's, as Linux */
	in->nice = (t ? t : g->leader)->nice;
	in->rt_prio = sched_rt_prio(t ? t : g->leader);
	in->policy = (t ? t : g->leader)->policy;
	in->cpus = sched_affinity(t ? t : g->leader) & smp_task_cpus();
	in->no_new_privs = (t ? t : g->leader)->no_new_privs;
	in->state = !t ? group_state_locked(g) : t->state == TASK_RUNNABLE ? 'R' : 'S';
	strlcpy(in->comm, (t ? t : g->leader)->name, sizeof(in->comm));
	if (t) {
		in->utime = t->utime_ticks;
		in->stime = t->stime_ticks;
	} else {
		group_cpu_ticks_locked(g, &in->utime, &in->stime);
	}
	in->cutime = g->children_utime;
	in->cstime = g->children_stime;
	/* t->vm is replaced only under proc_lock (exec, exit): the OOM
	 * killer's rule */
	in->has_mm = g->leader->uvm != NULL;
	in->rss_pages = in->has_mm ? vm_resident_pages(g->leader->vm) : 0;
	in->hiwater_pages = in->has_mm ? vm_hiwater_pages(g->leader->vm) : 0;
	in->vsize = in->has_mm ? uvm_mapped_bytes(g->leader->uvm, 0) : 0;
	in->locked = in->has_mm ? uvm_mapped_bytes(g->leader->uvm, VMA_LOCKED) : 0;
}

/* proc_lock held: the leader's argv or envp strings (nothing for a
 * zombie, as Linux). */
static long exec_text_locked(struct thread_group *g, bool env, char *buf, size_t size)
{
	struct uvm *u = g->leader->uvm; /* swapped only under proc_lock */
	const char *text = !u ? NULL : env ? u->environ : u->cmdline;
	size_t len = !text ? 0 : env ? u->environ_len : u->cmdline_len;

	if (len > size)
		len = size;
	if (len)
		memcpy(buf, text, len);
	return len;
}

/* Linux's /proc/<pid>/limits: a line per resource, "unlimited" for
 * RLIM_INFINITY, the values getrlimit gives the process. */
static long format_limits(const struct thread_group *g, struct files_table *files, char *buf,
			  size_t size)
{
	static const struct {
		const char *name, *unit;
	} rows[RLIM_NLIMITS] = {
	    {"Max cpu time", "seconds"},     {"Max file size", "bytes"},
	    {"Max data size", "bytes"},	     {"Max stack size", "bytes"},
	    {"Max core file size", "bytes"}, {"Max resident set", "bytes"},
	    {"Max processes", "processes"},  {"Max open files", "files"},
	    {"Max locked memory", "bytes"},  {"Max address space", "bytes"},
	    {"Max file locks", "locks"},     {"Max pending signals", "signals"},
	    {"Max msgqueue size", "bytes"},  {"Max nice priority", NULL},
	    {"Max realtime priority", NULL}, {"Max realtime timeout", "us"},
	};
	size_t len = 0;

	appendk(buf, size, &len, "%-25s %-20s %-20s %-10s\n", "Limit", "Soft Limit", "Hard Limit",
		"Units");
	for (unsigned int i = 0; i < RLIM_NLIMITS; i++) {
		struct rlimit r;
		uint64_t v[2];
		rlimit_of(g, files, i, &r);
		v[0] = r.rlim_cur, v[1] = r.rlim_max;
		appendk(buf, size, &len, "%-25s ", rows[i].name);
		for (int k = 0; k < 2; k++) {
			if (v[k] == RLIM_INFINITY)
				appendk(buf, size, &len, "%-20s ", "unlimited");
			else
				appendk(buf, size, &len, "%-20lu ", v[k]);
		}
		if (rows[i].unit)
			appendk(buf, size, &len, "%-10s", rows[i].unit);
		appendk(buf, size, &len, "\n");
	}
	return len;
}

/* limits needs the process's group and files table (RLIMIT_NOFILE is
 * there). */
static long limits_text(int pid, char *buf, size_t size)
{
	struct files_table *files = proc_pid_files(pid);
	struct task *t = task_find(pid); /* referenced: t and its group stay */
	long len = -ESRCH;

	if (files && t)
		len = format_limits(t->group, files, buf, size);
	task_put(t);
	if (files)
		files_unborrow(files);
	return len;
}

static const char *state_name(char state)
{
	return state == 'R' ? "running" : state == 'Z' ? "zombie" : "sleeping";
}

/* Linux's 52 fields; what fdkernel does not keep is 0.  The priority
 * (field 18) is Linux's prio - 100: -101 for a deadline task, -1 -
 * rt_priority for a real-time one, 20 + nice for a normal one. */
static long format_stat(const struct pid_info *in, char *buf, size_t size)
{
	snprintk(buf, size,
		 "%d (%s) %c %d %d %d 0 -1 0 0 0 0 0 %lu %lu %lu %lu %d %d %d 0 0 %lu %lu "
		 "18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 %d 0 %d %d 0 0 0 0 0 0 0 0 0 0 0\n",
		 in->pid, in->comm, in->state, in->ppid, in->pgid, in->sid, in->utime, in->stime,
		 in->cutime, in->cstime,
		 in->policy == SCHED_DEADLINE ? -101
		 : in->rt_prio		      ? -1 - in->rt_prio
					      : 20 + in->nice,
		 in->nice, in->threads, in->vsize, in->rss_pages, in->exit_signal, in->rt_prio,
		 in->policy);
	return strlen(buf);
}

/* mask in hex, a digit per four online CPUs (Linux pads to its CPU count). */
static void append_cpu_mask(char *buf, size_t size, size_t *len, uint64_t mask)
{
	size_t width = (size_t)(smp_cpus_online + 3) / 4;
	char hex[17];

	snprintk(hex, sizeof hex, "%lx", mask);
	for (size_t n = strlen(hex); n < width; n++)
		appendk(buf, size, len, "0");
	appendk(buf, size, len, "%s", hex);
}

/* mask as Linux's CPU lists: ranges and single CPUs, "0-2,5". */
static void append_cpu_list(char *buf, size_t size, size_t *len, uint64_t mask)
{
	const char *sep = "";

	for (int cpu = 0; cpu < 64; cpu++) {
		if (!(mask & (1ull << cpu)))
			continue;
		int last = cpu;

		while (last < 63 && (mask & (1ull << (last + 1))))
			last++;
		if (last == cpu)
			appendk(buf, size, len, "%s%d", sep, cpu);
		else
			appendk(buf, size, len, "%s%d-%d", sep, cpu, last);
		sep = ",";
		cpu = last;
	}
}

/* The identity lines: the four uids and gids (real, effective, saved,
 * file system) and the supplementary groups, as many as fit. */
static void append_ids(char *buf, size_t size, size_t *len, const struct cred *c)
{
	struct user_namespace *ns = current_user_ns(); /* the reader's (Linux: the opener's) */

	appendk(buf, size, len, "Uid:\t%u\t%u\t%u\t%u\nGid:\t%u\t%u\t%u\t%u\nGroups:\t",
		from_kuid_munged(ns, c->uid), from_kuid_munged(ns, c->euid),
		from_kuid_munged(ns, c->suid), from_kuid_munged(ns, c->fsuid),
		from_kgid_munged(ns, c->gid), from_kgid_munged(ns, c->egid),
		from_kgid_munged(ns, c->sgid), from_kgid_munged(ns, c->fsgid));
	for (int i = 0; i < c->groups->ngroups && *len + 1 < size; i++)
		appendk(buf, size, len, "%s%u", i ? " " : "",
			from_kgid_munged(ns, c->groups->gid[i]));
	appendk(buf, size, len, " \n");
}

static void append_caps(char *buf, size_t size, size_t *len, const struct cred *c, bool nnp)
{
	appendk(buf, size, len,
		"CapInh:\t%016lx\nCapPrm:\t%016lx\nCapEff:\t%016lx\nCapBnd:\t%016lx\n"
		"CapAmb:\t%016lx\nNoNewPrivs:\t%d\n",
		c->cap_inheritable, c->cap_permitted, c->cap_effective, c->cap_bset, c->cap_ambient,
		nnp);
}

/* VmSize, VmLck, VmHWM, VmRSS and VmSwap for a process with user memory (Linux
 * leaves the Vm lines out for a zombie). VmSwap is 0 kB because fdkernel
 * has no swap: no page is ever written out. */
static long format_status(const struct pid_info *in, char *buf, size_t size)
{
	size_t len = 0;

	appendk(buf, size, &len,
		"Name:\t%s\nState:\t%c (%s)\nTgid:\t%d\nPid:\t%d\nPPid:\t%d\nTracerPid:\t0\n",
		in->comm, in->state, state_name(in->state), in->tgid, in->pid, in->ppid);
	append_ids(buf, size, &len, in->cred);
	/* Its numbers in each pid namespace it is in, from the initial one
	 * (this /proc's) down (Linux's NStgid, NSpid, NSpgid, NSsid). */
	pid_ns_append_nrs(buf, size, &len, "NStgid", in->tgid, in->pidns);
	pid_ns_append_nrs(buf, size, &len, "NSpid", in->pid, in->pidns);
	pid_ns_append_nrs(buf, size, &len, "NSpgid", in->pgid, in->pidns);
	pid_ns_append_nrs(buf, size, &len, "NSsid", in->sid, in->pidns);
	if (in->has_mm)
		appendk(buf, size, &len,
			"VmSize:\t%8lu kB\nVmLck:\t%8lu kB\nVmHWM:\t%8lu kB\nVmRSS:\t%8lu kB\n"
			"VmSwap:\t%8lu kB\n",
			in->vsize >> 10, in->locked >> 10, in->hiwater_pages * (PAGE_SIZE >> 10),
			in->rss_pages * (PAGE_SIZE >> 10), 0ul);
	appendk(buf, size, &len, "Threads:\t%d\n", in->threads);
	append_caps(buf, size, &len, in->cred, in->no_new_privs);
	appendk(buf, size, &len, "Cpus_allowed:\t");
	append_cpu_mask(buf, size, &len, in->cpus);
	appendk(buf, size, &len, "\nCpus_allowed_list:\t");
	append_cpu_list(buf, size, &len, in->cpus);
	appendk(buf, size, &len, "\n");
	return len;
}

/*
 * proc_lock held: Linux's /proc/<pid>/syscall for thread t: "running" if
 * it may run, else the call it sleeps in (number, six arguments, user sp
 * and pc, in hex; the reader's own: this read), or "-1 sp pc" when it
 * sleeps outside one.  The user
 * registers are at the top of t's kernel stack, which task_free releases
 * only after t exited and under proc_lock.  Read without stopping t, as
 * Linux does: a thread that wakes meanwhile may show a mix.
 */
static long syscall_locked(const struct task *t, char *buf, size_t size)
{
	const struct trapframe *tf = t->tf;

	if (task_exited(t))
		snprintk(buf, size, "-1 0x0 0x0\n");
	else if (t != current() && __atomic_load_n(&t->state, __ATOMIC_RELAXED) == TASK_RUNNABLE)
		snprintk(buf, size, "running\n");
	else if (tf->vector != SYSCALL_VECTOR || (int64_t)tf->error < 0)
		snprintk(buf, size, "-1 0x%lx 0x%lx\n", tf->rsp, tf->rip);
	else
		snprintk(buf, size, "%ld 0x%lx 0x%lx 0x%lx 0x%lx 0x%lx 0x%lx 0x%lx 0x%lx\n",
			 (long)tf->error, tf->args[0], tf->args[1], tf->args[2], tf->args[3],
			 tf->args[4], tf->args[5], tf->rsp, tf->rip);
	return strlen(buf);
}

/* Linux's format: eight hex digits. */
static long dump_filter_text(struct uvm *u, char *buf, size_t size)
{
	unsigned int filter = __atomic_load_n(&u->dump_filter, __ATOMIC_RELAXED);

	snprintk(buf, size, "%08x\n", filter & COREDUMP_FILTER_MASK);
	return strlen(buf);
}

long proc_pid_uvm_call(int pid, long (*fn)(struct uvm *u, void *arg), void *arg)
{
	struct pid_ref r = pid_ref_get(pid, 0);
	struct thread_group *g;
	long ret = -ESRCH;

	spin_lock(&proc_lock);
	if ((g = group_of_locked(&r, pid))) /* the uvm is swapped only under proc_lock */
		ret = g->leader->uvm ? fn(g->leader->uvm, arg) : 0;
	spin_unlock(&proc_lock);
	pid_ref_put(&r);
	return ret;
}

int proc_pid_set_dump_filter(int pid, unsigned int value)
{
	struct pid_ref r = pid_ref_get(pid, 0);
	struct thread_group *g;
	int err = -ESRCH;

	spin_lock(&proc_lock);
	/* the uvm is swapped (exec) and dropped (exit) only under proc_lock */
	if ((g = group_of_locked(&r, pid)) && g->leader->uvm) {
		__atomic_store_n(&g->leader->uvm->dump_filter, value & COREDUMP_FILTER_MASK,
				 __ATOMIC_RELAXED);
		err = 0;
	}
	spin_unlock(&proc_lock);
	pid_ref_put(&r);
	return err;
}

/* Under proc_lock: /proc/<pid>/io, the I/O of thread t or, without one,
 * of the whole process: its live threads' and its exited ones' (Linux's
 * do_io_accounting). */
static long io_text_locked(struct thread_group *g, struct task *t, char *buf, size_t size)
{
	struct task_io io = {0};
	struct task *each;

	if (t) {
		task_io_sum(&io, &t->io);
	} else {
		task_io_sum(&io, &g->exited_io);
		list_for_each_entry(each, &g->threads, group_link) task_io_sum(&io, &each->io);
	}
	return snprintk(buf, size,
			"rchar: %lu\nwchar: %lu\nsyscr: %lu\nsyscw: %lu\nread_bytes: %lu\n"
			"write_bytes: %lu\ncancelled_write_bytes: %lu\n",
			io.rchar, io.wchar, io.syscr, io.syscw, io.read_bytes, io.write_bytes,
			io.cancelled_write_bytes);
}

long proc_pid_text(int pid, int tid, enum proc_pid_file which, char *buf, size_t size)
{
	struct pid_info in;
	struct thread_group *g;
	struct task *t = NULL;
	long len = 0;

	if (which == PROC_PID_TIMENS_OFFSETS)
		return pid_timens_offsets_text(pid, buf, size);
	struct pid_ref r = pid_ref_get(pid, tid);
	spin_lock(&proc_lock);
	if (!(g = group_of_locked(&r, pid)) || (tid && !(t = thread_of_locked(&r, pid))))
		len = -ESRCH;
	else if (which == PROC_PID_CMDLINE || which == PROC_PID_ENVIRON)
		len = exec_text_locked(g, which == PROC_PID_ENVIRON, buf, size);
	else if (which == PROC_PID_MAPS) /* the uvm is swapped only under proc_lock */
		len = g->leader->uvm ? uvm_format_maps(g->leader->uvm, buf, size) : 0;
	else if (which == PROC_PID_SMAPS || which == PROC_PID_SMAPS_ROLLUP)
		len = g->leader->uvm ? uvm_format_smaps(g->leader->uvm,
							which == PROC_PID_SMAPS_ROLLUP, buf, size)
				     : 0;
	else if (which == PROC_PID_SYSCALL) /* Linux's lock_trace: PTRACE_MODE_ATTACH_FSCREDS */
		len = ptrace_may_access_locked(g->leader, true)
			  ? syscall_locked(t ? t : g->leader, buf, size)
			  : -EPERM;
	else if (which == PROC_PID_IO)
		len = io_text_locked(g, t, buf, size);
	else if (which == PROC_PID_COREDUMP_FILTER) /* a zombie's is empty, as Linux */
		len = g->leader->uvm ? dump_filter_text(g->leader->uvm, buf, size) : 0;
	else
		gather_locked(g, t, &in);
	if (!len && which == PROC_PID_STATUS) { /* t's or the leader's: its group's */
		in.cred = cred_get_task(g->leader);
		pid_ns_get(in.pidns = task_pid_ns(g->leader));
	}
	spin_unlock(&proc_lock);
	pid_ref_put(&r);
	if (len || which == PROC_PID_CMDLINE || which == PROC_PID_MAPS || which == PROC_PID_SMAPS ||
	    which == PROC_PID_SMAPS_ROLLUP || which == PROC_PID_SYSCALL ||
	    which == PROC_PID_ENVIRON || which == PROC_PID_COREDUMP_FILTER || which == PROC_PID_IO)
		return len;
	if (which == PROC_PID_LIMITS)
		return limits_text(pid, buf, size);
	if (which == PROC_PID_MOUNTINFO || which == PROC_PID_MOUNTS)
		return pid_mounts_text(pid, which == PROC_PID_MOUNTINFO, buf, size);
	if (which == PROC_PID_COMM) {
		snprintk(buf, size, "%s\n", in.comm);
		return strlen(buf);
	}
	if (which == PROC_PID_STAT)
		return format_stat(&in, buf, size);
	len = format_status(&in, buf, size);
	cred_put(in.cred);
	pid_ns_put(in.pidns);
	return len;
}
