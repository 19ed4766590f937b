/*
 * The line discipline every terminal shares (Linux's n_tty): input
 * editing in canonical mode (erase, word erase, kill, end of file, line
 * ends), the signal keys of ISIG, echo, output processing (OPOST), raw
 * reads with VMIN/VTIME, and the termios, window-size and queue ioctls.
 * The driver (tty.h) only moves bytes in and out.  docs/tty.md.
 */
#include "tty/ctty.h"
#include "tty/tty.h"
#include "arch/x86_64/timer.h"
#include "arch/x86_64/uaccess.h"
#include "fs/event/poll.h"
#include "fs/file.h"
#include "lib/iov_iter.h"
#include "lib/string.h"
#include "proc/signal.h"
#include "sched/sched.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/ioctl.h>
#include <uapi/poll.h>

/* What a byte of the ring is to a canonical reader (tty.flag). */
enum { FLAG_DATA, FLAG_LINE_END, FLAG_EOF };

#define WRITE_CHUNK 256 /* bytes copied from the writer at a time */

static bool lflag(const struct tty *t, unsigned int f)
{
	return t->tio.c_lflag & f;
}

static bool canonical(const struct tty *t)
{
	return lflag(t, LINUX_ICANON);
}

/* Bytes of complete lines (canonical) or received (raw) a read may take;
 * atomic loads, for wait conditions and poll. */
static unsigned int committed_bytes(struct tty *t)
{
	return __atomic_load_n(&t->committed, __ATOMIC_RELAXED) -
	       __atomic_load_n(&t->rd, __ATOMIC_RELAXED);
}

static bool hung_up(struct tty *t)
{
	return __atomic_load_n(&t->hung_up, __ATOMIC_RELAXED);
}

/* ---- Output ---- */

/*
 * Under t->lock: s[0..n) through OPOST (ONLCR, OCRNL) to the driver; the
 * bytes of s consumed, fewer when the driver has no room for the next
 * byte's expansion (a newline needs two).
 */
static size_t opost_locked(struct tty *t, const char *s, size_t n)
{
	unsigned int of = t->tio.c_oflag;
	size_t i = 0;

	if (!(of & LINUX_OPOST))
		return t->drv->output(t, s, n);
	while (i < n) {
		size_t run = i, took;
		char c;

		while (run < n && s[run] != '\n' && s[run] != '\r')
			run++;
		if (run > i) { /* nothing to change: one call */
			took = t->drv->output(t, s + i, run - i);
			i += took;
			if (i < run)
				return i;
			continue;
		}
		c = s[i];
		if (c == '\n' && (of & LINUX_ONLCR)) {
			if (t->drv->write_room(t) < 2)
				return i;
			t->drv->output(t, "\r\n", 2);
		} else {
			if (c == '\r' && (of & LINUX_OCRNL))
				c = '\n';
			if (!t->drv->output(t, &c, 1))
				return i;
		}
		i++;
	}
	return i;
}

/* A control character echoed as ^X under ECHOCTL (tab and newline as they are). */
static bool echoed_as_caret(const struct tty *t, unsigned char c)
{
	return lflag(t, LINUX_ECHOCTL) && (c < 0x20 || c == 0x7f) && c != '\t' && c != '\n';
}

/* Under t->lock: echoes received byte c (with ECHO; a newline also with
 * ECHONL); an echo that finds the output full is dropped, as Linux's. */
static void echo_char(struct tty *t, unsigned char c)
{
	char caret[2] = {'^', (char)(c ^ 0x40)};

	if (!lflag(t, LINUX_ECHO) && !(c == '\n' && lflag(t, LINUX_ECHONL) && canonical(t)))
		return;
	if (echoed_as_caret(t, c))
		opost_locked(t, caret, 2);
	else
		opost_locked(t, (const char *)&c, 1);
}

/* ---- Input ---- */

