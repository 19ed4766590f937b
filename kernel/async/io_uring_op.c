/*
 * io_uring's opcodes: the table of how each is prepared, run and
 * issued (io_uring_req.c takes a request through it), and the ops with a
 * run of their own.  Most opcodes are an ordinary system call run with
 * the SQE's arguments (the "syscall" ops, io_uring_prep.c); the others
 * have a run function here.
 */
#include "arch/x86_64/timer.h"
#include "arch/x86_64/uaccess.h"
#include "async/io_uring_ops.h"
#include "async/io_uring_rsrc.h"
#include "fd/fd_install.h"
#include "fd/fdtable.h"
#include "fs/event/poll.h"
#include "fs/file.h"
#include "fs/inode.h"
#include "fs/upath.h"
#include "lib/iov_iter.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "net/socket.h"
#include "proc/proc.h"
#include "proc/task.h"
#include "sched/ktimer.h"
#include "sched/sched.h"
#include "sys/dispatch.h"
#include <uapi/errno.h>

/* ---- ops with a run of their own ---- */

static long run_nop(struct io_req *req)
{
	(void)req;
	return 0;
}

/* A LINK_TIMEOUT is never issued: the request it times completes it
 * (io_ltimeout_done); a chain that breaks before cancels it. */
static long run_orphan(struct io_req *req)
{
	(void)req;
	return -ECANCELED;
}

/* CLOSE: of a direct descriptor (file_index), or the fd's system call. */
static long run_close(struct io_req *req)
{
	if (req->sqe.file_index)
		return io_fixed_remove(req->ring, req->sqe.file_index - 1);
	return syscall_call((uint64_t)req->nr, req->args);
}

/* POLL_ADD: one shot, the first of the events (or an error, a hang-up)
 * that becomes true, the mask its result; or IORING_POLL_ADD_MULTI
 * (io_uring_multi.c), which skipped CQEs would make meaningless. */
static int prep_poll(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;

	if (s->addr || s->off || s->buf_index)
		return -EINVAL;
	if (s->len & ~IORING_POLL_ADD_MULTI)
		return -EINVAL;
	if ((s->len & IORING_POLL_ADD_MULTI) && (s->flags & IOSQE_CQE_SKIP_SUCCESS))
		return -EINVAL;
	req->multishot = s->len & IORING_POLL_ADD_MULTI;
	return 0;
}

/* A closed fd, POLLNVAL to poll(), is EBADF to POLL_ADD: Linux looks
 * its file up at its issue. */
static long poll_once(struct io_req *req, uint64_t deadline)
{
	struct pollfd p = {.fd = req->sqe.fd, .events = (short)req->sqe.poll32_events};
	long n = poll_kernel(&p, 1, POLLERR | POLLHUP, deadline);

	if (n > 0 && (p.revents & POLLNVAL))
		return -EBADF;
	return n > 0 ? p.revents : n;
}

/* Its interrupted wait then ends in -ECANCELED, as a removed poll's or
 * timeout's on Linux. */
bool io_req_removed(struct io_req *req)
{
	return __atomic_load_n(&req->removed, __ATOMIC_ACQUIRE); /* only ever set */
}

/* A poll whose wait a POLL_REMOVE update interrupted (its events
 * changed) is not done: IO_REARM. */
static long poll_rearmed(struct io_req *req, long res)
{
	bool rearm;

	if (res != -ERESTARTNOHAND && res != -EINTR)
		return res;
	spin_lock_task(&req->ring->lock);
	rearm = req->rearm && !req->removed;
	req->rearm = false;
	spin_unlock_task(&req->ring->lock);
	return rearm ? IO_REARM : res;
}

static long run_poll(struct io_req *req)
{
	long res = poll_once(req, POLL_FOREVER);

	return res == -ERESTARTNOHAND && io_req_removed(req) ? -ECANCELED : poll_rearmed(req, res);
}

/* Inline: ready now, or to a worker. */
static long attempt_poll(struct io_req *req)
{
	long n = poll_once(req, 0);

	return n > 0 ? n : -EAGAIN;
}

