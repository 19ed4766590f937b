/*
 * The first process.  pid 1 starts with the console as fds 0, 1 and 2,
 * the root as its working directory, and the program named on the kernel
 * command line (init=, default /bin/init) with the mode word as argv[1].
 */
#include "fs/file.h"
#include "fd/fdtable.h"
#include "fs/inode.h"
#include "fs/vfs.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/paging.h"
#include "proc/kthread.h"
#include "proc/exec.h"
#include "proc/exec_strings.h"
#include "proc/leakcheck.h"
#include "fs/root_cwd.h"
#include "fs/mount.h"
#include "proc/group.h"
#include "proc/nsproxy.h"
#include "proc/proc.h"
#include "sched/sched.h"
#include <uapi/fcntl.h>

static void open_console(struct files_table *files)
{
	struct file *f;
	/* O_NOCTTY: init has no controlling terminal (as on Linux); a
	 * session it starts takes the console (user/bin/init.c). */
	int err = vfs_open(NULL, "/dev/console", O_RDWR | O_NOCTTY, 0, &f);

	if (err)
		panic("init: cannot open /dev/console (%d)", err);
	for (int fd = 0; fd < 3; fd++) {
		file_get(f);
		if (files_alloc_fd(files, 0, 0) != fd || files_install(files, fd, f))
			panic("init: cannot set up fd %d", fd);
	}
	file_put(f);
}

static void exec_init(struct task *t, const char *path, const char *arg)
{
	struct exec_strings strs = {0};
	int err = exec_strings_add(&strs, path, strlen(path));

	strs.argc = 1;
	if (!err && arg) {
		err = exec_strings_add(&strs, arg, strlen(arg));
		strs.argc++;
	}
	if (!err)
		err = exec_program(t, path, &strs);
	exec_strings_free(&strs);
	if (err)
		panic("init: cannot execute %s (error %d)", path, err);
}

/* Counters as init starts (test mode compares them when it exits). */
struct kcounters counters_at_init;

void proc_start_init(const char *path, const char *arg)
{
	struct task *t = task_alloc("init");
	struct thread_group *g = t ? group_create(t) : NULL;

	/* What init keeps to the end (task, group, handlers) is counted in. */
	if (!g || signal_create(t))
		panic("init: out of memory");
	kthreads_boot(); /* pid 2 on, as Linux's kthreadd */
	kcounters_read(&counters_at_init);
	struct path root, cwd;

	vfs_root_path(&root);
	vfs_root_path(&cwd);
	if (!(t->files = files_create()) || !(t->fs = fs_create(&root, &cwd, mnt_ns_init())))
		panic("init: out of memory");
	t->nsproxy = nsproxy_share(&init_nsproxy);
	spin_lock(&proc_lock);
	group_add_thread_locked(g, t);
	g->pgid = g->sid = g->tgid;
	spin_unlock(&proc_lock);
	open_console(t->files);
	exec_init(t, path, arg);
	sched_make_runnable(t);
}
