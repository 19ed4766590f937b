/*
 * io_uring's user ABI (Linux x86_64): the setup parameters and ring
 * offsets, the submission and completion entries, the opcodes and flags
 * fdkernel implements, and the register opcodes.  Written from Linux's
 * documented ABI (io_uring_setup(2), io_uring_enter(2),
 * io_uring_register(2)); values are Linux's.  Shared by the kernel and
 * user space.  docs/async.md.
 */
#ifndef UAPI_IO_URING_H
#define UAPI_IO_URING_H

#include <stdint.h>

/* One submission entry, 64 bytes (no IORING_SETUP_SQE128). */
struct io_uring_sqe {
	uint8_t opcode;
	uint8_t flags; /* IOSQE_* */
	uint16_t ioprio;
	int32_t fd;
	union {
		uint64_t off;
		uint64_t addr2;
	};
	union {
		uint64_t addr;
		uint64_t splice_off_in; /* SPLICE: -1 for fd_in's position */
	};
	uint32_t len;
	union { /* the opcode's flags */
		uint32_t rw_flags;
		uint32_t fsync_flags;
		uint32_t sync_range_flags;
		uint16_t poll_events;
		uint32_t poll32_events;
		uint32_t msg_flags;
		uint32_t timeout_flags;
		uint32_t accept_flags;
		uint32_t cancel_flags;
		uint32_t open_flags;
		uint32_t statx_flags;
		uint32_t msg_ring_flags;
		uint32_t fadvise_advice;
		uint32_t splice_flags;
		uint32_t rename_flags;
		uint32_t unlink_flags;
		uint32_t hardlink_flags;
		uint32_t xattr_flags;
	};
	uint64_t user_data;
	union {
		uint16_t buf_index; /* READ_FIXED, WRITE_FIXED */
		uint16_t buf_group; /* IOSQE_BUFFER_SELECT */
	};
	uint16_t personality;
	union {
		int32_t splice_fd_in;
		uint32_t file_index;
	};
	uint64_t addr3;
	uint64_t __pad2[1];
};

/* One completion entry, 16 bytes (no IORING_SETUP_CQE32). */
struct io_uring_cqe {
	uint64_t user_data;
	int32_t res;
	uint32_t flags; /* IORING_CQE_F_* */
};

struct io_sqring_offsets {
	uint32_t head, tail, ring_mask, ring_entries, flags, dropped, array, resv1;
	uint64_t user_addr;
};

struct io_cqring_offsets {
	uint32_t head, tail, ring_mask, ring_entries, overflow, cqes, flags, resv1;
	uint64_t user_addr;
};

struct io_uring_params {
	uint32_t sq_entries, cq_entries, flags, sq_thread_cpu, sq_thread_idle, features, wq_fd;
	uint32_t resv[3];
	struct io_sqring_offsets sq_off;
	struct io_cqring_offsets cq_off;
};

/* io_uring_enter's IORING_ENTER_EXT_ARG argument. */
struct io_uring_getevents_arg {
	uint64_t sigmask;
	uint32_t sigmask_sz;
	uint32_t pad;
	uint64_t ts;
};

/* REGISTER_FILES2 / BUFFERS2 and their updates. */
struct io_uring_rsrc_register {
	uint32_t nr, flags;
	uint64_t resv2, data, tags;
};

struct io_uring_rsrc_update {
	uint32_t offset, resv;
	uint64_t data;
};

struct io_uring_rsrc_update2 {
	uint32_t offset, resv;
	uint64_t data, tags;
	uint32_t nr, resv2;
};

struct io_uring_file_index_range {
	uint32_t off, len;
	uint64_t resv;
};

struct io_uring_probe_op {
	uint8_t op, resv;
	uint16_t flags; /* IO_URING_OP_SUPPORTED */
	uint32_t resv2;
};

struct io_uring_probe {
	uint8_t last_op, ops_len;
	uint16_t resv;
	uint32_t resv2[3];
	struct io_uring_probe_op ops[];
};

#define IO_URING_OP_SUPPORTED (1U << 0)

