/*
 * Core dumps (coredump.h): the threads stopped, the file named by
 * core_pattern, the memory the core holds.  The ELF layout and the notes
 * are coredump_elf.c's.
 *
 * As Linux's do_coredump: the thread that took the signal kills the other
 * threads and waits until each has stopped at its exit with its registers
 * in place (coredump_park); with nobody left to change the mappings it
 * writes the file, then lets them go and exits.  A process that is not
 * dumpable (prctl), whose RLIMIT_CORE is below a page, whose pattern
 * names a pipe or a file that cannot be made (an existing file is
 * replaced; a directory, a missing directory or a full ramfs are not)
 * dumps nothing and its status has no WCOREDUMP; a dump that reaches
 * RLIMIT_CORE (or RLIMIT_FSIZE, as Linux) stops there, the file cut
 * short, and has WCOREDUMP all the same, as Linux's.
 */
#include "proc/coredump.h"
#include "proc/cred.h"
#include "arch/x86_64/timer.h"
#include "fs/file.h"
#include "fs/inode.h"
#include "fs/proc/proc_sys.h"
#include "fs/vfs.h"
#include "lib/iov_iter.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/frame.h"
#include "mm/heap.h"
#include "mm/paging.h"
#include "proc/exit.h"
#include "proc/group.h"
#include "proc/proc.h"
#include "proc/rlimit.h"
#include "proc/signal.h"
#include "proc/sysinfo.h"
#include "mm/uvm.h"
#include "mm/vma.h"
#include "proc/pid_ns.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/mman.h>

/* /proc/sys/kernel/core_uses_pid: ".PID" after a name whose pattern has
 * no %p (Linux's, 0 at boot). */
static int core_uses_pid;
PROC_SYS_ROW(core_uses_pid_row, .path = "kernel/core_uses_pid", .mode = 0644,
	     .show = proc_sys_int_show, .store = proc_sys_int_store, .data = &core_uses_pid,
	     .min = INT32_MIN, .max = INT32_MAX);

bool sig_dumps_core(int sig)
{
	const uint64_t core = SIGBIT(SIGQUIT) | SIGBIT(SIGILL) | SIGBIT(SIGTRAP) | SIGBIT(SIGABRT) |
			      SIGBIT(SIGBUS) | SIGBIT(SIGFPE) | SIGBIT(SIGSEGV) | SIGBIT(SIGXCPU) |
			      SIGBIT(SIGXFSZ) | SIGBIT(SIGSYS);

	return sig >= 1 && sig <= 64 && (SIGBIT(sig) & core);
}

/* ---- The threads ---- */

void coredump_park(struct task *t)
{
	struct thread_group *g = t->group;
	DEFINE_WAIT(we);

	spin_lock(&proc_lock);
	if (!g->core_dumper || g->core_dumper == t) {
		spin_unlock(&proc_lock);
		return;
	}
	g->core_parked++;
	wake_up(&g->thread_exit);
	spin_unlock(&proc_lock);
	for (;;) { /* not interruptible: it is dying anyway */
		prepare_to_wait(&g->thread_exit, &we);
		if (!__atomic_load_n(&g->core_dumper, __ATOMIC_ACQUIRE))
			break;
		schedule();
	}
	finish_wait(&g->thread_exit, &we);
}

/* The writer waits until every other thread of g is parked. */
static void wait_parked(struct thread_group *g)
{
	DEFINE_WAIT(we);

	for (;;) {
		prepare_to_wait(&g->thread_exit, &we);
		if (__atomic_load_n(&g->core_parked, __ATOMIC_ACQUIRE) ==
		    __atomic_load_n(&g->live, __ATOMIC_ACQUIRE) - 1)
			break;
		schedule();
	}
	finish_wait(&g->thread_exit, &we);
}

/* The threads of g, the writer t first, each referenced; *n set.  NULL
 * when memory runs out. */
static struct core_thread *gather_threads(struct task *t, const struct trapframe *tf, int *n)
{
	struct thread_group *g = t->group;
	struct core_thread *th = kzalloc(sizeof(*th) * (size_t)g->live); /* parked: live is fixed */
	struct task *o;

