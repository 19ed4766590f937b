/*
 * /proc/self: a directory whose entries answer for the calling process.
 * For now only exe, the program it runs, which busybox's shell executes
 * to run an applet in a new process (CONFIG_BUSYBOX_EXEC_PATH).  exe is a
 * generated link: lookups and readlink ask link_target(), which gives the
 * caller's own path, so one inode serves every process.
 */
#include "fs/inode.h"
#include "fs/vfs.h"
#include "lib/printk.h"
#include "proc/task.h"
#include "proc/uvm.h"
#include "sched/sched.h"
#include <uapi/errno.h>

/* The absolute path the caller's process was executed as.  Its uvm holds
 * the string and only this task replaces its uvm (exec), so it stays
 * valid for the rest of the call. */
static const char *self_exe(void)
{
	struct uvm *u = current()->uvm;

	return u ? u->exe_path : NULL;
}

void proc_self_init(void)
{
	struct path_last last;
	struct inode *link = inode_alloc(S_IFLNK | 0777, 0);
	int err = vfs_mkdir(NULL, "/proc/self", 0555);

	if (!link || (err && err != -EEXIST))
		panic("vfs: cannot create /proc/self");
	link->link.generate = self_exe;
	if (path_lookup_parent(NULL, "/proc/self/exe", &last) ||
	    dir_add_new(last.dir, last.name, last.len, link))
		panic("vfs: cannot create /proc/self/exe");
	inode_put(last.dir);
	inode_put(link); /* the directory entry holds it */
}
