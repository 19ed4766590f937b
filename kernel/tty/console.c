/*
 * /dev/console: the serial port COM1 as a terminal.  Output goes straight
 * to the UART; input arrives by interrupt and goes through the line
 * discipline (n_tty.c) into the console's tty, where readers find it.
 */
#include "tty/console.h"
#include "tty/tty.h"
#include "arch/x86_64/serial.h"
#include "arch/x86_64/traps.h"
#include <uapi/errno.h>

#define COM1_IRQ 4

/* The console's terminal: static, so its files hold no reference. */
static struct tty con;

/* Linux's defaults (tty_std_termios) at the UART's speed. */
static const struct linux_termios console_termios = {
    .c_iflag = LINUX_ICRNL,
    .c_oflag = LINUX_OPOST | LINUX_ONLCR,
    .c_cflag = LINUX_B115200 | LINUX_CS8 | LINUX_CREAD,
    .c_lflag = LINUX_ISIG | LINUX_ICANON | LINUX_ECHO | LINUX_ECHOE | LINUX_ECHOK | LINUX_ECHOCTL |
	       LINUX_IEXTEN,
    .c_cc = {[LINUX_VINTR] = 0x03,  /* ^C */
	     [LINUX_VQUIT] = 0x1c,  /* ^\ */
	     [LINUX_VERASE] = 0x7f, /* DEL */
	     [LINUX_VKILL] = 0x15,  /* ^U */
	     [LINUX_VEOF] = 0x04,   /* ^D */
	     [LINUX_VMIN] = 1,
	     [LINUX_VSUSP] = 0x1a,    /* ^Z */
	     [LINUX_VWERASE] = 0x17}, /* ^W */
};

/* The UART takes everything (serial_write_raw waits for it). */
static size_t con_output(struct tty *t, const char *s, size_t n)
{
	(void)t;
	serial_write_raw(s, n);
	return n;
}

static size_t con_write_room(struct tty *t)
{
	(void)t;
	return TTY_BUF; /* unbounded: any figure of at least 2 says so */
}

static const struct tty_driver console_driver = {
    .output = con_output,
    .write_room = con_write_room,
};

void console_input(char c)
{
	n_tty_receive(&con, &c, 1);
}

static void console_irq(struct trapframe *tf)
{
	int c;

	(void)tf;
	while ((c = serial_getc()) >= 0)
		console_input((char)c);
}

long console_take(char *kbuf, size_t len)
{
	return n_tty_take(&con, kbuf, len);
}

int console_open(struct file *f, unsigned flags)
{
	tty_open_file(&con, f, flags);
	return 0;
}

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
	n_tty_init(&con, &console_driver, -1, &console_termios);
	con.ws = (struct linux_winsize){.ws_row = 24, .ws_col = 80};
	tty_register(&con);
	irq_register(COM1_IRQ, "ttyS0", console_irq);
	serial_enable_rx_irq();
}
