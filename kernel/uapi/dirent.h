/*
 * getdents64(2) records and d_type values, Linux x86_64 layout, shared by the
 * kernel and libc/ (whose readdir() walks these records).
 */
#ifndef UAPI_DIRENT_H
#define UAPI_DIRENT_H

#include <stdint.h>

#define DT_UNKNOWN 0
#define DT_FIFO	   1
#define DT_CHR	   2
#define DT_DIR	   4
#define DT_BLK	   6
#define DT_REG	   8
#define DT_LNK	   10
#define DT_SOCK	   12

/* One record; d_reclen covers the name's NUL and padding to 8 bytes. */
struct uapi_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	uint16_t d_reclen;
	uint8_t d_type;
	char d_name[];
};

#endif
