/*
 * Open files of a terminal: f->priv is the struct tty, which the file
 * holds for its whole life (the console is static; a pty's slave side
 * has a reference per open file, given back at release).  A hung-up tty
 * (its pty master gone) reads 0 and fails writes and ioctls with EIO, as
 * Linux's hung_up_tty_fops.
 */
#include "tty/ctty.h"
#include "tty/tty.h"
#include "fs/file.h"
#include "fs/vfs.h"
#include <uapi/errno.h>
#include <uapi/ioctl.h>

struct spinlock tty_list_lock = SPINLOCK_INIT("tty_list");
/* Every terminal, by link; under tty_list_lock. */
struct list_head tty_list = LIST_HEAD_INIT(tty_list);

static bool hung_up(struct tty *t)
{
	return __atomic_load_n(&t->hung_up, __ATOMIC_RELAXED);
}

void tty_register(struct tty *t)
{
	spin_lock(&tty_list_lock);
	list_add_tail(&t->link, &tty_list);
	spin_unlock(&tty_list_lock);
}

void tty_unregister_locked(struct tty *t)
{
	list_del(&t->link);
}

/* A hung-up tty reads 0 (a read asleep at the hangup fails EIO: n_tty.c). */
static long tty_read(struct file *f, struct iov_iter *to, uint64_t *pos)
{
	(void)pos;
	return hung_up(f->priv) ? 0 : n_tty_read(f->priv, f, to);
}

static long tty_write(struct file *f, struct iov_iter *from, uint64_t *pos)
{
	(void)pos;
	return n_tty_write(f->priv, f, from);
}

static unsigned tty_poll(struct file *f, struct poll_table *pt)
{
	return n_tty_poll(f->priv, f, pt);
}

long tty_ioctl_common(struct tty *t, bool master, unsigned long cmd, unsigned long arg)
{
	long ret;

	if ((ret = n_tty_ioctl(t, master, cmd, arg)) != -ENOIOCTLCMD)
		return ret;
	if ((ret = ctty_ioctl(t, master, cmd, arg)) != -ENOIOCTLCMD)
		return ret;
	return -ENOTTY;
}

static long tty_ioctl(struct file *f, unsigned long cmd, unsigned long arg)
{
	struct tty *t = f->priv;

	if (hung_up(t)) /* Linux's hung_up_tty_ioctl */
		return cmd == TIOCSPGRP ? -ENOTTY : -EIO;
	if (cmd == TIOCGPTPEER) /* a pty master's request (Linux's ptm_open_peer) */
		return -EIO;
	if (cmd == TIOCSCTTY) /* the one request that asks how f was opened */
		return ctty_set(t, arg, file_can_read(f));
	return tty_ioctl_common(t, false, cmd, arg);
}

static struct fasync_list *tty_fasync(struct file *f)
{
	return &((struct tty *)f->priv)->async; /* the file holds the tty */
}

static void tty_release(struct file *f)
{
	struct tty *t = f->priv;

	if (t && t->drv->put)
		t->drv->put(t);
	vfs_release_inode(f);
}

const struct file_ops tty_file_ops = {
    .read_iter = tty_read,
    .write_iter = tty_write,
    .poll = tty_poll,
    .ioctl = tty_ioctl,
    .release = tty_release,
    .fasync = tty_fasync,
};

void tty_open_file(struct tty *t, struct file *f, unsigned flags)
{
	f->priv = t;
	ctty_open(t, flags);
}

int tty_dev_open(struct file *f)
{
	struct tty *t = ctty_get_current();

	if (!t)
		return -ENXIO;
	f->priv = t;
	return 0;
}
