/*
 * /dev/console: output goes straight to the UART; input arrives by
 * interrupt into a ring where the line discipline edits the current line
 * and readers sleep until a complete one is there.
 */
#include "tty/console.h"
#include "tty/ctty.h"
#include "arch/x86_64/serial.h"
#include "arch/x86_64/traps.h"
#include "arch/x86_64/uaccess.h"
#include "fs/file.h"
#include "fs/event/poll.h"
#include "fs/vfs.h"
#include "lib/iov_iter.h"
#include "fs/fasync.h"
#include "proc/signal.h"
#include "sched/wait.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/ioctl.h>
#include <uapi/poll.h>
#include <uapi/termios.h>

#define COM1_IRQ      4
#define CON_BUF	      1024 /* a power of two: indices run free and wrap */
#define CON_WRITE_BUF 256  /* bytes copied from the user per serial_write */
#define CHAR_INTR     0x03 /* ^C */
#define CHAR_QUIT     0x1c /* ^\ */
#define CHAR_SUSP     0x1a /* ^Z */
#define CHAR_EOF      0x04 /* ^D, stored in the ring as a line end */
#define CHAR_BS	      0x08
#define CHAR_KILL     0x15 /* ^U */
#define CHAR_DEL      0x7f

/*
 * The ring holds complete lines [rd, committed) that readers may take and
 * the line being edited [committed, wr).  Non-canonical mode commits each
 * byte as it comes.
 */
static struct {
	struct spinlock lock; /* protects all below; the IRQ handler takes it too */
	char buf[CON_BUF];
	unsigned int rd, committed, wr;
	struct linux_termios tio;
	struct wait_queue readers; /* tasks waiting for a committed line */
} con = {.lock = SPINLOCK_INIT("console")};

/* Console files with O_ASYNC (fs/fasync.h): told of input from the
 * interrupt handler once con.lock is dropped. */
static struct fasync_list con_async = {LIST_HEAD_INIT(con_async.head), false};

static const struct linux_termios default_termios = {
    .c_iflag = LINUX_ICRNL,
    .c_oflag = LINUX_OPOST | LINUX_ONLCR,
    .c_cflag = LINUX_B115200 | LINUX_CS8 | LINUX_CREAD,
    .c_lflag = LINUX_ISIG | LINUX_ICANON | LINUX_ECHO | LINUX_ECHOE | LINUX_ECHOK,
    .c_cc = {[LINUX_VINTR] = CHAR_INTR,
	     [LINUX_VQUIT] = CHAR_QUIT,
	     [LINUX_VSUSP] = CHAR_SUSP,
	     [LINUX_VERASE] = CHAR_DEL,
	     [LINUX_VKILL] = CHAR_KILL,
	     [LINUX_VEOF] = CHAR_EOF,
	     [LINUX_VMIN] = 1},
};

static bool canonical(void)
{
	return con.tio.c_lflag & LINUX_ICANON;
}

/* Under con.lock. */
static void echo(const char *s, size_t n)
{
	if (con.tio.c_lflag & LINUX_ECHO)
		serial_write(s, n);
}

/* Under con.lock: appends c; one slot stays free for a line end, as in Linux. */
static bool put(char c, bool line_end)
{
	unsigned int room = CON_BUF - (con.wr - con.rd);

	if (room == 0 || (room == 1 && !line_end))
		return false;
	con.buf[con.wr++ % CON_BUF] = c;
	return true;
}

static void erase_one(void)
{
	if (con.wr == con.committed)
		return;
	con.wr--;
	echo("\b \b", 3);
}

/* Under con.lock: the canonical editing rules for one byte. */
static void discipline(char c)
{
	switch (c) {
	case CHAR_DEL:
	case CHAR_BS:
		erase_one();
		break;
	case CHAR_KILL:
		while (con.wr != con.committed)
			erase_one();
		break;
	case CHAR_EOF:
		if (put(CHAR_EOF, true))
			con.committed = con.wr;
		break;
	case '\n':
		if (put('\n', true)) {
			echo("\n", 1);
			con.committed = con.wr;
		}
		break;
	default:
		if (put(c, false))
			echo(&c, 1);
	}
}

/*
 * Under con.lock, with ISIG: the signal a typed ^C, ^\ or ^Z (as c_cc
 * names them) sends the foreground group, or 0.  It abandons the line
 * being edited; the caller signals once the console lock is dropped.
 */
static int signal_char(char c)
{
	static const struct {
		int cc, sig;
		char echo[4];
	} keys[] = {{LINUX_VINTR, SIGINT, "^C\n"},
		    {LINUX_VQUIT, SIGQUIT, "^\\\n"},
		    {LINUX_VSUSP, SIGTSTP, "^Z\n"}};

	if (!(con.tio.c_lflag & LINUX_ISIG) || !c)
		return 0;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (con.tio.c_cc[keys[i].cc] != (unsigned char)c)
			continue;
		echo(keys[i].echo, 3);
		con.wr = con.committed;
		return keys[i].sig;
	}
	return 0;
}

void console_input(char c)
{
	unsigned int committed;
	int sig;

	spin_lock(&con.lock);
	committed = con.committed;
	if (c == '\r' && (con.tio.c_iflag & LINUX_ICRNL))
		c = '\n';
	sig = signal_char(c);
	if (!sig && canonical()) {
		discipline(c);
	} else if (!sig && put(c, true)) {
		echo(&c, 1);
		con.committed = con.wr;
	}
	bool ready = con.rd != con.committed, more = con.committed != committed;
	spin_unlock(&con.lock);
	if (ready)
		wake_up(&con.readers);
	if (more) /* a line (or, raw, a byte) is there to read now */
		fasync_notify(&con_async, POLL_IN);
	if (sig)
		ctty_signal_foreground(sig);
}

