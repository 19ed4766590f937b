/*
 * One epoll shared by forked processes that race: one adds and removes
 * items, one waits, one makes the pipes ready and drains them, one dups
 * and closes the watched files; then the parent closes everything while
 * they may still run.  Nothing may crash, hang or leak.
 */
#include "epoll_util.h"
#include "robust.h"
#include "sock_util.h"

#define NPIPES 8
#define RUN_MS 400

static int ep, p[NPIPES][2];

static void adder(void)
{
	for (long end = now_ms() + RUN_MS, i = 0; now_ms() < end; i++) {
		int fd = p[i % NPIPES][i % 3 == 0];
		ep_ctl(ep, i % 2 ? EPOLL_CTL_DEL : EPOLL_CTL_ADD, fd,
		       EPOLLIN | EPOLLOUT | (i % 5 == 0 ? EPOLLET : 0) |
			   (i % 7 == 0 ? EPOLLONESHOT : 0));
		if (i % 11 == 0)
			ep_ctl(ep, EPOLL_CTL_MOD, fd, EPOLLIN);
	}
}

static void waiter(void)
{
	struct epoll_event evs[NPIPES];

	for (long end = now_ms() + RUN_MS; now_ms() < end;)
		if (epoll_wait(ep, evs, NPIPES, 1) < 0 && errno != EINTR)
			_exit(2);
}

static void writer(void)
{
	char buf[64];

	for (long end = now_ms() + RUN_MS, i = 0; now_ms() < end; i++) {
		if (write(p[i % NPIPES][1], "x", 1) < 0 && errno != EAGAIN)
			_exit(3);
		if (i % 2)
			read(p[(i / 2) % NPIPES][0], buf, sizeof buf);
	}
}

static void duper(void)
{
	for (long end = now_ms() + RUN_MS, i = 0; now_ms() < end; i++) {
		int d = dup(p[i % NPIPES][0]);
		ep_ctl(ep, EPOLL_CTL_ADD, d, EPOLLIN);
		close(d); /* the original keeps the file: the item stays */
	}
}

int main(void)
{
	void (*roles[])(void) = {adder, waiter, writer, duper};
	struct kstat before;
	bool have = kstat_read(&before);
	pid_t pid[4];
	int good = 0;

	plan(3);
	require((ep = epoll_create1(0)) >= 0, "epoll_create1");
	for (int i = 0; i < NPIPES; i++) {
		require(pipe(p[i]) == 0, "pipe");
		fcntl(p[i][0], F_SETFL, O_NONBLOCK);
		fcntl(p[i][1], F_SETFL, O_NONBLOCK);
	}
	fflush(stdout);
	for (int r = 0; r < 4; r++)
		if ((pid[r] = fork()) == 0) {
			roles[r]();
			_exit(0);
		}
	sleep_ms(RUN_MS / 2);
	close(ep); /* the children's copies keep it */
	for (int i = 0; i < NPIPES; i++)
		close(p[i][0]);
	for (int r = 0; r < 4; r++)
		good += child_ok(pid[r]);
	is_int(good, 4, "four racing processes exited cleanly");
	ok(pipe_round_trip(), "a pipe round trip works after");
	for (int i = 0; i < NPIPES; i++)
		close(p[i][1]);
	kstat_unchanged(&before, have, "nothing left: files, epoll watches");
	return done();
}