	if (!th)
		return NULL;
	th[0] = (struct core_thread){.t = t, .tf = tf};
	fpu_save(&th[0].fpu); /* the user's registers: the kernel uses none */
	task_get(t);
	*n = 1;
	spin_lock(&proc_lock);
	list_for_each_entry(o, &g->threads, group_link)
	{
		if (o == t || *n == g->live)
			continue;
		th[*n] = (struct core_thread){.t = o, .tf = o->tf, .fpu = o->fpu};
		task_get(o);
		(*n)++;
	}
	spin_unlock(&proc_lock);
	return th;
}

static void put_threads(struct core_thread *th, int n)
{
	for (int i = 0; th && i < n; i++)
		task_put(th[i].t);
	kfree(th);
}

/* ---- The mappings ---- */

/* Whether private mapping v has pages of its own (Linux's anon_vma):
 * anonymous memory once touched, a writable file mapping (data, taken as
 * written to). */
static bool has_own_pages(struct uvm *u, const struct vma *v)
{
	if (v->file)
		return v->prot & PROT_WRITE;
	return vm_next_mapped(u->space, v->start, v->end) < v->end;
}

/*
 * How much of v the core holds (Linux's vma_dump_size) under filter,
 * the process's coredump_filter: nothing with MADV_DONTDUMP; shared
 * memory whole if anonymous (a memfd's, a SysV segment's: no name left)
 * and ANON_SHARED, or of a named file and MAPPED_SHARED; private memory
 * with pages of its own whole under ANON_PRIVATE, any private file
 * mapping whole under MAPPED_PRIVATE; else, under ELF_HEADERS, the first
 * page of an executable mapped from its start (for the debugger).
 */
static uint64_t dump_size(struct uvm *u, const struct vma *v, unsigned int filter)
{
	uint64_t len = v->end - v->start;

	if (v->flags & VMA_DONTDUMP)
		return 0;
	if (v->flags & VMA_SHARED) {
		bool anon = !v->file || v->ops || !v->file->nlink;
		return filter & (anon ? COREDUMP_FILTER_ANON_SHARED : COREDUMP_FILTER_MAPPED_SHARED)
			   ? len
			   : 0;
	}
	if ((filter & COREDUMP_FILTER_ANON_PRIVATE) && has_own_pages(u, v))
		return len;
	if (!v->file)
		return 0;
	if (filter & COREDUMP_FILTER_MAPPED_PRIVATE)
		return len;
	if ((filter & COREDUMP_FILTER_ELF_HEADERS) && !v->off && (v->prot & PROT_READ) &&
	    (v->file->mode & 0111))
		return PAGE_SIZE;
	return 0;
}

/* u's mappings as the core shows them; *n set.  NULL when memory runs
 * out.  No other thread runs: the list cannot change under the walk. */
static struct core_vma *gather_vmas(struct uvm *u, int *n)
{
	struct core_vma *cv = kzalloc(sizeof(*cv) * (size_t)(u->vt->nr ? u->vt->nr : 1));
	unsigned int filter = __atomic_load_n(&u->dump_filter, __ATOMIC_RELAXED);
	struct vma *v;

	if (!cv)
		return NULL;
	*n = 0;
	spin_lock(&u->lock);
	for (v = vma_find(u, 0); v; v = vma_next(u, v), (*n)++)
		cv[*n] = (struct core_vma){.start = v->start,
					   .end = v->end,
					   .dump = dump_size(u, v, filter),
					   .prot = v->prot,
					   .file = (v->flags & VMA_SHARED) ? NULL : v->file,
					   .off = v->off,
					   .named = v->file && v->file == u->exe};
	spin_unlock(&u->lock);
	return cv;
}

/* The frame mapping user page va, referenced, or 0. */
static uint64_t page_frame(struct uvm *u, uint64_t va)
{
	uint64_t pa, flags, ret = 0;

	spin_lock(&u->lock);
	if (!translate(u->space, va, &pa, &flags) && (flags & PTE_USER)) {
		ret = PAGE_ALIGN_DOWN(pa);
		frame_ref(ret);
	}
	spin_unlock(&u->lock);
	return ret;
}

/* Page va of v: its mapped frame or, in a private file mapping, the
 * file's page (read as a touch would); 0 for a hole. */
static uint64_t dump_page(const struct core_dump *d, const struct core_vma *v, uint64_t va)
{
	uint64_t pa = page_frame(d->u, va), off = v->off + (va - v->start);

	if (!pa && v->file && off < inode_size(v->file))
		pa = inode_page_ref(v->file, off / PAGE_SIZE);
	return pa;
}

