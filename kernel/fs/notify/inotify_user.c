/*
 * The inotify fd and its three system calls (docs/inotify.md): a group
 * (fs/notify/inotify_group.h) behind a file; its watches and events are
 * fs/notify/inotify.c's.  A group lives as long as its file.
 */
#include "arch/x86_64/uaccess.h"
#include "fd/fd_install.h"
#include "fs/file.h"
#include "fs/notify/inotify_group.h"
#include "fs/event/poll.h"
#include "fs/upath.h"
#include "fs/vfs.h"
#include "lib/iov_iter.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/inotify.h>
#include <uapi/ioctl.h>
#include <uapi/poll.h>

#define IN_FD_FLAGS (IN_CLOEXEC | IN_CLOFORK)

/* Copies whole events while they fit (EINVAL if the first does not), or
 * waits for one.  Each is taken off under the lock and copied out after. */
static long inotify_read(struct file *f, struct iov_iter *to, uint64_t *pos)
{
	struct inotify_group *g = f->priv;
	struct inotify_kevent *e;
	struct inotify_event ev;
	size_t done = 0;
	int err;

	(void)pos;
	for (;;) {
		spin_lock(&g->lock);
		if (!list_empty(&g->events))
			break;
		spin_unlock(&g->lock);
		if (f->flags & O_NONBLOCK)
			return -EAGAIN;
		if ((err = wait_event_interruptible(
			 &g->wq, __atomic_load_n(&g->bytes, __ATOMIC_RELAXED) != 0)))
			return err;
	}
	while (!list_empty(&g->events)) {
		e = list_entry(g->events.next, struct inotify_kevent, link);
		if (INOTIFY_EVENT_SIZE + e->ev.len > iov_iter_count(to))
			break;
		e = inotify_dequeue_locked(g, &ev);
		spin_unlock(&g->lock);
		err = copy_to_iter_full(&ev, INOTIFY_EVENT_SIZE, to) ||
		      (ev.len && copy_to_iter_full(e->name, ev.len, to));
		if (e)
			inotify_event_free(e);
		if (err) /* the event is lost, as Linux's */
			return done ? (long)done : -EFAULT;
		done += INOTIFY_EVENT_SIZE + ev.len;
		spin_lock(&g->lock);
	}
	spin_unlock(&g->lock);
	return done ? (long)done : -EINVAL; /* the buffer is smaller than the next event */
}

static unsigned inotify_poll(struct file *f, struct poll_table *pt)
{
	struct inotify_group *g = f->priv;

	poll_wait(f, &g->wq, pt); /* g lives as long as f */
	return __atomic_load_n(&g->bytes, __ATOMIC_RELAXED) ? POLLIN | POLLRDNORM : 0;
}

static long inotify_ioctl(struct file *f, unsigned long cmd, unsigned long arg)
{
	struct inotify_group *g = f->priv;
	int n;

	if (cmd != FIONREAD)
		return -ENOTTY; /* FIONBIO is the VFS's */
	spin_lock(&g->lock);
	n = (int)g->bytes;
	spin_unlock(&g->lock);
	return copy_to_user((void *)arg, &n, sizeof(n)) ? -EFAULT : 0;
}

/* One "inotify" line per watch, as Linux's fdinfo. */
static void inotify_fdinfo(struct file *f, char *buf, size_t size)
{
	inotify_watches_show(f->priv, buf, size);
}

static void inotify_release(struct file *f)
{
	inotify_group_free(f->priv);
}

static const struct file_ops inotify_ops = {
    .anon_name = "anon_inode:inotify",
    .read_iter = inotify_read,
    .poll = inotify_poll,
    .ioctl = inotify_ioctl,
    .show_fdinfo = inotify_fdinfo,
    .release = inotify_release,
};

/* The group of inotify fd fd, its file referenced in *out: 0, -EBADF,
 * -EINVAL (not an inotify fd). */
static int inotify_lookup(int fd, struct file **out)
{
	struct file *f = files_lookup(current()->files, fd);

	if (!f)
		return -EBADF;
	if (f->ops != &inotify_ops) {
		file_put(f);
		return -EINVAL;
	}
	*out = f;
	return 0;
}

/* ---- The system calls ---- */

SYSCALL_DEFINE1(inotify_init1, int, flags)
{
	struct inotify_group *g;
	struct file *f;
	int err, fd;

	if (flags & ~(IN_NONBLOCK | IN_FD_FLAGS))
		return -EINVAL;
	if ((err = inotify_group_new(&g)))
		return err;
	if (!(f = file_alloc(&inotify_ops, O_RDONLY | (flags & IN_NONBLOCK), g))) {
		inotify_group_free(g); /* a group without a file yet */
		return -ENOMEM;
	}
	fd = fd_install_new(f, flags & IN_FD_FLAGS); /* same bits as O_CLOEXEC, O_CLOFORK */
	if (fd < 0)
		file_put(f); /* its release frees g */
	return fd;
}

SYSCALL_DEFINE0(inotify_init)
{
	return do_sys_inotify_init1(0);
}

SYSCALL_DEFINE3(inotify_add_watch, int, fd, const char *, upath, uint32_t, mask)
{
	struct inode *ip;
	struct file *f;
	long err;

	if ((mask & IN_MASK_ADD) && (mask & IN_MASK_CREATE))
		return -EINVAL;
	if (!(mask & IN_ALL_EVENTS))
		return -EINVAL; /* nothing to watch */
	if ((err = inotify_lookup(fd, &f)))
		return err;
	err = upath_lookup(AT_FDCWD, upath, !(mask & IN_DONT_FOLLOW), &ip);
	if (!err && (mask & IN_ONLYDIR) && !inode_is_dir(ip)) {
		inode_put(ip);
		err = -ENOTDIR;
	}
	if (!err)
		err = inotify_watch_add(f->priv, ip, mask);
	file_put(f);
	return err;
}

SYSCALL_DEFINE2(inotify_rm_watch, int, fd, int, wd)
{
	struct file *f;
	int err;

	if ((err = inotify_lookup(fd, &f)))
		return err;
	err = inotify_watch_rm(f->priv, wd);
	file_put(f);
	return err;
}
