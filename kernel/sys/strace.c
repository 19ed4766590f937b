/*
 * The syscall trace: which tasks are traced and the hook syscall_invoke
 * calls while a target is set.  Decoding lives in strace_decode.c.
 *
 * A task is traced when the target is "all", or when its strace_session
 * equals the current session: exec of the target program sets it, fork
 * copies it, and every change of target starts a new session, so tasks
 * chosen for an old target stop being traced.
 */
#include "cmdline.h"
#include "fs/file.h"
#include "fs/snapshot.h"
#include "fs/vfs.h"
#include "lib/iov_iter.h"
#include "lib/printk.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "proc/task.h"
#include "sys/strace.h"
#include "sys/dispatch.h"
#include <uapi/errno.h>
#include <uapi/syscalls.h>

#define LINE_MAX 320

bool strace_on;

/* The target and its session.  Writers take strace_lock; the syscall path
 * reads without it, so a call racing a change of target may be traced by
 * either rule (a debugging aid: no lock on the hot path). */
static struct spinlock strace_lock = SPINLOCK_INIT("strace");
static char target[TASK_NAME_MAX];
static unsigned session;

static bool traced(const struct task *t)
{
	return strace_on && (!strcmp(target, "all") || t->strace_session == session);
}

bool strace_target_ok(const char *s)
{
	size_t n = strlen(s);

	return n && n < TASK_NAME_MAX && !strchr(s, '/') && !strchr(s, ' ');
}

int strace_set(const char *t)
{
	if (!strace_target_ok(t))
		return -EINVAL;
	spin_lock(&strace_lock);
	session++;
	strace_on = strcmp(t, "off") != 0;
	strlcpy(target, strace_on ? t : "", sizeof(target));
	spin_unlock(&strace_lock);
	return 0;
}

void strace_init(void)
{
	struct inode *ip;
	char path[64];
	bool found = false;

	if (!kopts.strace[0] || strace_set(kopts.strace)) /* cmdline.c checked it */
		return;
	if (!strcmp(kopts.strace, "all") || !strcmp(kopts.strace, "off"))
		return;
	for (const char *const *d = (const char *const[]){"/bin/", "/tests/", "/bench/", "/linux/",
							  "/linux/pending/", NULL};
	     *d && !found; d++) {
		snprintk(path, sizeof(path), "%s%s", *d, kopts.strace);
		if (!path_lookup(NULL, path, &ip)) {
			inode_put(ip);
			found = true;
		}
	}
	if (!found)
		printk("strace: no program '%s' in /bin, /tests, /bench or /linux (traced if one "
		       "runs)\n",
		       kopts.strace);
}

void strace_fork(struct task *child, const struct task *parent)
{
	child->strace_session = parent->strace_session;
}

void strace_exec(struct task *t)
{
	spin_lock(&strace_lock);
	if (strace_on && !strcmp(t->name, target))
		t->strace_session = session;
	spin_unlock(&strace_lock);
}

/* exit and exit_group do not return: their line is printed before. */
static bool returns(uint64_t nr)
{
	return nr != __NR_exit && nr != __NR_exit_group;
}

long strace_invoke(uint64_t nr, const uint64_t args[6])
{
	struct task *t = current();
	char line[LINE_MAX];
	size_t len;
	long ret;

	/* syscall_indirect's inner call is shown inside the outer one. */
	if (!traced(t) || t->indirect_flags)
		return syscall_call(nr, args);
	len = (size_t)snprintk(line, sizeof(line), "%d ", t->pid);
	strace_format_call(line + len, sizeof(line) - len, nr, args);
	if (!returns(nr))
		printk("%s) = ?\n", line);
	ret = syscall_call(nr, args);
	len = strlen(line);
	strace_format_result(line + len, sizeof(line) - len, nr, ret);
	printk("%s\n", line);
	return ret;
}

/* /proc/strace: read gives the target ("off" when none); writing a
 * program name, "all" or "off" replaces it. */
static void format_target(char *buf, size_t size)
{
	spin_lock(&strace_lock);
	snprintk(buf, size, "%s\n", strace_on ? target : "off");
	spin_unlock(&strace_lock);
}

static long strace_read(struct file *f, struct iov_iter *to, uint64_t *pos)
{
	return snapshot_read(f, to, pos, TASK_NAME_MAX + 2, format_target);
}

static long strace_write(struct file *f, struct iov_iter *from, uint64_t *pos)
{
	char buf[TASK_NAME_MAX + 1];
	size_t n = iov_iter_count(from);
	int err;

	(void)f, (void)pos;
	if (n > TASK_NAME_MAX)
		return -EINVAL;
	if (copy_from_iter(buf, n, from) != n)
		return -EFAULT;
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	err = strace_set(buf);
	return err ? err : (long)n;
}

const struct file_ops strace_ops = {
    .read_iter = strace_read,
    .write_iter = strace_write,
    .release = snapshot_release,
};