/* Under t->lock: appends c; one slot stays free for a line end, as in Linux. */
static bool put(struct tty *t, char c, int flag)
{
	unsigned int room = TTY_BUF - (t->wr - t->rd);

	if (room == 0 || (room == 1 && flag == FLAG_DATA && canonical(t)))
		return false;
	t->flag[t->wr % TTY_BUF] = flag;
	t->buf[t->wr++ % TTY_BUF] = c;
	return true;
}

/* Under t->lock: erases the last byte of the line being edited. */
static void erase_one(struct tty *t)
{
	unsigned char c;

	if (t->wr == t->committed)
		return;
	c = t->buf[--t->wr % TTY_BUF];
	if (!lflag(t, LINUX_ECHO) || !lflag(t, LINUX_ECHOE))
		return;
	for (int i = echoed_as_caret(t, c) ? 2 : 1; i > 0; i--)
		t->drv->output(t, "\b \b", 3);
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* Under t->lock: VWERASE: the blanks before the cursor, then the word. */
static void erase_word(struct tty *t)
{
	while (t->wr != t->committed && is_space(t->buf[(t->wr - 1) % TTY_BUF]))
		erase_one(t);
	while (t->wr != t->committed && !is_space(t->buf[(t->wr - 1) % TTY_BUF]))
		erase_one(t);
}

/* Whether c is c_cc[idx] (a disabled entry, 0, matches nothing). */
static bool is_cc(const struct tty *t, int idx, unsigned char c)
{
	return t->tio.c_cc[idx] && t->tio.c_cc[idx] == c;
}

/* Under t->lock: a line end c (flag FLAG_LINE_END or FLAG_EOF) commits the line. */
static void end_line(struct tty *t, char c, int flag)
{
	if (!put(t, c, flag))
		return;
	if (flag == FLAG_LINE_END)
		echo_char(t, c);
	t->committed = t->wr;
}

/* Under t->lock: the canonical editing rules for one byte. */
static void canonical_char(struct tty *t, unsigned char c)
{
	if (is_cc(t, LINUX_VERASE, c))
		erase_one(t);
	else if (is_cc(t, LINUX_VKILL, c))
		while (t->wr != t->committed)
			erase_one(t);
	else if (is_cc(t, LINUX_VWERASE, c) && lflag(t, LINUX_IEXTEN))
		erase_word(t);
	else if (is_cc(t, LINUX_VEOF, c))
		end_line(t, c, FLAG_EOF);
	else if (c == '\n' || is_cc(t, LINUX_VEOL, c) || is_cc(t, LINUX_VEOL2, c))
		end_line(t, c, FLAG_LINE_END);
	else if (put(t, c, FLAG_DATA))
		echo_char(t, c);
}

/*
 * Under t->lock, with ISIG: the signal a key (VINTR, VQUIT, VSUSP) sends
 * the foreground group, or 0.  It echoes and, unless NOFLSH, discards the
 * input; the caller signals once the lock is dropped.
 */
static int signal_char(struct tty *t, unsigned char c)
{
	static const struct {
		int cc, sig;
	} keys[] = {{LINUX_VINTR, SIGINT}, {LINUX_VQUIT, SIGQUIT}, {LINUX_VSUSP, SIGTSTP}};

	if (!lflag(t, LINUX_ISIG))
		return 0;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (!is_cc(t, keys[i].cc, c))
			continue;
		if (!lflag(t, LINUX_NOFLSH))
			t->rd = t->committed = t->wr;
		echo_char(t, c);
		return keys[i].sig;
	}
	return 0;
}

/* Under t->lock: one received byte; false if raw input found the ring full. */
static bool receive_char(struct tty *t, unsigned char c, uint64_t *sigs)
{
	unsigned int ifl = t->tio.c_iflag;
	int sig;

	if (ifl & LINUX_ISTRIP)
		c &= 0x7f;
	if (c == '\r' && (ifl & LINUX_IGNCR))
		return true;
	if (c == '\r' && (ifl & LINUX_ICRNL))
		c = '\n';
	else if (c == '\n' && (ifl & LINUX_INLCR))
		c = '\r';
	if ((sig = signal_char(t, c))) {
		*sigs |= SIGBIT(sig);
		return true;
	}
	if (canonical(t)) {
		canonical_char(t, c);
		return true;
	}
	if (!put(t, c, FLAG_DATA))
		return false;
	echo_char(t, c);
	t->committed = t->wr;
	return true;
}

