/*
 * Pseudo-terminals (Linux's Unix98 ptys, docs/tty.md).  Opening /dev/ptmx
 * makes a pty: the opened file is its master, and /dev/pts/N (fs/devpts)
 * its slave, a terminal with the line discipline (n_tty.c).  Bytes the
 * master writes are the slave's input; what the slave writes (after
 * OPOST) and its echoes queue in the pty's output ring for the master to
 * read.
 *
 * Lifetime: a pty is referenced by its master file and by each open file
 * of its slave (tty_file_ops, /dev/tty included); the last put frees it.
 * Closing the master hangs the slave up (reads 0, writes EIO, its session
 * loses it) and hides its node; closing the last slave makes the master
 * read EIO once the output is drained.  Bounded by
 * /proc/sys/kernel/pty/max (ENOSPC), counted by pty_count (the leak
 * check, /proc/sys/kernel/pty/nr).
 */
#include "tty/pty.h"
#include "tty/ctty.h"
#include "tty/tty.h"
#include "arch/x86_64/timer.h"
#include "arch/x86_64/uaccess.h"
#include "fd/fd_install.h"
#include "fs/devpts/devpts.h"
#include "fs/event/poll.h"
#include "fs/file.h"
#include "fs/inode.h"
#include "fs/mount.h"
#include "fs/proc/proc_sys.h"
#include "fs/vfs.h"
#include "lib/iov_iter.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "proc/cred.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/ioctl.h>
#include <uapi/poll.h>

#define PTY_MAX_CEILING (1 << 20) /* Linux's NR_UNIX98_PTY_MAX */
#define PTY_GID		5	  /* the tty group, as distributions mount devpts */
#define PTY_MODE	0620

/* /proc/sys/kernel/pty/max: more opens of /dev/ptmx fail ENOSPC. */
static int pty_max = 4096;
PROC_SYS_ROW(pty_max_row, .path = "kernel/pty/max", .mode = 0644, .show = proc_sys_int_show,
	     .store = proc_sys_int_store, .data = &pty_max, .min = 0, .max = PTY_MAX_CEILING);

/* Under tty_list_lock: ptys alive, and the serial the next one gets. */
static int pty_nr;
static uint64_t pty_serial;

static long nr_show(const struct proc_sys_row *row, char *buf, size_t size)
{
	(void)row;
	return snprintk(buf, size, "%lu\n", pty_count());
}
PROC_SYS_ROW(pty_nr_row, .path = "kernel/pty/nr", .mode = 0444, .show = nr_show);

struct pty {
	struct tty tty; /* the slave's terminal; its lock also protects out[] */
	/* The slave's output, which the master reads: [out_rd, out_wr). */
	char out[TTY_BUF];
	unsigned int out_rd, out_wr;
	struct wait_queue master_readers; /* output to read, or the slave closed */
	struct fasync_list master_async;  /* the master file with O_ASYNC */

	/* Under tty_list_lock. */
	unsigned int refs;   /* the master file and each slave file; 0 frees */
	unsigned int slaves; /* open slave files */
	bool master_open;    /* until the master's release: the node shows */
	bool locked;	     /* TIOCSPTLCK (new ptys start locked): slave opens EIO */
	/* The last slave file closed (Linux's TTY_OTHER_CLOSED): the master
	 * reads EIO once the output is drained; also read alone. */
	bool slave_closed;

	uint64_t serial;   /* constant: devpts nodes name the pty by it */
	uint64_t ctime_ns; /* constant */
	uint32_t owner;	   /* constant: the opener's fsuid, its slave node's owner */
};

static struct pty *pty_of(struct tty *t)
{
	return container_of(t, struct pty, tty);
}

unsigned long pty_count(void)
{
	return __atomic_load_n(&pty_nr, __ATOMIC_RELAXED);
}

/* ---- The slave's driver ---- */

static unsigned int out_count(struct pty *p)
{
	return p->out_wr - p->out_rd;
}

static size_t slave_output(struct tty *t, const char *s, size_t n)
{
	struct pty *p = pty_of(t);
	size_t room = TTY_BUF - out_count(p);

	if (n > room)
		n = room;
	for (size_t i = 0; i < n; i++)
		p->out[p->out_wr++ % TTY_BUF] = s[i];
	return n;
}

static size_t slave_write_room(struct tty *t)
{
	return TTY_BUF - out_count(pty_of(t));
}

static void slave_flush_output(struct tty *t)
{
	struct pty *p = pty_of(t);

	p->out_rd = p->out_wr;
}

