/* openat2(2): open_how read as a growing structure (short EINVAL, over a
 * page E2BIG, a longer one only with zeroes past the known fields), every
 * unknown bit refused where open ignores it, a mode only with O_CREAT,
 * O_PATH with its own flags only, RESOLVE_CACHED refusing to create; and
 * the resolve flags: NO_SYMLINKS (ELOOP for any link followed, a final one
 * kept with O_NOFOLLOW), NO_MAGICLINKS (/proc/self/exe and fd links, not
 * /proc/self), BENEATH (EXDEV for "/", "..", absolute or escaping links),
 * IN_ROOT ("/" and ".." stop at the dirfd), NO_XDEV (in one file system,
 * EXDEV across /proc's edge); a scoped ".." never escapes while a rename
 * moves its directory away. */
#define _GNU_SOURCE
#include "fdkernel_abi.h" /* struct open_how, RESOLVE_*: Linux's, from kernel/uapi */

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "testutil.h"

static char top[64];
static int topfd;

static long openat2_sz(int dfd, const char *path, const void *how, size_t size)
{
	return syscall(SYS_openat2, dfd, path, how, size);
}

static long openat2(int dfd, const char *path, uint64_t flags, uint64_t mode, uint64_t resolve)
{
	struct open_how h = {flags, mode, resolve};

	return openat2_sz(dfd, path, &h, sizeof h);
}

/* Opens like openat2 and tells whether the fd reads as the file holding text. */
static bool opens_file(int dfd, const char *path, uint64_t resolve, const char *text)
{
	char buf[32] = "";
	long fd = openat2(dfd, path, O_RDONLY, 0, resolve);

	if (fd < 0)
		return false;
	read(fd, buf, sizeof buf - 1);
	close(fd);
	return !strcmp(buf, text);
}

static void put_file(const char *name, const char *text)
{
	int fd = openat(topfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	require(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text), name);
	close(fd);
}

static void test_how(void)
{
	struct {
		struct open_how h;
		uint64_t pad;
	} big = {{O_RDONLY, 0, 0}, 0};
	long fd;

	is_errno(openat2_sz(topfd, "f", &big, 0), EINVAL, "size 0: EINVAL");
	is_errno(openat2_sz(topfd, "f", &big, 23), EINVAL, "size 23 (under version 0): EINVAL");
	is_errno(openat2_sz(topfd, "f", &big, 4097), E2BIG, "size over a page: E2BIG");
	fd = openat2_sz(topfd, "f", &big, sizeof big);
	ok(fd >= 0, "a longer open_how with zeroes past the fields opens");
	close(fd);
	big.pad = 1;
	is_errno(openat2_sz(topfd, "f", &big, sizeof big), E2BIG,
		 "a non-zero byte past them: E2BIG");
	/* the last byte of the structure on a page with none after it */
	char *page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	require(page != MAP_FAILED && munmap(page + 4096, 4096) == 0, "mmap");
	struct open_how *edge = (struct open_how *)(page + 4096 - sizeof(struct open_how));
	*edge = (struct open_how){O_RDONLY, 0, 0};
	is_errno(openat2_sz(topfd, "f", edge, sizeof *edge + 1), EFAULT,
		 "a size reaching an unmapped page: EFAULT");
	is_errno(openat2_sz(topfd, "f", (void *)8, sizeof big.h), EFAULT, "a bad pointer: EFAULT");
	munmap(page, 4096);

	is_errno(openat2(topfd, "f", 1ULL << 40, 0, 0), EINVAL, "flag bit 40: EINVAL");
	is_errno(openat2(topfd, "f", 1ULL << 30, 0, 0), EINVAL,
		 "flag bit 30: EINVAL (open ignores it)");
	is_errno(openat2(topfd, "f", O_RDONLY, 0644, 0), EINVAL, "a mode without O_CREAT: EINVAL");
	is_errno(openat2(topfd, "n", O_RDWR | O_CREAT, 010000, 0), EINVAL,
		 "mode past 07777: EINVAL");
	is_errno(openat2(topfd, "f", O_RDONLY, 0, 0x40), EINVAL, "an unknown resolve bit: EINVAL");
	is_errno(openat2(topfd, "f", O_RDONLY, 0, RESOLVE_BENEATH | RESOLVE_IN_ROOT), EINVAL,
		 "BENEATH with IN_ROOT: EINVAL");
	is_errno(openat2(topfd, "f", O_PATH | O_RDWR, 0, 0), EINVAL, "O_PATH with O_RDWR: EINVAL");
	is_errno(openat2(topfd, "d", O_RDONLY | O_CREAT | O_DIRECTORY, 0755, 0), EINVAL,
		 "O_CREAT with O_DIRECTORY: EINVAL");
	is_errno(openat(topfd, "d", O_RDONLY | O_CREAT | O_DIRECTORY, 0755), EINVAL,
		 "and from openat too (Linux 6.4)");
	is_errno(openat2(topfd, "n", O_RDWR | O_CREAT, 0600, RESOLVE_CACHED), EAGAIN,
		 "RESOLVE_CACHED with O_CREAT: EAGAIN");
	ok(opens_file(topfd, "f", RESOLVE_CACHED, "top"),
	   "RESOLVE_CACHED of a file just made opens");
	fd = openat2(topfd, "f", O_RDONLY | O_CLOEXEC, 0, 0);
	ok(fd >= 0 && fcntl(fd, F_GETFD) == FD_CLOEXEC, "O_CLOEXEC gives FD_CLOEXEC");
	close(fd);
	fd = openat2(topfd, "new", O_RDWR | O_CREAT | O_EXCL, 0640, 0);
	struct stat st;
	ok(fd >= 0 && fstat(fd, &st) == 0 && (st.st_mode & 0777) == (0640 & ~umask(022)),
	   "O_CREAT makes the file with the mode");
	close(fd);
	unlinkat(topfd, "new", 0);
	is_errno(openat2(-1, "f", O_RDONLY, 0, 0), EBADF, "a bad dirfd: EBADF");
	is_errno(openat2(topfd, NULL, O_RDONLY, 0, 0), EFAULT, "a NULL path: EFAULT");
}

