/*
 * execve.  The new image is built in a fresh address space, arguments and
 * all; only when nothing can fail any more does the task switch to it and
 * drop the old one, so a failed execve returns to an intact caller.  In a
 * threaded process the other threads are killed first (de_thread); an
 * execve failing after that leaves the caller alone with the old image.
 */
#include "proc/exec.h"
#include "proc/user_namespace.h"
#include "async/async.h"
#include "async/io_uring.h"
#include "proc/exec_strings.h"
#include "proc/exec_auxv.h"
#include "lib/random.h"
#include "proc/posix_timer.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/timer.h"
#include "arch/x86_64/uaccess.h"
#include "fd/fdtable.h"
#include "fs/inode.h"
#include "fs/mount.h"
#include "fs/root_cwd.h"
#include "fs/vfs.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/paging.h"
#include "proc/cred.h"
#include "proc/elf.h"
#include "proc/futex.h"
#include "proc/exit.h"
#include "proc/group.h"
#include "proc/pid_ns.h"
#include "proc/nproc.h"
#include "proc/proc.h"
#include "proc/rlimit.h"
#include "proc/signal.h"
#include "proc/task.h"
#include "mm/uvm.h"
#include "mm/vdso.h"
#include "mm/vma.h"
#include <uapi/mman.h>
#include "proc/nsproxy.h"
#include "sched/sched.h"
#include "sys/strace.h"
#include "sys/syscall.h"
#include "time/timens.h"
#include <uapi/errno.h>
#include <uapi/personality.h>

_Static_assert(EXEC_AUXV_PAIRS * 2 <= UVM_AUXV_WORDS, "uvm->saved_auxv holds the vector");

/* Writes len bytes at user address va of vm (its pages are mapped). */
static void poke_vm(struct vm_space *vm, uint64_t va, const void *src, size_t len)
{
	const char *p = src;

	while (len) {
		uint64_t pa, chunk = PAGE_SIZE - (va & PAGE_MASK);
		if (chunk > len)
			chunk = len;
		translate(vm, va, &pa, NULL);
		memcpy(P2V(pa), p, chunk);
		va += chunk, p += chunk, len -= chunk;
	}
}

/* The bytes of an auxiliary vector, its AT_NULL pair included. */
static size_t auxv_bytes(const uint64_t *auxv)
{
	size_t n = 1;

	while (auxv[2 * (n - 1)])
		n++;
	return n * 16;
}

/* The stack vma's first bottom: the arguments' pages and 128 KiB more,
 * within the stack limit (Linux's setup_arg_pages), below top. */
static uint64_t stack_base(uint64_t top, uint64_t sp, uint64_t limit)
{
	uint64_t used = top - PAGE_ALIGN_DOWN(sp);

	if (limit < used + STACK_INITIAL_EXPAND)
		return limit < used ? PAGE_ALIGN_DOWN(sp) : PAGE_ALIGN_UP(top - limit);
	return PAGE_ALIGN_DOWN(sp) - STACK_INITIAL_EXPAND;
}

/*
 * Lays out the initial stack (SysV ABI) below l's top: strings at the
 * top, l's random pad, the platform string, 16 random bytes (AT_RANDOM),
 * then argc, argv[], NULL, envp[], NULL, auxv, with rsp 16-aligned at
 * argc.  limit: RLIMIT_STACK.  Returns the initial rsp, or 0 if memory
 * ran out.
 */
