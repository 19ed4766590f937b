/*
 * SCM_RIGHTS fd passing and SCM_CREDENTIALS (see scm.h): control-message
 * parsing on send, new fds, credentials and the cmsg headers written
 * back on receive.
 */
#include "net/scm.h"
#include "arch/x86_64/uaccess.h"
#include "async/io_uring.h"
#include "fd/fd_install.h"
#include "fs/file.h"
#include "fd/fdtable.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "net/unix_gc.h"
#include "proc/cred.h"
#include "proc/group.h"
#include "proc/proc.h"
#include "proc/task.h"
#include "proc/pid_ns.h"
#include "proc/user_namespace.h"
#include <uapi/errno.h>
#include <uapi/socket.h>

#define CMSG_ALIGN(len) (((len) + sizeof(size_t) - 1) & ~(sizeof(size_t) - 1))
#define CMSG_HDRLEN	CMSG_ALIGN(sizeof(struct cmsghdr))

/* Drops the references of a set that was never in flight, and frees it. */
static void scm_drop(struct scm_fds *fds)
{
	if (!fds)
		return;
	for (unsigned int i = 0; i < fds->n; i++)
		file_put(fds->files[i]);
	kfree(fds);
}

/*
 * A set's last file reference may be a socket's, whose release frees the
 * sets queued on it, which may hold the last reference to another socket:
 * a chain of sockets each queued in the previous one would recurse once
 * per link and overflow the kernel stack.  So the outermost scm_free of a
 * task drops sets one at a time from a list, and nested calls only add
 * to that list.
 */
void scm_free(struct scm_fds *fds)
{
	struct task *t = current();
	struct list_head todo = LIST_HEAD_INIT(todo);

	if (!fds)
		return;
	if (t->scm_dropping) {
		list_add_tail(&fds->link, t->scm_dropping);
		return;
	}
	t->scm_dropping = &todo;
	for (;;) {
		unix_inflight_uncharge(fds);
		scm_drop(fds);
		if (list_empty(&todo))
			break;
		fds = list_first_entry(&todo, struct scm_fds, link);
		list_del(&fds->link);
	}
	t->scm_dropping = NULL;
}

void scm_free_list(struct list_head *sets)
{
	struct scm_fds *fds, *next;

	list_for_each_entry_safe(fds, next, sets, link)
	{
		list_del(&fds->link);
		scm_free(fds);
	}
}

/* Appends the n fds at ufds (a kernel copy) to *set, growing it. */
static int scm_add_fds(struct scm_fds **set, const int *fds, unsigned int n)
{
	unsigned int have = *set ? (*set)->n : 0;
	struct scm_fds *s;

	if (have + n > SCM_MAX_FD)
		return -EINVAL;
	if (!n)
		return 0; /* an empty SCM_RIGHTS passes nothing, as Linux */
	s = kmalloc(sizeof(*s) + (have + n) * sizeof(s->files[0]));
	if (!s)
		return -ENOMEM;
	list_init(&s->link);
	s->n = have;
	if (have)
		memcpy(s->files, (*set)->files, have * sizeof(s->files[0]));
	kfree(*set);
	*set = s;
	for (unsigned int i = 0; i < n; i++) {
		struct file *f = files_lookup_raw(current()->files, fds[i]); /* O_PATH too */
		if (!f)
			return -EBADF;
		/* No io_uring in flight (Linux 6.7+'s EINVAL): its registered
		 * files may hold this very socket, a cycle of references no
		 * garbage collector of in-flight fds sees (liburing's ring-leak). */
		if (io_ring_of(f)) {
			file_put(f);
			return -EINVAL;
		}
		s->files[s->n++] = f;
	}
	return 0;
}

struct scm_cred scm_cred_current(void)
{
	const struct cred *c = cred_current();

	return (struct scm_cred){current()->group->tgid, c->uid, c->gid};
}

/*
 * SCM_CREDENTIALS' payload (Linux's scm_check_creds and __scm_send): ids
 * the caller's user namespace does not map (-1 among them) are EINVAL;
 * the pid must be the caller's or CAP_SYS_ADMIN, the uid one of its
 * real, effective and saved ones or CAP_SETUID over its user namespace,
 * the gid likewise or CAP_SETGID (EPERM); then the pid must be
 * someone's (ESRCH).
 */
static int scm_parse_cred(const struct cmsghdr *h, struct scm_cred *cred)
{
	const struct cred *c = cred_current();
	struct ucred u;
	struct task *t;

	if (h->cmsg_len != CMSG_HDRLEN + sizeof(u))
		return -EINVAL;
	memcpy(&u, (const char *)h + CMSG_HDRLEN, sizeof(u));
	u.uid = make_kuid(c->user_ns, u.uid);
	u.gid = make_kgid(c->user_ns, u.gid);
	if (u.uid == INVALID_ID || u.gid == INVALID_ID)
		return -EINVAL;
	if ((u.pid != pid_vnr(current()->group->tgid) && !capable(CAP_SYS_ADMIN)) ||
	    (u.uid != c->uid && u.uid != c->euid && u.uid != c->suid &&
	     !ns_capable(c->user_ns, CAP_SETUID)) ||
	    (u.gid != c->gid && u.gid != c->egid && u.gid != c->sgid &&
	     !ns_capable(c->user_ns, CAP_SETGID)))
		return -EPERM;
	if (u.pid <= 0 || !(t = task_find_vnr(u.pid)))
		return -ESRCH;
	*cred = (struct scm_cred){t->pid, u.uid, u.gid}; /* global: the receiver translates */
	task_put(t);
	return 0;
}

