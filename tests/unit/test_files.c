/*
 * Unit tests of kernel/fd/fdtable.c (cmocka): the files table API the syscall
 * layer uses, its errors, growth under readers, ENOMEM and leak checks.
 */
#include <pthread.h>

#include "files_fixture.h"

static void test_alloc_seq(void **state)
{
	struct files_table *t = *state;

	assert_int_equal(open_file(t, 0, 0, 0), 0);
	assert_int_equal(open_file(t, 0, 0, 1), 1);
	assert_int_equal(open_file(t, 10, FDF_CLOEXEC, 10), 10);
	assert_int_equal(open_file(t, 0, 0, 2), 2);
	assert_int_equal(files_close(t, 1), 0);
	assert_int_equal(open_file(t, 0, 0, 1), 1);
	assert_int_equal(files_alloc_fd(t, 0, 0), 3);
	assert_int_equal(files_count(t), 5);
	assert_int_equal(files_get_fdflags(t, 10), FD_CLOEXEC);
}

static void test_alloc_bad(void **state)
{
	struct files_table *t = *state;
	struct snapshot before = snap(t);

	assert_int_equal(files_alloc_fd(t, 0, O_APPEND), -EINVAL);
	assert_int_equal(files_alloc_fd(t, 0, 1u << 31), -EINVAL);
	assert_int_equal(files_alloc_fd(t, -1, 0), -EINVAL);
	assert_int_equal(files_alloc_fd(t, FILES_DEFAULT_NOFILE, 0), -EMFILE);
	assert_int_equal(files_alloc_fd(t, NS, 0), -EMFILE);
	assert_unchanged(t, before);
}

static void test_limit(void **state)
{
	struct files_table *t = *state;
	int i;

	assert_int_equal(files_set_nofile(t, 100), 0);
	for (i = 0; i < 100; i++)
		assert_int_equal(files_alloc_fd(t, 0, 0), i);
	assert_int_equal(files_alloc_fd(t, 0, 0), -EMFILE);
	assert_int_equal(files_alloc_fd(t, 50, 0), -EMFILE);
	/*
	 * Lowering below open fds: they stay; a free number below the limit is
	 * still handed out (Linux), a non-sequential fd only below it by count.
	 */
	assert_int_equal(files_set_nofile(t, 10), 0);
	assert_int_equal(files_count(t), 100);
	assert_int_equal(files_unreserve_fd(t, 5), 0);
	assert_int_equal(files_unreserve_fd(t, 50), 0);
	assert_int_equal(files_alloc_fd(t, 0, FDF_NONSEQ), -EMFILE);
	assert_int_equal(files_alloc_fd(t, 0, 0), 5);
	assert_int_equal(files_alloc_fd(t, 0, 0), -EMFILE);
	assert_int_equal(files_set_nofile(t, NR_OPEN_MAX + 1UL), -EPERM);
	assert_int_equal(files_set_nofile(t, ~0UL), -EPERM);
	assert_int_equal(files_get_nofile(t), 10);
	assert_int_equal(files_set_nofile(t, NR_OPEN_MAX), 0);
	assert_int_equal(files_alloc_fd(t, 6, 0), 50);
	assert_int_equal(files_alloc_fd(t, NR_OPEN_MAX - 1, 0), NR_OPEN_MAX - 1);
	assert_int_equal(files_alloc_fd(t, NR_OPEN_MAX - 1, 0), -EMFILE);
	assert_int_equal(t->seq->size, NR_OPEN_MAX);
}

static void test_growth_keeps_readers(void **state)
{
	struct files_table *t = *state;
	struct fdmap *old = t->seq;
	struct file *f;
	size_t blocks;
	int i;

	for (i = 0; i < 64; i++)
		open_file(t, 0, 0, i);
	f = fdmap_file(old, 7); /* what a lock-free reader loaded before growth */
	assert_int_equal(open_file(t, 0, 0, 64), 64);
	assert_ptr_not_equal(t->seq, old);
	assert_int_equal(t->seq->size, 128);
	/* The old map is queued, not freed: the reader can still use it. */
	assert_int_equal(files_close(t, 7), 0);
	assert_ptr_equal(fdmap_file(old, 7), f);
	assert_int_equal(id_at(t, 7), -1);
	blocks = heap_live_blocks();
	grace_drain();
	assert_int_equal(heap_live_blocks(), blocks - 1);
	for (i = 0; i < 65; i++)
		assert_int_equal(id_at(t, i), i == 7 ? -1 : i);
	assert_int_equal(files_alloc_fd(t, 0, 0), 7);
	/* A minfd far past the map grows it to cover minfd at once. */
	assert_int_equal(files_alloc_fd(t, 1000, 0), 1000);
	assert_int_equal(t->seq->size, 1024);
}