static uint64_t build_stack(struct uvm *u, const struct exec_strings *s,
			    const struct elf_image *img, uint64_t limit, const struct uvm_layout *l,
			    const struct cred *c, bool secure)
{
	struct vm_space *vm = u->space;
	struct vma stack = {.end = l->stack_top,
			    .prot = PROT_READ | PROT_WRITE,
			    .flags = VMA_STACK | VMA_GROWSDOWN};
	int nptr = 1 + s->argc + 1 + s->envc + 1;
	uint64_t strings = l->stack_top - PAGE_ALIGN_UP(s->len + 1);
	struct auxv_places at = {.execfn = strings,
				 .vdso = img->vdso,
				 .platform = strings - l->stack_pad - sizeof(EXEC_PLATFORM)};
	uint64_t auxv[EXEC_AUXV_PAIRS * 2];
	uint64_t vecsz, sp, *vec;
	uint8_t rnd[16];
	uint64_t va = strings;

	at.random = (at.platform - 16) & ~15UL;
	vecsz = (uint64_t)nptr * 8 + 16 * exec_auxv_build(auxv, img, &at, c, secure);
	sp = (at.random - vecsz) & ~15UL;
	/* The vma grows down on faults (vma_stack_grow). */
	stack.start = stack_base(l->stack_top, sp, limit);
	if (uvm_add_vma(u, &stack) ||
	    vm_map_anon(vm, PAGE_ALIGN_DOWN(sp), l->stack_top - PAGE_ALIGN_DOWN(sp),
			vma_pte_flags(&stack)))
		return 0;
	random_fill(rnd, sizeof(rnd));
	if (!(vec = kmalloc(vecsz)))
		return 0;
	vec[0] = (uint64_t)s->argc;
	for (int i = 0; i < s->argc + s->envc; i++) {
		vec[1 + i + (i >= s->argc)] = va;
		va += strlen(s->buf + (va - strings)) + 1;
	}
	vec[1 + s->argc] = 0;
	vec[2 + s->argc + s->envc] = 0;
	memcpy(vec + nptr, auxv, vecsz - (uint64_t)nptr * 8);
	memcpy(u->saved_auxv, auxv, vecsz - (uint64_t)nptr * 8);
	poke_vm(vm, strings, s->buf ? s->buf : "", s->len);
	poke_vm(vm, at.platform, EXEC_PLATFORM, sizeof(EXEC_PLATFORM));
	poke_vm(vm, at.random, rnd, sizeof(rnd));
	poke_vm(vm, sp, vec, vecsz);
	kfree(vec);
	return sp;
}

/*
 * Linux's de_thread: the other threads of t's process are killed and
 * waited for; a thread other than the leader then takes the leader's
 * place and pid, and the old leader (a zombie by now) is freed.  0, or
 * -EINTR if the process is dying already (exit_group, another exec):
 * t's own SIGKILL is on its way.
 */
static int de_thread(struct task *t)
{
	struct thread_group *g = t->group;
	struct task *old = NULL;
	DEFINE_WAIT(we);

	spin_lock(&proc_lock);
	if (g->live == 1 && task_is_leader(t)) {
		spin_unlock(&proc_lock);
		return 0;
	}
	if (g->exiting) {
		spin_unlock(&proc_lock);
		return -EINTR;
	}
	g->exiting = true; /* an exit_group meanwhile only ends its own thread */
	group_kill_others_locked(g, t);
	spin_unlock(&proc_lock);
	for (;;) { /* not interruptible: they are dying anyway */
		prepare_to_wait(&g->thread_exit, &we);
		if (__atomic_load_n(&g->live, __ATOMIC_ACQUIRE) == 1)
			break;
		schedule();
	}
	finish_wait(&g->thread_exit, &we);
	spin_lock(&proc_lock);
	if (!task_is_leader(t)) {
		old = g->leader;
		old->pid = t->pid;
		t->pid = g->tgid;
		pid_numbers_swap_locked(t, old);
		g->leader = t;
	}
	g->exiting = false;
	spin_unlock(&proc_lock);
	if (old)
		task_free(old);
	return 0;
}

/*
 * The process becomes t alone, with a files table and handlers of its
 * own (close-on-exec must not close fds under another process sharing
 * the table): 0 or -errno, the old image intact.
 */
static int exec_take_over(struct task *t)
{
	int err = de_thread(t);

	/* its asynchronous calls, SQ threads and registered rings do not
	 * survive the exec */
	if (!err) {
		io_sq_group_exit(t->group);
		async_task_exit(t, ASYNC_EXEC);
		io_uring_task_exit(t);
	}
	if (!err)
		err = task_unshare_files(t);
	if (!err)
		err = signal_unshare(t);
	return err;
}

/* Point of no return: the task takes the new memory and program (and the
 * caller's reference to its file, with the write denial); its name is the
 * last component of path.  u's brk is set. */