static void slave_output_wake(struct tty *t)
{
	struct pty *p = pty_of(t);

	wake_up(&p->master_readers);
	fasync_notify(&p->master_async, POLL_IN);
}

/* tty_list_lock held: one more slave file. */
static void slave_get(struct tty *t)
{
	struct pty *p = pty_of(t);

	p->refs++;
	p->slaves++;
	__atomic_store_n(&p->slave_closed, false, __ATOMIC_RELAXED);
}

/* Drops a reference (the master's or a slave file's): the last frees. */
static void pty_put(struct pty *p)
{
	bool last;

	spin_lock(&tty_list_lock);
	if ((last = --p->refs == 0)) {
		tty_unregister_locked(&p->tty);
		pty_nr--;
	}
	spin_unlock(&tty_list_lock);
	if (last)
		kfree(p);
}

static void slave_put(struct tty *t)
{
	struct pty *p = pty_of(t);

	spin_lock(&tty_list_lock);
	if (--p->slaves == 0)
		__atomic_store_n(&p->slave_closed, true, __ATOMIC_RELAXED);
	spin_unlock(&tty_list_lock);
	wake_up(&p->master_readers); /* EIO now, perhaps */
	wake_up(&p->tty.input_room); /* a writing master stops waiting */
	fasync_notify(&p->master_async, POLL_HUP);
	pty_put(p);
}

static const struct tty_driver pty_driver = {
    .output = slave_output,
    .write_room = slave_write_room,
    .flush_output = slave_flush_output,
    .output_wake = slave_output_wake,
    .get = slave_get,
    .put = slave_put,
};

/* Linux's tty_std_termios, which a new slave starts with. */
static const struct linux_termios pty_termios = {
    .c_iflag = LINUX_ICRNL | LINUX_IXON,
    .c_oflag = LINUX_OPOST | LINUX_ONLCR,
    .c_cflag = LINUX_B38400 | LINUX_CS8 | LINUX_CREAD,
    .c_lflag = LINUX_ISIG | LINUX_ICANON | LINUX_ECHO | LINUX_ECHOE | LINUX_ECHOK | LINUX_ECHOCTL |
	       LINUX_ECHOKE | LINUX_IEXTEN,
    .c_cc = {[LINUX_VINTR] = 0x03,
	     [LINUX_VQUIT] = 0x1c,
	     [LINUX_VERASE] = 0x7f,
	     [LINUX_VKILL] = 0x15,
	     [LINUX_VEOF] = 0x04,
	     [LINUX_VMIN] = 1,
	     [LINUX_VSTART] = 0x11,
	     [LINUX_VSTOP] = 0x13,
	     [LINUX_VSUSP] = 0x1a,
	     [LINUX_VREPRINT] = 0x12,
	     [LINUX_VDISCARD] = 0x0f,
	     [LINUX_VWERASE] = 0x17,
	     [LINUX_VLNEXT] = 0x16},
};

/* ---- The pty table: tty_list, kept in index order ---- */

/* tty_list_lock held: pty index, or NULL. */
static struct pty *find_locked(int index)
{
	struct tty *t;

	list_for_each_entry(t, &tty_list,
			    link) if (t->drv == &pty_driver && t->index == index) return pty_of(t);
	return NULL;
}

/* tty_list_lock held: gives p the lowest free index (Linux's ida) and
 * puts it in its place on the list. */
static void insert_locked(struct pty *p)
{
	struct list_head *before = &tty_list;
	struct tty *t;
	int index = 0;

	list_for_each_entry(t, &tty_list, link)
	{
		if (t->drv != &pty_driver)
			continue;
		if (t->index != index) {
			before = &t->link;
			break;
		}
		index++;
	}
	p->tty.index = index;
	list_add_tail(&p->tty.link, before);
}

bool pty_node(int index, struct pty_node *out)
{
	struct pty *p;
	bool found;

	spin_lock(&tty_list_lock);
	p = find_locked(index);
	if ((found = p && p->master_open)) {
		out->serial = p->serial;
		out->uid = p->owner;
		out->gid = PTY_GID;
		out->mode = PTY_MODE;
		out->ctime_ns = p->ctime_ns;
	}
	spin_unlock(&tty_list_lock);
	return found;
}

int pty_next_node(int from)
{
	struct tty *t;
	int index = -1;

	spin_lock(&tty_list_lock);
	list_for_each_entry(t, &tty_list, link)
	{
		if (t->drv == &pty_driver && t->index >= from && pty_of(t)->master_open) {
			index = t->index;
			break;
		}
	}
	spin_unlock(&tty_list_lock);
	return index;
}

