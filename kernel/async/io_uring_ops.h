/*
 * The io_uring opcodes' preparations and runs, for the op table
 * (io_uring_op.c) and the files that define them: io_uring_prep.c's
 * "syscall" ops and io_uring_fs.c's path, xattr, advice, epoll, splice
 * and tee ops, with the helpers their preparations share.
 */
#ifndef ASYNC_IO_URING_OPS_H
#define ASYNC_IO_URING_OPS_H

#include "async/io_uring_int.h"

/* A "syscall" op's preparation sets the call its request runs. */
static inline void set_call(struct io_req *req, int nr, uint64_t a0, uint64_t a1, uint64_t a2,
			    uint64_t a3, uint64_t a4, uint64_t a5)
{
	req->nr = nr;
	req->args[0] = a0, req->args[1] = a1, req->args[2] = a2;
	req->args[3] = a3, req->args[4] = a4, req->args[5] = a5;
}

/* io_uring_prep.c: the "syscall" opcodes' preparation (req->nr and
 * req->args from the SQE), 0 or the -errno its CQE carries. */
/* Gives req what its preparation copied (kdata, freed by free_fn). */
static inline void io_req_keep(struct io_req *req, void *kdata, void (*free_fn)(void *))
{
	req->kdata = kdata;
	req->kdata_free = free_fn;
}
/* The path at sqe->addr copied now into a struct upath the request
 * keeps (kdata), as Linux's getname at preparation: 0, -EFAULT,
 * -ENAMETOOLONG, -ENOMEM, -ENOENT for an empty one unless flags has
 * AT_EMPTY_PATH.  Its run resolves it from the directory fd then. */
int io_prep_path(struct io_req *req, int flags);
int io_prep_nop(struct io_req *req);
int io_prep_read(struct io_req *req);
int io_prep_write(struct io_req *req);
int io_prep_read_fixed(struct io_req *req);
int io_prep_write_fixed(struct io_req *req);
int io_prep_readv(struct io_req *req);
int io_prep_writev(struct io_req *req);
int io_prep_fsync(struct io_req *req);
int io_prep_sync_file_range(struct io_req *req);
int io_prep_fallocate(struct io_req *req);
int io_prep_shutdown(struct io_req *req);
int io_prep_sendmsg(struct io_req *req);
int io_prep_recvmsg(struct io_req *req);
int io_prep_send(struct io_req *req);
int io_prep_recv(struct io_req *req);
int io_prep_accept(struct io_req *req);
int io_prep_connect(struct io_req *req);
int io_prep_openat(struct io_req *req);
int io_prep_openat2(struct io_req *req);
int io_prep_close(struct io_req *req);
int io_prep_statx(struct io_req *req);
int io_prep_socket(struct io_req *req);

/* io_uring_fs.c: the path ops, the extended attributes, the advice ops,
 * EPOLL_CTL, SPLICE and TEE. */
int io_prep_two_paths(struct io_req *req); /* RENAMEAT, LINKAT */
long io_run_renameat(struct io_req *req);
long io_run_linkat(struct io_req *req);
int io_prep_unlinkat(struct io_req *req);
long io_run_unlinkat(struct io_req *req);
int io_prep_mkdirat(struct io_req *req);
long io_run_mkdirat(struct io_req *req);
int io_prep_symlinkat(struct io_req *req);
long io_run_symlinkat(struct io_req *req);
int io_prep_fgetxattr(struct io_req *req);
int io_prep_getxattr(struct io_req *req);
int io_prep_fsetxattr(struct io_req *req);
int io_prep_setxattr(struct io_req *req);
long io_run_xattr(struct io_req *req);
int io_prep_fadvise(struct io_req *req);
int io_prep_madvise(struct io_req *req);
int io_prep_epoll_ctl(struct io_req *req);
long io_run_epoll_ctl(struct io_req *req);
int io_prep_splice(struct io_req *req);
long io_run_splice(struct io_req *req);
int io_prep_tee(struct io_req *req);
long io_run_tee(struct io_req *req);

#endif