/* io_uring_setup flags. */
#define IORING_SETUP_IOPOLL		(1U << 0)
#define IORING_SETUP_SQPOLL		(1U << 1)
#define IORING_SETUP_SQ_AFF		(1U << 2)
#define IORING_SETUP_CQSIZE		(1U << 3)
#define IORING_SETUP_CLAMP		(1U << 4)
#define IORING_SETUP_ATTACH_WQ		(1U << 5)
#define IORING_SETUP_R_DISABLED		(1U << 6)
#define IORING_SETUP_SUBMIT_ALL		(1U << 7)
#define IORING_SETUP_COOP_TASKRUN	(1U << 8)
#define IORING_SETUP_TASKRUN_FLAG	(1U << 9)
#define IORING_SETUP_SQE128		(1U << 10)
#define IORING_SETUP_CQE32		(1U << 11)
#define IORING_SETUP_SINGLE_ISSUER	(1U << 12)
#define IORING_SETUP_DEFER_TASKRUN	(1U << 13)
#define IORING_SETUP_NO_MMAP		(1U << 14)
#define IORING_SETUP_REGISTERED_FD_ONLY (1U << 15)
#define IORING_SETUP_NO_SQARRAY		(1U << 16)

/* io_uring_params.features. */
#define IORING_FEAT_SINGLE_MMAP	    (1U << 0)
#define IORING_FEAT_NODROP	    (1U << 1)
#define IORING_FEAT_SUBMIT_STABLE   (1U << 2)
#define IORING_FEAT_RW_CUR_POS	    (1U << 3)
#define IORING_FEAT_CUR_PERSONALITY (1U << 4)
#define IORING_FEAT_FAST_POLL	    (1U << 5)
#define IORING_FEAT_POLL_32BITS	    (1U << 6)
#define IORING_FEAT_SQPOLL_NONFIXED (1U << 7)
#define IORING_FEAT_EXT_ARG	    (1U << 8)
#define IORING_FEAT_NATIVE_WORKERS  (1U << 9)
#define IORING_FEAT_RSRC_TAGS	    (1U << 10)
#define IORING_FEAT_CQE_SKIP	    (1U << 11)
#define IORING_FEAT_LINKED_FILE	    (1U << 12)

/* mmap offsets of the three regions. */
#define IORING_OFF_SQ_RING 0ULL
#define IORING_OFF_CQ_RING 0x8000000ULL
#define IORING_OFF_SQES	   0x10000000ULL

/* The SQ ring's flags word; the CQ ring's. */
#define IORING_SQ_NEED_WAKEUP	   (1U << 0)
#define IORING_SQ_CQ_OVERFLOW	   (1U << 1)
#define IORING_CQ_EVENTFD_DISABLED (1U << 0)

/* Submission entry flags. */
#define IOSQE_FIXED_FILE       (1U << 0)
#define IOSQE_IO_DRAIN	       (1U << 1)
#define IOSQE_IO_LINK	       (1U << 2)
#define IOSQE_IO_HARDLINK      (1U << 3)
#define IOSQE_ASYNC	       (1U << 4)
#define IOSQE_BUFFER_SELECT    (1U << 5)
#define IOSQE_CQE_SKIP_SUCCESS (1U << 6)

/* Completion entry flags. */
#define IORING_CQE_F_BUFFER	   (1U << 0) /* the buffer id in flags >> 16 */
#define IORING_CQE_F_MORE	   (1U << 1)
#define IORING_CQE_F_SOCK_NONEMPTY (1U << 2) /* a RECV left more data queued */
#define IORING_CQE_BUFFER_SHIFT	   16

