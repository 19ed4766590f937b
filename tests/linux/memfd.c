/* memfd_create and file seals through musl: flags and names, the file
 * underneath (read, write, ftruncate, shared and private mappings, fork,
 * /proc/self/fd), and each seal refusing what it seals as Linux does. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "testutil.h"

#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U
#define MFD_EXEC	0x0010U
#endif
#ifndef F_SEAL_EXEC
#define F_SEAL_EXEC 0x0020
#endif
#define MFD_CLOFORK 040000000U /* fdkernel's (kernel/uapi/memfd.h) */
#define PAGE	    4096

static int mfd(const char *name, unsigned flags)
{
	return (int)syscall(SYS_memfd_create, name, flags);
}

static int seals(int fd)
{
	return fcntl(fd, F_GET_SEALS);
}

static void test_flags(void)
{
	struct stat st;
	char name[300];
	int fd = mfd("plain", 0);

	ok(fd >= 0 && fstat(fd, &st) == 0 && st.st_mode == (S_IFREG | 0777) && st.st_size == 0 &&
	       st.st_nlink == 0,
	   "memfd_create(0): an empty unlinked regular file, mode 0777");
	is_int(fcntl(fd, F_GETFD), 0, "no flag: F_GETFD 0");
	is_int(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDWR, "open for reading and writing");
	is_int(seals(fd), F_SEAL_SEAL, "without MFD_ALLOW_SEALING: F_SEAL_SEAL");
	is_errno(fcntl(fd, F_ADD_SEALS, F_SEAL_GROW), EPERM, "so F_ADD_SEALS is EPERM");
	close(fd);

	fd = mfd("x", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	is_int(fcntl(fd, F_GETFD), FD_CLOEXEC, "MFD_CLOEXEC: FD_CLOEXEC");
	is_int(seals(fd), 0, "MFD_ALLOW_SEALING: no seals");
	close(fd);

	fd = mfd("ne", MFD_NOEXEC_SEAL);
	ok(fd >= 0 && fstat(fd, &st) == 0 && st.st_mode == (S_IFREG | 0666),
	   "MFD_NOEXEC_SEAL: mode 0666");
	is_int(seals(fd), F_SEAL_EXEC, "MFD_NOEXEC_SEAL: F_SEAL_EXEC, sealing allowed");
	is_errno(fchmod(fd, 0755), EPERM, "F_SEAL_EXEC: fchmod adding x bits EPERM");
	ok(fchmod(fd, 0600) == 0 && fstat(fd, &st) == 0 && st.st_mode == (S_IFREG | 0600),
	   "F_SEAL_EXEC: fchmod leaving them works");
	close(fd);
	fd = mfd("e", MFD_EXEC);
	ok(fd >= 0 && fstat(fd, &st) == 0 && st.st_mode == (S_IFREG | 0777) &&
	       seals(fd) == F_SEAL_SEAL,
	   "MFD_EXEC: mode 0777, not sealable");
	close(fd);

	is_errno(mfd("b", MFD_EXEC | MFD_NOEXEC_SEAL), EINVAL,
		 "MFD_EXEC | MFD_NOEXEC_SEAL: EINVAL");
	is_errno(mfd("b", 0x100), EINVAL, "an unknown flag: EINVAL");
	is_errno(mfd("b", 1U << 31), EINVAL, "bit 31: EINVAL");
	is_errno(mfd(NULL, 0), EFAULT, "NULL name: EFAULT");
	is_errno(mfd((const char *)1, 0), EFAULT, "unmapped name: EFAULT");
	memset(name, 'n', 249);
	name[249] = '\0';
	fd = mfd(name, 0);
	ok(fd >= 0, "a 249-byte name (NAME_MAX less \"memfd:\") is taken");
	close(fd);
	name[249] = 'n';
	name[250] = '\0';
	is_errno(mfd(name, 0), EINVAL, "a 250-byte name: EINVAL");
	if (on_fdkernel()) {
		fd = mfd("cf", MFD_CLOFORK | MFD_CLOEXEC);
		is_int(fcntl(fd, F_GETFD), FD_CLOEXEC | 2,
		       "fdkernel: MFD_CLOFORK gives FD_CLOFORK");
		close(fd);
		is_errno(mfd("h", MFD_HUGETLB), EINVAL,
			 "fdkernel: MFD_HUGETLB EINVAL (no hugetlbfs)");
	} else {
		skip("fdkernel's", "MFD_CLOFORK");
		skip("fdkernel's", "MFD_HUGETLB");
	}
}

static void test_file(void)
{
	char link[64], target[300] = "", buf[16] = "";
	int fd = mfd("data", 0), fd2;
	pid_t pid;
	int status;

	ok(write(fd, "hello", 5) == 5 && pread(fd, buf, 5, 0) == 5 && !memcmp(buf, "hello", 5),
	   "write then pread");
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	if (!ok(readlink(link, target, sizeof target - 1) > 0 &&
		    !strcmp(target, "/memfd:data (deleted)"),
		"/proc/self/fd link: /memfd:data (deleted)"))
		diag("readlink: \"%s\"", target);
	fd2 = open(link, O_RDWR);
	ok(fd2 >= 0 && pread(fd2, buf, 5, 0) == 5 && !memcmp(buf, "hello", 5),
	   "reopening /proc/self/fd/N reaches the same file");
	close(fd2);
	ok(ftruncate(fd, 3 * PAGE) == 0, "ftruncate grows it");
	char *shared = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	char *priv = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	ok(shared != MAP_FAILED && priv != MAP_FAILED && !memcmp(shared, "hello", 5) &&
	       shared[2 * PAGE] == 0,
	   "shared and private mappings show the data, zeroes past it");
	shared[PAGE] = 'S';
	priv[PAGE + 1] = 'P';
	ok(pread(fd, buf, 2, PAGE) == 2 && buf[0] == 'S' && buf[1] == 0,
	   "a shared mapping writes the file, a private one does not");
	fflush(stdout);
	if ((pid = fork()) == 0) {
		shared[2] = 'Y';
		_exit(write(fd, "!", 1) == 1 ? 0 : 1);
	}
	ok(waitpid(pid, &status, 0) == pid && exited_with(status, 0) && pread(fd, buf, 6, 0) == 6 &&
	       !memcmp(buf, "heYlo!", 6),
	   "a forked child shares the file and the shared mapping");
	ok(priv[2] == 'Y', "a private page not yet written shows the file's change");
	munmap(shared, 3 * PAGE);
	munmap(priv, 3 * PAGE);
	close(fd);
}

static void test_size_seals(void)
{
	int fd = mfd("size", MFD_ALLOW_SEALING);

	require(fd >= 0 && ftruncate(fd, 2 * PAGE) == 0, "memfd");
	ok(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) == 0 && seals(fd) == F_SEAL_SHRINK,
	   "F_ADD_SEALS F_SEAL_SHRINK");
	is_errno(ftruncate(fd, PAGE), EPERM, "F_SEAL_SHRINK: shrinking EPERM");
	ok(ftruncate(fd, 3 * PAGE) == 0 && ftruncate(fd, 3 * PAGE) == 0,
	   "F_SEAL_SHRINK: growing and the same size work");
	ok(fcntl(fd, F_ADD_SEALS, F_SEAL_GROW) == 0 && seals(fd) == (F_SEAL_SHRINK | F_SEAL_GROW),
	   "F_SEAL_GROW added to it");
	is_errno(ftruncate(fd, 4 * PAGE), EPERM, "F_SEAL_GROW: growing EPERM");
	is_errno(pwrite(fd, "x", 1, 3 * PAGE), EPERM, "F_SEAL_GROW: a write past the end EPERM");
	is_int(pwrite(fd, "x", 1, 3 * PAGE - 1), 1, "F_SEAL_GROW: a write inside works");
	is_errno(fcntl(fd, F_ADD_SEALS, 0x40), EINVAL, "an unknown seal: EINVAL");
	ok(fcntl(fd, F_ADD_SEALS, 1UL << 32 | F_SEAL_GROW) == 0,
	   "the upper 32 bits of the seals are ignored (Linux reads an int)");
	ok(fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL) == 0, "F_SEAL_SEAL");
	is_errno(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE), EPERM, "after F_SEAL_SEAL: EPERM");
	is_errno(fcntl(fd, F_ADD_SEALS, 0), EPERM, "even adding nothing: EPERM");
	close(fd);
}