size_t n_tty_receive(struct tty *t, const char *s, size_t n)
{
	uint64_t sigs = 0;
	unsigned int committed;
	size_t i;

	spin_lock(&t->lock);
	committed = t->committed;
	for (i = 0; i < n && receive_char(t, s[i], &sigs); i++)
		;
	bool more = t->committed != committed; /* a line (or, raw, a byte) to read now */
	spin_unlock(&t->lock);
	if (more) {
		wake_up(&t->readers);
		fasync_notify(&t->async, POLL_IN);
	}
	if (t->drv->output_wake)
		t->drv->output_wake(t); /* echoes */
	for (int sig = 1; sigs; sig++)
		if (sigs & SIGBIT(sig)) {
			sigs &= ~SIGBIT(sig);
			ctty_signal_foreground(t, sig);
		}
	return i;
}

long n_tty_take(struct tty *t, char *kbuf, size_t len)
{
	size_t n = 0;

	spin_lock(&t->lock);
	if (t->rd == t->committed) {
		spin_unlock(&t->lock);
		return -EAGAIN;
	}
	while (n < len && t->rd != t->committed) {
		unsigned int at = t->rd++ % TTY_BUF;
		if (canonical(t) && t->flag[at] == FLAG_EOF)
			break; /* ends the read; alone on its line it reads as 0 */
		kbuf[n++] = t->buf[at];
		if (canonical(t) && t->flag[at] == FLAG_LINE_END)
			break;
	}
	spin_unlock(&t->lock);
	wake_up(&t->input_room);
	return n;
}

int n_tty_readable_bytes(struct tty *t)
{
	int n = 0;

	spin_lock(&t->lock);
	for (unsigned int i = t->rd; i != t->committed; i++)
		n += !canonical(t) || t->flag[i % TTY_BUF] != FLAG_EOF;
	spin_unlock(&t->lock);
	return n;
}

bool n_tty_input_room(struct tty *t)
{
	return __atomic_load_n(&t->wr, __ATOMIC_RELAXED) -
		   __atomic_load_n(&t->rd, __ATOMIC_RELAXED) <
	       TTY_BUF;
}

/*
 * Sleeps until the readable bytes differ from seen, a hangup, or the
 * deadline (0: none): 0, -ETIMEDOUT or -ERESTARTSYS.
 */
static int wait_input(struct tty *t, unsigned int seen, uint64_t deadline)
{
	DEFINE_WAIT(we);
	int ret = 0;

	for (;;) {
		prepare_to_wait(&t->readers, &we);
		if (deadline)
			sched_arm_deadline(deadline);
		if (committed_bytes(t) != seen || hung_up(t))
			break;
		if (deadline && clock_monotonic_ns() >= deadline) {
			ret = -ETIMEDOUT;
			break;
		}
		if (signal_pending()) {
			ret = -ERESTARTSYS;
			break;
		}
		schedule();
	}
	if (deadline)
		sched_disarm_deadline();
	finish_wait(&t->readers, &we);
	return ret;
}

/*
 * Waits until a read may take input: a line (canonical), or VMIN bytes
 * (at most len; raw), within VTIME tenths of a second when it is set
 * (from the call without VMIN, from the last byte with it).  0 to take
 * what is there (perhaps nothing: a timeout, a hangup), or -errno.
 */
