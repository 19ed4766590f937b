/*
 * Tasks per real uid (nproc.h): an open-addressing table keyed by uid,
 * with linear probing and deletion by shifting back (no tombstones).  An
 * entry exists while its count is above 0; each counts a live task, so
 * there are at most TASK_MAX of them and the table, twice that size,
 * never fills.  A process's tasks count for g->nproc_uid, which follows
 * its real uid (nproc_move_locked), so that a count always goes back to
 * the uid it was taken for.
 */
#include "proc/nproc.h"
#include "proc/cred.h"
#include "proc/group.h"
#include "proc/rlimit.h"
#include "proc/task.h"

#define SLOTS (2 * TASK_MAX)

static struct {
	uint32_t uid;
	int tasks; /* 0: a free slot */
} table[SLOTS];

static unsigned int home(uint32_t uid)
{
	return (uid * 2654435761u) % SLOTS;
}

/* uid's slot, or the free slot where it would go. */
static unsigned int find(uint32_t uid)
{
	unsigned int i = home(uid);

	while (table[i].tasks && table[i].uid != uid)
		i = (i + 1) % SLOTS;
	return i;
}

/* Empties slot i and moves back the entries of its run that could not sit
 * in their home slot while i was taken (Knuth's algorithm R). */
static void remove_slot(unsigned int i)
{
	unsigned int j = i;

	table[i].tasks = 0;
	for (;;) {
		j = (j + 1) % SLOTS;
		if (!table[j].tasks)
			return;
		unsigned int h = home(table[j].uid);
		/* Whether h lies cyclically in (i, j]: then j stays. */
		if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
			continue;
		table[i] = table[j];
		table[j].tasks = 0;
		i = j;
	}
}

static void add(uint32_t uid, int n)
{
	unsigned int i = find(uid);

	table[i].uid = uid;
	table[i].tasks += n;
	if (!table[i].tasks)
		remove_slot(i);
}

int nproc_tasks_locked(uint32_t uid)
{
	return table[find(uid)].tasks;
}

void nproc_join_locked(struct thread_group *g)
{
	if (!g->live)
		g->nproc_uid = group_cred(g)->uid;
	add(g->nproc_uid, 1);
}

void nproc_leave_locked(struct thread_group *g)
{
	add(g->nproc_uid, -1);
}

void nproc_move_locked(struct thread_group *g, uint32_t uid)
{
	if (uid == g->nproc_uid || !g->live)
		return;
	add(g->nproc_uid, -g->live);
	add(uid, g->live);
	g->nproc_uid = uid;
}

bool nproc_fork_refused_locked(struct thread_group *g, bool exempt)
{
	uint64_t limit = rlimit_soft(g, RLIMIT_NPROC);

	return g->nproc_uid != 0 && !exempt && (uint64_t)nproc_tasks_locked(g->nproc_uid) >= limit;
}