static void test_write_seal(void)
{
	char link[64];
	int fd = mfd("w", MFD_ALLOW_SEALING), ro;
	char *p, *r;

	require(fd >= 0 && ftruncate(fd, PAGE) == 0, "memfd");
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ro = open(link, O_RDONLY);
	is_errno(fcntl(ro, F_ADD_SEALS, F_SEAL_WRITE), EPERM,
		 "F_ADD_SEALS on a read-only fd: EPERM");
	is_int(seals(ro), 0, "F_GET_SEALS works on it");
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	is_errno(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE), EBUSY,
		 "F_SEAL_WRITE with a writable shared mapping: EBUSY");
	munmap(p, PAGE);
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0);
	is_errno(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE), EBUSY,
		 "a read-only shared mapping of a writable fd: EBUSY too (it may mprotect)");
	munmap(p, PAGE);
	r = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, ro, 0);
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	ok(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE) == 0,
	   "F_SEAL_WRITE beside a read-only fd's and a private mapping");
	munmap(r, PAGE);
	is_errno(write(fd, "x", 1), EPERM, "F_SEAL_WRITE: write EPERM");
	is_int(write(fd, "", 0), 0, "F_SEAL_WRITE: an empty write is 0");
	ok(mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED &&
	       errno == EPERM,
	   "F_SEAL_WRITE: a writable shared mmap EPERM");
	r = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0);
	ok(r != MAP_FAILED, "F_SEAL_WRITE: a read-only shared mmap works");
	is_errno(mprotect(r, PAGE, PROT_READ | PROT_WRITE), EACCES,
		 "F_SEAL_WRITE: mprotect of it to writable EACCES");
	p[0] = 'p';
	ok(r[0] == 0, "the private mapping still writes its own copy");
	int rw = open(link, O_RDWR);
	is_errno(write(rw, "x", 1), EPERM, "a new fd of the same file is sealed too");
	ok(ftruncate(fd, 2 * PAGE) == 0, "F_SEAL_WRITE alone leaves the size free");
	close(rw);
	munmap(r, PAGE);
	munmap(p, PAGE);
	close(ro);
	close(fd);
}

