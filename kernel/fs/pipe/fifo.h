/*
 * FIFOs (fifo.c): opening a FIFO inode as a pipe end.
 */
#ifndef FS_FIFO_H
#define FS_FIFO_H

struct file;
struct inode;
struct pipe;

/*
 * Opens the FIFO ip with open's flags (pipe.h: pipe_open's waits and
 * errors).  On success *out holds the caller's reference on ip (a ramfs
 * FIFO's end keeps it in f->inode); on error the caller keeps it.
 */
int fifo_open(struct inode *ip, unsigned int flags, struct file **out);
/* A new nameless FIFO inode holding a reference on p (put with the
 * inode), for /proc/<pid>/fd links to open p through; NULL: no memory. */
struct inode *fifo_holding(struct pipe *p);

#endif
