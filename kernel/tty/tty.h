/*
 * Terminals (docs/tty.md): a struct tty per terminal, the console's and
 * each pseudo-terminal slave's.  The line discipline (tty/n_tty.c) edits
 * its input and processes its output; the driver (tty/console.c, tty/pty.c)
 * says where output goes; tty/tty_io.c makes open files of it; tty/ctty.c
 * keeps which session it controls.
 *
 * Lock order: proc_lock, then tty_list_lock, then a tty's lock.  Nothing
 * takes proc_lock or tty_list_lock under a tty's lock; signals the line
 * discipline raises are sent once the tty's lock is dropped.
 */
#ifndef TTY_TTY_H
#define TTY_TTY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "fs/fasync.h"
#include "lib/list.h"
#include "lib/spinlock.h"
#include "sched/wait.h"
#include <uapi/termios.h>

struct file;
struct file_ops;
struct iov_iter;
struct poll_table;
struct tty;

/* Input ring size: the longest canonical line is one less (Linux: 4096). */
#define TTY_BUF 1024

struct tty_driver {
	/*
	 * Output of the terminal (written bytes after OPOST, and echoes),
	 * under the tty's lock: the bytes taken, fewer when the driver's
	 * buffer is full (a pty's).  Never sleeps.
	 */
	size_t (*output)(struct tty *t, const char *s, size_t n);
	/* Room for output now (under the tty's lock). */
	size_t (*write_room)(struct tty *t);
	/* Output written and not yet sent (TIOCOUTQ; under the tty's lock). */
	size_t (*out_queued)(struct tty *t);
	/* Discards the output not yet sent (TCFLSH; under the tty's lock). */
	void (*flush_output)(struct tty *t);
	/* Output was added: wakes who reads it (no lock held).  Optional. */
	void (*output_wake)(struct tty *t);
	/* An open file of the tty takes / drops a reference on it
	 * (tty_list_lock held for get, nothing for put).  Optional: the
	 * console is static. */
	void (*get)(struct tty *t);
	void (*put)(struct tty *t);
};

struct tty {
	const struct tty_driver *drv; /* constant */
	int index;		      /* pty number, -1 for the console; constant */
	struct list_head link;	      /* on tty_list (tty_io.c), under tty_list_lock */

	struct spinlock lock; /* protects every field down to readers; the
			       * console's IRQ handler takes it too */
	/* The input ring holds complete lines [rd, committed) that readers
	 * may take and the line being edited [committed, wr).  Non-canonical
	 * mode commits each byte as it comes.  Indices run free and wrap. */
	char buf[TTY_BUF];
	char flag[TTY_BUF]; /* per byte of buf: data, a line end, an end of file (n_tty.c) */
	unsigned int rd, committed, wr;
	struct linux_termios tio;
	struct linux_winsize ws;
	/* A pty slave whose master has closed (Linux's hung-up tty): reads
	 * 0, writes and most ioctls EIO. */
	bool hung_up;

	struct wait_queue readers;    /* input to read, or a hangup */
	struct wait_queue writers;    /* room for output, or a hangup */
	struct wait_queue input_room; /* a reader took input (a pty master's writers wait) */
	struct fasync_list async;     /* O_ASYNC files of the tty (its slave side) */

	/* Controlling terminal (ctty.c), under proc_lock: the session it
	 * controls (0: none) and that session's foreground group (0: none;
	 * also read alone, atomically, where a signal key arrives). */
	int sid;
	int fg_pgrp;
};

/* All terminals, for finding a session's terminal and pty N; protects
 * every tty's link. */
extern struct spinlock tty_list_lock;
extern struct list_head tty_list;

/* ---- The line discipline (n_tty.c) ---- */
void n_tty_init(struct tty *t, const struct tty_driver *drv, int index,
		const struct linux_termios *tio);
/* Received bytes through the line discipline: the bytes taken (fewer
 * only in non-canonical mode with the ring full); signals keys send. */
size_t n_tty_receive(struct tty *t, const char *s, size_t n);
/* Takes input without sleeping: at most one line in canonical mode.
 * Bytes taken, 0 for end of file (VEOF), -EAGAIN if nothing is ready. */
long n_tty_take(struct tty *t, char *kbuf, size_t len);
/* Bytes a read could take now (FIONREAD), under no lock. */
int n_tty_readable_bytes(struct tty *t);
long n_tty_read(struct tty *t, struct file *f, struct iov_iter *to);
long n_tty_write(struct tty *t, struct file *f, struct iov_iter *from);
/* A write's bytes copied in chunks to put(obj, f, kbuf, n), which takes
 * n bytes or fewer (the write ends short) or fails (-errno, returned if
 * nothing was written): the bytes written, -EFAULT for a bad buffer. */
typedef long (*tty_chunk_fn)(void *obj, struct file *f, const char *kbuf, size_t n);
long tty_write_chunked(struct file *f, struct iov_iter *from, tty_chunk_fn put, void *obj);
unsigned n_tty_poll(struct tty *t, struct file *f, struct poll_table *pt);
/* The termios, window size and queue ioctls (master is true for a pty
 * master, which changes the slave's settings without job control): the
 * result, or -ENOIOCTLCMD for a command it does not know. */
long n_tty_ioctl(struct tty *t, bool master, unsigned long cmd, unsigned long arg);
#define ENOIOCTLCMD 515 /* kernel-internal: not a request of this layer */
/* The input ring holds room for at least one more byte (non-canonical). */
bool n_tty_input_room(struct tty *t);
/* Hangs the tty up (a pty master closing): readers and writers wake. */
void n_tty_hangup(struct tty *t);

/* ---- Open files of a terminal (tty_io.c) ---- */
/* read, write, poll, ioctl, fasync and release of a file whose priv is
 * its struct tty (the console, a pty slave, /dev/tty). */
extern const struct file_ops tty_file_ops;
/* A terminal request on t (master: from its pty master): the line
 * discipline's, then the controlling terminal's, else -ENOTTY. */
long tty_ioctl_common(struct tty *t, bool master, unsigned long cmd, unsigned long arg);
/* Adds t to tty_list. */
void tty_register(struct tty *t);
/* Removes t from tty_list (tty_list_lock held). */
void tty_unregister_locked(struct tty *t);
/* Opening t as file f with open's flags: a session leader without a
 * terminal acquires it unless O_NOCTTY (ctty.c); f->priv becomes t,
 * which holds the reference the caller took (its driver's get). */
void tty_open_file(struct tty *t, struct file *f, unsigned flags);
/* Opening /dev/tty (5:0) as f: the caller's controlling terminal, or
 * -ENXIO without one. */
int tty_dev_open(struct file *f);

#endif