int ptmx_open(struct file *f, unsigned flags)
{
	struct pty *p = kmalloc(sizeof(*p));
	int err = 0;

	(void)flags; /* a master never becomes a controlling terminal (Linux) */
	if (!p)
		return -ENOMEM;
	n_tty_init(&p->tty, &pty_driver, -1, &pty_termios);
	p->out_rd = p->out_wr = 0;
	wait_queue_init(&p->master_readers, "pty_master");
	fasync_list_init(&p->master_async, false);
	p->refs = 1; /* the master file's */
	p->slaves = 0;
	p->master_open = p->locked = true;
	p->slave_closed = false;
	p->ctime_ns = inode_now_ns();
	p->owner = cred_current()->fsuid; /* Linux's devpts_pty_new */
	spin_lock(&tty_list_lock);
	if (pty_nr >= __atomic_load_n(&pty_max, __ATOMIC_RELAXED)) {
		err = -ENOSPC;
	} else {
		pty_nr++;
		p->serial = ++pty_serial;
		insert_locked(p);
	}
	spin_unlock(&tty_list_lock);
	if (err) {
		kfree(p);
		return err;
	}
	f->priv = p;
	return 0;
}

int pty_slave_open(struct file *f, int index, uint64_t serial, unsigned flags)
{
	struct pty *p;
	int err = 0;

	spin_lock(&tty_list_lock);
	p = find_locked(index);
	if (!p || p->serial != serial || !p->master_open || p->locked)
		err = -EIO; /* Linux's: a locked slave, or one whose master is gone */
	else
		slave_get(&p->tty);
	spin_unlock(&tty_list_lock);
	if (err)
		return err;
	tty_open_file(&p->tty, f, flags);
	return 0;
}

/* ---- The master's file ---- */

static bool master_readable(struct pty *p)
{
	return __atomic_load_n(&p->out_wr, __ATOMIC_RELAXED) !=
		   __atomic_load_n(&p->out_rd, __ATOMIC_RELAXED) ||
	       __atomic_load_n(&p->slave_closed, __ATOMIC_RELAXED);
}

/* Takes up to len bytes of the slave's output (none: 0). */
static size_t take_output(struct pty *p, char *kbuf, size_t len)
{
	size_t n = 0;

	spin_lock(&p->tty.lock);
	while (n < len && p->out_rd != p->out_wr)
		kbuf[n++] = p->out[p->out_rd++ % TTY_BUF];
	spin_unlock(&p->tty.lock);
	if (n)
		wake_up(&p->tty.writers);
	return n;
}

static long master_read(struct file *f, struct iov_iter *to, uint64_t *pos)
{
	struct pty *p = f->priv;
	char kbuf[TTY_BUF];
	size_t len = iov_iter_count(to), n;
	long err;

	(void)pos;
	if (len == 0)
		return 0;
	while (!(n = take_output(p, kbuf, len < TTY_BUF ? len : TTY_BUF))) {
		if (__atomic_load_n(&p->slave_closed, __ATOMIC_RELAXED))
			return -EIO;
		if (f->flags & O_NONBLOCK)
			return -EAGAIN;
		if ((err = wait_event_interruptible(&p->master_readers, master_readable(p))))
			return err;
	}
	return copy_to_iter_full(kbuf, n, to) ? -EFAULT : (long)n;
}

static bool input_room(struct pty *p)
{
	return n_tty_input_room(&p->tty) || __atomic_load_n(&p->slave_closed, __ATOMIC_RELAXED);
}

/* kbuf[0..n) as the slave's input, waiting for room in raw mode: the
 * bytes taken or -errno.  With no slave open, what finds no room is
 * dropped: nobody could make room. */
static long master_feed(void *obj, struct file *f, const char *kbuf, size_t n)
{
	struct pty *p = obj;
	size_t off = 0;
	long err;

	while ((off += n_tty_receive(&p->tty, kbuf + off, n - off)) < n) {
		if (__atomic_load_n(&p->slave_closed, __ATOMIC_RELAXED))
			return n;
		if (f->flags & O_NONBLOCK)
			return off ? (long)off : -EAGAIN;
		if ((err = wait_event_interruptible(&p->tty.input_room, input_room(p))))
			return off ? (long)off : err;
	}
	return n;
}

static long master_write(struct file *f, struct iov_iter *from, uint64_t *pos)
{
	(void)pos;
	return tty_write_chunked(f, from, master_feed, f->priv);
}