/* POLL_REMOVE, or with IORING_POLL_UPDATE_USER_DATA and
 * IORING_POLL_UPDATE_EVENTS in len an update of the poll's user_data to
 * off and its events to poll32_events (Linux's checks; a multishot poll
 * stays one, whatever ADD_MULTI says). */
static int prep_poll_remove(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;
	uint32_t flags = s->len;

	if (s->buf_index || s->file_index)
		return -EINVAL;
	if (flags &
	    ~(IORING_POLL_UPDATE_EVENTS | IORING_POLL_UPDATE_USER_DATA | IORING_POLL_ADD_MULTI))
		return -EINVAL;
	if (flags == IORING_POLL_ADD_MULTI)
		return -EINVAL;
	if ((!(flags & IORING_POLL_UPDATE_USER_DATA) && s->off) ||
	    (!(flags & IORING_POLL_UPDATE_EVENTS) && s->poll32_events))
		return -EINVAL;
	return 0;
}

/* An update: the next CQE carries the new user_data; new events
 * interrupt the poll's wait, which starts again with them (IO_REARM), or
 * are read when it starts. */
static long run_poll_remove(struct io_req *req)
{
	uint32_t flags = req->sqe.len;
	struct io_ring *ring = req->ring;
	struct io_req *t;

	if (!(flags & (IORING_POLL_UPDATE_USER_DATA | IORING_POLL_UPDATE_EVENTS)))
		return io_cancel_key(req, IORING_OP_POLL_ADD);
	spin_lock_task(&ring->lock);
	if ((t = io_find_locked(ring, req->sqe.addr, IORING_OP_POLL_ADD, req))) {
		if (flags & IORING_POLL_UPDATE_USER_DATA)
			__atomic_store_n(&t->sqe.user_data, req->sqe.off, __ATOMIC_RELAXED);
		if (flags & IORING_POLL_UPDATE_EVENTS) {
			/* the event bits; EPOLLEXCLUSIVE stays as it was, as Linux's */
			t->sqe.poll32_events = (t->sqe.poll32_events & ~0xffffu) |
					       (req->sqe.poll32_events & 0xffff);
			t->rearm = true;
			async_interrupt(&t->ar); /* under ring->lock: t stays */
		}
	}
	spin_unlock_task(&ring->lock);
	return t ? 0 : -ENOENT;
}

/* FILES_UPDATE: REGISTER's FILES_UPDATE as a request, len fds at addr
 * into the slots from off (32 bits, as Linux reads it), or with off
 * IORING_FILE_INDEX_ALLOC each into a free slot. */
static int prep_files_update(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;

	if (s->rw_flags || s->splice_fd_in || !s->len)
		return -EINVAL;
	return 0;
}

/* The table changes under submit_lock (io_uring_register's rule): held
 * by the submitter inline, and by io_uring_enter's wait when it retries
 * this ring's woken requests; taken here by a worker (a link's next) and
 * by the submitter retrying a woken request on its way back to user mode
 * (a link's next after an armed one), which hold no lock. */
static long run_files_update(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;
	bool take = !mutex_held(&req->ring->submit_lock);
	long res;

	if ((uint32_t)s->off == IORING_FILE_INDEX_ALLOC)
		return io_files_update_alloc(req->ring, (int32_t *)s->addr, s->len);
	if (take)
		mutex_lock(&req->ring->submit_lock);
	res = io_files_update(req->ring, (uint32_t)s->off, (const int32_t *)s->addr, NULL, s->len);
	if (take)
		mutex_unlock(&req->ring->submit_lock);
	return res;
}

/* SEND: the socket's one-message send, on the file the request holds
 * (a direct descriptor), else after its fd's lookup (sock_sendmsg:
 * sendto's code without an address). */
static long run_send(struct io_req *req)
{
	struct iovec v = {(void *)req->sqe.addr, req->sqe.len};
	struct kmsg m = {.flags = (int)req->sqe.msg_flags};
	struct socket *sk;

	iov_iter_init(&m.it, &v, 1, req->sqe.len);
	if (!req->file)
		return sock_sendmsg((int)req->args[0], &m);
	if (!(sk = sock_of_file(req->file)))
		return -ENOTSOCK;
	return sock_send(sk, req->file, &m);
}

