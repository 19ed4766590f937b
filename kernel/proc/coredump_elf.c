/*
 * The ELF core file (Linux's binfmt_elf elf_core_dump for x86_64): the
 * header, a PT_NOTE and one PT_LOAD per mapping, then the notes, then the
 * mappings' bytes from a page boundary on.  The notes, in Linux's order:
 * the writing thread's NT_PRSTATUS, then NT_PRPSINFO, NT_SIGINFO, NT_AUXV
 * and NT_FILE, then its NT_PRFPREG; then NT_PRSTATUS and NT_PRFPREG of
 * each other thread.  The layouts are the x86_64 ABI's (struct
 * elf_prstatus, elf_prpsinfo, user_regs_struct, the FXSAVE area), which
 * gdb reads.
 */
#include "proc/cred.h"
#include "proc/coredump.h"
#include "arch/x86_64/sigframe.h"
#include "arch/x86_64/timer.h"
#include "arch/x86_64/trapframe.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/layout.h"
#include "proc/group.h"
#include "proc/proc.h"
#include "proc/task.h"
#include "mm/uvm.h"
#include "mm/vma.h"
#include "proc/pid_ns.h"
#include <uapi/elf.h>
#include <uapi/mman.h>

#define NT_PRSTATUS 1
#define NT_PRFPREG  2
#define NT_PRPSINFO 3
#define NT_AUXV	    6
#define NT_SIGINFO  0x53494749
#define NT_FILE	    0x46494c45

struct core_timeval {
	int64_t sec, usec;
};

/* struct elf_prstatus, 336 bytes; regs is user_regs_struct. */
struct core_prstatus {
	int32_t si_signo, si_code, si_errno;
	int16_t cursig;
	uint16_t pad0;
	uint64_t sigpend, sighold;
	int32_t pid, ppid, pgrp, sid;
	struct core_timeval utime, stime, cutime, cstime;
	uint64_t regs[27];
	int32_t fpvalid;
	int32_t pad1;
};
_Static_assert(sizeof(struct core_prstatus) == 336, "Linux's elf_prstatus");

/* struct elf_prpsinfo, 136 bytes. */
struct core_prpsinfo {
	char state, sname, zomb, nice;
	uint32_t pad;
	uint64_t flag;
	uint32_t uid, gid;
	int32_t pid, ppid, pgrp, sid;
	char fname[16];
	char psargs[80];
};
_Static_assert(sizeof(struct core_prpsinfo) == 136, "Linux's elf_prpsinfo");

static size_t pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

/* A note's size in the file: header, "CORE" or "LINUX" padded, desc padded. */
static size_t note_size(const char *name, size_t descsz)
{
	return sizeof(struct elf64_note) + pad4(strlen(name) + 1) + pad4(descsz);
}

static bool put_note(struct core_out *o, const char *name, uint32_t type, const void *desc,
		     size_t descsz)
{
	static const char zero[4];
	struct elf64_note n = {(uint32_t)strlen(name) + 1, (uint32_t)descsz, type};
	size_t name_pad = pad4(n.namesz) - n.namesz, desc_pad = pad4(descsz) - descsz;

	return core_emit(o, &n, sizeof(n)) && core_emit(o, name, n.namesz) &&
	       core_emit(o, zero, name_pad) && core_emit(o, desc, descsz) &&
	       core_emit(o, zero, desc_pad);
}

static struct core_timeval ticks_time(uint64_t ticks)
{
	return (struct core_timeval){(int64_t)(ticks / TIMER_HZ),
				     (int64_t)(ticks % TIMER_HZ * (1000000 / TIMER_HZ))};
}

/* user_regs_struct from a user trapframe and the thread's TLS bases. */
static void user_regs(uint64_t *r, const struct core_thread *th)
{
	const struct trapframe *tf = th->tf;
	const uint64_t regs[27] = {
	    tf->r15,	   tf->r14,
	    tf->r13,	   tf->r12,
	    tf->rbp,	   tf->rbx,
	    tf->r11,	   tf->r10,
	    tf->r9,	   tf->r8,
	    tf->rax,	   tf->rcx,
	    tf->rdx,	   tf->rsi,
	    tf->rdi,	   tf->vector == SYSCALL_VECTOR ? tf->error : (uint64_t)-1, /* orig_rax */
	    tf->rip,	   tf->cs,
	    tf->rflags,	   tf->rsp,
	    tf->ss,	   th->t->fsbase,
	    th->t->gsbase, /* ds, es, fs, gs: 0 in 64-bit user mode */
	};

	memcpy(r, regs, sizeof(regs));
}