/* NO_XDEV across /proc's edge, a file system of its own: down into it,
 * up out of it by "..", and through a /proc/self/fd link to a file
 * elsewhere; a walk inside it is fine. */
static void test_no_xdev(void)
{
	int proc = open("/proc", O_RDONLY | O_DIRECTORY);
	char fdpath[64];
	long fd;

	is_errno(openat2(AT_FDCWD, "/proc/version", O_RDONLY, 0, RESOLVE_NO_XDEV), EXDEV,
		 "NO_XDEV: /proc/version from /, EXDEV");
	fd = openat2(proc, "self/status", O_RDONLY, 0, RESOLVE_NO_XDEV);
	ok(fd >= 0, "NO_XDEV: self/status from /proc stays inside");
	close(fd);
	is_errno(openat2(proc, "..", O_RDONLY, 0, RESOLVE_NO_XDEV), EXDEV,
		 "NO_XDEV: .. out of /proc, EXDEV");
	snprintf(fdpath, sizeof fdpath, "self/fd/%d", topfd);
	is_errno(openat2(proc, fdpath, O_RDONLY, 0, RESOLVE_NO_XDEV), EXDEV,
		 "NO_XDEV: a /proc/self/fd link to a directory elsewhere, EXDEV");
	close(proc);
}

static void test_links(void)
{
	char fdpath[32];
	long fd;

	is_errno(openat2(topfd, "lf", O_RDONLY, 0, RESOLVE_NO_SYMLINKS), ELOOP,
		 "NO_SYMLINKS: a final link, ELOOP");
	is_errno(openat2(topfd, "ld/g", O_RDONLY, 0, RESOLVE_NO_SYMLINKS), ELOOP,
		 "NO_SYMLINKS: a link in the middle, ELOOP");
	fd = openat2(topfd, "lf", O_PATH | O_NOFOLLOW, 0, RESOLVE_NO_SYMLINKS);
	ok(fd >= 0, "NO_SYMLINKS: O_PATH|O_NOFOLLOW keeps a final link itself");
	close(fd);
	ok(opens_file(topfd, "ld/g", RESOLVE_NO_MAGICLINKS, "sub"),
	   "NO_MAGICLINKS: an ordinary link is followed");
	is_errno(openat2(AT_FDCWD, "/proc/self/exe", O_RDONLY, 0, RESOLVE_NO_MAGICLINKS), ELOOP,
		 "NO_MAGICLINKS: /proc/self/exe, ELOOP");
	snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", topfd);
	is_errno(openat2(AT_FDCWD, fdpath, O_RDONLY, 0, RESOLVE_NO_MAGICLINKS), ELOOP,
		 "NO_MAGICLINKS: /proc/self/fd/N, ELOOP");
	fd = openat2(AT_FDCWD, "/proc/self/status", O_RDONLY, 0, RESOLVE_NO_MAGICLINKS);
	ok(fd >= 0, "NO_MAGICLINKS: /proc/self is no magic link");
	close(fd);
	ok(opens_file(topfd, "sub/g", RESOLVE_NO_XDEV, "sub"), "NO_XDEV inside one file system");
	test_no_xdev();
}