/* IOSQE_BUFFER_SELECT: call into its group's next buffer (ENOBUFS if
 * none), len at most (0: all of it), which its CQE names if it
 * transferred anything. */
static __attribute__((noinline)) long with_buffer(struct io_req *req, uint32_t len,
						  long (*call)(struct io_req *, uint64_t, uint32_t))
{
	uint64_t addr;
	struct io_pbuf *b = io_pbuf_take(req->ring, req->sqe.buf_group, &addr, &len);
	long res;

	if (!b)
		return -ENOBUFS;
	res = call(req, addr, len);
	req->cflags |= io_pbuf_done(req->ring, b, res);
	return res;
}

/* A receive that left a stream's bytes to read (Linux's msg_inq > 0)
 * says so in its CQE: IORING_CQE_F_SOCK_NONEMPTY. */
static long recv_mark(struct io_req *req, long res, bool inq)
{
	if (res > 0 && inq)
		req->cflags |= IORING_CQE_F_SOCK_NONEMPTY;
	return res;
}

/* A receive into m on its direct descriptor's file, or on the file a
 * multishot request was armed on (poll.file, from its first arming: as
 * Linux's, the request keeps the file its fd named, whatever becomes of
 * the fd), else on its fd: the socket's receive after the fd's lookup
 * (sock_recvmsg, recvfrom's code without an address). */
static long recv_kmsg(struct io_req *req, struct kmsg *m)
{
	struct file *f = req->file ? req->file : req->multishot ? req->poll.file : NULL;
	struct socket *sk;
	long res;

	if (!f)
		res = sock_recvmsg((int)req->args[0], m);
	else if ((sk = sock_of_file(f)))
		res = sock_recv(sk, f, m);
	else
		return -ENOTSOCK;
	req->drained = m->drained;
	return res;
}

/* A RECV: what it left to read marks the CQE, as Linux's msg_inq. */
static long recv_into(struct io_req *req, uint64_t addr, uint32_t len)
{
	struct iovec v = {(void *)addr, len};
	struct kmsg m = {.flags = (int)req->sqe.msg_flags};

	long res;

	iov_iter_init(&m.it, &v, 1, len);
	res = recv_kmsg(req, &m);
	return recv_mark(req, res, m.inq);
}

/*
 * MSG_WAITALL on a stream (Linux's io_recv and io_recvmsg with done_io):
 * an attempt that got res bytes, short of the len it asked for, and
 * drained a socket still open waits for the rest (-EAGAIN: armed again),
 * counting them in done; the end gives all it got, an error or the end
 * of the stream after some bytes those.  A blocking receive (a worker)
 * waits for all itself.  Not with the user's MSG_DONTWAIT.  An end short
 * of len (a datagram's too) is a failure, which breaks the request's
 * link, as Linux's (ret < min_ret: req_set_fail).
 */
static long recv_waitall(struct io_req *req, long res, size_t len)
{
	if (!(req->sqe.msg_flags & MSG_WAITALL))
		return res;
	if (task_sched(current())->nowait && !(req->sqe.msg_flags & MSG_DONTWAIT) &&
	    (res == -EAGAIN || (res > 0 && (size_t)res < len && req->drained))) {
		if (res > 0)
			req->done += (uint32_t)res;
		return -EAGAIN;
	}
	req->short_fail = res < (long)len;
	if (res > 0)
		return res + req->done;
	return req->done ? req->done : res;
}

long io_run_recv(struct io_req *req)
{
	uint32_t len = req->sqe.len - req->done;

	if (req->sqe.flags & IOSQE_BUFFER_SELECT)
		return with_buffer(req, req->sqe.len, recv_into);
	return recv_waitall(req, recv_into(req, req->sqe.addr + req->done, len), len);
}

/* SENDMSG: sendmsg's code on the header its prep copied. */
static long run_sendmsg(struct io_req *req)
{
	return sock_sendmsg_umsg((int)req->args[0], req->kdata);
}

