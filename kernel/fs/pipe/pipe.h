/*
 * Pipes: an in-kernel ring (64 KiB; F_SETPIPE_SZ changes it) between a
 * read end and a write end, with POSIX semantics (atomic writes up to
 * PIPE_BUF, EOF once every writer has closed, EPIPE and SIGPIPE once
 * every reader has).  docs/fds.md.
 */
#ifndef FS_PIPE_H
#define FS_PIPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct file;
struct inode;
struct pipe;

#define PIPE_SIZE (64 * 1024) /* bytes a new pipe holds */
#define PIPE_BUF  4096	      /* writes up to this size are never interleaved */

/*
 * /proc/sys/fs/pipe-max-size: the most bytes F_SETPIPE_SZ may give a pipe
 * without CAP_SYS_RESOURCE (Linux's pipe_max_size, 1 MiB at boot).  Always
 * a power of two of at least a page (writes are rounded up as Linux's
 * round_pipe_size).  Atomic.  fdkernel holds every process to it (EPERM),
 * so it bounds the memory one pipe can pin.
 */
extern unsigned int pipe_max_size;

/*
 * Creates a pipe: *rd (O_RDONLY) and *wr (O_WRONLY), each with one
 * reference; oflags may carry O_NONBLOCK for both.  0 or -ENFILE (no
 * memory, or past pipe-user-pages-hard: pipe_size.c's accounting).
 */
int pipe_create(unsigned int oflags, struct file **rd, struct file **wr);

/*
 * The pieces FIFOs (fifo.c) and /proc/<pid>/fd (proc_fd.c) open pipes
 * with.  pipe_alloc: a pipe with no end and one reference (the caller's),
 * the pipe of the FIFO inode fifo (NULL for none: see struct pipe's
 * lifetime rule), its ring charged to the user's pipe pages (which may
 * make it small), or NULL (no memory, or past the hard limit).
 * pipe_get / pipe_put: a reference (the last put frees the pipe, and
 * clears the FIFO inode's pointer to it).
 */
struct pipe *pipe_alloc(struct inode *fifo);
void pipe_get(struct pipe *p);
void pipe_put(struct pipe *p);
/*
 * A new end of p for open's flags (O_ACCMODE, O_NONBLOCK), as Linux's
 * fifo_open: for a FIFO's pipe, O_RDONLY waits for a writer to open
 * (unless O_NONBLOCK), O_WRONLY for a reader (O_NONBLOCK: -ENXIO without
 * one), O_RDWR never waits; an anonymous pipe's (reopened through
 * /proc/<pid>/fd) never waits and never fails for want of a partner.  The file takes its own
 * reference on p.  0, -ENXIO, -ENOMEM, or the wait's error when a signal comes (nothing then
 * changed).
 */
int pipe_open(struct pipe *p, unsigned int flags, struct file **out);
/* f's pipe if f is a pipe end (a reference is the caller's to take), else NULL. */
struct pipe *pipe_of(struct file *f);

/*
 * splice, tee and vmsplice (fs/pipe/splice.c) on pipe ends (files the caller
 * holds, checked to be pipes and open the right way).  nonblock
 * (SPLICE_F_NONBLOCK, or the end's O_NONBLOCK) makes a wait EAGAIN; a
 * pipe with no reader left is EPIPE and SIGPIPE.  Each returns the bytes
 * moved, 0 at the input's end, or -errno; bytes leave a pipe only once
 * the other side took them.
 *   pipe_transfer: vmsplice, the iterator's segments out of the pipe as
 *     read would, or into it (write): one wait for room, then what fits.
 *   pipe_splice_out: up to len held bytes into out's write_iter at *pos
 *     (left where it was: the caller moves its offset).
 *   pipe_splice_in: up to len bytes of in's read_iter into the pipe, from
 *     *pos (the same).
 *   pipe_splice_pipe: up to len bytes from inf's pipe to outf's (another);
 *     with keep (tee), in's bytes stay.
 */
struct iov_iter;
long pipe_transfer(struct file *pf, struct iov_iter *it, bool write, bool nonblock);
long pipe_splice_out(struct file *pf, struct file *out, uint64_t *pos, size_t len, bool nonblock);
long pipe_splice_in(struct file *pf, struct file *in, uint64_t *pos, size_t len, bool nonblock);
long pipe_splice_pipe(struct file *inf, struct file *outf, size_t len, bool nonblock, bool keep);
/*
 * splice and tee between two files the caller holds: the system calls
 * after their fd lookups (and splice's offsets read: off_in, off_out NULL
 * for the file's position, moved past what was spliced), their flags
 * already checked.  io_uring's SPLICE and TEE run them.
 */
long splice_file(struct file *in, long *off_in, struct file *out, long *off_out, size_t len,
		 unsigned int flags);
long tee_file(struct file *in, struct file *out, size_t len, unsigned int flags);
/* F_GETPIPE_SZ: p's capacity in bytes. */
size_t pipe_get_size(struct pipe *p);
/*
 * F_SETPIPE_SZ: p's capacity becomes want rounded up to a page, then to a
 * power of two, keeping the bytes held.  The new size, or -EINVAL (past
 * 2^31), -EPERM (growing past pipe_max_size or past the user's pipe pages
 * limits), -EBUSY (the held bytes
 * need more pages), -ENOMEM.
 */
long pipe_set_size(struct pipe *p, unsigned int want);

#endif
