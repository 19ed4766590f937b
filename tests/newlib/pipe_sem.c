/*
 * POSIX pipe semantics: pipe2 flags, atomic PIPE_BUF writes from two
 * writers, EOF, EPIPE and SIGPIPE, O_NONBLOCK EAGAIN on empty and full,
 * blocking wake-ups, and bad input (bad pointers, flags, ESPIPE).
 */
#include "fd_util.h"

#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>

#define L_O_APPEND 02000 /* Linux value, for raw syscall() */
#define RECORDS	   200	 /* PIPE_BUF records per writer */
#define CAPACITY   65536 /* fdkernel's pipe size, and Linux's default */

static char big[CAPACITY + 4096];

static void check_pipe2_flags(void)
{
	int p[2], before = next_fd();

	ok(pipe2(p, O_NONBLOCK | O_CLOEXEC) == 0, "pipe2(O_NONBLOCK | O_CLOEXEC)");
	ok((fcntl(p[0], F_GETFL) & O_NONBLOCK) && (fcntl(p[1], F_GETFL) & O_NONBLOCK),
	   "both ends are non-blocking");
	ok(fcntl(p[0], F_GETFD) == FD_CLOEXEC && fcntl(p[1], F_GETFD) == FD_CLOEXEC,
	   "both ends are close-on-exec");
	ok((fcntl(p[0], F_GETFL) & O_ACCMODE) == O_RDONLY &&
	       (fcntl(p[1], F_GETFL) & O_ACCMODE) == O_WRONLY,
	   "F_GETFL: read end O_RDONLY, write end O_WRONLY");
	close(p[0]);
	close(p[1]);
	if (fdk_only("pipe2(O_NONSEQFD | O_CLOFORK)")) {
		ok(pipe2(p, O_NONSEQFD | O_CLOFORK) == 0 && p[0] >= NONSEQ_FD_BASE &&
		       p[1] >= NONSEQ_FD_BASE && fcntl(p[1], F_GETFD) == FD_CLOFORK,
		   "pipe2(O_NONSEQFD | O_CLOFORK): both ends nonseq, FD_CLOFORK");
		close(p[0]);
		close(p[1]);
	}
	is_errno(syscall(__NR_pipe2, p, L_O_APPEND), EINVAL, "pipe2(O_APPEND): EINVAL");
	is_errno(syscall(__NR_pipe2, p, 0x80000000L), EINVAL, "pipe2 with a bit nobody has");
	is_errno(pipe(NULL), EFAULT, "pipe(NULL): EFAULT");
	is_errno(pipe(KERNEL_PTR), EFAULT, "pipe(kernel pointer): EFAULT");
	is_errno(syscall(__NR_pipe2, 8, 0), EFAULT, "pipe2(unmapped page 0): EFAULT");
	is_int(next_fd(), before, "failed pipes leave no fd behind");
}

/* A writer child: RECORDS records of PIPE_BUF bytes of letter c. */
static void write_records(int fd, char c)
{
	static char rec[PIPE_BUF];

	memset(rec, c, sizeof rec);
	for (int i = 0; i < RECORDS; i++)
		if (write(fd, rec, sizeof rec) != (ssize_t)sizeof rec)
			_exit(1);
	_exit(0);
}

/* Reads one PIPE_BUF record; true if it is all one letter. */
static bool read_record(int fd, bool *eof)
{
	static char rec[PIPE_BUF];
	size_t got = 0;
	ssize_t n;

	while (got < sizeof rec && (n = read(fd, rec + got, sizeof rec - got)) > 0)
		got += n;
	*eof = got == 0;
	for (size_t i = 1; i < got; i++)
		if (rec[i] != rec[0])
			return false;
	return got == sizeof rec || got == 0;
}

static void check_atomic(void)
{
	int p[2], records = 0, mixed = 0, status[2];
	pid_t pid[2];
	bool eof = false;

	require(pipe(p) == 0, "pipe");
	fflush(stdout);
	for (int i = 0; i < 2; i++)
		if ((pid[i] = fork()) == 0) {
			close(p[0]);
			write_records(p[1], "AB"[i]);
		}
	close(p[1]);
	while (!eof) {
		mixed += !read_record(p[0], &eof);
		records += !eof;
	}
	close(p[0]);
	waitpid(pid[0], &status[0], 0);
	waitpid(pid[1], &status[1], 0);
	is_int(records, 2 * RECORDS, "two writers: every PIPE_BUF record arrived");
	is_int(mixed, 0, "... none interleaved with the other writer's");
	ok(exited_with(status[0], 0) && exited_with(status[1], 0), "... both writers done");
}