static void fill_prstatus(struct core_prstatus *p, const struct core_dump *d,
			  const struct core_thread *th)
{
	struct task *t = th->t;
	struct thread_group *g = t->group;

	memset(p, 0, sizeof(*p));
	p->si_signo = p->cursig = (int16_t)d->sig;
	p->sigpend = __atomic_load_n(&t->sig.pending.set, __ATOMIC_RELAXED);
	p->sighold = t->sig.blocked;
	/* Numbered as the process numbers them (Linux's task_pid_vnr ...). */
	p->pid = task_nr(t);
	spin_lock(&proc_lock);
	p->ppid = g->parent ? pid_vnr(g->parent->tgid) : 0;
	p->pgrp = pid_vnr(g->pgid);
	p->sid = pid_vnr(g->sid);
	p->cutime = ticks_time(g->children_utime);
	p->cstime = ticks_time(g->children_stime);
	spin_unlock(&proc_lock);
	p->utime = ticks_time(t->utime_ticks);
	p->stime = ticks_time(t->stime_ticks);
	user_regs(p->regs, th);
	p->fpvalid = 1;
}

static void fill_prpsinfo(struct core_prpsinfo *p, const struct core_dump *d)
{
	struct task *t = d->threads[0].t;
	struct thread_group *g = t->group;
	size_t n =
	    d->u->cmdline_len < sizeof(p->psargs) - 1 ? d->u->cmdline_len : sizeof(p->psargs) - 1;

	memset(p, 0, sizeof(*p));
	p->sname = 'R'; /* the writer runs: state 0 */
	p->nice = (char)t->nice;
	p->pid = pid_vnr(g->tgid);
	p->uid = task_cred(t)->uid; /* the real ids, as Linux */
	p->gid = task_cred(t)->gid;
	spin_lock(&proc_lock);
	p->ppid = g->parent ? pid_vnr(g->parent->tgid) : 0;
	p->pgrp = pid_vnr(g->pgid);
	p->sid = pid_vnr(g->sid);
	spin_unlock(&proc_lock);
	strlcpy(p->fname, t->name, sizeof(p->fname));
	if (d->u->cmdline)
		memcpy(p->psargs, d->u->cmdline, n);
	for (size_t i = 0; i < n; i++) /* the arguments, spaced (Linux's) */
		if (!p->psargs[i])
			p->psargs[i] = ' ';
	if (n && p->psargs[n - 1] == ' ')
		p->psargs[n - 1] = '\0';
}

/* The saved auxiliary vector's bytes, its AT_NULL pair included. */
static size_t auxv_size(const struct uvm *u)
{
	size_t i = 0;

	while (i + 2 <= UVM_AUXV_WORDS && u->saved_auxv[i])
		i += 2;
	return (i + 2 <= UVM_AUXV_WORDS ? i + 2 : i) * sizeof(uint64_t);
}

/* NT_FILE's size: count and page size, three words per mapping of the
 * program, then its path once per mapping (0 if there is none). */
static size_t files_size(const struct core_dump *d, int *count)
{
	size_t path = d->u->exe_path ? strlen(d->u->exe_path) + 1 : 0;

	*count = 0;
	for (int i = 0; i < d->nvmas; i++)
		*count += d->vmas[i].named && path;
	return *count ? 16 + (size_t)*count * (24 + path) : 0;
}

static bool put_files(struct core_out *o, const struct core_dump *d, size_t size, int count)
{
	size_t path = strlen(d->u->exe_path) + 1, at = 16;
	uint8_t *buf = kzalloc(size);
	uint64_t head[2] = {(uint64_t)count, PAGE_SIZE};
	bool ok;

	if (!buf)
		return false;
	memcpy(buf, head, sizeof(head));
	for (int i = 0; i < d->nvmas; i++) {
		const struct core_vma *v = &d->vmas[i];
		uint64_t e[3] = {v->start, v->end, v->off / PAGE_SIZE};

		if (!v->named)
			continue;
		memcpy(buf + at, e, sizeof(e));
		at += sizeof(e);
	}
	for (int i = 0; i < count; i++, at += path)
		memcpy(buf + at, d->u->exe_path, path);
	ok = put_note(o, "CORE", NT_FILE, buf, size);
	kfree(buf);
	return ok;
}