static long wait_readable(struct tty *t, struct file *f, size_t len)
{
	unsigned int vmin = t->tio.c_cc[LINUX_VMIN], vtime = t->tio.c_cc[LINUX_VTIME];
	uint64_t tick = vtime * 100000000ull, deadline = 0;
	unsigned int want = canonical(t) ? 1 : vmin < len ? vmin : len, seen = 0;
	long err;

	if (!canonical(t) && !vmin && vtime)
		deadline = clock_monotonic_ns() + tick;
	for (;;) {
		unsigned int have = committed_bytes(t);
		/* A background group of the terminal's session may not read. */
		if ((err = ctty_check(t, SIGTTIN)))
			return err;
		if (have && have >= want)
			return 0;
		if (hung_up(t)) /* Linux's TTY_OTHER_CLOSED: the master went while we read */
			return -EIO;
		if (!canonical(t) && !vmin && !vtime)
			return 0;
		if (!canonical(t) && vmin && vtime && have != seen)
			deadline = clock_monotonic_ns() + tick; /* the inter-byte timer */
		if (f->flags & O_NONBLOCK)
			return -EAGAIN;
		seen = have;
		if ((err = wait_input(t, have, deadline)) == -ETIMEDOUT)
			return 0;
		if (err)
			return err;
	}
}

long n_tty_read(struct tty *t, struct file *f, struct iov_iter *to)
{
	char kbuf[TTY_BUF];
	size_t len = iov_iter_count(to);
	long n;

	if (len == 0)
		return 0;
	if ((n = wait_readable(t, f, len)))
		return n;
	if ((n = n_tty_take(t, kbuf, len < TTY_BUF ? len : TTY_BUF)) == -EAGAIN)
		return 0; /* VMIN 0 or a timeout with nothing there */
	if (n > 0 && copy_to_iter_full(kbuf, n, to))
		return -EFAULT;
	return n;
}

static bool output_room(struct tty *t)
{
	bool room;

	spin_lock(&t->lock);
	room = t->hung_up || t->drv->write_room(t) >= 2;
	spin_unlock(&t->lock);
	return room;
}

/* Writes kbuf[0..n) through OPOST, waiting for room: bytes written or -errno. */
static long write_chunk(void *obj, struct file *f, const char *kbuf, size_t n)
{
	struct tty *t = obj;
	size_t off = 0;

	while (off < n) {
		long err;

		spin_lock(&t->lock);
		if (t->hung_up) {
			spin_unlock(&t->lock);
			return off ? (long)off : -EIO;
		}
		off += opost_locked(t, kbuf + off, n - off);
		spin_unlock(&t->lock);
		if (t->drv->output_wake)
			t->drv->output_wake(t);
		if (off == n)
			break;
		if (f->flags & O_NONBLOCK)
			return off ? (long)off : -EAGAIN;
		if ((err = wait_event_interruptible(&t->writers, output_room(t))))
			return off ? (long)off : err;
	}
	return off;
}

long tty_write_chunked(struct file *f, struct iov_iter *from, tty_chunk_fn put, void *obj)
{
	char kbuf[WRITE_CHUNK];
	size_t done = 0, len = iov_iter_count(from);

	while (done < len) {
		size_t want = len - done < sizeof(kbuf) ? len - done : sizeof(kbuf);
		size_t n = copy_from_iter(kbuf, want, from);
		long w = n ? put(obj, f, kbuf, n) : 0;

		if (w < 0)
			return done ? (long)done : w;
		done += w;
		if ((size_t)w < n)
			return done;
		if (n < want)
			return done ? (long)done : -EFAULT;
	}
	return done;
}

long n_tty_write(struct tty *t, struct file *f, struct iov_iter *from)
{
	/* TOSTOP: a background group writing gets SIGTTOU, as Linux. */
	if (lflag(t, LINUX_TOSTOP)) {
		long err = ctty_check(t, SIGTTOU);
		if (err)
			return err;
	}
	return tty_write_chunked(f, from, write_chunk, t);
}