/* Opcodes (Linux's numbering; fdkernel implements those docs/async.md lists). */
#define IORING_OP_NOP		  0
#define IORING_OP_READV		  1
#define IORING_OP_WRITEV	  2
#define IORING_OP_FSYNC		  3
#define IORING_OP_READ_FIXED	  4
#define IORING_OP_WRITE_FIXED	  5
#define IORING_OP_POLL_ADD	  6
#define IORING_OP_POLL_REMOVE	  7
#define IORING_OP_SYNC_FILE_RANGE 8
#define IORING_OP_SENDMSG	  9
#define IORING_OP_RECVMSG	  10
#define IORING_OP_TIMEOUT	  11
#define IORING_OP_TIMEOUT_REMOVE  12
#define IORING_OP_ACCEPT	  13
#define IORING_OP_ASYNC_CANCEL	  14
#define IORING_OP_LINK_TIMEOUT	  15
#define IORING_OP_CONNECT	  16
#define IORING_OP_FALLOCATE	  17
#define IORING_OP_OPENAT	  18
#define IORING_OP_CLOSE		  19
#define IORING_OP_FILES_UPDATE	  20
#define IORING_OP_STATX		  21
#define IORING_OP_READ		  22
#define IORING_OP_WRITE		  23
#define IORING_OP_FADVISE	  24
#define IORING_OP_MADVISE	  25
#define IORING_OP_SEND		  26
#define IORING_OP_RECV		  27
#define IORING_OP_OPENAT2	  28
#define IORING_OP_EPOLL_CTL	  29
#define IORING_OP_SPLICE	  30
#define IORING_OP_PROVIDE_BUFFERS 31
#define IORING_OP_REMOVE_BUFFERS  32
#define IORING_OP_TEE		  33
#define IORING_OP_SHUTDOWN	  34
#define IORING_OP_RENAMEAT	  35
#define IORING_OP_UNLINKAT	  36
#define IORING_OP_MKDIRAT	  37
#define IORING_OP_SYMLINKAT	  38
#define IORING_OP_LINKAT	  39
#define IORING_OP_MSG_RING	  40
#define IORING_OP_FSETXATTR	  41
#define IORING_OP_SETXATTR	  42
#define IORING_OP_FGETXATTR	  43
#define IORING_OP_GETXATTR	  44
#define IORING_OP_SOCKET	  45
#define IORING_OP_LAST		  46 /* the first number fdkernel does not know */

/* sqe->fsync_flags, timeout_flags, poll32 flags (in len), accept ioprio. */
#define IORING_FSYNC_DATASYNC	     (1U << 0)
#define IORING_TIMEOUT_ABS	     (1U << 0)
#define IORING_TIMEOUT_UPDATE	     (1U << 1)
#define IORING_TIMEOUT_BOOTTIME	     (1U << 2)
#define IORING_TIMEOUT_REALTIME	     (1U << 3)
#define IORING_LINK_TIMEOUT_UPDATE   (1U << 4)
#define IORING_TIMEOUT_ETIME_SUCCESS (1U << 5)
#define IORING_TIMEOUT_MULTISHOT     (1U << 6)
#define IORING_TIMEOUT_CLOCK_MASK    (IORING_TIMEOUT_BOOTTIME | IORING_TIMEOUT_REALTIME)
#define IORING_TIMEOUT_UPDATE_MASK   (IORING_TIMEOUT_UPDATE | IORING_LINK_TIMEOUT_UPDATE)
#define IORING_POLL_ADD_MULTI	     (1U << 0)
#define IORING_POLL_UPDATE_EVENTS    (1U << 1)
#define IORING_POLL_UPDATE_USER_DATA (1U << 2)
#define IORING_POLL_ADD_LEVEL	     (1U << 3)
#define IORING_ACCEPT_MULTISHOT	     (1U << 0)
/* RECV's ioprio (Linux's IORING_RECVSEND_*). */
#define IORING_RECVSEND_POLL_FIRST (1U << 0)
#define IORING_RECV_MULTISHOT	   (1U << 1)
#define IORING_FILE_INDEX_ALLOC	   (~0U)
/* sqe->splice_flags: splice_fd_in is a direct descriptor. */
#define SPLICE_F_FD_IN_FIXED (1U << 31)

/* ASYNC_CANCEL's cancel_flags and SYNC_CANCEL's flags: every match, not
 * the first; match the fd (a direct descriptor with FD_FIXED) or any
 * request rather than the user_data. */
#define IORING_ASYNC_CANCEL_ALL	     (1U << 0)
#define IORING_ASYNC_CANCEL_FD	     (1U << 1)
#define IORING_ASYNC_CANCEL_ANY	     (1U << 2)
#define IORING_ASYNC_CANCEL_FD_FIXED (1U << 3)

/* MSG_RING: the command in sqe->addr, its flags in msg_ring_flags. */
#define IORING_MSG_DATA		 0	   /* a CQE of res len, user_data off, to the ring fd */
#define IORING_MSG_SEND_FD	 1	   /* direct descriptor addr3 into its slot file_index */
#define IORING_MSG_RING_CQE_SKIP (1U << 0) /* SEND_FD: no CQE in the target */

