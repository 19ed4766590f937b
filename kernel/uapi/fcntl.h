/*
 * File flags: Linux x86_64 values where Linux has the flag, and the bits
 * fdkernel adds (O_CLOFORK from POSIX.1-2024, O_NONSEQFD from the fdmap v2
 * proposal) taken from bits Linux leaves free.  Shared by kernel and libc/.
 *
 * Open flags are an X-macro list so libc/ can translate newlib's values by
 * name in one place; the kernel sees plain constants.  User space defines
 * UAPI_NO_FLAG_NAMES: it keeps newlib's names and gets only what newlib
 * lacks (O_CLOFORK and O_NONSEQFD have the same value on both sides).
 */
#ifndef UAPI_FCNTL_H
#define UAPI_FCNTL_H

/* X(name, Linux value) for every flag open(2) understands. */
#define UAPI_OPEN_FLAGS(X)                                                                         \
	X(O_CREAT, 00000100)                                                                       \
	X(O_EXCL, 00000200)                                                                        \
	X(O_NOCTTY, 00000400)                                                                      \
	X(O_TRUNC, 00001000)                                                                       \
	X(O_APPEND, 00002000)                                                                      \
	X(O_NONBLOCK, 00004000)                                                                    \
	X(O_DSYNC, 00010000)                                                                       \
	X(O_DIRECTORY, 00200000)                                                                   \
	X(O_NOFOLLOW, 00400000)                                                                    \
	X(O_CLOEXEC, 02000000)                                                                     \
	X(O_SYNC, 04010000)                                                                        \
	X(O_CLOFORK, 040000000)                                                                    \
	X(O_NONSEQFD, 0100000000)

#define UAPI_O_ACCMODE 3 /* O_RDONLY 0, O_WRONLY 1, O_RDWR 2 */

#ifndef UAPI_NO_FLAG_NAMES
#define O_ACCMODE   00000003
#define O_RDONLY    00000000
#define O_WRONLY    00000001
#define O_RDWR	    00000002
#define O_CREAT	    00000100
#define O_EXCL	    00000200
#define O_NOCTTY    00000400
#define O_TRUNC	    00001000
#define O_APPEND    00002000
#define O_NONBLOCK  00004000
#define O_DSYNC	    00010000
#define O_DIRECTORY 00200000
#define O_NOFOLLOW  00400000
#define O_CLOEXEC   02000000
#define O_SYNC	    04010000
#endif

/* Linux's O_PATH and O_TMPFILE (__O_TMPFILE with O_DIRECTORY), which
 * newlib lacks: kernel names only. */
#define UAPI_O_PATH	 010000000
#define UAPI___O_TMPFILE 020000000
#ifndef UAPI_NO_FLAG_NAMES
#define O_PATH	    UAPI_O_PATH
#define __O_TMPFILE UAPI___O_TMPFILE
#define O_TMPFILE   (__O_TMPFILE | O_DIRECTORY)
#endif

/* Linux's open flags fdkernel takes and has no use for (one ramfs, no
 * page cache to bypass, no atime kept; FASYNC at open is ignored by
 * Linux too): openat2 accepts them as Linux does.  Kernel names only. */
#define UAPI_FASYNC	 00020000
#define UAPI_O_DIRECT	 00040000
#define UAPI_O_LARGEFILE 00100000
#define UAPI_O_NOATIME	 01000000
#ifndef UAPI_NO_FLAG_NAMES
#define FASYNC	    UAPI_FASYNC
#define O_DIRECT    UAPI_O_DIRECT
#define O_LARGEFILE UAPI_O_LARGEFILE
#define O_NOATIME   UAPI_O_NOATIME
#endif

/* fdkernel additions (not in Linux): bits 23 and 24 of the open flags. */
#define O_CLOFORK  040000000  /* close the new fd in a forked child */
#define O_NONSEQFD 0100000000 /* allocate from the non-sequential area */

/* Descriptor flags (F_GETFD / F_SETFD).  FD_CLOFORK as in illumos. */
#define FD_CLOFORK 2

/* fcntl commands: Linux values; F_DUPFD_CLOFORK is fdkernel's. */
#define F_DUPFD_CLOFORK	     1124
#define UAPI_F_DUPFD_CLOEXEC 1030 /* newlib's F_DUPFD_CLOEXEC is 14 */