bool core_emit_vma(const struct core_dump *d, struct core_out *o, const struct core_vma *v)
{
	uint64_t base = o->pos, end = v->start + v->dump, pa;

	for (uint64_t va = v->start; va < end && !o->failed; va += PAGE_SIZE) {
		if (!v->file && (va = vm_next_mapped(d->u->space, va, end)) >= end)
			break; /* anonymous: only what is mapped, the rest a hole */
		core_skip_to(o, base + (va - v->start));
		if ((pa = dump_page(d, v, va))) {
			core_emit(o, P2V(pa), PAGE_SIZE);
			frame_unref(pa);
		}
	}
	core_skip_to(o, base + v->dump);
	return !o->failed;
}

/* ---- The file ---- */

bool core_emit(struct core_out *o, const void *buf, size_t len)
{
	struct iovec v;
	struct iov_iter it;
	uint64_t at = o->pos;

	if (o->failed || len > o->limit - o->written) {
		o->failed = true;
		return false;
	}
	iov_iter_kernel(&it, &v, (void *)buf, len);
	if (file_rw_iter(o->f, &it, &at, true) != (long)len) {
		o->failed = true;
		return false;
	}
	o->pos += len;
	o->written += len;
	return true;
}

void core_skip_to(struct core_out *o, uint64_t pos)
{
	if (pos > o->pos)
		o->pos = pos;
}

/* Appends s to the name (cut at size): '/' becomes '!' when esc, as
 * Linux's cn_esc_printf, so a name cannot reach another directory. */
static void name_put(char *name, size_t size, size_t *len, const char *s, bool esc)
{
	for (; *s && *len + 1 < size; s++)
		name[(*len)++] = esc && *s == '/' ? '!' : *s;
	name[*len] = '\0';
}

static void name_num(char *name, size_t size, size_t *len, uint64_t v)
{
	char num[24];

	snprintk(num, sizeof(num), "%lu", v);
	name_put(name, size, len, num, false);
}

/* The last component of path. */
static const char *base_name(const char *path)
{
	const char *base = path;

	for (; *path; path++)
		if (*path == '/')
			base = path + 1;
	return base;
}

/* One %-specifier of core_pattern (Linux's format_corename), c after the
 * '%'; an unknown one stands for nothing.  *pid: whether %p was seen. */
static void name_spec(char c, int sig, char *name, size_t size, size_t *len, bool *pid)
{
	struct task *t = current();
	const char *exe = t->uvm->exe_path ? t->uvm->exe_path : t->name;
	char host[65];

	switch (c) {
	case '%':
		name_put(name, size, len, "%", false);
		break;
	case 'p': /* as the process numbers itself; %P: the initial namespace's */
		*pid = true;
		name_num(name, size, len, (uint64_t)pid_vnr(t->group->tgid));
		break;
	case 'P':
		name_num(name, size, len, (uint64_t)t->group->tgid);
		break;
	case 'i':
		name_num(name, size, len, (uint64_t)task_nr(t));
		break;
	case 'I':
		name_num(name, size, len, (uint64_t)t->pid);
		break;
	case 'u': /* the real ids, as Linux's cred->uid and gid */
		name_num(name, size, len, task_cred(t)->uid);
		break;
	case 'g':
		name_num(name, size, len, task_cred(t)->gid);
		break;
	case 'd':
		name_num(name, size, len, (uint64_t)t->uvm->dumpable);
		break;
	case 's':
		name_num(name, size, len, (uint64_t)sig);
		break;
	case 't':
		name_num(name, size, len,
			 (uint64_t)(clock_realtime_offset_ns() + (int64_t)clock_monotonic_ns()) /
			     NSEC_PER_SEC);
		break;
	case 'h':
		uts_hostname(host, sizeof(host));
		name_put(name, size, len, host, true);
		break;
	case 'e':
		name_put(name, size, len, t->name, true);
		break;
	case 'f':
		name_put(name, size, len, base_name(exe), true);
		break;
	case 'E':
		name_put(name, size, len, exe, true);
		break;
	case 'c':
		name_num(name, size, len, rlimit_soft(t->group, RLIMIT_CORE));
		break;
	}
}