static unsigned master_poll(struct file *f, struct poll_table *pt)
{
	struct pty *p = f->priv;
	unsigned mask = 0;

	poll_wait(f, &p->master_readers, pt); /* the file holds the pty */
	poll_wait(f, &p->tty.input_room, pt);
	if (__atomic_load_n(&p->out_wr, __ATOMIC_RELAXED) !=
	    __atomic_load_n(&p->out_rd, __ATOMIC_RELAXED))
		mask |= POLLIN | POLLRDNORM;
	if (__atomic_load_n(&p->slave_closed, __ATOMIC_RELAXED))
		mask |= POLLHUP;
	if ((p->tty.tio.c_lflag & LINUX_ICANON) || n_tty_input_room(&p->tty))
		mask |= POLLOUT | POLLWRNORM; /* canonical input never waits */
	return mask;
}

/* What /proc/<pid>/fd shows for a slave opened without a name:
 * /dev/pts/N, as if opened by it (a name that cannot be made: none). */
static void name_peer(struct file *f, int index)
{
	char buf[12];
	int len = snprintk(buf, sizeof(buf), "%d", index);
	struct path pts;

	if (devpts_path(&pts))
		return;
	if (!(f->name = kmalloc(len + 1))) {
		path_put(&pts);
		return;
	}
	memcpy(f->name, buf, len + 1);
	f->dir = pts.inode; /* the file takes over the path */
	f->mnt = pts.mnt;
}

/* TIOCGPTPEER: the slave opened with flags (open's), without a name
 * lookup (a program that unshares nothing gets the same node). */
static long open_peer(struct pty *p, unsigned int flags)
{
	struct inode *ip;
	struct file *f;
	long fd;

	if ((fd = devpts_node(p->tty.index, &ip)))
		return fd == -ENOENT ? -EIO : fd;
	if ((fd = vfs_open_inode(ip, flags, &f))) {
		inode_put(ip);
		return fd;
	}
	name_peer(f, p->tty.index);
	if ((fd = fd_install_new(f, flags & (O_CLOEXEC | O_CLOFORK))) < 0)
		file_put(f);
	return fd;
}

static long put_int(unsigned long uarg, int v)
{
	return copy_to_user((void *)uarg, &v, sizeof(v));
}

static long set_lock(struct pty *p, const int *uval)
{
	int v;

	if (copy_from_user(&v, uval, sizeof(v)))
		return -EFAULT;
	spin_lock(&tty_list_lock);
	p->locked = v != 0;
	spin_unlock(&tty_list_lock);
	return 0;
}

static long master_ioctl(struct file *f, unsigned long cmd, unsigned long arg)
{
	struct pty *p = f->priv;
	long ret;

	switch (cmd) {
	case TIOCGPTN:
		return put_int(arg, p->tty.index);
	case TIOCSPTLCK:
		return set_lock(p, (const int *)arg);
	case TIOCGPTLCK:
		return put_int(arg, __atomic_load_n(&p->locked, __ATOMIC_RELAXED));
	case TIOCGPTPEER:
		return open_peer(p, arg);
	case TIOCPKT:
	case TIOCGPKT:
		return -EINVAL; /* packet mode is not done (docs/tty.md) */
	case FIONREAD:
		spin_lock(&p->tty.lock);
		ret = out_count(p);
		spin_unlock(&p->tty.lock);
		return put_int(arg, ret);
	case TCFLSH: /* the master's input is the slave's output */
		arg = arg == TCIFLUSH ? TCOFLUSH : arg == TCOFLUSH ? TCIFLUSH : arg;
		break;
	case TIOCSCTTY:
		return -EPERM; /* a master is never a controlling terminal here */
	case TIOCNOTTY:
		return -ENOTTY;
	}
	return tty_ioctl_common(&p->tty, true, cmd, arg);
}

static struct fasync_list *master_fasync(struct file *f)
{
	return &((struct pty *)f->priv)->master_async; /* the file holds the pty */
}

/* The master's last reference: the node goes, the slave hangs up. */
static void master_release(struct file *f)
{
	struct pty *p = f->priv;

	if (p) {
		spin_lock(&tty_list_lock);
		p->master_open = false;
		spin_unlock(&tty_list_lock);
		n_tty_hangup(&p->tty);
		ctty_hangup(&p->tty);
		pty_put(p);
	}
	vfs_release_inode(f);
}

const struct file_ops ptmx_ops = {
    .read_iter = master_read,
    .write_iter = master_write,
    .poll = master_poll,
    .ioctl = master_ioctl,
    .fasync = master_fasync,
    .release = master_release,
};
