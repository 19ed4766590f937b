/* IORING_FEAT_SUBMIT_STABLE: what an SQE points at and Linux copies at
 * preparation (a RECVMSG's or SENDMSG's msghdr, its iovec array and a
 * send's address, a CONNECT's address, the paths of OPENAT, OPENAT2,
 * STATX, MKDIRAT, RENAMEAT, SYMLINKAT, LINKAT and UNLINKAT, an OPENAT2's
 * open_how) may be reused once io_uring_enter has
 * returned, while the request still waits: each request here waits (on
 * its socket, or linked after a READ of an empty pipe) while its memory
 * is overwritten, and must do what was submitted.  Then OPENAT2: its
 * size rules, flags and RESOLVE_* checks with openat2's errno, direct
 * descriptors, and the errno of bad pointers in the CQE. */
#define _GNU_SOURCE
#include "fdkernel_abi.h" /* struct open_how, RESOLVE_*: Linux's, from kernel/uapi */

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include "testutil.h"
#include "uring_raw.h"

/* struct statx (musl has none): 256 bytes, stx_size at byte 40. */
#define STATX_SIZE_BIT 0x200U
#define STX_SIZE(sx)   ((sx)[5])

static struct uring r;
static int gate[2]; /* a pipe whose READ the requests under test are linked after */

/* Links the next SQE after a READ of 1 byte of the empty gate pipe: the
 * request is prepared now and runs once the gate opens. */
static void gate_close(void)
{
	static char b;

	uring_prep(&r, IORING_OP_READ, gate[0], (uint64_t)&b, 1, UINT64_MAX, 100)->flags =
	    IOSQE_IO_LINK;
}

/* Opens the gate: the request linked after it runs; its res (the gate's
 * CQE checked too). */
static int32_t gate_open(void)
{
	struct io_uring_cqe c;
	int32_t res = -99999;

	if (write(gate[1], "g", 1) != 1)
		return -99998;
	for (int i = 0; i < 2; i++) {
		if (uring_wait(&r, &c))
			return -99997;
		if (c.user_data == 100 && c.res != 1)
			return -99996;
		if (c.user_data != 100)
			res = c.res;
	}
	return res;
}

