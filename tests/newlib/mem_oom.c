/* The OOM killer: when a page fault finds no free frame, the biggest process
 * is killed, not the one that happened to fault.  A hog takes all the memory
 * file writes give and maps it (anonymous mappings are lazy: no frame
 * until touched); then a small process grows its stack by 7 MiB, past the frame
 * reserve: the hog must die of SIGKILL and the small process live.  Needs
 * the default 512 MiB guest (the reserve, 1/128 of memory, is under 7 MiB). */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <fdkernel.h>
#include <sys/mman.h>
#include <unistd.h>

#include "robust.h"

#define CHUNK (1UL << 20)
#define PAGE  4096UL
#define GROW  (7UL << 20)

/* Writes fd full (until its file system or the frame reserve refuses)
 * and maps it all, so its pages count as the caller's. */
static void fill_and_map(int fd)
{
	static char chunk[CHUNK];
	size_t size = 0;

	for (size_t len = CHUNK; fd >= 0 && len >= PAGE; len /= 2)
		while (write(fd, chunk, len) == (ssize_t)len)
			size += len;
	if (size)
		mmap(NULL, size, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
}

/* Takes all the memory file writes give: a memfd (its tmpfs holds half of
 * memory at most), then an unlinked file of /tmp for the rest; tells the
 * parent, then waits to be killed. */
static _Noreturn void hog(int full_fd)
{
	int fd;

	fill_and_map(syscall(__NR_memfd_create, "hog", 0));
	fd = open("/tmp/mem_oom_hog", O_RDWR | O_CREAT | O_TRUNC, 0600);
	unlink("/tmp/mem_oom_hog");
	fill_and_map(fd);
	write(full_fd, "f", 1);
	for (;;)
		pause();
}

/* Waits for the word, then grows the stack page by page: every page is a
 * fault that needs a frame.  Exits 0 if it got them all. */
static _Noreturn void small(int go_fd)
{
	volatile char *sp = __builtin_frame_address(0);
	char c;
	read(go_fd, &c, 1);
	for (uintptr_t off = PAGE; off < GROW; off += PAGE)
		sp[-(intptr_t)off] = 1;
	_exit(0);
}

int main(int argc, char **argv)
{
	struct kstat before;
	int full[2], go[2], hog_status = -1, small_status = -1;
	pid_t hog_pid, small_pid;
	char c;
	(void)argc;
	if (!on_fdkernel())
		skip_all("would exhaust the host's memory");
	bool have_before = kstat_read(&before);
	plan(6);
	require(pipe(full) == 0 && pipe(go) == 0, "pipe");
	fflush(stdout);
	if ((small_pid = fork()) == 0)
		small(go[0]);
	if ((hog_pid = fork()) == 0)
		hog(full[1]);
	require(small_pid > 0 && hog_pid > 0, "fork");
	ok(read(full[0], &c, 1) == 1, "the hog took all the memory file writes give");
	write(go[1], "g", 1);
	waitpid(small_pid, &small_status, 0);
	kill(hog_pid, SIGTERM); /* if the OOM killer did not kill it */
	waitpid(hog_pid, &hog_status, 0);
	if (!ok(exited_with(small_status, 0), "the small process's stack faults got their frames"))
		diag("wait status %#x", small_status);
	if (!ok(killed_by(hog_status, SIGKILL),
		"the hog, the biggest process, was killed (SIGKILL)"))
		diag("wait status %#x", hog_status);
	close(full[0]), close(full[1]), close(go[0]), close(go[1]);
	system_usable(argv[0], "the OOM kill");
	kstat_unchanged(&before, have_before, "every frame came back");
	return done();
}
