/* ioctl request numbers fdkernel understands: Linux x86_64 values. */
#ifndef UAPI_IOCTL_H
#define UAPI_IOCTL_H

#define TCGETS	   0x5401
#define TCSETS	   0x5402
#define TCSETSW	   0x5403
#define TCSETSF	   0x5404
#define TIOCSCTTY  0x540E
#define TIOCGPGRP  0x540F
#define TIOCSPGRP  0x5410
#define TIOCGWINSZ 0x5413
#define FIONREAD   0x541B
#define FIONBIO	   0x5421
#define TIOCGSID   0x5429

#endif
