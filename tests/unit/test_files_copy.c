/*
 * Unit tests of kernel/fd/fdtable.c (cmocka): what happens to a files
 * table when a process forks, execs or closes many fds at once, and the
 * state a copy must not inherit.
 */
#include "files_fixture.h"

static void test_fork(void **state)
{
	int err;
	struct files_table *t = *state, *child;
	struct file *shared;

	open_file(t, 0, 0, 0);
	open_file(t, 0, FDF_CLOFORK, 1);
	open_file(t, 0, FDF_CLOEXEC, 2);
	open_file(t, 0, FDF_NONSEQ, 3);
	open_file(t, 0, FDF_NONSEQ | FDF_CLOFORK, 4);
	files_alloc_fd(t, 0, 0); /* reserved fd 3: not the child's */
	files_set_nofile(t, 500);
	child = files_fork(t, &err);
	assert_non_null(child);
	assert_int_equal(files_count(child), 3);
	assert_int_equal(id_at(child, 0), 0);
	assert_int_equal(id_at(child, 1), -1);
	assert_int_equal(id_at(child, 2), 2);
	assert_int_equal(id_at(child, NS), 3);
	assert_int_equal(id_at(child, NS + 1), -1);
	assert_int_equal(files_get_fdflags(child, 2), FD_CLOEXEC);
	assert_int_equal(files_get_nofile(child), 500);
	shared = files_lookup(t, 0);
	assert_int_equal(shared->refs, 3);
	/* The child's table is its own. */
	assert_int_equal(files_close(child, 0), 0);
	assert_int_equal(shared->refs, 2);
	assert_int_equal(files_alloc_fd(child, 0, 0), 0);
	assert_int_equal(files_alloc_fd(child, 0, 0), 1);
	assert_int_equal(files_alloc_fd(child, 0, 0), 3);
	assert_int_equal(files_alloc_fd(child, 0, FDF_NONSEQ), NS + 2);
	files_destroy(child);
	assert_int_equal(shared->refs, 2);
	assert_int_equal(fake_files_live(), 5);
	file_put(shared);
}

/* fs.nr_open below an open fd: no copy (EMFILE, Linux's dup_fd), nothing
 * taken; nr_open counts in words of fds, and the non-sequential area not
 * at all. */
static void test_fork_nr_open(void **state)
{
	struct files_table *t = *state, *child;
	int err, saved = files_nr_open;

	open_file(t, 0, 0, 0);
	open_file(t, 0, FDF_NONSEQ, 1);
	assert_int_equal(files_alloc_fd(t, 65, 0), 65);
	assert_int_equal(files_install(t, 65, fake_file_new(2)), 0);
	files_nr_open = 64;
	assert_null(files_fork(t, &err));
	assert_int_equal(err, -EMFILE);
	assert_null(files_copy(t, FDMAP_COPY_UNSHARE, &err));
	assert_int_equal(err, -EMFILE);
	assert_int_equal(fdmap_file(t->seq, 0)->refs, 1);
	files_nr_open = 100; /* 128 fds: fd 65 fits */
	assert_non_null(child = files_fork(t, &err));
	assert_int_equal(id_at(child, 65), 2);
	assert_int_equal(id_at(child, NS), 1);
	files_destroy(child);
	assert_int_equal(files_close(t, 65), 0);
	files_nr_open = 64;
	assert_non_null(child = files_fork(t, &err));
	files_destroy(child);
	files_nr_open = saved;
}

static void test_fork_enomem(void **state)
{
	struct files_table *t = *state;
	struct snapshot before;
	unsigned long nth;
	int err;

	open_file(t, 0, 0, 0);
	open_file(t, 0, FDF_NONSEQ, 1);
	before = snap(t);
	for (nth = 1; nth <= 3; nth++) {
		heap_fail_nth(nth);
		assert_null(files_fork(t, &err));
		assert_int_equal(err, -ENOMEM);
		assert_unchanged(t, before);
		assert_int_equal(fdmap_file(t->seq, 0)->refs, 1);
	}
	heap_fail_nth(0);
}

static void test_exec(void **state)
{
	struct files_table *t = *state;
	int i;

	for (i = 0; i < 200; i++)
		open_file(t, 0, i % 3 == 0 ? FDF_CLOEXEC : i % 3 == 1 ? FDF_CLOFORK : 0, i);
	open_file(t, 0, FDF_NONSEQ | FDF_CLOEXEC, 1000);
	open_file(t, 0, FDF_NONSEQ | FDF_CLOFORK, 1001);
	files_alloc_fd(t, 0, FDF_CLOEXEC); /* reserved: left alone */
	files_exec(t);
	for (i = 0; i < 200; i++) {
		assert_int_equal(id_at(t, i), i % 3 == 0 ? -1 : i);
		if (i % 3)
			assert_int_equal(files_get_fdflags(t, i), 0);
	}
	assert_int_equal(id_at(t, NS), -1);
	assert_int_equal(files_get_fdflags(t, NS + 1), 0);
	assert_int_equal(files_count(t), 133 + 1 + 1);
	assert_int_equal(files_unreserve_fd(t, 200), 0);
}

