/*
 * libFuzzer target: random operation sequences on a files table and on a
 * deliberately simple reference model (plain arrays); any difference aborts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fd/fdtable.h"
#include "host_heap.h"
#include "fake_file.h"

#define NS	NONSEQ_FD_BASE
#define SEQ_CAP 1024 /* nofile never exceeds it here, so neither do seq fds */
#define NS_CAP	4096 /* non-seq fds picked stay below it, and -max_len=4096 bounds allocations */
#define POOL	4096 /* files created by one input */

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: model mismatch: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

enum { FREE, RESERVED, OPEN };

struct mslot {
	uint8_t state;
	uint8_t flags; /* FD_CLOEXEC | FD_CLOFORK */
	int file;      /* pool index when OPEN */
};

/* The reference model: what every fd holds, and the non-seq free queue in order. */
struct model {
	struct mslot seq[SEQ_CAP], ns[NS_CAP];
	uint32_t queue[NS_CAP]; /* free non-seq indices, head first */
	unsigned int queued, ns_size, nofile;
	unsigned int seq_hw, ns_hw; /* past the highest index ever used: compare up to here */
};

static struct model model, child_model;
static struct file *pool[POOL];
static int pooled;

struct input {
	const uint8_t *p;
	size_t n;
};

static unsigned int next(struct input *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

/* ---- model helpers ---- */

static struct mslot *mslot_of(struct model *m, long fd)
{
	if (fd >= 0 && fd < SEQ_CAP)
		return &m->seq[fd];
	if (fd >= NS && fd - NS < NS_CAP)
		return &m->ns[fd - NS];
	return NULL;
}

static void queue_push(struct model *m, unsigned int idx)
{
	m->queue[m->queued++] = idx;
}

static void queue_remove(struct model *m, unsigned int idx)
{
	unsigned int i;

	for (i = 0; m->queue[i] != idx; i++)
		CHECK(i + 1 < m->queued);
	memmove(&m->queue[i], &m->queue[i + 1], (m->queued - i - 1) * sizeof(m->queue[0]));
	m->queued--;
}

static void ns_grow(struct model *m, unsigned int idx)
{
	unsigned int size = m->ns_size;

	while (size <= idx)
		size *= 2;
	for (; m->ns_size < size; m->ns_size++)
		queue_push(m, m->ns_size);
}

static void mark_used(struct model *m, long fd)
{
	if (fd < NS && (unsigned int)fd + 1 > m->seq_hw)
		m->seq_hw = (unsigned int)fd + 1;
	if (fd >= NS && (unsigned int)(fd - NS) + 1 > m->ns_hw)
		m->ns_hw = (unsigned int)(fd - NS) + 1;
}

/* Busy fds of both areas: what RLIMIT_NOFILE bounds. */
static unsigned int model_count(const struct model *m)
{
	unsigned int i, n = 0;

	for (i = 0; i < m->seq_hw; i++)
		n += m->seq[i].state != FREE;
	for (i = 0; i < m->ns_hw; i++)
		n += m->ns[i].state != FREE;
	return n;
}

/* Out of room by count (files_room): for a non-sequential fd, or while one is open. */
static bool model_full(const struct model *m, bool nonseq)
{
	unsigned int i, ns_open = 0;

	for (i = 0; i < m->ns_hw; i++)
		ns_open += m->ns[i].state != FREE;
	return (nonseq || ns_open) && model_count(m) >= m->nofile;
}

static void mfree(struct model *m, long fd)
{
	mslot_of(m, fd)->state = FREE;
	if (fd >= NS)
		queue_push(m, (unsigned int)(fd - NS));
}

static void mtake(struct model *m, long fd, unsigned int state, unsigned int flags)
{
	struct mslot *s = mslot_of(m, fd);

	if (fd >= NS)
		queue_remove(m, (unsigned int)(fd - NS));
	s->state = (uint8_t)state;
	s->flags = (uint8_t)flags;
	mark_used(m, fd);
}

static void model_reset(struct model *m)
{
	memset(m, 0, sizeof(*m));
	m->nofile = FILES_DEFAULT_NOFILE;
	m->seq_hw = m->ns_hw = FILES_MIN_MAP;
	for (m->ns_size = 0; m->ns_size < FILES_MIN_MAP; m->ns_size++)
		queue_push(m, m->ns_size);
}

/* ---- comparing the table with the model ---- */

static void compare_slot(struct files_table *t, const struct mslot *s, long fd)
{
	struct fdmap *map = fd >= NS ? t->nonseq : t->seq;
	bool busy = fdmap_covers(map, (unsigned int)fd) && fdmap_busy(map, (unsigned int)fd);
	unsigned int want_flags = s->flags; /* the model keeps FD_* values: fd flags */

	CHECK(busy == (s->state != FREE));
	if (!busy)
		return;
	CHECK(fdmap_get_flags(map, (unsigned int)fd) == (FDMAP_F_BUSY | want_flags));
	if (s->state == OPEN)
		CHECK(fdmap_file(map, (unsigned int)fd) == pool[s->file]);
	else
		CHECK(fdmap_file(map, (unsigned int)fd) == NULL);
}

static void compare(struct files_table *t, const struct model *m)
{
	unsigned int i;
	uint32_t k;

	for (i = 0; i < m->seq_hw; i++)
		compare_slot(t, &m->seq[i], i);
	for (i = 0; i < m->ns_hw; i++)
		compare_slot(t, &m->ns[i], NS + (long)i);
	CHECK(files_count(t) == model_count(m));
	CHECK(files_get_nofile(t) == m->nofile);
	CHECK(t->nonseq->size == m->ns_size);
	for (i = 0, k = t->nonseq->free_head; i < m->queued; i++) {
		CHECK(k == m->queue[i]);
		k = t->nonseq->slots[k].link.next;
	}
	CHECK(k == FDMAP_NIL);
}

/* Every file's count is the number of fds holding it: nothing leaked, nothing lost. */
static void compare_refs(const struct model *m)
{
	static int refs[POOL];
	unsigned int i;
	int f;

	memset(refs, 0, sizeof(refs));
	for (i = 0; i < m->seq_hw; i++)
		if (m->seq[i].state == OPEN)
			refs[m->seq[i].file]++;
	for (i = 0; i < m->ns_hw; i++)
		if (m->ns[i].state == OPEN)
			refs[m->ns[i].file]++;
	for (f = 0; f < pooled; f++)
		CHECK(pool[f]->refs == refs[f]);
}

/* ---- decoding arguments ---- */

static long pick_fd(struct input *in, const struct model *m)
{
	static const long special[] = {-1,	   -NS,	 NS - 1, NS + NONSEQ_FD_MAX,
				       0x7fffffff, 1023, 1024,	 NS + NS_CAP - 1};
	unsigned int kind = next(in) >> 5, v = next(in);

	switch (kind) {
	case 0:
	case 1:
	case 2:
		return v % 72;
	case 3:
		return (long)m->nofile - 2 + v % 4;
	case 4:
	case 5:
		return NS + v % 72;
	case 6:
		return NS + (v * 8) % 1100;
	default:
		return special[v % 8];
	}
}

/* Fd flags for an allocation, now and then with a bit no fd flag has. */
static unsigned int pick_allocflags(struct input *in)
{
	unsigned int b = next(in);

	return (b & 1 ? FDF_CLOEXEC : 0) | (b & 2 ? FDF_CLOFORK : 0) |
	       ((b & 0x1c) == 0x1c ? FDMAP_F_BUSY : 0);
}

static unsigned int pick_fdflags(struct input *in)
{
	unsigned int b = next(in);

	return (b & 3) | ((b & 0x1c) == 0x1c ? 4 : 0);
}

/* ---- operations: run on the table, predict on the model, compare ---- */

static bool armed; /* an allocation failure was injected for this operation */

/* ENOMEM is allowed only when injected, and then nothing may have changed. */
static bool failed_nomem(long ret)
{
	if (ret != -ENOMEM)
		return false;
	CHECK(armed);
	return true;
}

/* What files_alloc_fd (and a dup of an open fd) gives now: the fd, or the
 * errno; grows the model's non-sequential area as the table would. */
static long predict_alloc(struct model *m, unsigned int flags, long minfd, bool nonseq)
{
	long fd;

	if ((flags & ~FDF_ALL) || minfd < 0)
		return -EINVAL;
	if (model_full(m, nonseq))
		return -EMFILE;
	if (nonseq) {
		if (!m->queued)
			ns_grow(m, m->ns_size);
		return NS + (long)m->queue[0];
	}
	for (fd = minfd; fd < m->nofile && m->seq[fd].state != FREE; fd++)
		;
	return fd < m->nofile ? fd : -EMFILE;
}

static void op_alloc(struct files_table *t, struct model *m, struct input *in, bool nonseq)
{
	unsigned int flags = pick_allocflags(in) | (nonseq ? FDF_NONSEQ : 0);
	long minfd = next(in) % 8 == 0 ? pick_fd(in, m) : next(in) % 100;
	int ret;

	ret = files_alloc_fd(t, (int)minfd, flags);
	if (failed_nomem(ret))
		return;
	CHECK(ret == predict_alloc(m, flags, minfd, nonseq));
	if (ret >= 0)
		mtake(m, ret, RESERVED, flags & FDF_KEPT);
}

/* files_dup: both halves (the non-sequential fast one, the slow one). */
static void op_dup(struct files_table *t, struct model *m, struct input *in, bool nonseq)
{
	long oldfd = pick_fd(in, m);
	unsigned int flags = pick_allocflags(in) | (nonseq ? FDF_NONSEQ : 0);
	long minfd = nonseq ? 0 : next(in) % 8 == 0 ? pick_fd(in, m) : next(in) % 100;
	struct mslot *old = mslot_of(m, oldfd);
	long ret = files_dup(t, (int)oldfd, (int)minfd, flags), want;

	if (failed_nomem(ret))
		return;
	if (minfd < 0) /* flags past FDF_ALL: ignored, never kept */
		want = -EINVAL;
	else if (!old || old->state != OPEN)
		want = -EBADF;
	else
		want = predict_alloc(m, flags & FDF_ALL, minfd, nonseq);
	CHECK(ret == want);
	if (ret >= 0) {
		mtake(m, ret, OPEN, flags & FDF_KEPT);
		mslot_of(m, ret)->file = old->file;
	}
}

static void op_install(struct files_table *t, struct model *m, long fd)
{
	struct mslot *s = mslot_of(m, fd);
	struct file *f;
	int ret;

	if (pooled == POOL)
		return;
	f = fake_file_new(pooled);
	ret = files_install(t, (int)fd, f);
	pool[pooled] = f;
	if (s && s->state == RESERVED) {
		CHECK(ret == 0);
		s->state = OPEN;
		s->file = pooled;
	} else {
		CHECK(ret == -EBADF);
		file_put(f);
	}
	pooled++;
}

static void op_close(struct files_table *t, struct model *m, long fd, bool unreserve)
{
	struct mslot *s = mslot_of(m, fd);
	unsigned int want = unreserve ? RESERVED : OPEN;
	int ret = unreserve ? files_unreserve_fd(t, (int)fd) : files_close(t, (int)fd);

	CHECK(ret == (s && s->state == want ? 0 : -EBADF));
	if (!ret)
		mfree(m, fd);
}

/* Where dup_to may put newfd: 0, or the errno Linux gives. */
static int newfd_error(const struct model *m, long fd)
{
	if (fd < 0 || (fd < NS && fd >= m->nofile) || fd - NS >= NONSEQ_FD_MAX)
		return -EBADF;
	return 0;
}

static void op_dup_to(struct files_table *t, struct model *m, struct input *in)
{
	long oldfd = pick_fd(in, m), newfd = pick_fd(in, m);
	unsigned int fdflags = pick_fdflags(in);
	struct mslot *old = mslot_of(m, oldfd), *new = mslot_of(m, newfd);
	int ret = files_dup_to(t, (int)oldfd, (int)newfd, fdflags);

	if (failed_nomem(ret))
		return;
	if (fdflags & ~3u)
		CHECK(ret == -EINVAL);
	else if (!old || old->state != OPEN)
		CHECK(ret == -EBADF);
	else if (oldfd == newfd)
		CHECK(ret == newfd);
	else if (newfd_error(m, newfd))
		CHECK(ret == newfd_error(m, newfd));
	else if (new->state == FREE && model_full(m, newfd >= NS))
		CHECK(ret == -EMFILE);
	else if (new->state == RESERVED)
		CHECK(ret == -EBUSY);
	else {
		CHECK(ret == newfd);
		if (newfd >= NS && newfd - NS >= m->ns_size)
			ns_grow(m, (unsigned int)(newfd - NS));
		if (new->state == FREE)
			mtake(m, newfd, OPEN, fdflags);
		new->state = OPEN;
		new->flags = (uint8_t)fdflags;
		new->file = old->file;
	}
}

static void op_set_fdflags(struct files_table *t, struct model *m, struct input *in)
{
	long fd = pick_fd(in, m);
	unsigned int fdflags = pick_fdflags(in);
	struct mslot *s = mslot_of(m, fd);
	int ret = files_set_fdflags(t, (int)fd, fdflags);

	if (fdflags & ~3u)
		CHECK(ret == -EINVAL);
	else if (!s || s->state != OPEN)
		CHECK(ret == -EBADF);
	else {
		CHECK(ret == 0);
		s->flags = (uint8_t)fdflags;
	}
	CHECK(files_get_fdflags(t, (int)fd) == (s && s->state == OPEN ? s->flags : -EBADF));
}

/* Close (flag 0) or flag the slots of one model area in index range [lo, hi]. */
static void mrange(struct model *m, struct mslot *area, unsigned int n, long base, unsigned long lo,
		   unsigned long hi, unsigned int setflags, bool close)
{
	unsigned long i;

	for (i = lo; i <= hi && i < n; i++) {
		if (close && area[i].state == OPEN)
			mfree(m, base + (long)i);
		else if (!close && area[i].state != FREE)
			area[i].flags |= (uint8_t)setflags;
	}
}

static void op_close_range(struct files_table *t, struct model *m, struct input *in)
{
	static const unsigned int flagset[] = {0,
					       0,
					       CLOSE_RANGE_CLOEXEC,
					       CLOSE_RANGE_CLOFORK,
					       CLOSE_RANGE_UNSHARE,
					       CLOSE_RANGE_CLOEXEC | CLOSE_RANGE_CLOFORK,
					       1,
					       16};
	unsigned long first = (unsigned int)pick_fd(in, m), last = (unsigned int)pick_fd(in, m);
	unsigned int flags = flagset[next(in) % 8];
	unsigned int setflags = (flags & CLOSE_RANGE_CLOEXEC ? FD_CLOEXEC : 0) |
				(flags & CLOSE_RANGE_CLOFORK ? FD_CLOFORK : 0);
	int ret = files_close_range(t, (unsigned int)first, (unsigned int)last, flags);

	if ((flags & 17) || first > last) {
		CHECK(ret == -EINVAL);
		return;
	}
	CHECK(ret == 0);
	mrange(m, m->seq, SEQ_CAP, 0, first, last, setflags, !setflags);
	if (last >= NS)
		mrange(m, m->ns, NS_CAP, NS, first > NS ? first - NS : 0, last - NS, setflags,
		       !setflags);
}

static void op_exec(struct files_table *t, struct model *m)
{
	unsigned int i;

	files_exec(t);
	for (i = 0; i < SEQ_CAP; i++)
		if (m->seq[i].state == OPEN && (m->seq[i].flags & FD_CLOEXEC))
			mfree(m, i);
	for (i = 0; i < NS_CAP; i++)
		if (m->ns[i].state == OPEN && (m->ns[i].flags & FD_CLOEXEC))
			mfree(m, NS + (long)i);
	for (i = 0; i < SEQ_CAP; i++)
		m->seq[i].flags &= (uint8_t)~FD_CLOFORK;
	for (i = 0; i < NS_CAP; i++)
		m->ns[i].flags &= (uint8_t)~FD_CLOFORK;
}

/* The child's model: fork drops CLOFORK and reserved fds (non-seq: queued after the free ones). */
static void model_fork(struct model *child, const struct model *m)
{
	unsigned int i;

	*child = *m;
	for (i = 0; i < SEQ_CAP; i++)
		if (child->seq[i].state != OPEN || (child->seq[i].flags & FD_CLOFORK))
			child->seq[i].state = FREE;
	for (i = 0; i < NS_CAP; i++)
		if (child->ns[i].state != FREE &&
		    (child->ns[i].state != OPEN || (child->ns[i].flags & FD_CLOFORK)))
			mfree(child, NS + (long)i);
}

/* Fork; keep going with the parent or the child (the other is destroyed). */
static struct files_table *op_fork(struct files_table *t, struct model *m, struct input *in)
{
	int err;
	struct files_table *child = files_fork(t, &err);

	if (!child) {
		CHECK(armed);
		return t;
	}
	model_fork(&child_model, m);
	compare(child, &child_model);
	if (next(in) & 1) {
		files_destroy(child);
		return t;
	}
	files_destroy(t);
	*m = child_model;
	return child;
}

static void op_set_nofile(struct files_table *t, struct model *m, struct input *in)
{
	static const unsigned long values[] = {
	    0, 1, 3, 63, 64, 65, 100, 200, 1024, 1024, NR_OPEN_MAX + 1UL, ~0UL};
	unsigned long v = values[next(in) % 12];
	int ret = files_set_nofile(t, v);

	CHECK(ret == (v > NR_OPEN_MAX ? -EPERM : 0));
	if (!ret)
		m->nofile = (unsigned int)v;
}

static void op_lookup(struct files_table *t, struct model *m, long fd)
{
	struct mslot *s = mslot_of(m, fd);
	struct file *f = files_lookup(t, (int)fd);

	CHECK(f == (s && s->state == OPEN ? pool[s->file] : NULL));
	if (f)
		file_put(f);
}

static struct files_table *run_op(struct files_table *t, struct model *m, struct input *in)
{
	switch (next(in) % 16) {
	case 0:
		op_alloc(t, m, in, false);
		break;
	case 1:
		op_dup(t, m, in, next(in) & 1);
		break;
	case 2:
		op_alloc(t, m, in, true);
		break;
	case 3:
	case 4: /* open: reserve then install, the usual path */
		op_alloc(t, m, in, next(in) & 1);
		op_install(t, m, pick_fd(in, m));
		break;
	case 5:
		op_close(t, m, pick_fd(in, m), false);
		break;
	case 6:
		op_close(t, m, pick_fd(in, m), true);
		break;
	case 7:
		op_dup_to(t, m, in);
		break;
	case 8:
		op_set_fdflags(t, m, in);
		break;
	case 9:
		return op_fork(t, m, in);
	case 10:
		op_exec(t, m);
		break;
	case 11:
		op_close_range(t, m, in);
		break;
	case 12:
		op_set_nofile(t, m, in);
		break;
	case 13:
		grace_drain();
		break;
	case 14:
		op_lookup(t, m, pick_fd(in, m));
		break;
	default: /* the next operation's Nth allocation fails */
		heap_fail_nth(1 + next(in) % 3);
		armed = true;
		return run_op(t, m, in);
	}
	return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = {data, size};
	struct files_table *t = files_create();
	int i;

	CHECK(t);
	model_reset(&model);
	pooled = 0;
	while (in.n) {
		t = run_op(t, &model, &in);
		heap_fail_nth(0);
		armed = false;
		compare(t, &model);
		compare_refs(&model);
	}
	files_destroy(t);
	grace_drain();
	for (i = 0; i < pooled; i++)
		CHECK(pool[i]->refs == 0);
	CHECK(fake_files_live() == 0);
	CHECK(heap_live_blocks() == 0);
	fake_file_reclaim();
	return 0;
}