static void console_irq(struct trapframe *tf)
{
	int c;

	(void)tf;
	while ((c = serial_getc()) >= 0)
		console_input((char)c);
}

static bool readable(void)
{
	return __atomic_load_n(&con.rd, __ATOMIC_RELAXED) !=
	       __atomic_load_n(&con.committed, __ATOMIC_RELAXED);
}

long console_take(char *kbuf, size_t len)
{
	size_t n = 0;

	spin_lock(&con.lock);
	if (con.rd == con.committed) {
		spin_unlock(&con.lock);
		return -EAGAIN;
	}
	while (n < len && con.rd != con.committed) {
		char c = con.buf[con.rd % CON_BUF];
		if (canonical() && c == CHAR_EOF) {
			con.rd++; /* ends the read; alone on its line it reads as 0 */
			break;
		}
		con.rd++;
		kbuf[n++] = c;
		if (canonical() && c == '\n')
			break;
	}
	spin_unlock(&con.lock);
	return n;
}

static long console_read(struct file *f, struct iov_iter *to, uint64_t *pos)
{
	char kbuf[CON_BUF];
	size_t len = iov_iter_count(to);
	long n;

	(void)pos;
	if (len == 0)
		return 0;
	for (;;) {
		/* A background group of the terminal's session may not read. */
		int err = ctty_check(SIGTTIN);
		if (err)
			return err;
		if ((n = console_take(kbuf, len < CON_BUF ? len : CON_BUF)) != -EAGAIN)
			break;
		if (f->flags & O_NONBLOCK)
			return -EAGAIN;
		if ((err = wait_event_interruptible(&con.readers, readable())))
			return err;
	}
	if (n > 0 && copy_to_iter_full(kbuf, n, to))
		return -EFAULT;
	return n;
}

/* Output is not buffered: the UART takes it as fast as the emulator can. */
static long console_write(struct file *f, struct iov_iter *from, uint64_t *pos)
{
	char kbuf[CON_WRITE_BUF];
	size_t done = 0, len = iov_iter_count(from);

	(void)f, (void)pos;
	while (done < len) {
		size_t want = len - done < sizeof(kbuf) ? len - done : sizeof(kbuf);
		size_t n = copy_from_iter(kbuf, want, from);

		serial_write(kbuf, n);
		done += n;
		if (n < want)
			return done ? (long)done : -EFAULT;
	}
	return done;
}

static unsigned console_poll(struct file *f, struct poll_table *pt)
{
	poll_wait(f, &con.readers, pt); /* static: lives forever */
	return POLLOUT | POLLWRNORM | (readable() ? POLLIN | POLLRDNORM : 0);
}

/* TCSETS: ECHO and ICANON (and ICRNL) take effect; the rest is stored only. */
static long set_termios(unsigned long uarg)
{
	struct linux_termios t;

	if (copy_from_user(&t, (const void *)uarg, sizeof(t)))
		return -EFAULT;
	spin_lock(&con.lock);
	con.tio = t;
	if (!canonical())
		con.committed = con.wr; /* a half-typed line becomes readable */
	spin_unlock(&con.lock);
	return 0;
}

static long console_ioctl(struct file *f, unsigned long cmd, unsigned long arg)
{
	static const struct linux_winsize ws = {.ws_row = 24, .ws_col = 80};
	struct linux_termios t;
	int avail;

	(void)f;
	switch (cmd) {
	case TCGETS:
		spin_lock(&con.lock);
		t = con.tio;
		spin_unlock(&con.lock);
		return copy_to_user((void *)arg, &t, sizeof(t));
	case TCSETS:
	case TCSETSW:
	case TCSETSF: {
		/* A background group changing the terminal gets SIGTTOU. */
		long err = ctty_check(SIGTTOU);
		return err ? err : set_termios(arg);
	}
	case TIOCGWINSZ:
		return copy_to_user((void *)arg, &ws, sizeof(ws));
	case TIOCGPGRP:
	case TIOCSPGRP:
	case TIOCSCTTY:
	case TIOCGSID:
		return ctty_ioctl(cmd, arg);
	case FIONREAD:
		spin_lock(&con.lock);
		avail = con.committed - con.rd;
		spin_unlock(&con.lock);
		return copy_to_user((void *)arg, &avail, sizeof(avail));
	}
	return -ENOTTY;
}

static struct fasync_list *console_fasync(struct file *f)
{
	(void)f;
	return &con_async; /* static: outlives every file */
}

const struct file_ops console_ops = {
    .read_iter = console_read,
    .write_iter = console_write,
    .poll = console_poll,
    .ioctl = console_ioctl,
    .release = vfs_release_inode,
    .fasync = console_fasync,
};

int console_set_echo(int on)
{
	spin_lock(&con.lock);
	int old = !!(con.tio.c_lflag & LINUX_ECHO);
	con.tio.c_lflag = on ? con.tio.c_lflag | LINUX_ECHO : con.tio.c_lflag & ~LINUX_ECHO;
	spin_unlock(&con.lock);
	return old;
}

void console_init(void)
{
	con.tio = default_termios;
	wait_queue_init(&con.readers, "console_readers");
	irq_register(COM1_IRQ, "ttyS0", console_irq);
	serial_enable_rx_irq();
}