static void test_future_write(void)
{
	int fd = mfd("fw", MFD_ALLOW_SEALING);
	char *p, buf[2] = "";

	require(fd >= 0 && ftruncate(fd, PAGE) == 0, "memfd");
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ok(fcntl(fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE) == 0,
	   "F_SEAL_FUTURE_WRITE beside a writable mapping");
	p[0] = 'm';
	ok(pread(fd, buf, 1, 0) == 1 && buf[0] == 'm', "the existing mapping still writes");
	is_errno(pwrite(fd, "x", 1, 0), EPERM, "F_SEAL_FUTURE_WRITE: write EPERM");
	ok(mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED &&
	       errno == EPERM,
	   "F_SEAL_FUTURE_WRITE: a new writable shared mmap EPERM");
	is_errno(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE), EBUSY,
		 "F_SEAL_WRITE still EBUSY while the mapping lives");
	munmap(p, PAGE);
	close(fd);
}

static void test_exec_seal(void)
{
	int fd = mfd("ex", MFD_ALLOW_SEALING);

	ok(fcntl(fd, F_ADD_SEALS, F_SEAL_EXEC) == 0 &&
	       seals(fd) ==
		   (F_SEAL_EXEC | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_FUTURE_WRITE),
	   "F_SEAL_EXEC on an executable memfd brings the write seals (W^X)");
	is_errno(write(fd, "x", 1), EPERM, "so it cannot be written");
	close(fd);
}

static void test_bad(void)
{
	int p[2];

	require(pipe(p) == 0, "pipe");
	is_errno(fcntl(p[0], F_GET_SEALS), EINVAL, "F_GET_SEALS on a pipe: EINVAL");
	is_errno(fcntl(p[1], F_ADD_SEALS, F_SEAL_SEAL), EINVAL, "F_ADD_SEALS on a pipe: EINVAL");
	is_errno(fcntl(-1, F_GET_SEALS), EBADF, "F_GET_SEALS on a bad fd: EBADF");
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	plan(64);
	test_flags();
	test_file();
	test_size_seals();
	test_write_seal();
	test_future_write();
	test_exec_seal();
	test_bad();
	return done();
}