/* RECVMSG: recvmsg's code on the header its prep copied, its data into
 * the header's iovecs or (data) a provided buffer, the results into the
 * user's header; what it left to read marks the CQE as a RECV's. */
static long recvmsg_with(struct io_req *req, const struct iovec *data)
{
	struct recvmsg_io io = {.data = data, .skip = req->done};
	long res =
	    sock_recvmsg_umsg((int)req->args[0], req->kdata, (struct msghdr *)req->args[1], &io);

	req->drained = io.drained;
	res = recv_mark(req, res, io.inq);
	return data ? res : recv_waitall(req, res, io.want);
}

static long recvmsg_into(struct io_req *req, uint64_t addr, uint32_t len)
{
	struct iovec v = {(void *)addr, len};

	return recvmsg_with(req, &v);
}

/*
 * A multishot RECVMSG's receive into the buffer at addr of len bytes, as
 * Linux's io_recvmsg_multishot: a struct io_uring_recvmsg_out, room for
 * the header's msg_namelen bytes of name (args[4]) and msg_controllen
 * of control (args[5]), then the payload; the result counts them all,
 * the payload as far as it fit (EFAULT for a buffer too small for the
 * rest).  Its end of stream (or an empty datagram) is its last CQE.
 */
static long recvmsg_multi_into(struct io_req *req, uint64_t addr, uint32_t len)
{
	struct io_uring_recvmsg_out out;
	uint64_t namelen = req->args[4], ctllen = req->args[5];
	uint64_t hdr = sizeof(out) + namelen + ctllen;
	struct iovec v = {(void *)(addr + hdr), len - hdr};
	struct kmsg m = {.flags = (int)req->sqe.msg_flags,
			 .uctl = ctllen ? (void *)(addr + sizeof(out) + namelen) : NULL,
			 .ctl_room = ctllen};
	long res;

	if (len < hdr)
		return -EFAULT;
	iov_iter_init(&m.it, &v, 1, v.iov_len);
	if ((res = recv_kmsg(req, &m)) < 0)
		return res;
	out = (struct io_uring_recvmsg_out){m.name.len, (uint32_t)m.ctl_used, (uint32_t)res,
					    (uint32_t)m.out_flags};
	if (copy_to_user((void *)addr, &out, sizeof(out)) ||
	    copy_to_user((void *)(addr + sizeof(out)), &m.name.sa,
			 m.name.len < namelen ? m.name.len : namelen))
		return -EFAULT;
	req->last = !res;
	return recv_mark(req, (long)hdr + ((uint64_t)res < v.iov_len ? res : (long)v.iov_len),
			 m.inq);
}

long io_run_recvmsg(struct io_req *req)
{
	if (req->multishot)
		return with_buffer(req, (uint32_t)req->args[3], recvmsg_multi_into);
	if (req->sqe.flags & IOSQE_BUFFER_SELECT)
		return with_buffer(req, (uint32_t)req->args[3], recvmsg_into);
	return recvmsg_with(req, NULL);
}

/* CONNECT: to the address its prep copied. */
static long run_connect(struct io_req *req)
{
	return sock_connect((int)req->args[0], req->kdata);
}

/* OPENAT and OPENAT2: openat2's code on the path its prep copied, the
 * open_how checked now (Linux's io_openat2: build_open_flags at its
 * issue). */
static long run_openat(struct io_req *req)
{
	const struct upath *p = req->kdata;

	return open_kpath((int)req->args[0], p->path, (unsigned int)req->args[1],
			  (uint32_t)req->args[2], 0);
}

static long run_openat2(struct io_req *req)
{
	const struct upath *p = req->kdata;
	struct open_how how = {req->args[1], req->args[2], req->args[3]};
	unsigned int lookup;
	long err = open_how_check(&how, &lookup);

	return err ? err : open_kpath((int)req->args[0], p->path, how.flags, how.mode, lookup);
}

/* STATX: statx's code on the path its prep copied. */
static long run_statx(struct io_req *req)
{
	const struct upath *p = req->kdata;

	return statx_kpath((int)req->args[0], p->path, (int)req->args[1],
			   (unsigned int)req->args[2], (struct uapi_statx *)req->args[3]);
}

