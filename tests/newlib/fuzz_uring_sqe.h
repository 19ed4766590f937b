/* The uring scenario's SQEs (fuzz_uring.h): the opcodes, flags and
 * arguments a thread draws, and uz_prep, which builds one at the SQ's
 * tail.  Included by fuzz_uring.h only, after the ring and files it
 * aims at. */
#ifndef FUZZ_URING_SQE_H
#define FUZZ_URING_SQE_H

/* Opcodes drawn: fdkernel's and Linux's that touch only the scenario's
 * objects, and numbers past the table. */
static const uint8_t uz_ops[] = {
    IORING_OP_NOP,
    IORING_OP_READV,
    IORING_OP_WRITEV,
    IORING_OP_FSYNC,
    IORING_OP_READ_FIXED,
    IORING_OP_WRITE_FIXED,
    IORING_OP_POLL_ADD,
    IORING_OP_POLL_REMOVE,
    IORING_OP_SENDMSG,
    IORING_OP_RECVMSG,
    IORING_OP_TIMEOUT,
    IORING_OP_TIMEOUT_REMOVE,
    IORING_OP_ACCEPT,
    IORING_OP_ASYNC_CANCEL,
    IORING_OP_LINK_TIMEOUT,
    IORING_OP_CONNECT,
    IORING_OP_OPENAT,
    IORING_OP_OPENAT2,
    IORING_OP_CLOSE,
    IORING_OP_STATX,
    IORING_OP_READ,
    IORING_OP_WRITE,
    IORING_OP_SEND,
    IORING_OP_RECV,
    IORING_OP_SHUTDOWN,
    IORING_OP_SOCKET,
    IORING_OP_FILES_UPDATE,
    IORING_OP_PROVIDE_BUFFERS,
    IORING_OP_REMOVE_BUFFERS,
    IORING_OP_MSG_RING,
    IORING_OP_SPLICE,
    IORING_OP_TEE,
    IORING_OP_FADVISE,
    IORING_OP_MADVISE,
    IORING_OP_EPOLL_CTL,
    IORING_OP_LAST,
    IORING_OP_LAST + 7,
    255,
};

/* OPENAT2's open_hows, each followed by zeros: read-only, with
 * RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH, with an unknown flag. */
static const uint64_t uz_how[5][3] = {{0, 0, 0}, {0, 0, 0x0c}, {1ULL << 40, 0, 0}, {0}, {0}};

static const uint8_t uz_sqe_flags[] = {
    0,
    0,
    0,
    IOSQE_IO_LINK,
    IOSQE_IO_LINK,
    IOSQE_IO_HARDLINK,
    IOSQE_ASYNC,
    IOSQE_CQE_SKIP_SUCCESS,
    IOSQE_IO_DRAIN,
    IOSQE_FIXED_FILE,
    IOSQE_BUFFER_SELECT,
    0x80,
    IOSQE_IO_LINK | IOSQE_ASYNC,
};

/* One random SQE at the tail (threads race for the tail: hostile, and
 * harmless, as the kernel copies each entry).  It is built in a copy of
 * this thread's own and then stored: built in the shared slot, the switch
 * below read the opcode there twice (its bound check, then its jump
 * table), and another thread's store in between sent it past the table's
 * end: to 0x20 (the word there for opcode 255) or into unrelated code (the
 * scenario's SIGSEGVs at rip 0x20, 0x1, 0x3, 0; docs/robustness.md). */
