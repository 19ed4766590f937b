/*
 * epoll watches are bounded (fdkernel-only: Linux's own limit,
 * max_user_watches, is per user and far larger on the host): epolls are
 * filled with the dups of one pipe end until ADD fails with ENOSPC, the
 * system still works, and closing everything gives every watch back.
 */
#include "epoll_util.h"
#include "robust.h"

#include <sys/resource.h>

#define NDUPS	   2000
#define MAX_EPOLLS 400

static int dups[NDUPS], eps[MAX_EPOLLS];

/* Fills epolls until an ADD fails: its errno, *added the items made. */
static int fill(int *neps, long *added)
{
	for (*neps = 0; *neps < MAX_EPOLLS; (*neps)++) {
		eps[*neps] = epoll_create1(0);
		if (eps[*neps] < 0)
			return errno;
		for (int i = 0; i < NDUPS; i++) {
			if (ep_ctl(eps[*neps], EPOLL_CTL_ADD, dups[i], EPOLLIN) < 0) {
				(*neps)++;
				return errno;
			}
			(*added)++;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct rlimit r = {NDUPS + MAX_EPOLLS + 64, NDUPS + MAX_EPOLLS + 64};
	struct kstat before, after;
	bool have;
	long added = 0;
	int p[2], neps, err;

	(void)argc;
	plan(5);
	if (!on_fdkernel()) {
		for (int i = 0; i < 5; i++)
			skip("fdkernel-only: Linux's limit is per user and far larger",
			     "epoll watches");
		return done();
	}
	require(setrlimit(RLIMIT_NOFILE, &r) == 0 && pipe(p) == 0, "set-up");
	for (int i = 0; i < NDUPS; i++)
		require((dups[i] = dup(p[0])) >= 0, "dup");
	have = kstat_read(&before); /* the grown fd table stays until exit */
	err = fill(&neps, &added);
	is_int(err, ENOSPC, "ADD until the watch limit: ENOSPC");
	diag("%ld watches in %d epolls", added, neps);
	ok(added > 10000, "more than 10,000 watches fit first");
	system_usable(argv[0], "the watch limit");
	for (int i = 0; i < neps; i++)
		close(eps[i]);
	/* Watches and files exactly; the heap and frames at the end of the
	 * run (the kernel's leak check), when the reaper and the deferred
	 * frees of the files are done. */
	ok(have && kstat_read(&after) && after.v[KS_EPOLL_WATCHES] == before.v[KS_EPOLL_WATCHES] &&
	       after.v[KS_FILES] == before.v[KS_FILES],
	   "every watch and epoll file given back");
	for (int i = 0; i < NDUPS; i++)
		close(dups[i]);
	close(p[0]);
	close(p[1]);
	return done();
}