/* READ, WRITE and the _FIXED forms: fd_rw_flags with prep_rw's
 * arguments, the user's buffer and the RWF_* flags, as preadv2 takes
 * them. */
static long rw_run(struct io_req *req, uint64_t addr, uint64_t len, bool write)
{
	return fd_rw_flags((int)req->args[0], (void *)addr, len, NULL, (long)req->args[3],
			   (int)req->args[4], write);
}

/* READV and WRITEV: the same with the iovec array prep_rwv copied
 * (walked from its start at each attempt: a failed one moved nothing). */
static long rwv_run(struct io_req *req, bool write)
{
	struct iov_iter it;

	iov_iter_init(&it, req->kdata, req->args[2], req->args[5]);
	return fd_rw_flags((int)req->args[0], NULL, 0, &it, (long)req->args[3], (int)req->args[4],
			   write);
}

/* A READ or a READV into a provided buffer. */
static long read_into(struct io_req *req, uint64_t addr, uint32_t len)
{
	return rw_run(req, addr, len, false);
}

static long run_read(struct io_req *req)
{
	if (req->sqe.flags & IOSQE_BUFFER_SELECT)
		return with_buffer(req, (uint32_t)req->args[2], read_into);
	return read_into(req, req->args[1], (uint32_t)req->args[2]);
}

static long run_write(struct io_req *req)
{
	return rw_run(req, req->args[1], req->args[2], true);
}

static long run_readv(struct io_req *req)
{
	if (req->sqe.flags & IOSQE_BUFFER_SELECT)
		return run_read(req);
	return rwv_run(req, false);
}

static long run_writev(struct io_req *req)
{
	return rwv_run(req, true);
}

/* ---- the table ---- */