static void uz_prep(uint64_t *s)
{
	uint32_t tail = __atomic_load_n(uz_word(uz.p.sq_off.tail), __ATOMIC_ACQUIRE);
	uint32_t idx = tail & (uz.sq_entries - 1);
	struct io_uring_sqe sqe, *e = &sqe;
	int b = (int)(fd_thread_rnd(s) % URING_BUFS);

	memset(e, 0, sizeof(*e));
	e->opcode = uz_ops[fd_thread_rnd(s) % sizeof(uz_ops)];
	e->flags = uz_sqe_flags[fd_thread_rnd(s) % sizeof(uz_sqe_flags)];
	e->fd = uz_fd(s);
	e->addr = (uint64_t)(uintptr_t)uz.bufs[b];
	e->len = (uint32_t)(fd_thread_rnd(s) % (URING_BUF + 1));
	e->off = fd_thread_rnd(s) % 2 ? (uint64_t)-1 : fd_thread_rnd(s) % 512;
	e->user_data = fd_thread_rnd(s) % URING_KEYS;
	/* now and then a personality: ids 1..3 come and go (uz_register) */
	e->personality = fd_thread_rnd(s) % 4 ? 0 : (uint16_t)(fd_thread_rnd(s) % 4);
	switch (e->opcode) {
	case IORING_OP_READV:
	case IORING_OP_WRITEV:
		e->addr = (uint64_t)(uintptr_t)&uz.iov[b % 4];
		e->len = 1 + (uint32_t)(fd_thread_rnd(s) % 4);
		if (e->opcode == IORING_OP_READV && fd_thread_rnd(s) % 4 == 0) {
			e->flags |= IOSQE_BUFFER_SELECT; /* one iovec, else EINVAL */
			e->buf_group = (uint16_t)(fd_thread_rnd(s) % 4);
		}
		break;
	case IORING_OP_READ_FIXED:
	case IORING_OP_WRITE_FIXED:
		e->buf_index = (uint16_t)(fd_thread_rnd(s) % 3);
		break;
	case IORING_OP_POLL_ADD: /* now and then multishot, armed until removed */
		e->len = fd_thread_rnd(s) % 2 ? IORING_POLL_ADD_MULTI : 0;
		e->off = 0;
		e->poll32_events = fd_thread_rnd(s) % 2 ? POLLIN : POLLOUT | POLLIN;
		break;
	case IORING_OP_SENDMSG:
	case IORING_OP_RECVMSG:
		e->addr = (uint64_t)(uintptr_t)&uz.msg;
		e->len = 1;
		e->off = 0;
		if (e->opcode == IORING_OP_RECVMSG && fd_thread_rnd(s) % 4 == 0) {
			e->flags |= IOSQE_BUFFER_SELECT; /* the header has 2 iovecs: EINVAL */
			e->buf_group = (uint16_t)(fd_thread_rnd(s) % 4);
			e->addr = (uint64_t)(uintptr_t)&uz.msg1;
		}
		break;
	case IORING_OP_TIMEOUT:
	case IORING_OP_LINK_TIMEOUT:
		e->fd = -1;
		e->addr = (uint64_t)(uintptr_t)&uz.ts[fd_thread_rnd(s) % 2];
		e->len = 1;
		e->off = fd_thread_rnd(s) % 3;
		/* the clocks, ABS, ETIME_SUCCESS, MULTISHOT (for ever at off 0) */
		e->timeout_flags = fd_thread_rnd(s) % 2 ? 0 : (uint32_t)(fd_thread_rnd(s) & 0x6d);
		break;
	case IORING_OP_ASYNC_CANCEL:
	case IORING_OP_POLL_REMOVE:
	case IORING_OP_TIMEOUT_REMOVE:
		e->fd = -1;
		e->addr = fd_thread_rnd(s) % URING_KEYS;
		e->len = 0;
		e->off = 0;
		if (e->opcode == IORING_OP_ASYNC_CANCEL && fd_thread_rnd(s) % 2) {
			/* ALL, FD, ANY, FD_FIXED and an unknown one */
			e->cancel_flags = (uint32_t)(fd_thread_rnd(s) % 32);
			e->fd = e->cancel_flags & IORING_ASYNC_CANCEL_FD_FIXED
				    ? (int)(fd_thread_rnd(s) % URING_FDS)
				    : uz_fd(s);
		} else if (e->opcode == IORING_OP_POLL_REMOVE && fd_thread_rnd(s) % 2) {
			e->len = (uint32_t)(fd_thread_rnd(s) % 8); /* the update forms */
			e->off = e->len & IORING_POLL_UPDATE_USER_DATA
				     ? fd_thread_rnd(s) % URING_KEYS
				     : 0;
			e->poll32_events = e->len & IORING_POLL_UPDATE_EVENTS ? POLLIN : 0;
		} else if (e->opcode == IORING_OP_TIMEOUT_REMOVE && fd_thread_rnd(s) % 2) {
			e->timeout_flags = IORING_TIMEOUT_UPDATE | (uint32_t)(fd_thread_rnd(s) % 2);
			e->addr2 = (uint64_t)(uintptr_t)&uz.ts[fd_thread_rnd(s) % 2];
		}
		break;
	case IORING_OP_ACCEPT: /* now and then multishot, into direct descriptors */
		e->addr = 0;
		e->len = 0;
		e->off = 0;
		e->ioprio = (uint16_t)(fd_thread_rnd(s) % 2);
		e->file_index = fd_thread_rnd(s) % 2 ? 0 : IORING_FILE_INDEX_ALLOC;
		break;
	case IORING_OP_CONNECT:
		e->addr = (uint64_t)(uintptr_t)&uz.name;
		e->off = sizeof(uz.name);
		e->len = 0;
		break;
	case IORING_OP_OPENAT2: /* an open_how (flags, mode, resolve) of 16, 24 or 32 bytes */
		e->fd = UZ_AT_FDCWD;
		e->addr =
		    (uint64_t)(uintptr_t)(fd_thread_rnd(s) % 2 ? "/dev/null" : "no-such-file");
		e->addr2 = (uint64_t)(uintptr_t)&uz_how[fd_thread_rnd(s) % 3];
		e->len = (uint32_t)(fd_thread_rnd(s) % 3) * 8 + 16;
		e->file_index = fd_thread_rnd(s) % 2 ? 0 : IORING_FILE_INDEX_ALLOC;
		break;
	case IORING_OP_OPENAT:
	case IORING_OP_STATX:
		e->fd = UZ_AT_FDCWD;
		e->addr =
		    (uint64_t)(uintptr_t)(fd_thread_rnd(s) % 2 ? "/dev/null" : "no-such-file");
		e->len = e->opcode == IORING_OP_STATX ? 0x7ff : 0;
		e->addr2 = e->opcode == IORING_OP_STATX ? (uint64_t)(uintptr_t)uz.bufs[b] : 0;
		e->open_flags = 0;
		break;
	case IORING_OP_SOCKET:
		e->fd = AF_UNIX;
		e->off = SOCK_STREAM;
		e->addr = 0;
		e->len = 0;
		break;
	case IORING_OP_CLOSE:
		e->addr = 0;
		e->len = 0;
		e->off = 0;
		break;
	case IORING_OP_PROVIDE_BUFFERS: /* up to 4 slices of one buffer, groups 0-2 */
	case IORING_OP_REMOVE_BUFFERS:
		e->fd = 1 + (int)(fd_thread_rnd(s) % 4);
		e->len = e->opcode == IORING_OP_REMOVE_BUFFERS ? 0 : 1 + e->len / 4;
		e->off = e->opcode == IORING_OP_REMOVE_BUFFERS ? 0 : fd_thread_rnd(s) % 8;
		e->addr = e->opcode == IORING_OP_REMOVE_BUFFERS ? 0 : e->addr;
		e->buf_group = (uint16_t)(fd_thread_rnd(s) % 3);
		break;
	case IORING_OP_READ: /* now and then into a provided buffer, or RWF_* flags */
	case IORING_OP_WRITE:
		if (fd_thread_rnd(s) % 4 == 0)
			e->rw_flags = (int)(1u << (fd_thread_rnd(s) % 8)); /* 5 known, 3 not */
		if (e->opcode == IORING_OP_READ && fd_thread_rnd(s) % 4 == 0) {
			e->flags |= IOSQE_BUFFER_SELECT;
			e->buf_group = (uint16_t)(fd_thread_rnd(s) % 4);
		}
		break;
	case IORING_OP_SPLICE: /* between the scenario's fds or slots, mostly not waiting */
	case IORING_OP_TEE:
		e->splice_fd_in = uz_fd(s);
		e->splice_off_in = fd_thread_rnd(s) % 2 ? (uint64_t)-1 : fd_thread_rnd(s) % 512;
		e->splice_flags = fd_thread_rnd(s) % 4 ? 2 /* SPLICE_F_NONBLOCK */ : 0;
		if (fd_thread_rnd(s) % 4 == 0)
			e->splice_flags |= SPLICE_F_FD_IN_FIXED;
		break;
	case IORING_OP_FADVISE:
	case IORING_OP_MADVISE: /* the advice that changes no memory, and bad ones */
		e->fadvise_advice = (uint32_t)(fd_thread_rnd(s) % 8);
		if (e->opcode == IORING_OP_MADVISE && e->fadvise_advice == 4)
			e->fadvise_advice = 9; /* MADV_DONTNEED would zero the buffers */
		break;
	case IORING_OP_EPOLL_CTL: /* fd the epoll (none here: EINVAL, EBADF), off the target */
		e->off = (uint64_t)uz_fd(s);
		e->len = (uint32_t)(fd_thread_rnd(s) % 4);
		break;
	case IORING_OP_MSG_RING: /* DATA, SEND_FD (of slots 0-3, to slots or ALLOC), bad */
		e->addr = fd_thread_rnd(s) % 3;
		e->addr3 = fd_thread_rnd(s) % 4;
		e->file_index = fd_thread_rnd(s) % 4 ? (uint32_t)(fd_thread_rnd(s) % 5)
						     : IORING_FILE_INDEX_ALLOC;
		e->msg_ring_flags = (uint32_t)(fd_thread_rnd(s) % 3);
		break;
	case IORING_OP_RECV: /* now and then into provided buffers, multishot */
		if (fd_thread_rnd(s) % 2)
			break;
		e->flags |= IOSQE_BUFFER_SELECT;
		e->buf_group = (uint16_t)(fd_thread_rnd(s) % 3);
		e->ioprio = fd_thread_rnd(s) % 2 ? IORING_RECV_MULTISHOT : 0;
		break;
	}
	if (fd_thread_rnd(s) % 16 == 0) /* a field the op must refuse, or a bad pointer */
		((uint64_t *)e)[fd_thread_rnd(s) % 8] = uz_bad[fd_thread_rnd(s) % 5];
	memcpy(&uz.sqes[idx], e, sizeof(*e));
	uz_word(uz.p.sq_off.array)[idx] = idx;
	__atomic_store_n(uz_word(uz.p.sq_off.tail), tail + 1, __ATOMIC_RELEASE);
}

#endif