#ifndef UAPI_NO_FLAG_NAMES
#define FD_CLOEXEC	1
#define F_DUPFD		0
#define F_GETFD		1
#define F_SETFD		2
#define F_GETFL		3
#define F_SETFL		4
#define F_DUPFD_CLOEXEC UAPI_F_DUPFD_CLOEXEC
#define F_GETLK		5
#define F_SETLK		6
#define F_SETLKW	7
#define SEEK_SET	0 /* lseek's and struct flock's whence */
#define SEEK_CUR	1
#define SEEK_END	2
#define SEEK_DATA	3 /* lseek only: the next byte of data, or of a hole */
#define SEEK_HOLE	4
#define F_RDLCK		0
#define F_WRLCK		1
#define F_UNLCK		2
#endif

/* Record locks: Linux's open-file-description lock commands (newlib has
 * none), and struct flock as Linux x86_64 lays it out (32 bytes). */
#define F_OFD_GETLK  36
#define F_OFD_SETLK  37
#define F_OFD_SETLKW 38
/* Signal-driven I/O (fs/fasync.h): O_ASYNC (FASYNC) is a status flag
 * F_SETFL changes; the owner and the signal are the open file's.  Kernel
 * names only (newlib's F_SETOWN is BSD's 6; musl has Linux's). */
#ifndef UAPI_NO_FLAG_NAMES
#define O_ASYNC	     020000
#define F_SETOWN     8
#define F_GETOWN     9
#define F_SETSIG     10
#define F_GETSIG     11
#define F_SETOWN_EX  15
#define F_GETOWN_EX  16
#define F_OWNER_TID  0
#define F_OWNER_PID  1
#define F_OWNER_PGRP 2
struct f_owner_ex {
	int type; /* F_OWNER_* */
	int pid;  /* a tid, pid or process-group id; 0: none */
};
/* dnotify (fs/notify/dnotify.h): F_NOTIFY's events of a directory and its entries. */
#define F_NOTIFY     1026
#define DN_ACCESS    0x00000001u
#define DN_MODIFY    0x00000002u
#define DN_CREATE    0x00000004u
#define DN_DELETE    0x00000008u
#define DN_RENAME    0x00000010u
#define DN_ATTRIB    0x00000020u
#define DN_MULTISHOT 0x80000000u
#endif
#define F_SETLEASE   1024 /* refused: docs/locks.md */
#define F_GETLEASE   1025
#define F_SETPIPE_SZ 1031
#define F_GETPIPE_SZ 1032
struct uapi_flock {
	short l_type; /* F_RDLCK, F_WRLCK, F_UNLCK */
	short l_whence;
	long l_start;
	long l_len; /* 0: to the end of file, however it grows; < 0: the bytes before l_start */
	int l_pid;
};

/* Socket type flags share the open-flag bits, as on Linux.  Numeric, since
 * user space sees newlib's O_NONBLOCK and O_CLOEXEC (other values). */
#define SOCK_NONBLOCK 00004000
#define SOCK_CLOEXEC  02000000
#define SOCK_CLOFORK  O_CLOFORK

/* fallocate(2) modes and posix_fadvise(2) advice: Linux's (the libcs
 * have their own names for them). */
#ifndef UAPI_NO_FLAG_NAMES
#define FALLOC_FL_KEEP_SIZE	 0x01
#define FALLOC_FL_PUNCH_HOLE	 0x02
#define FALLOC_FL_NO_HIDE_STALE	 0x04
#define FALLOC_FL_COLLAPSE_RANGE 0x08
#define FALLOC_FL_ZERO_RANGE	 0x10
#define FALLOC_FL_INSERT_RANGE	 0x20
#define FALLOC_FL_UNSHARE_RANGE	 0x40
#define FALLOC_FL_WRITE_ZEROES	 0x80

#define POSIX_FADV_NORMAL     0
#define POSIX_FADV_RANDOM     1
#define POSIX_FADV_SEQUENTIAL 2
#define POSIX_FADV_WILLNEED   3
#define POSIX_FADV_DONTNEED   4
#define POSIX_FADV_NOREUSE    5
#endif