static void test_install_and_lookup(void **state)
{
	struct files_table *t = *state;
	struct file *f = fake_file_new(42);
	int fd = files_alloc_fd(t, 0, 0);
	int ns = files_alloc_fd(t, 0, FDF_NONSEQ);

	assert_null(files_lookup(t, fd)); /* reserved */
	assert_int_equal(files_install(t, 1, f), -EBADF);
	assert_int_equal(files_install(t, -1, f), -EBADF);
	assert_int_equal(files_install(t, fd, f), 0);
	assert_int_equal(files_install(t, fd, f), -EBADF);
	assert_int_equal(files_install(t, ns, fake_file_new(43)), 0);
	assert_int_equal(id_at(t, fd), 42);
	assert_int_equal(id_at(t, ns), 43);
	assert_int_equal(f->refs, 1);
	assert_null(files_lookup(t, -1));
	assert_null(files_lookup(t, 1));
	assert_null(files_lookup(t, 5000));
	assert_null(files_lookup(t, NS - 1));
	assert_null(files_lookup(t, NS + NONSEQ_FD_MAX));
	assert_null(files_lookup(t, 0x7fffffff));
}

static void test_close_bad(void **state)
{
	struct files_table *t = *state;
	struct snapshot before;
	int reserved;

	open_file(t, 0, 0, 0);
	open_file(t, 0, FDF_NONSEQ, 1);
	reserved = files_alloc_fd(t, 0, 0);
	before = snap(t);
	assert_int_equal(files_close(t, -1), -EBADF);
	assert_int_equal(files_close(t, -NS), -EBADF);
	assert_int_equal(files_close(t, 2), -EBADF);
	assert_int_equal(files_close(t, 63), -EBADF);
	assert_int_equal(files_close(t, 64), -EBADF);
	assert_int_equal(files_close(t, 5000000), -EBADF);
	assert_int_equal(files_close(t, NS - 1), -EBADF);
	assert_int_equal(files_close(t, NS + 1), -EBADF);
	assert_int_equal(files_close(t, NS + NONSEQ_FD_MAX), -EBADF);
	assert_int_equal(files_close(t, reserved), -EBADF);
	assert_int_equal(files_unreserve_fd(t, 0), -EBADF);
	assert_int_equal(files_unreserve_fd(t, 7), -EBADF);
	assert_int_equal(files_unreserve_fd(t, -7), -EBADF);
	assert_unchanged(t, before);
	assert_int_equal(files_unreserve_fd(t, reserved), 0);
	assert_int_equal(files_close(t, NS), 0);
	assert_int_equal(files_close(t, NS), -EBADF);
	assert_int_equal(files_count(t), 1);
}

static void test_nonseq_order_and_growth(void **state)
{
	struct files_table *t = *state;
	int i;

	for (i = 0; i < 64; i++)
		assert_int_equal(open_file(t, 0, FDF_NONSEQ, i), NS + i);
	assert_int_equal(files_close(t, NS + 10), 0);
	assert_int_equal(files_close(t, NS + 3), 0);
	/* Released fds wait behind the free ones: growth appends, they stay first. */
	assert_int_equal(open_file(t, 0, FDF_NONSEQ, 10), NS + 10);
	assert_int_equal(open_file(t, 0, FDF_NONSEQ, 3), NS + 3);
	assert_int_equal(open_file(t, 0, FDF_NONSEQ, 64), NS + 64);
	assert_int_equal(t->nonseq->size, 128);
	assert_int_equal(files_close(t, NS + 5), 0);
	for (i = 65; i < 128; i++)
		assert_int_equal(files_alloc_fd(t, 0, FDF_NONSEQ), NS + i);
	assert_int_equal(files_alloc_fd(t, 0, FDF_NONSEQ), NS + 5);
	assert_int_equal(id_at(t, NS + 64), 64);
	assert_int_equal(files_count(t), 128);
	assert_int_equal(t->seq->busy, 0);
}

