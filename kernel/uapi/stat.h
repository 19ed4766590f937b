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

#endif