/* io_uring_enter flags. */
#define IORING_ENTER_GETEVENTS	     (1U << 0)
#define IORING_ENTER_SQ_WAKEUP	     (1U << 1)
#define IORING_ENTER_SQ_WAIT	     (1U << 2)
#define IORING_ENTER_EXT_ARG	     (1U << 3)
#define IORING_ENTER_REGISTERED_RING (1U << 4)

/* io_uring_register opcodes. */
#define IORING_REGISTER_BUFFERS		 0
#define IORING_UNREGISTER_BUFFERS	 1
#define IORING_REGISTER_FILES		 2
#define IORING_UNREGISTER_FILES		 3
#define IORING_REGISTER_EVENTFD		 4
#define IORING_UNREGISTER_EVENTFD	 5
#define IORING_REGISTER_FILES_UPDATE	 6
#define IORING_REGISTER_EVENTFD_ASYNC	 7
#define IORING_REGISTER_PROBE		 8
#define IORING_REGISTER_PERSONALITY	 9
#define IORING_UNREGISTER_PERSONALITY	 10
#define IORING_REGISTER_FILES2		 13
#define IORING_REGISTER_FILES_UPDATE2	 14
#define IORING_REGISTER_RING_FDS	 20
#define IORING_UNREGISTER_RING_FDS	 21
#define IORING_REGISTER_PBUF_RING	 22
#define IORING_UNREGISTER_PBUF_RING	 23
#define IORING_REGISTER_SYNC_CANCEL	 24
#define IORING_REGISTER_FILE_ALLOC_RANGE 25
#define IORING_REGISTER_PBUF_STATUS	 26
#define IORING_REGISTER_LAST		 27 /* past it: EINVAL before the fd (Linux's order) */

/* A buffer ring's entry; the first entry's resv is the ring's tail. */
struct io_uring_buf {
	uint64_t addr;
	uint32_t len;
	uint16_t bid;
	uint16_t resv;
};
#define IO_URING_BUF_TAIL_OFF 14 /* struct io_uring_buf_ring's tail */

/* REGISTER_PBUF_RING and UNREGISTER_PBUF_RING's argument. */
/* What a multishot RECVMSG writes at the start of each provided buffer,
 * followed by room for the header's msg_namelen bytes of name and
 * msg_controllen of control, then the payload. */
struct io_uring_recvmsg_out {
	uint32_t namelen;    /* the name's length before truncation */
	uint32_t controllen; /* control bytes written */
	uint32_t payloadlen; /* the payload's length (all of it with MSG_TRUNC) */
	uint32_t flags;	     /* the message's msg_flags */
};

struct io_uring_buf_reg {
	uint64_t ring_addr;
	uint32_t ring_entries;
	uint16_t bgid;
	uint16_t flags;
	uint64_t resv[3];
};
#define IOU_PBUF_RING_MMAP    1U	    /* the ring in the kernel's memory, mmapped at: */
#define IORING_OFF_PBUF_RING  0x80000000ULL /* | bgid << IORING_OFF_PBUF_SHIFT */
#define IORING_OFF_PBUF_SHIFT 16
#define IORING_OFF_MMAP_MASK  0xf8000000ULL

/* REGISTER_PBUF_STATUS's argument: head is the kernel's. */
struct io_uring_buf_status {
	uint32_t buf_group;
	uint32_t head;
	uint32_t resv[8];
};

/* REGISTER_SYNC_CANCEL's argument: the match as ASYNC_CANCEL's (addr
 * the user_data, or fd), and how long to wait for a running request to
 * end (both -1: for ever). */
struct io_uring_sync_cancel_reg {
	uint64_t addr;
	int32_t fd;
	uint32_t flags;
	struct {
		int64_t tv_sec, tv_nsec;
	} timeout;
	uint64_t pad[4];
};

/* In the opcode: the fd is an index in the task's registered rings. */
#define IORING_REGISTER_USE_REGISTERED_RING (1U << 31)

#define IORING_RSRC_REGISTER_SPARSE (1U << 0)
#define IORING_REGISTER_FILES_SKIP  (-2) /* FILES_UPDATE: leave this slot as it is */

#define IORING_MAX_ENTRIES    32768
#define IORING_MAX_CQ_ENTRIES (2 * IORING_MAX_ENTRIES)

#endif