const struct io_op io_ops[IORING_OP_LAST] = {
    [IORING_OP_NOP] = {HOW_INLINE, false, false, io_prep_nop, run_nop, NULL},
    [IORING_OP_READV] = {HOW_NOWAIT, true, true, io_prep_readv, run_readv, NULL},
    [IORING_OP_WRITEV] = {HOW_NOWAIT, true, true, io_prep_writev, run_writev, NULL},
    [IORING_OP_FSYNC] = {HOW_PUNT, true, false, io_prep_fsync, NULL, NULL},
    [IORING_OP_READ_FIXED] = {HOW_NOWAIT, true, true, io_prep_read_fixed, run_read, NULL},
    [IORING_OP_WRITE_FIXED] = {HOW_NOWAIT, true, true, io_prep_write_fixed, run_write, NULL},
    [IORING_OP_POLL_ADD] = {HOW_NOWAIT, true, false, prep_poll, run_poll, attempt_poll},
    [IORING_OP_POLL_REMOVE] = {HOW_INLINE, false, false, prep_poll_remove, run_poll_remove, NULL},
    [IORING_OP_SYNC_FILE_RANGE] = {HOW_PUNT, true, false, io_prep_sync_file_range, NULL, NULL},
    [IORING_OP_SENDMSG] = {HOW_NOWAIT, true, false, io_prep_sendmsg, run_sendmsg, NULL},
    [IORING_OP_RECVMSG] = {HOW_NOWAIT, true, false, io_prep_recvmsg, io_run_recvmsg, NULL},
    [IORING_OP_TIMEOUT] = {HOW_TIMER, false, false, io_prep_timeout, io_run_timeout, NULL},
    [IORING_OP_TIMEOUT_REMOVE] = {HOW_INLINE, false, false, io_prep_timeout_remove,
				  io_run_timeout_remove, NULL},
    [IORING_OP_FILES_UPDATE] = {HOW_INLINE, false, false, prep_files_update, run_files_update,
				NULL},
    [IORING_OP_ACCEPT] = {HOW_NOWAIT, true, false, io_prep_accept, NULL, NULL},
    [IORING_OP_ASYNC_CANCEL] = {HOW_INLINE, false, false, io_prep_cancel, io_run_cancel, NULL},
    [IORING_OP_LINK_TIMEOUT] = {HOW_INLINE, false, false, io_prep_link_timeout, run_orphan, NULL},
    [IORING_OP_CONNECT] = {HOW_PUNT, true, false, io_prep_connect, run_connect, NULL},
    [IORING_OP_FALLOCATE] = {HOW_PUNT, true, false, io_prep_fallocate, NULL, NULL},
    [IORING_OP_OPENAT] = {HOW_PUNT, false, false, io_prep_openat, run_openat, NULL},
    [IORING_OP_CLOSE] = {HOW_INLINE, false, false, io_prep_close, run_close, NULL},
    [IORING_OP_STATX] = {HOW_PUNT, false, false, io_prep_statx, run_statx, NULL},
    [IORING_OP_PROVIDE_BUFFERS] = {HOW_INLINE, false, false, io_prep_provide_buffers,
				   io_run_provide_buffers, NULL},
    [IORING_OP_REMOVE_BUFFERS] = {HOW_INLINE, false, false, io_prep_remove_buffers,
				  io_run_remove_buffers, NULL},
    [IORING_OP_OPENAT2] = {HOW_PUNT, false, false, io_prep_openat2, run_openat2, NULL},
    [IORING_OP_READ] = {HOW_NOWAIT, true, true, io_prep_read, run_read, NULL},
    [IORING_OP_WRITE] = {HOW_NOWAIT, true, true, io_prep_write, run_write, NULL},
    [IORING_OP_FADVISE] = {HOW_PUNT, true, false, io_prep_fadvise, NULL, NULL},
    [IORING_OP_MADVISE] = {HOW_PUNT, false, false, io_prep_madvise, NULL, NULL},
    [IORING_OP_SEND] = {HOW_NOWAIT, true, false, io_prep_send, run_send, NULL, .own_file = true},
    [IORING_OP_RECV] = {HOW_NOWAIT, true, false, io_prep_recv, io_run_recv, NULL, .own_file = true},
    [IORING_OP_EPOLL_CTL] = {HOW_INLINE, false, false, io_prep_epoll_ctl, io_run_epoll_ctl, NULL},
    [IORING_OP_SPLICE] = {HOW_PUNT, true, true, io_prep_splice, io_run_splice, NULL},
    [IORING_OP_TEE] = {HOW_PUNT, true, true, io_prep_tee, io_run_tee, NULL},
    [IORING_OP_SHUTDOWN] = {HOW_INLINE, true, false, io_prep_shutdown, NULL, NULL},
    [IORING_OP_MSG_RING] = {HOW_INLINE, true, false, io_prep_msg_ring, io_run_msg_ring, NULL},
    [IORING_OP_RENAMEAT] = {HOW_PUNT, false, false, io_prep_two_paths, io_run_renameat, NULL},
    [IORING_OP_UNLINKAT] = {HOW_PUNT, false, false, io_prep_unlinkat, io_run_unlinkat, NULL},
    [IORING_OP_MKDIRAT] = {HOW_PUNT, false, false, io_prep_mkdirat, io_run_mkdirat, NULL},
    [IORING_OP_SYMLINKAT] = {HOW_PUNT, false, false, io_prep_symlinkat, io_run_symlinkat, NULL},
    [IORING_OP_LINKAT] = {HOW_PUNT, false, false, io_prep_two_paths, io_run_linkat, NULL},
    [IORING_OP_FSETXATTR] = {HOW_PUNT, false, false, io_prep_fsetxattr, io_run_xattr, NULL},
    [IORING_OP_SETXATTR] = {HOW_PUNT, false, false, io_prep_setxattr, io_run_xattr, NULL},
    [IORING_OP_FGETXATTR] = {HOW_PUNT, false, false, io_prep_fgetxattr, io_run_xattr, NULL},
    [IORING_OP_GETXATTR] = {HOW_PUNT, false, false, io_prep_getxattr, io_run_xattr, NULL},
    [IORING_OP_SOCKET] = {HOW_INLINE, false, false, io_prep_socket, NULL, NULL},
};

bool io_op_supported(unsigned int op)
{
	return op < IORING_OP_LAST && io_ops[op].prep;
}