static void check_eof_and_epipe(void)
{
	int p[2], status;
	char buf[8];
	pid_t pid;

	require(pipe(p) == 0, "pipe");
	write(p[1], "abc", 3);
	close(p[1]);
	is_int(read(p[0], buf, sizeof buf), 3, "after the writer closes, the data is still there");
	is_int(read(p[0], buf, sizeof buf), 0, "... then EOF");
	close(p[0]);
	require(pipe(p) == 0, "pipe");
	close(p[0]);
	signal(SIGPIPE, SIG_IGN);
	is_errno(write(p[1], "x", 1), EPIPE, "no reader, SIGPIPE ignored: EPIPE");
	signal(SIGPIPE, SIG_DFL);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		write(p[1], "x", 1);
		_exit(0);
	}
	ok(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE,
	   "no reader: the writer dies of SIGPIPE");
	close(p[1]);
}

static void check_nonblock(void)
{
	int p[2];
	size_t total = 0;
	ssize_t n;
	char c;

	require(pipe2(p, O_NONBLOCK) == 0, "pipe2");
	is_errno(read(p[0], &c, 1), EAGAIN, "O_NONBLOCK: read of an empty pipe: EAGAIN");
	is_int(write(p[1], big, sizeof big), CAPACITY, "a write larger than the room is partial");
	is_errno(write(p[1], "x", 1), EAGAIN, "write to a full pipe: EAGAIN");
	while ((n = read(p[0], big, sizeof big)) > 0)
		total += n;
	is_int(total, CAPACITY, "it held 64 KiB");
	while ((n = write(p[1], big, PIPE_BUF)) > 0)
		total += n;
	is_int(total, 2 * CAPACITY, "PIPE_BUF writes fill it again exactly");
	close(p[0]);
	close(p[1]);
}

/* Blocking read woken by a writer; blocking write woken by a reader. */
static void check_blocking(void)
{
	int p[2], status;
	char c = 0;
	pid_t pid;

	require(pipe(p) == 0, "pipe");
	fflush(stdout);
	if ((pid = fork()) == 0) {
		char sink[4096];
		sleep_ms(50);
		write(p[1], "w", 1);
		close(p[1]);
		sleep_ms(50);
		while (read(p[0], sink, sizeof sink) > 0)
			;
		_exit(0);
	}
	ok(read(p[0], &c, 1) == 1 && c == 'w', "a blocked read wakes when data comes");
	close(p[0]);
	is_int(write(p[1], big, sizeof big), sizeof big,
	       "a blocked write completes as the reader drains");
	close(p[1]);
	waitpid(pid, &status, 0);
}

static void check_bad_io(void)
{
	int p[2];
	char buf[4];
	struct stat a, b;

	require(pipe(p) == 0, "pipe");
	is_int(read(p[0], buf, 0), 0, "read of 0 bytes");
	is_int(write(p[1], buf, 0), 0, "write of 0 bytes");
	is_errno(write(p[0], "x", 1), EBADF, "write to the read end: EBADF");
	is_errno(read(p[1], buf, 1), EBADF, "read from the write end: EBADF");
	is_errno(write(p[1], NULL, 3), EFAULT, "write from NULL: EFAULT");
	is_errno(write(p[1], KERNEL_PTR, 3), EFAULT, "write from the kernel: EFAULT");
	is_errno(write(p[1], buf, SIZE_MAX), EFAULT, "write of SIZE_MAX bytes: EFAULT");
	write(p[1], "abc", 3);
	is_errno(read(p[0], NULL, 3), EFAULT, "read to NULL: EFAULT");
	is_errno(read(p[0], KERNEL_PTR, 3), EFAULT, "read to the kernel: EFAULT");
	ok(read(p[0], buf, 3) == 3 && memcmp(buf, "abc", 3) == 0, "... the data was not lost");
	is_errno(lseek(p[0], 0, SEEK_SET), ESPIPE, "lseek on a pipe: ESPIPE");
	is_errno(pread(p[0], buf, 1, 0), ESPIPE, "pread on a pipe: ESPIPE");
	is_errno(pwrite(p[1], buf, 1, 0), ESPIPE, "pwrite on a pipe: ESPIPE");
	ok(fstat(p[0], &a) == 0 && fstat(p[1], &b) == 0 && S_ISFIFO(a.st_mode) &&
	       a.st_ino == b.st_ino,
	   "fstat: a FIFO, the same inode at both ends");
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	plan(11 + 3 + 4 + 5 + 2 + 14);
	check_pipe2_flags();
	check_atomic();
	check_eof_and_epipe();
	check_nonblock();
	check_blocking();
	check_bad_io();
	return done();
}