static void commit_exec(struct task *t, struct uvm *u, const struct elf_image *img, uint64_t sp,
			const char *path, struct inode *exe, char *exe_path)
{
	const char *base = path;
	struct uvm *old;

	/* The old image's robust locks and tid word are released while it is
	 * still mapped, and forgotten (Linux's exec_mm_release). */
	if (t == current())
		futex_exec_release(t);
	/* Set while u is still private: once t->uvm points at it, /proc
	 * reads exe_path. */
	u->exe = exe;
	u->exe_path = exe_path;
	old = task_swap_uvm(t, u);
	if (t == current())
		vm_switch(u->space);
	uvm_put(old);
	vfork_done(t); /* a vfork parent has its memory back */
	/* Before close-on-exec, as Linux clears PF_FORKNOEXEC: a parent told
	 * of the exec by a close-on-exec pipe closing must find setpgid
	 * refused (EACCES). */
	spin_lock(&proc_lock);
	t->group->execed = true;
	spin_unlock(&proc_lock);
	files_exec(t->files);
	signal_exec(t);
	posix_timers_exit(t->group);		    /* POSIX: timers do not survive exec */
	t->sig.altstack = (struct sig_altstack){0}; /* the old image's memory */
	for (const char *p = path; *p; p++)
		if (*p == '/' && p[1])
			base = p + 1;
	strlcpy(t->name, base, sizeof(t->name));
	strace_exec(t);
	memset(t->tf, 0, sizeof(*t->tf));
	fpu_reset(&t->fpu);
	if (t == current())
		fpu_restore(&t->fpu);
	t->fsbase = t->gsbase = 0; /* a new program sets up its own TLS */
	if (t == current())
		user_bases_load(t);
	t->tf->rip = img->start;
	t->tf->rsp = sp;
	t->tf->cs = USER_CS;
	t->tf->ss = USER_DS;
	t->tf->rflags = 0x202; /* IF */
	task_work_set(t, TASK_WORK_FRAME);
}

/* The first UVM_CMDLINE_MAX bytes of argv's strings (they lead strs->buf)
 * and of envp's (they follow) into u, for /proc/<pid>/cmdline and
 * environ.  false when memory runs out. */
static bool keep_cmdline(struct uvm *u, const struct exec_strings *strs)
{
	size_t alen = 0, elen = 0;

	for (int i = 0; i < strs->argc; i++)
		alen += strlen(strs->buf + alen) + 1;
	for (int i = 0; i < strs->envc; i++)
		elen += strlen(strs->buf + alen + elen) + 1;
	return uvm_keep_text(&u->cmdline, &u->cmdline_len, strs->buf, alen) &&
	       uvm_keep_text(&u->environ, &u->environ_len, strs->buf + alen, elen);
}

/*
 * The absolute path of the program, links resolved (kmalloc'd), for
 * /proc/<pid>/exe: the interpreter's when it is a script, the path the
 * file was opened by for an fd (its name when it has none), else the
 * target's path.  NULL when memory runs out or it cannot be named.
 */
static char *program_path(const struct exec_target *tg, const char *interp)
{
	char *buf = kmalloc(PATH_MAX), *abs = NULL;
	struct file *f = tg->file;
	long err;

	if (!buf)
		return NULL;
	if (interp)
		err = vfs_real_path(NULL, interp, buf);
	else if (f && f->dir && f->name)
		err = vfs_join_name(&(struct path){f->mnt, f->dir}, f->name, strlen(f->name), buf);
	else if (f)
		err = strlcpy(buf, tg->name, PATH_MAX) >= PATH_MAX ? -ENAMETOOLONG : 0;
	else
		err = vfs_real_path(tg->start, tg->path, buf);
	if (!err)
		abs = kstrdup(buf);
	kfree(buf);
	return abs;
}

void exe_inode_put(struct inode *ip)
{
	inode_allow_write_access(ip);
	inode_put(ip);
}

/* The program file of tg, referenced in *ip, and whether its mount is
 * nosuid: 0, or the lookup's errors, -EACCES for an fd that is no
 * executable file. */
static int find_program(const struct exec_target *tg, struct inode **ip, bool *nosuid)
{
	struct path p = {tg->file ? tg->file->mnt : NULL, tg->file ? tg->file->inode : NULL};
	int err;

	if (!tg->file)
		return vfs_lookup_exec(tg->start, tg->path, tg->lookup, ip, nosuid);
	if ((err = p.inode ? vfs_exec_check(&p) : -EACCES))
		return err;
	*nosuid = path_mnt_flags(&p) & MNT_NOSUID;
	inode_get(*ip = p.inode);
	return 0;
}

