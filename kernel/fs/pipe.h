/*
 * Pipes: a 64 KiB in-kernel ring between a read end and a write end, with
 * POSIX semantics (atomic writes up to PIPE_BUF, EOF once every writer has
 * closed, EPIPE and SIGPIPE once every reader has).  docs/fds.md.
 */
#ifndef FS_PIPE_H
#define FS_PIPE_H

#include <stdbool.h>

struct file;

#define PIPE_SIZE (64 * 1024) /* bytes a pipe holds */
#define PIPE_BUF  4096	      /* writes up to this size are never interleaved */

/*
 * Creates a pipe: *rd (O_RDONLY) and *wr (O_WRONLY), each with one
 * reference; oflags may carry O_NONBLOCK for both.  0 or -ENOMEM.
 */
/* True if f is an end of a pipe (sendfile treats them apart). */
bool file_is_pipe(const struct file *f);
int pipe_create(unsigned int oflags, struct file **rd, struct file **wr);

#endif