unsigned n_tty_poll(struct tty *t, struct file *f, struct poll_table *pt)
{
	unsigned mask = 0;

	poll_wait(f, &t->readers, pt); /* the file holds the tty (tty.h) */
	poll_wait(f, &t->writers, pt);
	if (hung_up(t))
		return POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM | POLLERR | POLLHUP;
	if (committed_bytes(t))
		mask |= POLLIN | POLLRDNORM;
	if (output_room(t))
		mask |= POLLOUT | POLLWRNORM;
	return mask;
}

/* ---- ioctls ---- */

/* Under t->lock: drops input, read or being edited (TCFLSH, TCSETSF). */
static void flush_input_locked(struct tty *t)
{
	t->rd = t->committed = t->wr;
}

/* tio replaces t's termios (TCSETS*, TCSETA*); flush: TCSETSF, TCSETAF. */
static void apply_termios(struct tty *t, const struct linux_termios *tio, bool flush)
{
	spin_lock(&t->lock);
	if (flush)
		flush_input_locked(t);
	t->tio = *tio;
	if (!canonical(t))
		t->committed = t->wr; /* a half-typed line becomes readable */
	spin_unlock(&t->lock);
	wake_up(&t->readers);
}

static struct linux_termios get_tio(struct tty *t)
{
	struct linux_termios tio;

	spin_lock(&t->lock);
	tio = t->tio;
	spin_unlock(&t->lock);
	return tio;
}

static long set_termios(struct tty *t, unsigned long cmd, unsigned long uarg)
{
	struct linux_termios tio;

	if (copy_from_user(&tio, (const void *)uarg, sizeof(tio)))
		return -EFAULT;
	apply_termios(t, &tio, cmd == TCSETSF);
	return 0;
}

static long get_termio(struct tty *t, unsigned long uarg)
{
	struct linux_termios tio = get_tio(t);
	struct linux_termio o = {.c_iflag = tio.c_iflag,
				 .c_oflag = tio.c_oflag,
				 .c_cflag = tio.c_cflag,
				 .c_lflag = tio.c_lflag,
				 .c_line = tio.c_line};

	memcpy(o.c_cc, tio.c_cc, LINUX_NCC);
	return copy_to_user((void *)uarg, &o, sizeof(o));
}

/* The old flag's low 16 bits replaced (Linux's user_termio_to_kernel_termios). */
static unsigned int low16(unsigned int old, unsigned short v)
{
	return (old & 0xffff0000u) | v;
}

/* TCSETA*: each 16-bit flag, c_line and the first 8 c_cc over the termios. */
static long set_termio(struct tty *t, unsigned long cmd, unsigned long uarg)
{
	struct linux_termio o;
	struct linux_termios tio;

	if (copy_from_user(&o, (const void *)uarg, sizeof(o)))
		return -EFAULT;
	tio = get_tio(t);
	tio.c_iflag = low16(tio.c_iflag, o.c_iflag);
	tio.c_oflag = low16(tio.c_oflag, o.c_oflag);
	tio.c_cflag = low16(tio.c_cflag, o.c_cflag);
	tio.c_lflag = low16(tio.c_lflag, o.c_lflag);
	tio.c_line = o.c_line;
	memcpy(tio.c_cc, o.c_cc, LINUX_NCC);
	apply_termios(t, &tio, cmd == TCSETAF);
	return 0;
}

/* TIOCSETD: N_TTY is the one line discipline; any other is EINVAL, as
 * Linux's for one it has not got. */
static long set_ldisc(unsigned long uarg)
{
	int ldisc;

	if (copy_from_user(&ldisc, (const void *)uarg, sizeof(ldisc)))
		return -EFAULT;
	return ldisc == 0 ? 0 : -EINVAL;
}

/* TIOCSWINSZ: a change of size tells the foreground group (SIGWINCH). */
static long set_winsize(struct tty *t, unsigned long uarg)
{
	struct linux_winsize ws;
	bool changed;

	if (copy_from_user(&ws, (const void *)uarg, sizeof(ws)))
		return -EFAULT;
	spin_lock(&t->lock);
	changed = memcmp(&ws, &t->ws, sizeof(ws)) != 0;
	t->ws = ws;
	spin_unlock(&t->lock);
	if (changed)
		ctty_signal_foreground(t, SIGWINCH);
	return 0;
}

