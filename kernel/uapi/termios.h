/*
 * Terminal attributes as the Linux x86_64 kernel's TCGETS/TCSETS exchange
 * them (the kernel's 36-byte struct termios, not glibc's bigger one).
 */
#ifndef UAPI_TERMIOS_H
#define UAPI_TERMIOS_H

#define LINUX_NCCS 19

struct linux_termios {
	unsigned int c_iflag;
	unsigned int c_oflag;
	unsigned int c_cflag;
	unsigned int c_lflag;
	unsigned char c_line;
	unsigned char c_cc[LINUX_NCCS];
};

struct linux_winsize {
	unsigned short ws_row;
	unsigned short ws_col;
	unsigned short ws_xpixel;
	unsigned short ws_ypixel;
};

/* c_cc indices. */
#define LINUX_VINTR  0
#define LINUX_VQUIT  1
#define LINUX_VERASE 2
#define LINUX_VKILL  3
#define LINUX_VEOF   4
#define LINUX_VTIME  5
#define LINUX_VMIN   6
#define LINUX_VSUSP  10

/* c_iflag */
#define LINUX_ICRNL 0000400
/* c_oflag */
#define LINUX_OPOST 0000001
#define LINUX_ONLCR 0000004
/* c_cflag */
#define LINUX_B115200 0010002
#define LINUX_CS8     0000060
#define LINUX_CREAD   0000200
/* c_lflag */
#define LINUX_ISIG   0000001
#define LINUX_ICANON 0000002
#define LINUX_ECHO   0000010
#define LINUX_ECHOE  0000020
#define LINUX_ECHOK  0000040

#endif