static void test_scopes(void)
{
	int sub = openat(topfd, "sub", O_RDONLY | O_DIRECTORY);

	require(sub >= 0, "open sub");
	ok(opens_file(topfd, "sub/../f", RESOLVE_BENEATH, "top"), "BENEATH: sub/../f stays inside");
	ok(opens_file(topfd, "sub/rel", RESOLVE_BENEATH, "top"),
	   "BENEATH: a relative link that stays inside");
	is_errno(openat2(sub, "../f", O_RDONLY, 0, RESOLVE_BENEATH), EXDEV, "BENEATH: ../f, EXDEV");
	is_errno(openat2(sub, "x/../../f", O_RDONLY, 0, RESOLVE_BENEATH), ENOENT,
		 "BENEATH: a missing x/ fails first (ENOENT)");
	is_errno(openat2(sub, "/etc", O_RDONLY, 0, RESOLVE_BENEATH), EXDEV,
		 "BENEATH: an absolute path, EXDEV");
	is_errno(openat2(sub, "abs", O_RDONLY, 0, RESOLVE_BENEATH), EXDEV,
		 "BENEATH: an absolute link, EXDEV");
	is_errno(openat2(sub, "rel", O_RDONLY, 0, RESOLVE_BENEATH), EXDEV,
		 "BENEATH: a link up and out, EXDEV");
	is_errno(openat2(AT_FDCWD, "/proc/self/cwd", O_RDONLY, 0, RESOLVE_BENEATH), EXDEV,
		 "BENEATH from the cwd: /proc/... is absolute, EXDEV");
	ok(opens_file(sub, "/g", RESOLVE_IN_ROOT, "sub"), "IN_ROOT: /g is the dirfd's g");
	ok(opens_file(sub, "../../../g", RESOLVE_IN_ROOT, "sub"), "IN_ROOT: .. stops at the dirfd");
	ok(opens_file(sub, "gabs", RESOLVE_IN_ROOT, "sub"),
	   "IN_ROOT: an absolute link from the dirfd");
	is_errno(openat2(sub, "/proc/self/exe", O_RDONLY, 0, RESOLVE_IN_ROOT), ENOENT,
		 "IN_ROOT: /proc is not under the dirfd, ENOENT");
	close(sub);
}

/* Moves top/s/a/b to top/b and back while scoped lookups from top/s walk
 * down a chain of directories under b, back up and out of b to k: inside,
 * b/.. is a, whose k does not exist; were ".." to follow b out, it would
 * reach top/k. */
#define DEPTH 24
static atomic_bool stop;

static void *mover(void *arg)
{
	(void)arg;
	while (!stop) {
		renameat(topfd, "s/a/b", topfd, "b");
		renameat(topfd, "b", topfd, "s/a/b");
	}
	return NULL;
}

static void test_race(void)
{
	int scope, escapes = 0, agains = 0;
	pthread_t t;

	char chain[3 * DEPTH + 16] = "s/a/b", walk[6 * DEPTH + 16] = "a/b/";

	require(mkdirat(topfd, "s", 0755) == 0 && mkdirat(topfd, "s/a", 0755) == 0 &&
		    mkdirat(topfd, "s/a/b", 0755) == 0,
		"mkdir s/a/b");
	for (int i = 0; i < DEPTH; i++) {
		strcat(chain, "/c");
		require(mkdirat(topfd, chain, 0755) == 0, "mkdir the chain");
		strcat(walk, "c/");
	}
	for (int i = 0; i <= DEPTH; i++)
		strcat(walk, "../");
	strcat(walk, "k");
	put_file("k", "outside");
	scope = openat(topfd, "s", O_RDONLY | O_DIRECTORY);
	require(scope >= 0 && pthread_create(&t, NULL, mover, NULL) == 0, "start the mover");
	for (int i = 0; i < 5000; i++) {
		long fd = openat2(scope, walk, O_RDONLY, 0, RESOLVE_BENEATH);
		escapes += fd >= 0;
		agains += fd < 0 && errno == EAGAIN;
		if (fd >= 0)
			close(fd);
	}
	stop = true;
	pthread_join(t, NULL);
	diag("%d lookups raced by a rename gave EAGAIN", agains);
	is_int(escapes, 0, "a scoped .. never left the scope under concurrent renames");
	renameat(topfd, "b", topfd, "s/a/b");
	close(scope);
	int bad = 0;
	for (int i = DEPTH; i >= 0; i--, *strrchr(chain, '/') = 0)
		bad += unlinkat(topfd, chain, AT_REMOVEDIR) != 0;
	ok(!bad && unlinkat(topfd, "k", 0) == 0 && unlinkat(topfd, "s/a", AT_REMOVEDIR) == 0 &&
	       unlinkat(topfd, "s", AT_REMOVEDIR) == 0,
	   "remove the tree");
}

int main(void)
{
	plan(49);
	snprintf(top, sizeof top, "/tmp/openat2-%d", (int)getpid());
	require(mkdir(top, 0755) == 0, "mkdir");
	topfd = open(top, O_RDONLY | O_DIRECTORY);
	require(topfd >= 0 && mkdirat(topfd, "sub", 0755) == 0, "mkdir sub");
	put_file("f", "top");
	put_file("sub/g", "sub");
	require(symlinkat("f", topfd, "lf") == 0 && symlinkat("sub", topfd, "ld") == 0 &&
		    symlinkat("../f", topfd, "sub/rel") == 0 &&
		    symlinkat("/etc", topfd, "sub/abs") == 0 &&
		    symlinkat("/g", topfd, "sub/gabs") == 0,
		"symlinks");
	test_how();
	test_links();
	test_scopes();
	test_race();
	const char *names[] = {"sub/g", "sub/rel", "sub/abs", "sub/gabs", "f", "lf", "ld"};
	int bad = 0;
	for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
		bad += unlinkat(topfd, names[i], 0) != 0;
	ok(!bad && unlinkat(topfd, "sub", AT_REMOVEDIR) == 0 && rmdir(top) == 0, "clean up");
	close(topfd);
	return done();
}