static long flush(struct tty *t, unsigned long which)
{
	if (which > TCIOFLUSH)
		return -EINVAL;
	spin_lock(&t->lock);
	if (which != TCOFLUSH)
		flush_input_locked(t);
	if (which != TCIFLUSH && t->drv->flush_output)
		t->drv->flush_output(t);
	spin_unlock(&t->lock);
	wake_up(&t->writers);
	wake_up(&t->input_room);
	return 0;
}

/* Commands that change the terminal: SIGTTOU for a background group of
 * its session, as Linux's tty_check_change; a pty master has no such rule. */
static bool changes_terminal(unsigned long cmd)
{
	return cmd == TCSETS || cmd == TCSETSW || cmd == TCSETSF || cmd == TCSETA ||
	       cmd == TCSETAW || cmd == TCSETAF || cmd == TCFLSH || cmd == TCSBRK ||
	       cmd == TCSBRKP || cmd == TCXONC;
}

static long put_int(unsigned long uarg, int v)
{
	return copy_to_user((void *)uarg, &v, sizeof(v));
}

long n_tty_ioctl(struct tty *t, bool master, unsigned long cmd, unsigned long arg)
{
	struct linux_termios tio;
	struct linux_winsize ws;
	long err;

	if (!master && changes_terminal(cmd) && (err = ctty_check(t, SIGTTOU)))
		return err;
	switch (cmd) {
	case TCGETS:
		tio = get_tio(t);
		return copy_to_user((void *)arg, &tio, sizeof(tio));
	case TCGETA:
		return get_termio(t, arg);
	case TCSETA:
	case TCSETAW:
	case TCSETAF:
		return set_termio(t, cmd, arg);
	case TIOCGETD:
		return put_int(arg, 0); /* N_TTY */
	case TIOCSETD:
		return set_ldisc(arg);
	case TCSETS:
	case TCSETSW: /* output is never queued here: nothing to drain */
	case TCSETSF:
		return set_termios(t, cmd, arg);
	case TIOCGWINSZ:
		spin_lock(&t->lock);
		ws = t->ws;
		spin_unlock(&t->lock);
		return copy_to_user((void *)arg, &ws, sizeof(ws));
	case TIOCSWINSZ:
		return set_winsize(t, arg);
	case FIONREAD:
		return put_int(arg, n_tty_readable_bytes(t));
	case TIOCOUTQ:
		/* No driver here queues output: the console's UART takes it at
		 * once, a pty's is the master's input at once (Linux's
		 * pty_chars_in_buffer is 0 too). */
		return put_int(arg, 0);
	case TCFLSH:
		return flush(t, arg);
	case TCSBRK: /* tcdrain (nothing queued) or a break (no line to send it on) */
	case TCSBRKP:
		return 0;
	}
	return -ENOIOCTLCMD;
}

void n_tty_hangup(struct tty *t)
{
	spin_lock(&t->lock);
	t->hung_up = true;
	spin_unlock(&t->lock);
	wake_up(&t->readers);
	wake_up(&t->writers);
	wake_up(&t->input_room);
	fasync_notify(&t->async, POLL_HUP);
}

void n_tty_init(struct tty *t, const struct tty_driver *drv, int index,
		const struct linux_termios *tio)
{
	memset(t, 0, sizeof(*t));
	t->drv = drv;
	t->index = index;
	list_init(&t->link);
	spin_init(&t->lock, "tty");
	t->tio = *tio;
	wait_queue_init(&t->readers, "tty_readers");
	wait_queue_init(&t->writers, "tty_writers");
	wait_queue_init(&t->input_room, "tty_input_room");
	fasync_list_init(&t->async, false);
}