static void test_close_range(void **state)
{
	struct files_table *t = *state;
	int i;

	for (i = 0; i < 150; i++)
		open_file(t, 0, 0, i);
	for (i = 0; i < 10; i++)
		open_file(t, 0, FDF_NONSEQ, 1000 + i);
	files_alloc_fd(t, 0, 0); /* reserved 150: close_range skips it */
	assert_int_equal(files_close_range(t, 5, 4, 0), -EINVAL);
	assert_int_equal(files_close_range(t, 0, ~0u, 1u << 0), -EINVAL);
	assert_int_equal(files_close_range(t, 0, ~0u, 1u << 4), -EINVAL);
	assert_int_equal(files_count(t), 161);
	assert_int_equal(files_close_range(t, 60, 129, 0), 0);
	assert_int_equal(id_at(t, 59), 59);
	assert_int_equal(id_at(t, 60), -1);
	assert_int_equal(id_at(t, 129), -1);
	assert_int_equal(id_at(t, 130), 130);
	assert_int_equal(files_close_range(t, 140, ~0u, CLOSE_RANGE_CLOEXEC), 0);
	assert_int_equal(files_get_fdflags(t, 139), 0);
	assert_int_equal(files_get_fdflags(t, 140), FD_CLOEXEC);
	assert_int_equal(files_get_fdflags(t, NS + 9), FD_CLOEXEC);
	assert_int_equal(files_close_range(t, NS + 2, NS + 3, CLOSE_RANGE_CLOFORK), 0);
	assert_int_equal(files_get_fdflags(t, NS + 2), FD_CLOEXEC | FD_CLOFORK);
	assert_int_equal(files_get_fdflags(t, NS + 4), FD_CLOEXEC);
	assert_int_equal(files_close_range(t, 145, NS + 4, CLOSE_RANGE_UNSHARE), 0);
	assert_int_equal(id_at(t, 144), 144);
	assert_int_equal(id_at(t, NS + 4), -1);
	assert_int_equal(id_at(t, NS + 5), 1005);
	assert_int_equal(files_close_range(t, NS + 9, ~0u, 0), 0);
	assert_int_equal(files_count(t), 150 - 70 - 5 + 4 + 1);
	assert_int_equal(files_close_range(t, 0, ~0u, 0), 0);
	assert_int_equal(files_count(t), 1);
}

/*
 * Closing an fd looks for record locks and dnotify watches only once the
 * table was told it may own some (files_note_close_state), and then on
 * every way an fd goes: close, dup2 over it, close_range, exec, the end.
 */
static void test_close_state(void **state)
{
	struct files_table *t = *state;
	long calls = fake_close_state_calls();
	int fd = open_file(t, 0, FDF_CLOEXEC, 0);

	open_file(t, 0, 0, 1);
	open_file(t, 0, 0, 2);
	open_file(t, 0, 0, 3);
	assert_int_equal(files_close(t, 1), 0);
	assert_int_equal(files_dup_to(t, fd, 2, 0), 2);
	assert_false(t->close_state);
	assert_int_equal(fake_close_state_calls(), calls);
	files_note_close_state(t);
	files_note_close_state(t); /* once is enough: it stays set */
	assert_true(t->close_state);
	assert_int_equal(files_dup_to(t, fd, 2, 0), 2); /* replaces fd 2's file */
	assert_int_equal(fake_close_state_calls(), calls + 2);
	assert_int_equal(files_close(t, 2), 0);
	assert_int_equal(fake_close_state_calls(), calls + 4);
	files_exec(t); /* closes fd 0 (close-on-exec) */
	assert_int_equal(fake_close_state_calls(), calls + 6);
	assert_int_equal(files_close_range(t, 0, ~0u, 0), 0); /* fd 3 */
	assert_int_equal(fake_close_state_calls(), calls + 8);
	assert_int_equal(files_close(t, 3), -EBADF);
	assert_int_equal(fake_close_state_calls(), calls + 8);
}

/* A copy (fork, execve's unshare) owns none of the original's state. */
static void test_close_state_copy(void **state)
{
	struct files_table *t = *state, *child;
	long calls;
	int err;

	open_file(t, 0, 0, 0);
	files_note_close_state(t);
	child = files_fork(t, &err);
	assert_non_null(child);
	assert_false(child->close_state);
	calls = fake_close_state_calls();
	assert_int_equal(files_close(child, 0), 0);
	assert_int_equal(fake_close_state_calls(), calls);
	files_destroy(child);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    T(test_fork),	 T(test_fork_nr_open), T(test_fork_enomem),	 T(test_exec),
	    T(test_close_range), T(test_close_state),  T(test_close_state_copy),
	};

	return cmocka_run_group_tests_name("files_copy", tests, NULL, NULL);
}