/*
 * The program file of tg, a script's interpreter in its place (strs then
 * rewritten, *interp its path, kmalloc'd), denied to writers from here on
 * (ETXTBSY if one has it open, as Linux): 0 or -errno, nothing held.  A
 * script named by an fd that closes on exec is ENOENT: its interpreter
 * could not open "/dev/fd/N" (Linux's BINPRM_FLAGS_PATH_INACCESSIBLE).
 */
static int lookup_program(const struct exec_target *tg, struct exec_strings *strs,
			  struct inode **ip, bool *nosuid, char **interp)
{
	int err = find_program(tg, ip, nosuid);

	*interp = NULL;
	if (err)
		return err;
	if ((err = inode_deny_write_access(*ip))) {
		inode_put(*ip);
		return err;
	}
	err = exec_resolve_script(ip, nosuid, tg->name, strs, interp);
	if (!err && *interp && tg->fd_closes)
		err = -ENOENT;
	if (err) {
		exe_inode_put(*ip);
		kfree(*interp);
	}
	return err;
}

int exec_program(struct task *t, const char *path, struct exec_strings *strs)
{
	struct exec_target tg = {.path = path, .name = path};

	return exec_program_at(t, &tg, strs);
}

/* The ids program file ip grants (proc/cred.h's struct exec_ids), its
 * mode and owner read together under its lock (a chmod or chown races
 * with the exec, not with itself). */
static void exec_file_ids(struct task *t, struct inode *ip, bool nosuid, struct exec_ids *out)
{
	struct user_namespace *ns = current_user_ns(); /* t is the caller */

	*out = (struct exec_ids){0};
	if (nosuid || t->no_new_privs)
		return;
	spin_lock(&ip->lock);
	out->setuid = ip->mode & S_ISUID;
	out->setgid = (ip->mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP);
	out->uid = ip->uid, out->gid = ip->gid;
	spin_unlock(&ip->lock);
	/* Linux's bprm_fill_uid: ids the caller's user namespace does not
	 * map grant nothing there (else a set-user-ID-root program would
	 * give a process owned by that namespace's creator root's uid). */
	if (from_kuid(ns, out->uid) == INVALID_ID || from_kgid(ns, out->gid) == INVALID_ID)
		out->setuid = out->setgid = false;
}

/* Linux's check_unsafe_exec: no_new_privs, or t's root and working
 * directory shared with a task outside its process (its own threads are
 * gone at cred_exec_commit; before, they may make this too strict, and
 * exec_creds corrects what was built on it). */
static unsigned exec_unsafe(struct task *t)
{
	unsigned unsafe = t->no_new_privs ? EXEC_UNSAFE_NNP : 0;

	if (__atomic_load_n(&t->fs->refs, __ATOMIC_RELAXED) >
	    __atomic_load_n(&t->group->live, __ATOMIC_RELAXED))
		unsafe |= EXEC_UNSAFE_SHARE;
	return unsafe;
}

/*
 * The creds the new program runs with become t's process's (alone by now),
 * computed again from its creds of this moment: if another thread changed
 * them after the stack was built, the auxv at auxv_va is rewritten.
 */
static void exec_creds(struct task *t, struct uvm *u, struct cred *new, bool secure,
		       const struct exec_ids *file, uint64_t auxv_va)
{
	uint32_t ids[4] = {new->uid, new->euid, new->gid, new->egid};
	bool now_secure = cred_exec_commit(t, new, file, exec_unsafe(t)); /* new is gone now */
	const struct cred *c = task_cred(t);

	if (file->setuid || file->setgid)
		t->personality &= ~PER_CLEAR_ON_SETID;
	/* A program run with other effective ids than the real ones is not
	 * dumpable (Linux's begin_new_exec, suid_dumpable 0). */
	if (c->euid != c->uid || c->egid != c->gid)
		__atomic_store_n(&u->dumpable, 0, __ATOMIC_RELAXED);
	if (now_secure == secure && ids[0] == c->uid && ids[1] == c->euid && ids[2] == c->gid &&
	    ids[3] == c->egid)
		return;
	exec_auxv_put_ids(u->saved_auxv, c, now_secure);
	poke_vm(u->space, auxv_va, u->saved_auxv, auxv_bytes(u->saved_auxv));
}

