/* The liburing tests' teardown child: a forked process arms requests on
 * a ring of its own, then closes the ring or not, and exits; the parent
 * gets its exit status.  Whatever it left in flight must complete or be
 * cancelled, and nothing leak (the guest's leak check). */
#ifndef LIBURING_URING_CHILD_H
#define LIBURING_URING_CHILD_H

#include <liburing.h>
#include <stdbool.h>
#include <sys/wait.h>
#include <unistd.h>

/* arm prepares the child's SQEs on ring c (of entries) and returns how
 * many; the exit status: 0, 2 (no ring), 3 (not all submitted), -1 (not
 * an exit). */
static inline int uring_child_n(unsigned int entries, bool close_ring,
				int (*arm)(struct io_uring *c, int arg), int arg)
{
	struct io_uring c;
	int st, n;
	pid_t pid = fork();

	if (pid == 0) {
		if (io_uring_queue_init(entries, &c, 0) || (n = arm(&c, arg)) < 0)
			_exit(2);
		if (io_uring_submit(&c) != n)
			_exit(3);
		if (close_ring)
			close(c.ring_fd);
		_exit(0);
	}
	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static inline int uring_child(bool close_ring, int (*arm)(struct io_uring *c, int arg), int arg)
{
	return uring_child_n(4, close_ring, arm, arg);
}

#endif