int scm_parse(const void *ctl, size_t len, bool is_unix, struct scm_fds **out,
	      struct scm_cred *cred)
{
	size_t off = 0;
	int err = 0;

	*out = NULL;
	*cred = (struct scm_cred){0};
	while (!err && len - off >= sizeof(struct cmsghdr)) {
		const struct cmsghdr *h = (const void *)((const char *)ctl + off);

		if (h->cmsg_len < sizeof(*h) || h->cmsg_len > len - off)
			err = -EINVAL;
		else if (h->cmsg_level != SOL_SOCKET)
			; /* other levels mean nothing to a loopback socket */
		else if (is_unix && h->cmsg_type == SCM_CREDENTIALS)
			err = scm_parse_cred(h, cred);
		else if (h->cmsg_type != SCM_RIGHTS)
			err = -EINVAL;
		else if (is_unix) /* AF_INET ignores SCM_RIGHTS, as Linux */
			err = scm_add_fds(out, (const int *)((const char *)h + CMSG_HDRLEN),
					  (h->cmsg_len - CMSG_HDRLEN) / sizeof(int));
		off += CMSG_ALIGN(h->cmsg_len);
		if (off > len)
			off = len;
	}
	if (!err && *out)
		err = unix_inflight_charge(*out);
	if (err) {
		scm_drop(*out);
		*out = NULL;
	}
	return err;
}

long scm_put_cmsg(void *uctl, size_t room, int level, int type, const void *data, size_t len,
		  int *msg_flags)
{
	struct {
		struct cmsghdr h;
		unsigned char data[32];
	} c = {.h = {.cmsg_len = CMSG_HDRLEN + len, .cmsg_level = level, .cmsg_type = type}};
	size_t n = c.h.cmsg_len;

	if (room < sizeof(c.h)) {
		*msg_flags |= MSG_CTRUNC;
		return 0;
	}
	if (n > room) {
		*msg_flags |= MSG_CTRUNC;
		n = room;
	}
	memcpy(c.data, data, len < sizeof(c.data) ? len : sizeof(c.data));
	if (copy_to_user(uctl, &c, n))
		return -EFAULT;
	return CMSG_ALIGN(c.h.cmsg_len) < room ? CMSG_ALIGN(c.h.cmsg_len) : room;
}

/* Reserves up to max fds into fds[]: how many (fewer at the fd limit). */
static unsigned int scm_reserve(int *fds, unsigned int max, unsigned int oflags)
{
	unsigned int i;

	for (i = 0; i < max; i++) {
		int fd = fd_reserve(oflags, 0);
		if (fd < 0)
			break;
		fds[i] = fd;
	}
	return i;
}

long scm_deliver(const struct scm_fds *fds, void *uctl, size_t room, unsigned int oflags,
		 int *msg_flags)
{
	unsigned int fit = room > CMSG_HDRLEN ? (room - CMSG_HDRLEN) / sizeof(int) : 0;
	struct {
		struct cmsghdr h;
		int fds[SCM_MAX_FD];
	} * c;
	long n, used;

	if (fit > fds->n)
		fit = fds->n;
	if (fit < fds->n)
		*msg_flags |= MSG_CTRUNC;
	if (!fit)
		return 0;
	c = kmalloc(sizeof(*c));
	if (!c)
		return -ENOMEM;
	n = scm_reserve(c->fds, fit, oflags);
	if (n < fit)
		*msg_flags |= MSG_CTRUNC; /* at the fd limit: Linux drops the rest */
	if (!n)
		goto out;
	c->h = (struct cmsghdr){.cmsg_len = CMSG_HDRLEN + n * sizeof(int),
				.cmsg_level = SOL_SOCKET,
				.cmsg_type = SCM_RIGHTS};
	used = CMSG_ALIGN(c->h.cmsg_len) < room ? CMSG_ALIGN(c->h.cmsg_len) : room;
	if (copy_to_user(uctl, c, c->h.cmsg_len)) {
		for (long i = 0; i < n; i++)
			fd_unreserve(c->fds[i]);
		n = -EFAULT;
		goto out;
	}
	for (long i = 0; i < n; i++)
		file_get(fds->files[i]);
	unix_gc_barrier(); /* references first, then fds: unix_gc.c */
	for (long i = 0; i < n; i++)
		fd_install(c->fds[i], fds->files[i]);
	n = used;
out:
	kfree(c);
	return n;
}
