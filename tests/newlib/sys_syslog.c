/* syslog(2), as busybox dmesg uses it: the buffer size, reading the newest
 * bytes of the kernel log, Linux's EINVAL/EFAULT rules; on fdkernel also
 * that the log holds the kernel's own lines and that clearing empties it. */
#include <errno.h>
#include <fdkernel.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

#define NR_syslog	   103
#define ACTION_READ_ALL	   3
#define ACTION_READ_CLEAR  4
#define ACTION_CLEAR	   5
#define ACTION_SIZE_UNREAD 9
#define ACTION_SIZE_BUFFER 10

int main(void)
{
	long size = syscall(NR_syslog, ACTION_SIZE_BUFFER, NULL, 0), n;
	char *buf;
	plan(10);
	ok(size >= 4096, "SIZE_BUFFER: %ld bytes", size);
	require(size > 0 && (buf = calloc(1, size + 1)), "buffer");
	n = syscall(NR_syslog, ACTION_READ_ALL, buf, size);
	ok(n > 0 && n <= size, "READ_ALL: %ld bytes of log", n);
	ok(syscall(NR_syslog, ACTION_READ_ALL, buf, 8) <= 8, "READ_ALL with 8: at most 8 bytes");
	ok(syscall(NR_syslog, ACTION_READ_ALL, buf, 0) == 0, "READ_ALL with length 0: 0");
	is_errno(syscall(NR_syslog, ACTION_READ_ALL, NULL, 10), EINVAL,
		 "READ_ALL into NULL: EINVAL");
	is_errno(syscall(NR_syslog, ACTION_READ_ALL, buf, -1), EINVAL,
		 "READ_ALL with length -1: EINVAL");
	is_errno(syscall(NR_syslog, ACTION_READ_ALL, (void *)1, size), EFAULT,
		 "READ_ALL into (void *)1: EFAULT");
	is_errno(syscall(NR_syslog, 99, buf, 10), EINVAL, "an unknown action: EINVAL");
	if (on_fdkernel()) {
		n = syscall(NR_syslog, ACTION_READ_ALL, buf, size);
		buf[n > 0 ? n : 0] = '\0';
		ok(strstr(buf, "leak") || strstr(buf, "fdkernel") || strstr(buf, "cpio"),
		   "the log holds the kernel's lines");
		ok(syscall(NR_syslog, ACTION_CLEAR, NULL, 0) == 0 &&
		       syscall(NR_syslog, ACTION_SIZE_UNREAD, NULL, 0) == 0,
		   "CLEAR empties it");
	} else {
		skip("the host's log is the host's", "the log holds the kernel's lines");
		skip("clearing the host's log is not ours to do", "CLEAR empties it");
	}
	free(buf);
	return done();
}
