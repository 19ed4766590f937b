/*
 * SCM_RIGHTS: open files in flight inside an AF_UNIX message.  The sender's
 * fds become file references at send time; the receiver gets new fds for
 * them.  An undelivered set is dropped with its message.  A set's files
 * count as in flight (unix_gc.h) from when it is built until it is freed.
 *
 * SCM_CREDENTIALS: who sent an AF_UNIX message (Linux's creds in a unix
 * skb), a value carried with it; docs/security.md has the rules.
 */
#ifndef NET_SCM_H
#define NET_SCM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/list.h"

#define SCM_MAX_FD 253 /* most fds one message carries (Linux) */

struct file;

/* A message's sender: process id, uid, gid; pid 0: none was attached
 * (a receiver then sees pid 0 and the overflow ids, as Linux). */
struct scm_cred {
	int pid;
	uint32_t uid, gid;
};

static inline bool scm_cred_eq(const struct scm_cred *a, const struct scm_cred *b)
{
	return a->pid == b->pid && a->uid == b->uid && a->gid == b->gid;
}

/* The caller's: its process id and real uid and gid (Linux's scm_send
 * default, current_uid and current_gid). */
struct scm_cred scm_cred_current(void);

/* Owned by whoever holds it (a message, a queue); files never change. */
struct scm_fds {
	struct list_head link; /* on a list of sets to free (unix GC, scm_free) */
	unsigned int n;	       /* at least 1 */
	struct file *files[];  /* one reference each */
};

/*
 * Parses a sendmsg control buffer (kernel copy): SCM_RIGHTS fds of the
 * current process become *out, in flight (NULL if none), and
 * SCM_CREDENTIALS *cred (pid 0 if none); both are ignored unless is_unix
 * (AF_UNIX).  0, -EINVAL (malformed, unknown type, too many fds, an id
 * of -1), -EPERM (credentials the caller may not claim), -ESRCH (their
 * pid is no one's), -EBADF, -ENOMEM, -ETOOMANYREFS (in-flight limit).
 */
int scm_parse(const void *ctl, size_t len, bool is_unix, struct scm_fds **out,
	      struct scm_cred *cred);
/* Writes one control message (level SOL_SOCKET, type, len bytes of data)
 * at user address uctl with room bytes: the bytes used (CMSG_SPACE, cut
 * to room), MSG_CTRUNC added to *msg_flags when it did not fit whole
 * (nothing written without room for a header); -EFAULT. */
long scm_put_cmsg(void *uctl, size_t room, int level, int type, const void *data, size_t len,
		  int *msg_flags);
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
