/*
 * struct stat as Linux x86_64 lays it out for stat/fstat/lstat, shared by
 * the kernel and libc/ (which converts it to newlib's smaller struct stat).
 * Field names avoid st_atime & co, which libcs define as macros.
 */
#ifndef UAPI_STAT_H
#define UAPI_STAT_H

#include <stdint.h>

struct uapi_stat {
	uint64_t st_dev;
	uint64_t st_ino;
	uint64_t st_nlink;
	uint32_t st_mode; /* S_IF* type bits and permissions, as everywhere */
	uint32_t st_uid;
	uint32_t st_gid;
	uint32_t pad0;
	uint64_t st_rdev;
	int64_t st_size;
	int64_t st_blksize;
	int64_t st_blocks; /* 512-byte units */
	uint64_t atime_sec;
	uint64_t atime_nsec;
	uint64_t mtime_sec;
	uint64_t mtime_nsec;
	uint64_t ctime_sec;
	uint64_t ctime_nsec;
	int64_t reserved[3];
};

_Static_assert(sizeof(struct uapi_stat) == 144, "Linux x86_64 struct stat is 144 bytes");

/* statx(): Linux's struct statx and its mask bits. */
struct uapi_statx_timestamp {
	int64_t tv_sec;
	uint32_t tv_nsec;
	int32_t reserved;
};

struct uapi_statx {
	uint32_t stx_mask; /* STATX_* of the fields filled */
	uint32_t stx_blksize;
	uint64_t stx_attributes;
	uint32_t stx_nlink;
	uint32_t stx_uid;
	uint32_t stx_gid;
	uint16_t stx_mode;
	uint16_t spare0;
	uint64_t stx_ino;
	uint64_t stx_size;
	uint64_t stx_blocks;
	uint64_t stx_attributes_mask;
	struct uapi_statx_timestamp stx_atime, stx_btime, stx_ctime, stx_mtime;
	uint32_t stx_rdev_major, stx_rdev_minor;
	uint32_t stx_dev_major, stx_dev_minor;
	uint64_t stx_mnt_id;
	uint32_t stx_dio_mem_align, stx_dio_offset_align;
	uint64_t spare3[12];
};

_Static_assert(sizeof(struct uapi_statx) == 256, "Linux struct statx is 256 bytes");

#define STATX_TYPE	  0x001U
#define STATX_MODE	  0x002U
#define STATX_NLINK	  0x004U
#define STATX_UID	  0x008U
#define STATX_GID	  0x010U
#define STATX_ATIME	  0x020U
#define STATX_MTIME	  0x040U
#define STATX_CTIME	  0x080U
#define STATX_INO	  0x100U
#define STATX_SIZE	  0x200U
#define STATX_BLOCKS	  0x400U
#define STATX_BASIC_STATS 0x7ffU
#define STATX__RESERVED	  0x80000000U /* asking for it: EINVAL */

/* statx flags beside the AT_* ones of uapi/fcntl.h. */
#define AT_STATX_SYNC_TYPE  0x6000
#define AT_STATX_FORCE_SYNC 0x2000
#define AT_STATX_DONT_SYNC  0x4000

#endif