static void test_nonseq_max(void **state)
{
	struct files_table *t = *state;
	int i;

	assert_int_equal(files_set_nofile(t, NR_OPEN_MAX), 0); /* counts them too */
	for (i = 0; i < NONSEQ_FD_MAX; i++)
		files_alloc_fd(t, 0, FDF_NONSEQ);
	assert_int_equal(files_count(t), NONSEQ_FD_MAX);
	assert_int_equal(files_alloc_fd(t, 0, FDF_NONSEQ), -EMFILE);
	assert_int_equal(files_unreserve_fd(t, NS + 77), 0);
	assert_int_equal(files_alloc_fd(t, 0, FDF_NONSEQ | FDF_CLOFORK), NS + 77);
}

/* RLIMIT_NOFILE bounds the open fds of both areas together. */
static void test_limit_both_areas(void **state)
{
	struct files_table *t = *state;
	struct fdmap *ns = t->nonseq;

	assert_int_equal(files_set_nofile(t, 0), 0);
	assert_int_equal(files_alloc_fd(t, 0, FDF_NONSEQ), -EMFILE);
	assert_int_equal(files_set_nofile(t, 4), 0);
	assert_int_equal(files_alloc_fd(t, 0, FDF_NONSEQ), NS);
	assert_int_equal(files_alloc_fd(t, 0, 0), 0);
	assert_int_equal(open_file(t, 0, FDF_NONSEQ, 7), NS + 1);
	assert_int_equal(open_file(t, 0, 0, 8), 1);
	assert_int_equal(files_alloc_fd(t, 0, 0), -EMFILE);
	assert_int_equal(files_alloc_fd(t, 0, FDF_NONSEQ), -EMFILE);
	/* dup_to a free fd adds one: EMFILE, and no growth; onto an open one adds none. */
	assert_int_equal(files_dup_to(t, NS + 1, NS + 500, 0), -EMFILE);
	assert_int_equal(files_dup_to(t, NS + 1, 3, 0), -EMFILE);
	assert_ptr_equal(t->nonseq, ns);
	assert_int_equal(files_dup_to(t, 1, 9, 0), -EBADF);
	assert_int_equal(files_dup_to(t, NS + 1, 1, 0), 1);
	assert_int_equal(id_at(t, 1), 7);
	assert_int_equal(files_close(t, NS + 1), 0);
	assert_int_equal(files_dup_to(t, 1, NS + 500, 0), NS + 500);
	assert_int_equal(files_count(t), 4);
}

static void test_dup_to(void **state)
{
	struct files_table *t = *state;
	struct file *f;

	open_file(t, 0, 0, 0);
	open_file(t, 0, FDF_CLOEXEC, 1);
	f = files_lookup(t, 0);
	assert_int_equal(files_dup_to(t, 0, 5, FD_CLOFORK), 5);
	assert_int_equal(f->refs, 3);
	assert_int_equal(files_get_fdflags(t, 5), FD_CLOFORK);
	/* Onto itself: nothing changes, flags included. */
	assert_int_equal(files_dup_to(t, 1, 1, 0), 1);
	assert_int_equal(files_get_fdflags(t, 1), FD_CLOEXEC);
	/* Onto a busy fd: the old file is closed, the new one is there. */
	assert_int_equal(files_dup_to(t, 0, 1, 0), 1);
	assert_int_equal(id_at(t, 1), 0);
	assert_int_equal(files_get_fdflags(t, 1), 0);
	assert_int_equal(f->refs, 4);
	assert_int_equal(fake_files_live(), 1);
	/* Into the non-sequential area, past its current size: it grows. */
	assert_int_equal(files_dup_to(t, 0, NS + 1000, FD_CLOEXEC), NS + 1000);
	assert_int_equal(t->nonseq->size, 1024);
	assert_int_equal(id_at(t, NS + 1000), 0);
	assert_int_equal(files_alloc_fd(t, 0, FDF_NONSEQ), NS);
	/* Seq area past the map but below the limit: grows too. */
	assert_int_equal(files_dup_to(t, NS + 1000, 900, 0), 900);
	assert_int_equal(files_count(t), 6);
	file_put(f);
}