/* core_pattern expanded for current and sig into name: false for a pipe
 * pattern ("|prog": no helper programs here) or an empty name. */
static bool core_name(int sig, char *name, size_t size)
{
	char pat[CORENAME_MAX_SIZE];
	size_t len = 0;
	bool pid = false;

	spin_lock(&proc_sys_lock);
	strlcpy(pat, core_pattern, sizeof(pat));
	spin_unlock(&proc_sys_lock);
	name[0] = '\0';
	if (pat[0] == '|')
		return false;
	for (const char *p = pat; *p; p++) {
		if (*p != '%') {
			char c[2] = {*p, '\0'};
			name_put(name, size, &len, c, false);
		} else if (p[1]) {
			name_spec(*++p, sig, name, size, &len, &pid);
		}
	}
	if (!pid && __atomic_load_n(&core_uses_pid, __ATOMIC_RELAXED)) {
		name_put(name, size, &len, ".", false);
		name_num(name, size, &len, (uint64_t)pid_vnr(current()->group->tgid));
	}
	return len > 0;
}

/* A new, empty core file at name (an old one is replaced, as Linux does
 * for a program that is not set-uid): mode 0600, regular, one link.
 * NULL if it cannot be made. */
static struct file *core_open(const char *name)
{
	struct file *f;

	vfs_unlink(NULL, name); /* if it is not there, or cannot go, the open says */
	if (vfs_open(NULL, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW, 0600, &f))
		return NULL;
	if (!inode_is_reg(f->inode) || f->inode->nlink != 1) {
		file_put(f);
		return NULL;
	}
	return f;
}

/* The dump into f, as far as RLIMIT_CORE (and the file) let it go.  A
 * hole at the end gets its last byte written, so the file has the
 * core's size. */
static void write_file(struct core_dump *d, struct file *f, uint64_t limit)
{
	struct core_out o = {.f = f, .limit = limit};

	if (core_write_elf(d, &o) && o.pos > inode_size(f->inode)) {
		o.pos--;
		core_emit(&o, "", 1);
	}
}

/* Writes the core of current, whose other threads are parked: whether
 * the dump began (Linux's has_dumped: the file is made and what the
 * notes need is there; a write that fails or meets the limit later still
 * counts, the file cut short). */
static bool write_core(int sig, const struct sig_info *info, const struct trapframe *tf,
		       uint64_t limit)
{
	struct task *t = current();
	struct core_dump d = {.sig = sig, .info = info, .u = t->uvm};
	char *name = kmalloc(PATH_MAX);
	struct file *f = NULL;
	bool ok = false;

	if (name && core_name(sig, name, PATH_MAX) && (f = core_open(name)) &&
	    (d.threads = gather_threads(t, tf, &d.nthreads)) &&
	    (d.vmas = gather_vmas(d.u, &d.nvmas))) {
		write_file(&d, f, limit);
		ok = true;
	}
	put_threads(d.threads, d.nthreads);
	kfree(d.vmas);
	if (f)
		file_put(f);
	kfree(name);
	return ok;
}

int coredump(int sig, const struct sig_info *info, const struct trapframe *tf)
{
	struct task *t = current();
	struct thread_group *g = t->group;
	uint64_t limit = rlimit_soft(g, RLIMIT_CORE);
	int status = W_SIGNALED(sig);

	/* Linux's min_coredump: a core file needs a page at least. */
	if (!t->uvm || !__atomic_load_n(&t->uvm->dumpable, __ATOMIC_RELAXED) || limit < PAGE_SIZE)
		return status;
	spin_lock(&proc_lock);
	if (g->exiting) { /* on its way out already: its status stands */
		spin_unlock(&proc_lock);
		return status;
	}
	g->exiting = true;
	g->exit_status = status;
	g->core_dumper = t;
	group_kill_others_locked(g, t);
	spin_unlock(&proc_lock);
	wait_parked(g);
	if (write_core(sig, info, tf, limit))
		status |= W_CORE;
	spin_lock(&proc_lock);
	g->exit_status = status;
	__atomic_store_n(&g->core_dumper, NULL, __ATOMIC_RELEASE);
	g->core_parked = 0;
	wake_up(&g->thread_exit);
	spin_unlock(&proc_lock);
	return status;
}