int exec_program_at(struct task *t, const struct exec_target *tg, struct exec_strings *strs)
{
	char *exe_path, *interp;
	struct elf_image img = {0};
	struct vm_space *vm;
	struct uvm *u = NULL;
	struct nsproxy *ns = NULL; /* the caller's at the commit, if it changes */
	struct inode *ip;
	struct cred *cred;
	struct exec_ids file;
	struct uvm_layout layout;
	bool secure, nosuid;
	uint64_t sp, stack_limit = rlimit_soft(t->group, RLIMIT_STACK);
	int err = lookup_program(tg, strs, &ip, &nosuid, &interp);

	if (err)
		return err;
	exec_file_ids(t, ip, nosuid, &file);
	/* A set-id program is randomised whatever the caller's persona. */
	uvm_layout_draw(&layout,
			!(t->personality & ADDR_NO_RANDOMIZE) || file.setuid || file.setgid);
	if (!(cred = cred_exec_prepare(t, &file, exec_unsafe(t), &secure)) || !(vm = vm_create())) {
		cred_put(cred);
		exe_inode_put(ip);
		kfree(interp);
		return -ENOMEM;
	}
	if (!(u = uvm_create(vm)))
		err = -ENOMEM;
	else
		uvm_set_mmap_base(u, stack_limit, &layout);
	if (u && t->uvm) /* kept across exec, as Linux's mm flags (MMF_INIT_MASK) */
		u->dump_filter = __atomic_load_n(&t->uvm->dump_filter, __ATOMIC_RELAXED);
	if (!err)
		err = elf_load(ip, u, layout.pie_rnd, &img);
	if (!err) { /* while u is private: then brk is written only under u->lock */
		u->brk_start = u->brk = img.brk + layout.brk_rnd;
		u->interp = img.interp, u->interp_path = img.interp_path;
		if (!(img.vdso = vdso_map(u)))
			err = -ENOMEM;
	} else if (img.fatal) { /* Linux has no old image left to return to */
		signal_force_fatal(t, SIGSEGV);
	}
	if (!err && !(sp = build_stack(u, strs, &img, stack_limit, &layout, cred, secure)))
		err = -ENOMEM;
	if (!err && !keep_cmdline(u, strs))
		err = -ENOMEM;
	if (!err && !(exe_path = program_path(tg, interp)))
		err = -ENOMEM;
	kfree(interp);
	if (!err)
		err = nsproxy_for_exec(&ns);
	if (!err && (err = exec_take_over(t)))
		kfree(exe_path);
	if (err) {
		nsproxy_put(ns);
		cred_put(cred);
		exe_inode_put(ip);
		if (u)
			uvm_put(u);
		else
			vm_destroy(vm);
		return err;
	}
	exec_creds(t, u, cred, secure, &file, sp + 8 * (uint64_t)(3 + strs->argc + strs->envc));
	/* the new image is in the time namespace its children would enter */
	timens_enter(ns ? ns->time : current_nsproxy()->time, u);
	if (ns)
		nsproxy_switch(ns);
	commit_exec(t, u, &img, sp, tg->file ? exe_path : tg->name, ip, exe_path);
	return 0;
}

/* Linux's do_execveat_common: a task whose set*id put it past its new
 * user's RLIMIT_NPROC may not exec while it still is. */
static bool nproc_exec_refused(struct task *t)
{
	bool over;

	if (!t->nproc_exceeded)
		return false;
	spin_lock(&proc_lock);
	over =
	    (uint64_t)nproc_tasks_locked(t->group->nproc_uid) > rlimit_soft(t->group, RLIMIT_NPROC);
	spin_unlock(&proc_lock);
	t->nproc_exceeded = over; /* under the limit again: later execs go */
	return over;
}

long exec_from_user(const struct exec_target *tg, char *const *uargv, char *const *uenvp)
{
	struct exec_strings strs = {0};
	long err;

	if (nproc_exec_refused(current()))
		return -EAGAIN;
	err = exec_strings_from_user(&strs, uargv, uenvp);

	if (!err)
		err = exec_program_at(current(), tg, &strs);
	exec_strings_free(&strs);
	/* On success the return value lands in the new image's rax: 0. */
	return err < 0 ? err : 0;
}

SYSCALL_DEFINE3(execve, const char *, upath, char *const *, uargv, char *const *, uenvp)
{
	char *path = kmalloc(PATH_MAX);
	long err;

	if (!path)
		return -ENOMEM;
	err = strncpy_from_user(path, upath, PATH_MAX);
	if (err >= 0)
		err =
		    exec_from_user(&(struct exec_target){.path = path, .name = path}, uargv, uenvp);
	kfree(path);
	return err;
}