static int udp_bound(struct sockaddr_in *a)
{
	socklen_t len = sizeof(*a);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	*a = (struct sockaddr_in){.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	require(fd >= 0 && !bind(fd, (struct sockaddr *)a, sizeof(*a)) &&
		    !getsockname(fd, (struct sockaddr *)a, &len),
		"a UDP socket on loopback");
	return fd;
}

/* A RECVMSG waiting on an empty socket: its header, iovec array and name
 * pointer overwritten, then a datagram comes. */
static void check_recvmsg(void)
{
	struct sockaddr_in ra, ta, from = {0}, from2 = {0};
	int rx = udp_bound(&ra), tx = udp_bound(&ta);
	char buf[16] = {0}, other[16] = {0};
	struct iovec iov[2] = {{buf, 3}, {buf + 8, 8}};
	struct msghdr h = {
	    .msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = iov, .msg_iovlen = 2};
	struct io_uring_cqe c;

	uring_prep(&r, IORING_OP_RECVMSG, rx, (uint64_t)&h, 1, 0, 1);
	is_int(uring_submit_wait(&r, 0), 1, "RECVMSG of an empty UDP socket submitted");
	sleep_ms(20);
	ok(!uring_peek(&r, &c), "it waits");
	iov[0] = iov[1] = (struct iovec){other, sizeof(other)};
	h = (struct msghdr){
	    .msg_name = &from2, .msg_namelen = sizeof(from2), .msg_iov = iov + 1, .msg_iovlen = 1};
	is_int(sendto(tx, "stable!", 7, 0, (struct sockaddr *)&ra, sizeof(ra)), 7,
	       "its header and iovecs overwritten, a datagram comes");
	ok(!uring_wait(&r, &c) && c.user_data == 1 && c.res == 7, "RECVMSG: 7 bytes");
	ok(!memcmp(buf, "sta", 3) && !memcmp(buf + 8, "ble!", 4) && !other[0],
	   "into the iovecs it was submitted with");
	ok(from.sin_port == ta.sin_port && !from2.sin_port, "the sender's address into its name");
	close(rx);
	close(tx);
}

/* A SENDMSG linked after the gate: header, iovec array and address
 * overwritten (the address to another socket's). */
static void check_sendmsg(void)
{
	struct sockaddr_in ra, ra2, to;
	int rx = udp_bound(&ra), rx2 = udp_bound(&ra2), tx = socket(AF_INET, SOCK_DGRAM, 0);
	char buf[16] = {0};
	struct iovec iov[2] = {{"sub", 3}, {"mitted", 6}};
	struct msghdr h = {
	    .msg_name = &to, .msg_namelen = sizeof(to), .msg_iov = iov, .msg_iovlen = 2};

	to = ra;
	gate_close();
	uring_prep(&r, IORING_OP_SENDMSG, tx, (uint64_t)&h, 1, 0, 1);
	is_int(uring_submit_wait(&r, 0), 2, "SENDMSG linked after a waiting READ");
	to = ra2;
	iov[0] = iov[1] = (struct iovec){"XX", 2};
	h.msg_iovlen = 1;
	is_int(gate_open(), 9, "its header, iovecs and address overwritten, it sends 9 bytes");
	fcntl(rx, F_SETFL, O_NONBLOCK);
	fcntl(rx2, F_SETFL, O_NONBLOCK);
	ok(recv(rx, buf, sizeof(buf), 0) == 9 && !memcmp(buf, "submitted", 9),
	   "the data it was submitted with, to the address it was submitted with");
	ok(recv(rx2, buf, sizeof(buf), 0) < 0 && errno == EAGAIN, "nothing to the new address");
	close(rx);
	close(rx2);
	close(tx);
}

static int tcp_listener(struct sockaddr_in *a)
{
	socklen_t len = sizeof(*a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);

	*a = (struct sockaddr_in){.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	require(fd >= 0 && !bind(fd, (struct sockaddr *)a, sizeof(*a)) && !listen(fd, 4) &&
		    !getsockname(fd, (struct sockaddr *)a, &len),
		"a TCP listener");
	return fd;
}

/* A CONNECT linked after the gate, its address overwritten. */
static void check_connect(void)
{
	struct sockaddr_in a1, a2, to;
	int l1 = tcp_listener(&a1), l2 = tcp_listener(&a2), cfd = socket(AF_INET, SOCK_STREAM, 0);
	int s;

	to = a1;
	gate_close();
	uring_prep(&r, IORING_OP_CONNECT, cfd, (uint64_t)&to, 0, sizeof(to), 1);
	is_int(uring_submit_wait(&r, 0), 2, "CONNECT linked after a waiting READ");
	to = a2;
	is_int(gate_open(), 0, "its address overwritten, CONNECT: 0");
	sleep_ms(20);
	ok((s = accept(l1, NULL, NULL)) >= 0, "to the listener it was submitted with");
	ok(accept(l2, NULL, NULL) < 0 && errno == EAGAIN, "not to the new address");
	close(s);
	close(cfd);
	close(l1);
	close(l2);

	uring_prep(&r, IORING_OP_CONNECT, -1, 8, 0, sizeof(to), 2);
	is_int(uring_run1(&r), -EFAULT, "CONNECT of an unreadable address: EFAULT");
	uring_prep(&r, IORING_OP_CONNECT, -1, (uint64_t)&to, 0, (uint64_t)-1, 2);
	is_int(uring_run1(&r), -EINVAL, "with a negative length: EINVAL");
	uring_prep(&r, IORING_OP_CONNECT, -1, (uint64_t)&to, 0, sizeof(to), 2);
	is_int(uring_run1(&r), -EBADF, "on a bad fd: EBADF");
}

static const char *file_a = "/tmp/uring_stable_a", *file_b = "/tmp/uring_stable_b";

static int make_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t n = fd >= 0 ? write(fd, text, strlen(text)) : -1;

	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* A path op linked after the gate, its path overwritten with file_b's. */
static void check_paths(void)
{
	char path[64], buf[8] = {0};
	struct open_how how = {O_RDONLY, 0, 0};
	uint64_t sx[32] = {0};
	int fd;

	require(!make_file(file_a, "A") && !make_file(file_b, "BB"), "two files");
	strcpy(path, file_a);
	gate_close();
	uring_prep(&r, IORING_OP_OPENAT, AT_FDCWD, (uint64_t)path, 0, 0, 1)->open_flags = O_RDONLY;
	is_int(uring_submit_wait(&r, 0), 2, "OPENAT linked after a waiting READ");
	strcpy(path, file_b);
	fd = gate_open();
	ok(fd >= 0 && read(fd, buf, sizeof(buf)) == 1 && buf[0] == 'A',
	   "its path overwritten, it opens the file it was submitted with");
	close(fd);

	strcpy(path, file_a);
	gate_close();
	uring_prep(&r, IORING_OP_OPENAT2, AT_FDCWD, (uint64_t)path, sizeof(how), 0, 1)->addr2 =
	    (uint64_t)&how;
	is_int(uring_submit_wait(&r, 0), 2, "OPENAT2 linked after a waiting READ");
	strcpy(path, file_b);
	how = (struct open_how){O_WRONLY | O_TRUNC, 0, 0};
	fd = gate_open();
	ok(fd >= 0 && read(fd, buf, sizeof(buf)) == 1 && buf[0] == 'A',
	   "its path and open_how overwritten, it opens file a read-only");
	close(fd);

	strcpy(path, file_a);
	gate_close();
	struct io_uring_sqe *s =
	    uring_prep(&r, IORING_OP_STATX, AT_FDCWD, (uint64_t)path, STATX_SIZE_BIT, 0, 1);
	s->addr2 = (uint64_t)sx;
	is_int(uring_submit_wait(&r, 0), 2, "STATX linked after a waiting READ");
	strcpy(path, file_b);
	is_int(gate_open(), 0, "its path overwritten, STATX: 0");
	is_int((int)STX_SIZE(sx), 1, "of the file it was submitted with");

	uring_prep(&r, IORING_OP_OPENAT, AT_FDCWD, 8, 0, 0, 2);
	is_int(uring_run1(&r), -EFAULT, "OPENAT of an unreadable path: EFAULT");
	uring_prep(&r, IORING_OP_OPENAT, AT_FDCWD, (uint64_t) "", 0, 0, 2);
	is_int(uring_run1(&r), -ENOENT, "of an empty one: ENOENT");
	uring_prep(&r, IORING_OP_OPENAT, 999, (uint64_t) "x", 0, 0, 2);
	is_int(uring_run1(&r), -EBADF, "relative to a closed fd: EBADF");
	uring_prep(&r, IORING_OP_STATX, AT_FDCWD, 8, STATX_SIZE_BIT, 0, 2)->addr2 = (uint64_t)sx;
	is_int(uring_run1(&r), -EFAULT, "STATX of an unreadable path: EFAULT");
	fd = open(file_a, O_RDONLY);
	s = uring_prep(&r, IORING_OP_STATX, fd, (uint64_t) "", STATX_SIZE_BIT, 0, 2);
	s->addr2 = (uint64_t)sx;
	s->statx_flags = AT_EMPTY_PATH;
	STX_SIZE(sx) = 0;
	ok(uring_run1(&r) == 0 && STX_SIZE(sx) == 1, "STATX of \"\" with AT_EMPTY_PATH: the fd's");
	close(fd);
}

/* The path ops linked after the gate, their paths overwritten. */
static void check_path_ops(void)
{
	const char *d1 = "/tmp/uring_stable_d1", *d2 = "/tmp/uring_stable_d2";
	const char *lnk = "/tmp/uring_stable_l", *hard = "/tmp/uring_stable_h";
	char a[64], b[64], target[64] = {0};
	struct stat st, sa;

	rmdir(d1);
	rmdir(d2);
	unlink(lnk);
	unlink(hard);
	strcpy(a, d1);
	gate_close();
	uring_prep(&r, IORING_OP_MKDIRAT, AT_FDCWD, (uint64_t)a, 0755, 0, 1);
	is_int(uring_submit_wait(&r, 0), 2, "MKDIRAT linked after a waiting READ");
	strcpy(a, d2);
	is_int(gate_open(), 0, "its path overwritten, MKDIRAT: 0");
	ok(!stat(d1, &st) && S_ISDIR(st.st_mode) && stat(d2, &st) < 0,
	   "the directory it was submitted with");

	strcpy(a, d1);
	strcpy(b, d2);
	gate_close();
	uring_prep(&r, IORING_OP_RENAMEAT, AT_FDCWD, (uint64_t)a, (uint32_t)AT_FDCWD, (uint64_t)b,
		   1);
	is_int(uring_submit_wait(&r, 0), 2, "RENAMEAT linked after a waiting READ");
	strcpy(a, file_a);
	strcpy(b, file_b);
	is_int(gate_open(), 0, "its paths overwritten, RENAMEAT: 0");
	ok(stat(d1, &st) < 0 && !stat(d2, &st) && S_ISDIR(st.st_mode) && !stat(file_a, &st),
	   "it renamed what it was submitted with");

	strcpy(a, file_a);
	strcpy(b, lnk);
	gate_close();
	uring_prep(&r, IORING_OP_SYMLINKAT, AT_FDCWD, (uint64_t)a, 0, (uint64_t)b, 1);
	is_int(uring_submit_wait(&r, 0), 2, "SYMLINKAT linked after a waiting READ");
	strcpy(a, "elsewhere");
	strcpy(b, hard);
	is_int(gate_open(), 0, "its target and path overwritten, SYMLINKAT: 0");
	ok(readlink(lnk, target, sizeof(target)) == (ssize_t)strlen(file_a) &&
	       !strcmp(target, file_a) && lstat(hard, &st) < 0,
	   "the link and target it was submitted with");

	strcpy(a, file_a);
	strcpy(b, hard);
	gate_close();
	uring_prep(&r, IORING_OP_LINKAT, AT_FDCWD, (uint64_t)a, (uint32_t)AT_FDCWD, (uint64_t)b, 1);
	is_int(uring_submit_wait(&r, 0), 2, "LINKAT linked after a waiting READ");
	strcpy(a, file_b);
	strcpy(b, d1);
	is_int(gate_open(), 0, "its paths overwritten, LINKAT: 0");
	ok(!stat(hard, &st) && !stat(file_a, &sa) && st.st_ino == sa.st_ino && stat(d1, &st) < 0,
	   "a new name for the file it was submitted with");

	strcpy(a, hard);
	gate_close();
	uring_prep(&r, IORING_OP_UNLINKAT, AT_FDCWD, (uint64_t)a, 0, 0, 1);
	is_int(uring_submit_wait(&r, 0), 2, "UNLINKAT linked after a waiting READ");
	strcpy(a, file_b);
	is_int(gate_open(), 0, "its path overwritten, UNLINKAT: 0");
	ok(lstat(hard, &st) < 0 && !stat(file_b, &st), "it removed the name it was submitted with");

	uring_prep(&r, IORING_OP_MKDIRAT, AT_FDCWD, 8, 0755, 0, 2);
	is_int(uring_run1(&r), -EFAULT, "MKDIRAT of an unreadable path: EFAULT");
	uring_prep(&r, IORING_OP_RENAMEAT, AT_FDCWD, (uint64_t)d2, (uint32_t)AT_FDCWD, 8, 2);
	is_int(uring_run1(&r), -EFAULT, "RENAMEAT to an unreadable path: EFAULT");
	uring_prep(&r, IORING_OP_UNLINKAT, AT_FDCWD, (uint64_t)d2, 0, 0, 2)->unlink_flags =
	    AT_REMOVEDIR;
	is_int(uring_run1(&r), 0, "UNLINKAT with AT_REMOVEDIR: 0");
	unlink(lnk);
}

/* An OPENAT2 SQE of path with how's fields and size, file_index slot. */
static struct io_uring_sqe *prep_openat2(int dirfd, const char *path, const void *how,
					 uint32_t size, uint32_t slot)
{
	struct io_uring_sqe *s =
	    uring_prep(&r, IORING_OP_OPENAT2, dirfd, (uint64_t)path, size, 0, 3);

	s->addr2 = (uint64_t)how;
	s->file_index = slot;
	return s;
}

/* Its CQE's res. */
static int32_t openat2(int dirfd, const char *path, const void *how, uint32_t size)
{
	prep_openat2(dirfd, path, how, size, 0);
	return uring_run1(&r);
}

static void check_openat2(void)
{
	struct {
		struct open_how h;
		uint64_t extra;
	} big = {{O_RDONLY, 0, 0}, 0};
	struct open_how how = {O_RDONLY, 0, 0};
	char buf[4];
	int fd, dfd = open("/tmp", O_RDONLY | O_DIRECTORY);

	fd = openat2(AT_FDCWD, file_a, &how, sizeof(how));
	ok(fd >= 0 && read(fd, buf, 1) == 1 && buf[0] == 'A', "OPENAT2 opens");
	close(fd);
	is_int(openat2(AT_FDCWD, file_a, &how, 23), -EINVAL, "an open_how of 23 bytes: EINVAL");
	is_int(openat2(AT_FDCWD, file_a, &how, 0), -EINVAL, "of 0 bytes: EINVAL");
	fd = openat2(AT_FDCWD, file_a, &big, sizeof(big));
	ok(fd >= 0, "a longer one with zeros past version 0 opens");
	close(fd);
	big.extra = 1;
	is_int(openat2(AT_FDCWD, file_a, &big, sizeof(big)), -E2BIG,
	       "with a non-zero byte there: E2BIG");
	is_int(openat2(AT_FDCWD, file_a, (void *)8, sizeof(how)), -EFAULT,
	       "an unreadable open_how: EFAULT");
	is_int(openat2(AT_FDCWD, (void *)8, &how, sizeof(how)), -EFAULT,
	       "an unreadable path: EFAULT");
	how = (struct open_how){O_RDONLY | (1ULL << 40), 0, 0};
	is_int(openat2(AT_FDCWD, file_a, &how, sizeof(how)), -EINVAL, "an unknown flag: EINVAL");
	how = (struct open_how){O_RDONLY, 0644, 0};
	is_int(openat2(AT_FDCWD, file_a, &how, sizeof(how)), -EINVAL,
	       "a mode without O_CREAT: EINVAL");
	how = (struct open_how){O_RDONLY, 0, 0x40};
	is_int(openat2(AT_FDCWD, file_a, &how, sizeof(how)), -EINVAL,
	       "an unknown RESOLVE_ flag: EINVAL");
	how = (struct open_how){O_RDONLY, 0, RESOLVE_BENEATH | RESOLVE_IN_ROOT};
	is_int(openat2(AT_FDCWD, file_a, &how, sizeof(how)), -EINVAL,
	       "RESOLVE_BENEATH with RESOLVE_IN_ROOT: EINVAL");
	how = (struct open_how){O_RDONLY | O_CREAT, 0600, RESOLVE_CACHED};
	is_int(openat2(AT_FDCWD, file_a, &how, sizeof(how)), -EAGAIN,
	       "RESOLVE_CACHED with O_CREAT: EAGAIN");
	how = (struct open_how){O_RDONLY, 0, RESOLVE_BENEATH};
	is_int(openat2(dfd, file_a, &how, sizeof(how)), -EXDEV,
	       "RESOLVE_BENEATH of an absolute path: EXDEV");
	fd = openat2(dfd, "uring_stable_a", &how, sizeof(how));
	ok(fd >= 0, "of a path beneath its directory: opens");
	close(fd);
	unlink("/tmp/uring_stable_l");
	require(!symlink(file_a, "/tmp/uring_stable_l"), "a symbolic link");
	how = (struct open_how){O_RDONLY, 0, RESOLVE_NO_SYMLINKS};
	is_int(openat2(dfd, "uring_stable_l", &how, sizeof(how)), -ELOOP,
	       "RESOLVE_NO_SYMLINKS through a link: ELOOP");
	how = (struct open_how){O_RDONLY, 0, RESOLVE_IN_ROOT};
	fd = openat2(dfd, "/uring_stable_a", &how, sizeof(how));
	ok(fd >= 0 && read(fd, buf, 1) == 1 && buf[0] == 'A',
	   "RESOLVE_IN_ROOT: \"/\" is its directory");
	close(fd);
	unlink("/tmp/uring_stable_l");
	close(dfd);
}

/* OPENAT2 into direct descriptors (file_index), as OPENAT's. */
static void check_direct(void)
{
	struct open_how how = {O_RDONLY, 0, 0};
	char buf[4] = {0};
	int32_t fds[4] = {-1, -1, -1, -1};

	prep_openat2(AT_FDCWD, file_a, &how, sizeof(how), 1);
	is_int(uring_run1(&r), -ENXIO, "OPENAT2 into a slot without a table: ENXIO");
	require(!uring_register_raw(r.fd, IORING_REGISTER_FILES, fds, 4), "4 empty slots");
	prep_openat2(AT_FDCWD, file_a, &how, sizeof(how), 3);
	is_int(uring_run1(&r), 0, "OPENAT2 into slot 2: 0");
	uring_prep(&r, IORING_OP_READ, 2, (uint64_t)buf, 1, 0, 0)->flags = IOSQE_FIXED_FILE;
	ok(uring_run1(&r) == 1 && buf[0] == 'A', "a READ of that slot reads the file");
	prep_openat2(AT_FDCWD, file_a, &how, sizeof(how), IORING_FILE_INDEX_ALLOC);
	int32_t slot = uring_run1(&r);
	ok(slot >= 0 && slot < 4 && slot != 2, "IORING_FILE_INDEX_ALLOC: a free slot");
	how.flags |= O_CLOEXEC;
	prep_openat2(AT_FDCWD, file_a, &how, sizeof(how), 1);
	is_int(uring_run1(&r), -EINVAL, "a slot with O_CLOEXEC: EINVAL");
	how.flags = O_RDONLY;
	prep_openat2(AT_FDCWD, file_a, &how, sizeof(how), 0)->flags = IOSQE_FIXED_FILE;
	is_int(uring_run1(&r), -EBADF, "OPENAT2 with IOSQE_FIXED_FILE: EBADF");
	is_int(uring_register_raw(r.fd, IORING_UNREGISTER_FILES, NULL, 0), 0, "unregister");
}

int main(void)
{
	plan(70);
	require(!uring_init(&r, 16, 0), "a ring");
	require(!pipe(gate), "a pipe");
	check_recvmsg();
	check_sendmsg();
	check_connect();
	check_paths();
	check_path_ops();
	check_openat2();
	check_direct();
	unlink(file_a);
	unlink(file_b);
	uring_exit(&r);
	return done();
}