/* close_range(2) flags: Linux values; CLOSE_RANGE_CLOFORK is fdkernel's. */
#define CLOSE_RANGE_UNSHARE (1U << 1)
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#define CLOSE_RANGE_CLOFORK (1U << 3)

#define UAPI_AT_FDCWD (-100) /* newlib's AT_FDCWD is -2 */
#ifndef UAPI_NO_FLAG_NAMES
#define AT_FDCWD UAPI_AT_FDCWD
#endif

/* *at() flags: Linux values (newlib's differ; libc/ translates them). */
#define UAPI_AT_SYMLINK_NOFOLLOW 0x100
#define UAPI_AT_REMOVEDIR	 0x200
#define UAPI_AT_SYMLINK_FOLLOW	 0x400
#define UAPI_AT_NO_AUTOMOUNT	 0x800
#define UAPI_AT_EMPTY_PATH	 0x1000
#define UAPI_AT_EACCESS		 0x200 /* faccessat2: AT_REMOVEDIR's bit */
#ifndef UAPI_NO_FLAG_NAMES
#define AT_EACCESS	    UAPI_AT_EACCESS
#define AT_SYMLINK_NOFOLLOW UAPI_AT_SYMLINK_NOFOLLOW
#define AT_REMOVEDIR	    UAPI_AT_REMOVEDIR
#define AT_SYMLINK_FOLLOW   UAPI_AT_SYMLINK_FOLLOW
#define AT_NO_AUTOMOUNT	    UAPI_AT_NO_AUTOMOUNT
#define AT_EMPTY_PATH	    UAPI_AT_EMPTY_PATH
#endif

/* openat2(2): Linux's struct open_how, OPEN_HOW_SIZE_VER0 bytes in its
 * first version (larger ones are read as copy_struct_from_user does), and
 * its RESOLVE_* flags. */
struct open_how {
	unsigned long long flags, mode, resolve;
};
#define OPEN_HOW_SIZE_VER0    24
#define RESOLVE_NO_XDEV	      0x01
#define RESOLVE_NO_MAGICLINKS 0x02
#define RESOLVE_NO_SYMLINKS   0x04
#define RESOLVE_BENEATH	      0x08
#define RESOLVE_IN_ROOT	      0x10
#define RESOLVE_CACHED	      0x20

/* renameat2(2) flags: Linux values (newlib has none). */
#define RENAME_NOREPLACE (1U << 0)
#define RENAME_EXCHANGE	 (1U << 1)
#define RENAME_WHITEOUT	 (1U << 2)

/* utimensat(2) special tv_nsec values: Linux's (newlib's differ). */
#define UAPI_UTIME_NOW	((1L << 30) - 1)
#define UAPI_UTIME_OMIT ((1L << 30) - 2)

/* flock() operations (Linux). */
#define LOCK_SH	  1
#define LOCK_EX	  2
#define LOCK_NB	  4 /* or'ed in: fail with EWOULDBLOCK rather than wait */
#define LOCK_UN	  8
#define LOCK_MAND 32 /* obsolete: Linux ignores the call (returns 0) */

/* sync_file_range(2) flags (Linux). */
#define SYNC_FILE_RANGE_WAIT_BEFORE 1
#define SYNC_FILE_RANGE_WRITE	    2
#define SYNC_FILE_RANGE_WAIT_AFTER  4

/* splice(2), tee(2) and vmsplice(2) flags (Linux). */
#define SPLICE_F_MOVE	  1
#define SPLICE_F_NONBLOCK 2
#define SPLICE_F_MORE	  4
#define SPLICE_F_GIFT	  8
#define SPLICE_F_ALL	  (SPLICE_F_MOVE | SPLICE_F_NONBLOCK | SPLICE_F_MORE | SPLICE_F_GIFT)

/*
 * The two fd areas (docs/fds.md).  The sequential area is [0, RLIMIT_NOFILE)
 * and RLIMIT_NOFILE can never exceed NR_OPEN_MAX; the non-sequential area
 * starts at NONSEQ_FD_BASE, above any possible limit.
 */
#define NR_OPEN_MAX    (1 << 20)
#define NONSEQ_FD_BASE (1 << 30)
#define NONSEQ_FD_MAX  (1 << 20)

#endif
