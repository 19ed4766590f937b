/*
 * Block devices' and loop devices' ioctl requests and structures: Linux
 * x86_64 values (<linux/fs.h>, <linux/loop.h>).
 */
#ifndef UAPI_BLKDEV_H
#define UAPI_BLKDEV_H

#include <stdint.h>

/* <linux/fs.h>: any block device (block/bdev_file.c). */
#define BLKROSET     0x125d	/* int: read-only (CAP_SYS_ADMIN) */
#define BLKROGET     0x125e	/* int */
#define BLKRRPART    0x125f	/* reread the partition table (CAP_SYS_ADMIN) */
#define BLKGETSIZE   0x1260	/* unsigned long: 512-byte sectors */
#define BLKFLSBUF    0x1261	/* write back and drop the cached blocks (CAP_SYS_ADMIN) */
#define BLKRASET     0x1262	/* by value: readahead in 512-byte sectors (CAP_SYS_ADMIN) */
#define BLKRAGET     0x1263	/* long */
#define BLKFRASET    0x1264	/* the same as BLKRASET, as Linux */
#define BLKFRAGET    0x1265	/* the same as BLKRAGET */
#define BLKSSZGET    0x1268	/* int: logical block size */
#define BLKBSZGET    0x80081270 /* int: the cache's block size */
#define BLKBSZSET    0x40081271 /* int: set it (exclusive opens only on Linux) */
#define BLKGETSIZE64 0x80081272 /* uint64_t: bytes */
#define BLKIOMIN     0x1278	/* unsigned int: minimum I/O size */
#define BLKIOOPT     0x1279	/* unsigned int: optimal I/O size (0: none) */
#define BLKALIGNOFF  0x127a	/* int: alignment offset */
#define BLKPBSZGET   0x127b	/* unsigned int: physical block size */

/* <linux/loop.h>: /dev/loopN (block/loop.c). */
#define LOOP_SET_FD	    0x4C00
#define LOOP_CLR_FD	    0x4C01
#define LOOP_SET_STATUS	    0x4C02
#define LOOP_GET_STATUS	    0x4C03
#define LOOP_SET_STATUS64   0x4C04
#define LOOP_GET_STATUS64   0x4C05
#define LOOP_CHANGE_FD	    0x4C06
#define LOOP_SET_CAPACITY   0x4C07
#define LOOP_SET_DIRECT_IO  0x4C08
#define LOOP_SET_BLOCK_SIZE 0x4C09
#define LOOP_CONFIGURE	    0x4C0A
/* /dev/loop-control (10:237). */
#define LOOP_CTL_ADD	  0x4C80
#define LOOP_CTL_REMOVE	  0x4C81
#define LOOP_CTL_GET_FREE 0x4C82

#define LO_FLAGS_READ_ONLY 1
#define LO_FLAGS_AUTOCLEAR 4
#define LO_FLAGS_PARTSCAN  8
#define LO_FLAGS_DIRECT_IO 16

#define LO_NAME_SIZE 64
#define LO_KEY_SIZE  32

struct loop_info64 {
	uint64_t lo_device; /* read only: the backing file's st_dev */
	uint64_t lo_inode;  /* read only: its st_ino */
	uint64_t lo_rdevice;
	uint64_t lo_offset;    /* bytes into the file */
	uint64_t lo_sizelimit; /* bytes, 0: to the end of the file */
	uint32_t lo_number;    /* read only: N of loopN */
	uint32_t lo_encrypt_type;
	uint32_t lo_encrypt_key_size;
	uint32_t lo_flags;
	uint8_t lo_file_name[LO_NAME_SIZE];
	uint8_t lo_crypt_name[LO_NAME_SIZE];
	uint8_t lo_encrypt_key[LO_KEY_SIZE];
	uint64_t lo_init[2];
};

/* The old LOOP_GET_STATUS/LOOP_SET_STATUS form, x86_64 layout (what
 * LTP's device set-up and old losetup use): no size limit, a 32-bit
 * offset. */
struct loop_info {
	int32_t lo_number;
	uint64_t lo_device; /* x86_64's __kernel_old_dev_t is unsigned long */
	uint64_t lo_inode;
	uint64_t lo_rdevice;
	int32_t lo_offset;
	int32_t lo_encrypt_type;
	int32_t lo_encrypt_key_size;
	int32_t lo_flags;
	uint8_t lo_name[LO_NAME_SIZE];
	uint8_t lo_encrypt_key[LO_KEY_SIZE];
	uint64_t lo_init[2];
	uint8_t reserved[4];
};

struct loop_config {
	uint32_t fd;
	uint32_t block_size; /* 0: 512 */
	struct loop_info64 info;
	uint64_t reserved[8]; /* must be zero */
};

#endif
