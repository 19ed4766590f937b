/* Filling the ramfs: it has a size limit (half of memory by default), writes
 * past it get ENOSPC after a partial write as on Linux's tmpfs, the system
 * keeps working while it is full, and unlinking gives the space back. */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "robust.h"

#define CHUNK (1UL << 20)
#define PAGE  4096L

static char path[64];

/* Writes CHUNKs to FD until a write fails (after a short one, as Linux);
 * returns the bytes written and the failing write's errno in *err. */
static long fill(int fd, const char *buf, int *err)
{
	long total = 0, n;
	while ((n = write(fd, buf, CHUNK)) > 0)
		total += n;
	*err = n < 0 ? errno : 0;
	return total;
}

/* Gives back the last page or two and writes three pages at the end: only
 * what was freed fits, then ENOSPC. */
static void partial_write(int fd, const char *buf, long size)
{
	long keep = (size & ~(PAGE - 1)) - PAGE, freed = ((size + PAGE - 1) & ~(PAGE - 1)) - keep;
	require(ftruncate(fd, keep) == 0 && lseek(fd, keep, SEEK_SET) == keep, "ftruncate");
	is_int(write(fd, buf, 3 * PAGE), freed, "with %ld bytes freed, a 3-page write is partial",
	       freed);
	is_errno(write(fd, buf, PAGE), ENOSPC, "and the next write: ENOSPC");
}

int main(int argc, char **argv)
{
	struct kstat before;
	char *buf = malloc(CHUNK), out[256];
	int err, fd;
	(void)argc;
	if (!on_fdkernel())
		skip_all("would fill the host's /tmp");
	require(buf != NULL, "malloc");
	memset(buf, 'z', CHUNK);
	bool have_before = kstat_read(&before);
	plan(12);
	snprintf(path, sizeof path, "/tmp/ramfs-full-%d", (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	require(fd >= 0, "open");
	long ms = now_ms(), size = fill(fd, buf, &err);
	ms = now_ms() - ms;
	diag("filled the ramfs with %ld MiB in %ld ms", size >> 20, ms);
	ok(err == ENOSPC, "writing until the ramfs is full ends in ENOSPC (errno %d)", err);
	ok(size > (64L << 20), "a file can hold more than 64 MiB (%ld)", size);
	ok(pwrite(fd, "y", 1, 0) == 1, "overwriting a page the file has still works");
	snprintf(out, sizeof out, "%s.link", path);
	is_errno(symlink(path, out), ENOSPC, "a symlink counts one page: ENOSPC when full");
	partial_write(fd, buf, size);
	system_usable(argv[0], "the ramfs full");
	close(fd);
	snprintf(out, sizeof out, "rm %s", path);
	ok(exited_with(run_shell(argv[0], out, out, sizeof out), 0), "rm of the big file works");
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ok(fd >= 0 && write(fd, buf, CHUNK) == (long)CHUNK, "then the space is usable again");
	close(fd);
	unlink(path);
	check_shell(argv[0], "cat /dev/zero > @; echo $?; rm @; echo $?",
		    "cat: write error: No space left on device\n1\n0\n", 0);
	kstat_unchanged(&before, have_before, "every frame came back");
	free(buf);
	return done();
}
