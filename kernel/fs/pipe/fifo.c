/*
 * FIFOs (named pipes): a FIFO inode opens as an end of the kernel's pipe
 * (pipe.c), with fifo_open's waiting rules (pipe.h: pipe_open).  A ramfs
 * FIFO's pipe exists while an end is open: the first open makes it, the
 * last close frees it and its data, as Linux.  A /proc/<pid>/fd link to
 * an anonymous pipe jumps to a FIFO inode made for it that holds the pipe
 * (fifo.held), so opening the link opens that same pipe.
 */
#include "fs/pipe/fifo.h"
#include "fs/file.h"
#include "fs/inode.h"
#include "fs/super.h"
#include "fs/pipe/pipe.h"
#include <uapi/errno.h>

/* Under ip's lock: its pipe, referenced, or NULL. */
static struct pipe *get_locked(struct inode *ip)
{
	struct pipe *p = ip->fifo.pipe;

	if (p)
		pipe_get(p);
	return p;
}

/* ip's pipe with a reference, made if it has none: NULL if out of memory. */
static struct pipe *fifo_pipe(struct inode *ip)
{
	struct pipe *p, *fresh;

	spin_lock(&ip->lock);
	p = get_locked(ip);
	spin_unlock(&ip->lock);
	if (p || !(fresh = pipe_alloc(ip)))
		return p;
	spin_lock(&ip->lock);
	if (!(p = get_locked(ip)))
		p = ip->fifo.pipe = fresh; /* its reference is ours */
	spin_unlock(&ip->lock);
	if (p != fresh)
		pipe_put(fresh); /* another open made one first */
	return p;
}

int fifo_open(struct inode *ip, unsigned int flags, struct file **out)
{
	struct pipe *p;
	int err;

	if (ip->fifo.held) {
		p = ip->fifo.pipe;
		pipe_get(p);
	} else if (!(p = fifo_pipe(ip))) {
		return -ENOMEM;
	}
	err = pipe_open(p, flags, out);
	pipe_put(p);
	if (err)
		return err;
	if (ip->fifo.held)
		inode_put(ip); /* the end is the anonymous pipe's own: no inode */
	else
		(*out)->inode = ip;
	return 0;
}

struct inode *fifo_holding(struct pipe *p)
{
	struct inode *ip = inode_alloc(internal_sb, S_IFIFO | 0600, 0);

	if (!ip)
		return NULL;
	pipe_get(p);
	ip->fifo.pipe = p;
	ip->fifo.held = true;
	return ip;
}
