/* ioctl request numbers fdkernel understands: Linux x86_64 values. */
#ifndef UAPI_IOCTL_H
#define UAPI_IOCTL_H

#include <stdint.h>

#define TCGETS	   0x5401
#define TCSETS	   0x5402
#define TCSETSW	   0x5403
#define TCSETSF	   0x5404
#define TCGETA	   0x5405 /* the old struct termio (uapi/termios.h) */
#define TCSETA	   0x5406
#define TCSETAW	   0x5407
#define TCSETAF	   0x5408
#define TIOCSCTTY  0x540E
#define TIOCGPGRP  0x540F
#define TIOCSPGRP  0x5410
#define TIOCGWINSZ 0x5413
#define FIONREAD   0x541B
#define FIONBIO	   0x5421
#define TIOCGSID   0x5429
/* Terminals (tty/): queues, window size, pseudo-terminals. */
#define TCSBRK	    0x5409
#define TCXONC	    0x540A
#define TCFLSH	    0x540B
#define TIOCOUTQ    0x5411
#define TIOCSWINSZ  0x5414
#define TIOCPKT	    0x5420
#define TIOCNOTTY   0x5422
#define TIOCSETD    0x5423 /* line discipline: only N_TTY (0) here */
#define TIOCGETD    0x5424
#define TCSBRKP	    0x5425 /* POSIX tcsendbreak: a break of arg tenths of a second */
#define TIOCGPTN    0x80045430
#define TIOCSPTLCK  0x40045431
#define TIOCGPKT    0x80045438
#define TIOCGPTLCK  0x80045439
#define TIOCGPTPEER 0x5441
/* What every open file answers (fs/ioctl.c, Linux's do_vfs_ioctl). */
#define FIONCLEX      0x5450
#define FIOCLEX	      0x5451
#define FIOASYNC      0x5452
#define FIOQSIZE      0x5460
#define FIGETBSZ      2		 /* _IO(0x00, 2) */
#define FICLONE	      0x40049409 /* _IOW(0x94, 9, int) */
#define FICLONERANGE  0x4020940d /* _IOW(0x94, 13, struct file_clone_range) */
#define FIDEDUPERANGE 0xc0189436 /* _IOWR(0x94, 54, struct file_dedupe_range) */

/* The inode flags chattr sets (Linux's FS_IOC_GETFLAGS, FS_IOC_SETFLAGS:
 * an int, whatever the names say) and the ones fdkernel keeps. */
#define FS_IOC_GETFLAGS 0x80086601
#define FS_IOC_SETFLAGS 0x40086602
#define FS_COMPR_FL	0x00000004 /* kept, never acted on: no compression */
#define FS_IMMUTABLE_FL 0x00000010
#define FS_APPEND_FL	0x00000020
#define FS_NODUMP_FL	0x00000040
#define FS_NOATIME_FL	0x00000080
/* Those Linux lets chattr see and change on file systems that keep them
 * all (ext2's EXT2_FL_USER_VISIBLE, EXT2_FL_USER_MODIFIABLE). */
#define FS_FL_USER_VISIBLE    0x0003DFFF
#define FS_FL_USER_MODIFIABLE 0x000380FF

/* FS_IOC_FIEMAP: a file's extents (Linux's struct fiemap, then
 * fm_extent_count struct fiemap_extent). */
#define FS_IOC_FIEMAP		0xc020660b /* _IOWR('f', 11, struct fiemap) */
#define FIEMAP_FLAG_SYNC	0x00000001 /* write the data back first */
#define FIEMAP_EXTENT_LAST	0x00000001 /* the last extent of the range */
struct fiemap_extent {
	uint64_t fe_logical, fe_physical, fe_length, fe_reserved64[2];
	uint32_t fe_flags, fe_reserved[3];
};
struct fiemap {
	uint64_t fm_start, fm_length;
	uint32_t fm_flags, fm_mapped_extents, fm_extent_count, fm_reserved;
	struct fiemap_extent fm_extents[];
};

struct file_clone_range {
	int64_t src_fd;
	uint64_t src_offset, src_length, dest_offset;
};

/* FIDEDUPERANGE's header; dest_count struct file_dedupe_range_info
 * (32 bytes each) follow it. */
struct file_dedupe_range {
	uint64_t src_offset, src_length;
	uint16_t dest_count, reserved1;
	uint32_t reserved2;
};

/* TCFLSH's and TCXONC's arguments. */
#define TCIFLUSH  0
#define TCOFLUSH  1
#define TCIOFLUSH 2

#endif