/* The notes' total size. */
static size_t notes_size(const struct core_dump *d, size_t files)
{
	size_t per_thread = note_size("CORE", sizeof(struct core_prstatus)) +
			    note_size("CORE", sizeof(struct fpu_state));

	return (size_t)d->nthreads * per_thread + note_size("CORE", sizeof(struct core_prpsinfo)) +
	       note_size("CORE", 128) + note_size("CORE", auxv_size(d->u)) +
	       (files ? note_size("CORE", files) : 0);
}

static bool put_thread(struct core_out *o, const struct core_dump *d, int i, size_t files,
		       int count)
{
	struct core_prstatus st;
	struct core_prpsinfo ps;
	uint8_t si[128];

	fill_prstatus(&st, d, &d->threads[i]);
	if (!put_note(o, "CORE", NT_PRSTATUS, &st, sizeof(st)))
		return false;
	if (i == 0) {
		fill_prpsinfo(&ps, d);
		siginfo_fill(si, d->sig, d->info);
		if (!put_note(o, "CORE", NT_PRPSINFO, &ps, sizeof(ps)) ||
		    !put_note(o, "CORE", NT_SIGINFO, si, sizeof(si)) ||
		    !put_note(o, "CORE", NT_AUXV, d->u->saved_auxv, auxv_size(d->u)) ||
		    (files && !put_files(o, d, files, count)))
			return false;
	}
	return put_note(o, "CORE", NT_PRFPREG, &d->threads[i].fpu, sizeof(struct fpu_state));
}

static uint32_t phdr_flags(int prot)
{
	return (prot & PROT_READ ? PF_R : 0) | (prot & PROT_WRITE ? PF_W : 0) |
	       (prot & PROT_EXEC ? PF_X : 0);
}

/* Fewer mappings than PN_XNUM (0xffff): e_phnum holds their count. */
_Static_assert(VMA_MAX + 1 < 0xffff, "no extended numbering needed");

/* The header and the program headers; the notes follow them. */
static bool put_headers(struct core_out *o, const struct core_dump *d, size_t notes)
{
	uint64_t phoff = sizeof(struct elf64_ehdr), phnum = (uint64_t)d->nvmas + 1;
	uint64_t notes_at = phoff + phnum * sizeof(struct elf64_phdr);
	uint64_t data = PAGE_ALIGN_UP(notes_at + notes);
	struct elf64_ehdr eh = {
	    .ident = {0x7f, 'E', 'L', 'F', 2 /* 64-bit */, 1 /* LSB */, 1 /* version */},
	    .type = ET_CORE,
	    .machine = EM_X86_64,
	    .version = 1,
	    .phoff = phoff,
	    .ehsize = sizeof(struct elf64_ehdr),
	    .phentsize = sizeof(struct elf64_phdr),
	    .phnum = (uint16_t)phnum,
	};
	struct elf64_phdr note = {.type = PT_NOTE, .offset = notes_at, .filesz = notes};

	if (!core_emit(o, &eh, sizeof(eh)) || !core_emit(o, &note, sizeof(note)))
		return false;
	for (int i = 0; i < d->nvmas; i++) {
		const struct core_vma *v = &d->vmas[i];
		struct elf64_phdr ph = {.type = PT_LOAD,
					.flags = phdr_flags(v->prot),
					.offset = data,
					.vaddr = v->start,
					.filesz = v->dump,
					.memsz = v->end - v->start,
					.align = PAGE_SIZE};

		if (!core_emit(o, &ph, sizeof(ph)))
			return false;
		data += v->dump;
	}
	return true;
}

bool core_write_elf(const struct core_dump *d, struct core_out *o)
{
	int count;
	size_t files = files_size(d, &count), notes = notes_size(d, files);

	if (!put_headers(o, d, notes))
		return false;
	for (int i = 0; i < d->nthreads; i++)
		if (!put_thread(o, d, i, files, count))
			return false;
	core_skip_to(o, PAGE_ALIGN_UP(o->pos));
	for (int i = 0; i < d->nvmas; i++)
		if (!core_emit_vma(d, o, &d->vmas[i]))
			return false;
	return true;
}
