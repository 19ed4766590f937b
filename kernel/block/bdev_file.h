/*
 * Block-special files (block/bdev_file.c), for the VFS's open: the file
 * operations of /dev/vda and the like, and what opening one does.
 */
#ifndef BLOCK_BDEV_FILE_H
#define BLOCK_BDEV_FILE_H

struct file;
struct file_ops;

const struct file_ops *blkdev_file_ops(void);
/* Attaches f (just made for a block-special inode) to the registered
 * partition or disk of its device number: 0, or -ENXIO (none, or
 * removed); then the file is put unused. */
int blkdev_open(struct file *f, unsigned int flags);

#endif