static void test_dup_to_bad(void **state)
{
	struct files_table *t = *state;
	struct snapshot before;
	int reserved;

	open_file(t, 0, 0, 0);
	reserved = files_alloc_fd(t, 0, 0);
	before = snap(t);
	assert_int_equal(files_dup_to(t, 0, reserved, 0), -EBUSY);
	assert_int_equal(files_dup_to(t, reserved, 3, 0), -EBADF);
	assert_int_equal(files_dup_to(t, reserved, reserved, 0), -EBADF);
	assert_int_equal(files_dup_to(t, 2, 3, 0), -EBADF);
	assert_int_equal(files_dup_to(t, -1, 3, 0), -EBADF);
	assert_int_equal(files_dup_to(t, 0, -1, 0), -EBADF);
	assert_int_equal(files_dup_to(t, 0, FILES_DEFAULT_NOFILE, 0), -EBADF);
	assert_int_equal(files_dup_to(t, 0, NS - 1, 0), -EBADF);
	assert_int_equal(files_dup_to(t, 0, NS + NONSEQ_FD_MAX, 0), -EBADF);
	assert_int_equal(files_dup_to(t, 0, 3, FDF_NONSEQ), -EINVAL);
	assert_int_equal(files_dup_to(t, 0, 3, 4), -EINVAL);
	assert_unchanged(t, before);
}

static void test_fdflags(void **state)
{
	struct files_table *t = *state;
	int fd = open_file(t, 0, FDF_CLOEXEC | FDF_CLOFORK, 0);
	int reserved = files_alloc_fd(t, 0, FDF_CLOEXEC);

	assert_int_equal(files_get_fdflags(t, fd), FD_CLOEXEC | FD_CLOFORK);
	assert_int_equal(files_set_fdflags(t, fd, FD_CLOFORK), 0);
	assert_int_equal(files_get_fdflags(t, fd), FD_CLOFORK);
	assert_int_equal(files_set_fdflags(t, fd, 0), 0);
	assert_int_equal(files_get_fdflags(t, fd), 0);
	assert_int_equal(files_set_fdflags(t, fd, 4), -EINVAL);
	assert_int_equal(files_set_fdflags(t, fd, FD_CLOEXEC | 8), -EINVAL);
	assert_int_equal(files_get_fdflags(t, fd), 0);
	assert_int_equal(files_get_fdflags(t, reserved), -EBADF);
	assert_int_equal(files_set_fdflags(t, reserved, 0), -EBADF);
	assert_int_equal(files_get_fdflags(t, 9), -EBADF);
	assert_int_equal(files_get_fdflags(t, -9), -EBADF);
	assert_int_equal(files_set_fdflags(t, NS - 9, 0), -EBADF);
}

/* Growth and dup_to fail cleanly when memory runs out. */
static void test_growth_enomem(void **state)
{
	struct files_table *t = *state;
	struct snapshot before;
	int i;

	for (i = 0; i < 64; i++)
		open_file(t, 0, 0, i);
	for (i = 0; i < 64; i++)
		open_file(t, 0, FDF_NONSEQ, i);
	before = snap(t);
	heap_fail_nth(1);
	assert_int_equal(files_alloc_fd(t, 0, 0), -ENOMEM);
	heap_fail_nth(1);
	assert_int_equal(files_alloc_fd(t, 0, FDF_NONSEQ), -ENOMEM);
	heap_fail_nth(1);
	assert_int_equal(files_dup_to(t, 0, 500, 0), -ENOMEM);
	heap_fail_nth(1);
	assert_int_equal(files_dup_to(t, 0, NS + 500, 0), -ENOMEM);
	assert_unchanged(t, before);
	heap_fail_nth(1);
	assert_null(files_create());
	heap_fail_nth(2);
	assert_null(files_create());
	heap_fail_nth(3);
	assert_null(files_create());
	assert_unchanged(t, before);
	heap_fail_nth(0);
	assert_int_equal(files_alloc_fd(t, 0, 0), 64);
}

/* Every user-visible form of fd flags converts to the one internal form. */
static void test_fdflags_convert(void **state)
{
	(void)state;
	assert_int_equal(fdflags_from_open(O_RDWR | O_APPEND | O_NONBLOCK), 0);
	assert_int_equal(fdflags_from_open(O_CLOEXEC), FDF_CLOEXEC);
	assert_int_equal(fdflags_from_open(O_CLOFORK | O_WRONLY), FDF_CLOFORK);
	assert_int_equal(fdflags_from_open(O_NONSEQFD), FDF_NONSEQ);
	assert_int_equal(fdflags_from_open(O_CLOEXEC | O_CLOFORK | O_NONSEQFD), FDF_ALL);
	assert_int_equal(fdflags_from_sysind(SYSIND_NONBLOCK | SYSIND_SIGMASK | SYSIND_NOFOLLOW),
			 0);
	assert_int_equal(fdflags_from_sysind(SYSIND_CLOEXEC), FDF_CLOEXEC);
	assert_int_equal(fdflags_from_sysind(SYSIND_CLOFORK), FDF_CLOFORK);
	assert_int_equal(fdflags_from_sysind(SYSIND_NONSEQFD), FDF_NONSEQ);
	assert_int_equal(fdflags_from_close_range(CLOSE_RANGE_UNSHARE), 0);
	assert_int_equal(fdflags_from_close_range(CLOSE_RANGE_CLOEXEC), FDF_CLOEXEC);
	assert_int_equal(fdflags_from_close_range(CLOSE_RANGE_CLOFORK), FDF_CLOFORK);
	assert_int_equal(FD_CLOEXEC | FD_CLOFORK, FDF_KEPT); /* F_GETFD's values */
}

