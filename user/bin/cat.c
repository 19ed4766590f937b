/* cat: copies each named file, or standard input when there is none or the
 * name is "-", to standard output. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

/* Copy all of FD to standard output; -1 with errno set if reading failed.
 * A failed write ends cat, as GNU cat: the error is standard output's, not
 * the operand's, and the next operand could not be written either. */
static int copy_fd(int fd)
{
	char buf[4096];
	ssize_t n;
	while ((n = read(fd, buf, sizeof buf)) > 0) {
		for (ssize_t done = 0, w; done < n; done += w)
			if ((w = write(1, buf + done, n - done)) < 0)
				exit(cmd_error("cat", "write error"));
	}
	return n < 0 ? -1 : 0;
}

static int cat_file(const char *name)
{
	int fd, ret;
	if (strcmp(name, "-") == 0)
		return copy_fd(0);
	if ((fd = open(name, O_RDONLY)) < 0)
		return -1;
	ret = copy_fd(fd);
	close(fd);
	return ret;
}

int main(int argc, char **argv)
{
	char *stdin_only[] = {argv[0], "-", NULL};
	if (argc < 2)
		return cmd_each(2, stdin_only, "cat", cat_file);
	return cmd_each(argc, argv, "cat", cat_file);
}
