/*
 * SCM_RIGHTS: open files in flight inside an AF_UNIX message.  The sender's
 * fds become file references at send time; the receiver gets new fds for
 * them.  An undelivered set is dropped with its message.  A set's files
 * count as in flight (unix_gc.h) from when it is built until it is freed.
 */
#ifndef NET_SCM_H
#define NET_SCM_H

#include <stdbool.h>
#include <stddef.h>
#include "lib/list.h"

#define SCM_MAX_FD 253 /* most fds one message carries (Linux) */

struct file;

/* Owned by whoever holds it (a message, a queue); files never change. */
struct scm_fds {
	struct list_head link; /* on a list of sets to free (unix GC, scm_free) */
	unsigned int n;	       /* at least 1 */
	struct file *files[];  /* one reference each */
};

/*
 * Parses a sendmsg control buffer (kernel copy): SCM_RIGHTS fds of the
 * current process become *out, in flight (NULL if none; SCM_RIGHTS is
 * ignored unless allow_fds).  0, -EINVAL (malformed, unknown type, too
 * many fds), -EBADF, -ENOMEM, -ETOOMANYREFS (in-flight limit).
 */
int scm_parse(const void *ctl, size_t len, bool allow_fds, struct scm_fds **out);
/* Kernel memory the set takes (0 for NULL): a datagram queue is charged it. */
static inline size_t scm_size(const struct scm_fds *fds)
{
	return fds ? sizeof(*fds) + fds->n * sizeof(fds->files[0]) : 0;
}
/* Drops every reference and frees the set; NULL is fine.  Never under a
 * socket lock: the last reference to a socket file releases it.  Inside
 * another scm_free of the same task, only queues the set for that one. */
void scm_free(struct scm_fds *fds);
/* scm_free on each set of the list (linked by link). */
void scm_free_list(struct list_head *sets);
/*
 * Delivers fds into a recvmsg control buffer at user address uctl of
 * room bytes: as many new fds as fit there and under the fd limit
 * (O_CLOEXEC / O_CLOFORK in oflags), MSG_CTRUNC added to *msg_flags if
 * some did not; those are dropped with the set, which stays the caller's.
 * Returns the control bytes used, or -EFAULT / -ENOMEM.
 */
long scm_deliver(const struct scm_fds *fds, void *uctl, size_t room, unsigned int oflags,
		 int *msg_flags);

#endif