/* dup in both areas: the fast half (non-sequential, a slot on the free
 * list) and the slow half (sequential, growth, errors) agree. */
static void test_dup(void **state)
{
	struct files_table *t = *state;
	int fd = open_file(t, 0, 0, 7), i;

	assert_int_equal(files_dup(t, fd, 0, 0), 1);
	assert_int_equal(files_dup(t, fd, 10, FDF_CLOEXEC), 10);
	assert_int_equal(files_get_fdflags(t, 10), FD_CLOEXEC);
	assert_int_equal(files_dup(t, fd, 0, FDF_NONSEQ | FDF_CLOFORK), NS);
	assert_int_equal(files_get_fdflags(t, NS), FD_CLOFORK);
	assert_int_equal(id_at(t, NS), 7);
	for (i = 1; i < 200; i++) /* past the 64 first slots: the slow half grows */
		assert_int_equal(files_dup(t, fd, 0, FDF_NONSEQ), NS + i);
	assert_int_equal(id_at(t, NS + 199), 7);
	assert_int_equal(files_dup(t, 5, 0, FDF_NONSEQ), -EBADF);
	assert_int_equal(files_dup(t, 5, 0, 0), -EBADF);
	assert_int_equal(files_dup(t, fd, 0, FDMAP_F_BUSY | FDF_CLOEXEC), 2); /* not kept */
	assert_int_equal(files_get_fdflags(t, 2), FD_CLOEXEC);
	assert_int_equal(files_dup(t, fd, 0, FDMAP_F_BUSY | FDF_NONSEQ), NS + 200);
	assert_int_equal(files_get_fdflags(t, NS + 200), 0);
	assert_int_equal(files_dup(t, fd, -1, 0), -EINVAL);
	files_set_nofile(t, 205);
	assert_int_equal(files_dup(t, fd, 0, FDF_NONSEQ), -EMFILE);
	assert_int_equal(files_dup(t, fd, 0, 0), -EMFILE);
}

struct reader {
	struct files_table *t;
	int fds, stop, errors;
};

enum { CHURN_FDS = 4000 };

/*
 * Fds below r->fds stay open: they must always be found.  Fds above come and
 * go (and the map grows under them): if found, it must be the right file.
 */
static void *reader_thread(void *arg)
{
	struct reader *r = arg;
	int fd;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE))
		for (fd = 0; fd < CHURN_FDS; fd++) {
			struct file *f = files_lookup(r->t, fd);

			if ((!f && fd < r->fds) || (f && f->id != fd))
				r->errors++;
			if (f)
				file_put(f);
		}
	return NULL;
}

static void test_concurrent_lookup(void **state)
{
	struct files_table *t = *state;
	struct reader r = {t, 32, 0, 0};
	pthread_t th;
	int round, i;

	for (i = 0; i < r.fds; i++)
		open_file(t, 0, 0, i);
	files_set_nofile(t, 1 << 16);
	assert_int_equal(pthread_create(&th, NULL, reader_thread, &r), 0);
	for (round = 0; round < 20; round++) {
		for (i = r.fds; i < CHURN_FDS; i++)
			open_file(t, 0, 0, i);
		files_close_range(t, r.fds, ~0u, 0);
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	assert_int_equal(r.errors, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    T(test_alloc_seq),
	    T(test_alloc_bad),
	    T(test_limit),
	    T(test_growth_keeps_readers),
	    T(test_install_and_lookup),
	    T(test_close_bad),
	    T(test_nonseq_order_and_growth),
	    T(test_nonseq_max),
	    T(test_limit_both_areas),
	    T(test_dup_to),
	    T(test_dup_to_bad),
	    T(test_fdflags),
	    T(test_growth_enomem),
	    T(test_concurrent_lookup),
	    T(test_fdflags_convert),
	    T(test_dup),
	};

	return cmocka_run_group_tests_name("files", tests, NULL, NULL);
}
