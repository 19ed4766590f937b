/*
 * The file refcount contract of kernel/fd/fdmap.h, for host tests: atomic
 * counts, and dead files kept readable until fake_file_reclaim().
 */
#include <stdlib.h>

#include "fake_file.h"
#include "fd/fdmap.h"

static long live;
static struct file *dead;
static int dead_lock; /* protects dead */

static void dead_list_lock(void)
{
	while (__atomic_exchange_n(&dead_lock, 1, __ATOMIC_ACQUIRE))
		;
}

static void dead_list_unlock(void)
{
	__atomic_store_n(&dead_lock, 0, __ATOMIC_RELEASE);
}

struct file *fake_file_new(int id)
{
	struct file *f = calloc(1, sizeof(*f));

	if (!f)
		abort();
	f->refs = 1;
	f->id = id;
	__atomic_add_fetch(&live, 1, __ATOMIC_RELAXED);
	return f;
}

long fake_files_live(void)
{
	return __atomic_load_n(&live, __ATOMIC_RELAXED);
}

void file_get(struct file *f)
{
	if (__atomic_fetch_add(&f->refs, 1, __ATOMIC_RELAXED) <= 0)
		abort(); /* a reference to a dead file: the caller had none */
}

bool file_tryget(struct file *f)
{
	int old = __atomic_load_n(&f->refs, __ATOMIC_RELAXED);

	do {
		if (old == 0)
			return false;
	} while (!__atomic_compare_exchange_n(&f->refs, &old, old + 1, true, __ATOMIC_SEQ_CST,
					      __ATOMIC_RELAXED));
	return true;
}

void file_put(struct file *f)
{
	int old = __atomic_fetch_sub(&f->refs, 1, __ATOMIC_ACQ_REL);

	if (old <= 0)
		abort(); /* more puts than gets */
	if (old != 1)
		return;
	__atomic_sub_fetch(&live, 1, __ATOMIC_RELAXED);
	dead_list_lock();
	f->dead_next = dead;
	dead = f;
	dead_list_unlock();
}

void fake_file_reclaim(void)
{
	struct file *f, *next;

	dead_list_lock();
	f = dead;
	dead = NULL;
	dead_list_unlock();
	for (; f; f = next) {
		next = f->dead_next;
		free(f);
	}
}

static long close_state_calls;

void reclock_close(struct file *f, struct files_table *files)
{
	(void)f;
	(void)files;
	__atomic_add_fetch(&close_state_calls, 1, __ATOMIC_RELAXED);
}

void dnotify_close(struct file *f, struct files_table *files)
{
	(void)f;
	(void)files;
	__atomic_add_fetch(&close_state_calls, 1, __ATOMIC_RELAXED);
}

long fake_close_state_calls(void)
{
	return __atomic_load_n(&close_state_calls, __ATOMIC_RELAXED);
}
