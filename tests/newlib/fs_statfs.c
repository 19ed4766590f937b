/* statfs/fstatfs (sizes that add up, the pseudo file systems' magic
 * numbers of pipes and sockets, errors), /proc/mounts, and
 * sched_getaffinity (the mask, its size and errors). */
#include <errno.h>
#include <fcntl.h>
#include <fdkernel.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

#define NR_statfs	     137
#define NR_fstatfs	     138
#define NR_sched_getaffinity 204
#define TMPFS_MAGIC	     0x01021994
#define PIPEFS_MAGIC	     0x50495045
#define SOCKFS_MAGIC	     0x534f434b

/* Linux's struct statfs on x86_64. */
struct statfs_linux {
	long f_type, f_bsize;
	unsigned long f_blocks, f_bfree, f_bavail, f_files, f_ffree;
	int f_fsid[2];
	long f_namelen, f_frsize, f_flags, f_spare[4];
};

static void test_statfs(void)
{
	struct statfs_linux st, st2;
	char path[64];
	int fds[2], fd;
	ok(syscall(NR_statfs, "/tmp", &st) == 0, "statfs(/tmp)");
	ok(st.f_bsize > 0 && st.f_bfree <= st.f_blocks && st.f_bavail <= st.f_bfree &&
	       st.f_namelen == 255,
	   "bsize %ld, free %lu <= blocks %lu, namelen %ld", st.f_bsize, st.f_bfree, st.f_blocks,
	   st.f_namelen);
	if (on_fdkernel()) {
		ok(st.f_type == TMPFS_MAGIC, "the ramfs says tmpfs");
		snprintf(path, sizeof path, "/tmp/statfs-%d", (int)getpid());
		fd = open(path, O_CREAT | O_WRONLY, 0600);
		require(fd >= 0 && ftruncate(fd, 0) == 0, "scratch file");
		static char chunk[64 * 4096];
		require(write(fd, chunk, sizeof chunk) == (long)sizeof chunk, "write");
		ok(syscall(NR_fstatfs, fd, &st2) == 0 && st.f_bfree - st2.f_bfree >= 64,
		   "64 pages written: %lu fewer free blocks", st.f_bfree - st2.f_bfree);
		close(fd);
		unlink(path);
	} else {
		skip("the host's /tmp is another file system", "tmpfs magic");
		skip("the host's free blocks move with everything else", "free blocks");
	}
	require(pipe(fds) == 0, "pipe");
	ok(syscall(NR_fstatfs, fds[0], &st) == 0 && st.f_type == PIPEFS_MAGIC, "a pipe: pipefs");
	close(fds[0]);
	close(fds[1]);
	require(socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0, "socketpair");
	ok(syscall(NR_fstatfs, fds[0], &st) == 0 && st.f_type == SOCKFS_MAGIC, "a socket: sockfs");
	close(fds[0]);
	close(fds[1]);
	is_errno(syscall(NR_statfs, "/no/such/dir", &st), ENOENT,
		 "statfs of a missing path: ENOENT");
	is_errno(syscall(NR_statfs, "/tmp", (void *)1), EFAULT, "statfs into (void *)1: EFAULT");
	is_errno(syscall(NR_statfs, (void *)1, &st), EFAULT, "statfs of path (void *)1: EFAULT");
	is_errno(syscall(NR_fstatfs, 999, &st), EBADF, "fstatfs(999): EBADF");
	is_errno(syscall(NR_fstatfs, 0, (void *)1), EFAULT, "fstatfs into (void *)1: EFAULT");
}

static void test_mounts(void)
{
	char buf[4096] = "", dev[64], dir[64], type[64];
	int fd = open("/proc/mounts", O_RDONLY);
	long n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
	if (fd >= 0)
		close(fd);
	ok(n > 0 && sscanf(buf, "%63s %63s %63s", dev, dir, type) == 3 && strchr(buf, '\n'),
	   "/proc/mounts: first line \"%s %s %s ...\"", dev, dir, type);
}

static void test_affinity(void)
{
	uint64_t mask[16];
	long n;
	memset(mask, 0, sizeof mask);
	n = syscall(NR_sched_getaffinity, 0, sizeof mask, mask);
	ok(n > 0 && n % 8 == 0 && mask[0] != 0, "sched_getaffinity(0): %ld bytes, mask %#llx", n,
	   (unsigned long long)mask[0]);
	if (on_fdkernel())
		ok(n == 8 && (mask[0] & 1) && !(mask[0] & (mask[0] + 1)),
		   "the mask is CPUs 0 to n-1, those that take tasks (%#llx: all, or {0} with "
		   "smp=off)",
		   (unsigned long long)mask[0]);
	else
		skip("the host has its own CPUs", "the mask is {0}");
	ok(syscall(NR_sched_getaffinity, getpid(), sizeof mask, mask) == n, "by own pid");
	is_errno(syscall(NR_sched_getaffinity, 0, 0, mask), EINVAL, "len 0: EINVAL");
	is_errno(syscall(NR_sched_getaffinity, 0, 12, mask), EINVAL,
		 "len not a multiple of 8: EINVAL");
	is_errno(syscall(NR_sched_getaffinity, 99999999, sizeof mask, mask), ESRCH,
		 "no such pid: ESRCH");
	is_errno(syscall(NR_sched_getaffinity, 0, sizeof mask, (void *)1), EFAULT,
		 "mask at (void *)1: EFAULT");
}

int main(void)
{
	plan(19);
	test_statfs();
	test_mounts();
	test_affinity();
	return done();
}
