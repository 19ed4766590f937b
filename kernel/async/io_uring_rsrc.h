/*
 * What a ring has registered, and the ops that use it: provided buffers
 * (io_uring_kbuf.c), MSG_RING (io_uring_msg.c), the register ops
 * (io_uring_register.c), personalities (io_uring_personality.c) and
 * direct descriptors (io_uring_files.c).
 */
#ifndef ASYNC_IO_URING_RSRC_H
#define ASYNC_IO_URING_RSRC_H

#include "async/io_uring_int.h"

/* io_uring_kbuf.c: provided buffers (IOSQE_BUFFER_SELECT). */
struct io_pbuf;
int io_prep_provide_buffers(struct io_req *req);
long io_run_provide_buffers(struct io_req *req);
int io_prep_remove_buffers(struct io_req *req);
long io_run_remove_buffers(struct io_req *req);
/* Takes group bgid's next buffer for a call (NULL: none, ENOBUFS): its
 * address in *addr, *len clamped to it (0: all of it).  The call's result
 * then goes to io_pbuf_done, which keeps the buffer consumed if res > 0
 * and returns the CQE flags naming it, else puts it back first in its
 * group and returns 0. */
struct io_pbuf *io_pbuf_take(struct io_ring *ring, uint16_t bgid, uint64_t *addr, uint32_t *len);
uint32_t io_pbuf_done(struct io_ring *ring, struct io_pbuf *b, long res);
/* io_uring_register's REGISTER_PBUF_RING, UNREGISTER_PBUF_RING and
 * PBUF_STATUS (submit_lock held): 0 or Linux's -errno. */
int io_pbuf_ring_register(struct io_ring *ring, const struct io_uring_buf_reg *ureg);
int io_pbuf_ring_unregister(struct io_ring *ring, const struct io_uring_buf_reg *ureg);
int io_pbuf_ring_status(struct io_ring *ring, struct io_uring_buf_status *ustatus);
/* Frees every group at the ring's end. */
void io_pbufs_release(struct io_ring *ring);
/* mmap of IORING_OFF_PBUF_RING for group bgid: its ring's inode (kept
 * until the ring's free) and its pages in *npages, or NULL (no such
 * group with its ring in the kernel's memory). */
struct inode *io_pbuf_mmap(struct io_ring *ring, uint16_t bgid, uint32_t *npages);

/* io_uring_msg.c: MSG_RING. */
int io_prep_msg_ring(struct io_req *req);
long io_run_msg_ring(struct io_req *req);

/* io_uring_register.c */
void io_unregister_all(struct io_ring *ring);

/* io_uring_personality.c (submit_lock held): REGISTER_PERSONALITY, the
 * caller's creds under a new id (-EBUSY: every id in use, -ENOMEM);
 * UNREGISTER_PERSONALITY (-EINVAL: no such id); the creds of id,
 * referenced, or NULL; every one dropped at the ring's free. */
int io_personality_register(struct io_ring *ring);
int io_personality_unregister(struct io_ring *ring, uint32_t id);
const struct cred *io_personality_get(struct io_ring *ring, uint16_t id);
void io_personalities_release(struct io_ring *ring);
/* IORING_FEAT_CUR_PERSONALITY: a request that runs after its submission
 * (on a worker, retried, after its chain's others) runs with the creds
 * its submitter had when it submitted it, unless its personality names
 * others: referenced here by the submitter when the request, or one
 * before it in its chain, first leaves it (Linux's io_prep_async_work,
 * at the punt); one that runs in its submitter's call needs none. */
void io_personality_submitter(struct io_req *req);

/* io_uring_files.c: the direct descriptors (register ops hold submit_lock) */
int io_files_register(struct io_ring *ring, const int32_t *ufds, const uint64_t *utags,
		      uint32_t nr);
int io_files_unregister(struct io_ring *ring);
int io_files_update(struct io_ring *ring, uint32_t off, const int32_t *ufds, const uint64_t *utags,
		    uint32_t nr);
int io_files_alloc_range(struct io_ring *ring, const struct io_uring_file_index_range *urange);
/* IORING_OP_FILES_UPDATE with IORING_FILE_INDEX_ALLOC: each fd to a free
 * slot, written back over it; how many, or the first one's -errno. */
long io_files_update_alloc(struct io_ring *ring, int32_t *ufds, uint32_t nr);
/* Drops the table at the ring's release, requests in flight or not. */
void io_files_release(struct io_ring *ring);
/* Direct descriptor index's file, referenced, or NULL (EBADF). */
struct file *io_fixed_get(struct io_ring *ring, uint32_t index);
long io_fixed_install(struct io_ring *ring, uint32_t file_index, struct file *f);
long io_fixed_remove(struct io_ring *ring, uint32_t index);

#endif
