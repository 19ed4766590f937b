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

/* System V's struct termio (TCGETA, TCSETA*): 16-bit flags, 8 c_cc. */
#define LINUX_NCC 8
struct linux_termio {
	unsigned short c_iflag;
	unsigned short c_oflag;
	unsigned short c_cflag;
	unsigned short c_lflag;
	unsigned char c_line;
	unsigned char c_cc[LINUX_NCC];
};

struct linux_winsize {
	unsigned short ws_row;
	unsigned short ws_col;
	unsigned short ws_xpixel;
	unsigned short ws_ypixel;
};

/* c_cc indices. */
#define LINUX_VINTR    0
#define LINUX_VQUIT    1
#define LINUX_VERASE   2
#define LINUX_VKILL    3
#define LINUX_VEOF     4
#define LINUX_VTIME    5
#define LINUX_VMIN     6
#define LINUX_VSTART   8
#define LINUX_VSTOP    9
#define LINUX_VSUSP    10
#define LINUX_VEOL     11
#define LINUX_VREPRINT 12
#define LINUX_VDISCARD 13
#define LINUX_VWERASE  14
#define LINUX_VLNEXT   15
#define LINUX_VEOL2    16

/* c_iflag */
#define LINUX_ISTRIP 0000040
#define LINUX_INLCR  0000100
#define LINUX_IGNCR  0000200
#define LINUX_ICRNL  0000400
#define LINUX_IXON   0002000
/* c_oflag */
#define LINUX_OPOST 0000001
#define LINUX_ONLCR 0000004
#define LINUX_OCRNL 0000010
/* c_cflag */
#define LINUX_B38400  0000017
#define LINUX_B115200 0010002
#define LINUX_CS8     0000060
#define LINUX_CREAD   0000200
#define LINUX_HUPCL   0002000
/* c_lflag */
#define LINUX_ISIG    0000001
#define LINUX_ICANON  0000002
#define LINUX_ECHO    0000010
#define LINUX_ECHOE   0000020
#define LINUX_ECHOK   0000040
#define LINUX_ECHONL  0000100
#define LINUX_NOFLSH  0000200
#define LINUX_TOSTOP  0000400
#define LINUX_ECHOCTL 0001000
#define LINUX_ECHOKE  0004000
#define LINUX_IEXTEN  0100000

#endif
