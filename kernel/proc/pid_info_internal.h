/*
 * The /proc/<pid> reports' own parts (proc/pid_info.c, pid_fs_ns.c,
 * pid_lookup.c): how a report holds the tasks it is about, and the texts
 * one file formats for another.  Nothing else includes it.
 */
#ifndef PROC_PID_INFO_INTERNAL_H
#define PROC_PID_INFO_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "proc/group.h"
#include "proc/proc.h"

/*
 * The tasks a report is about, found by pid and held by a reference
 * (task_find): the structs stay while the report is taken, whatever they
 * do meanwhile; proc_lock is taken only to read their fields and check
 * that they are still what the path names.
 */
struct pid_ref {
	struct task *leader; /* task pid, its process's leader if the path is right */
	struct task *thread; /* task tid, or NULL */
};

static inline struct pid_ref pid_ref_get(int pid, int tid)
{
	return (struct pid_ref){task_find(pid), tid ? task_find(tid) : NULL};
}

static inline void pid_ref_put(struct pid_ref *r)
{
	task_put(r->leader);
	task_put(r->thread);
}

/* proc_lock held: the process r names (pid leads it), or NULL once reaped. */
static inline struct thread_group *group_of_locked(const struct pid_ref *r, int pid)
{
	struct task *t = r->leader;

	if (!t || t->group->tgid != pid || t->group->state == GROUP_DEAD)
		return NULL;
	return t->group;
}

/* proc_lock held: r's thread if it is a live thread of r's process, or NULL. */
static inline struct task *thread_of_locked(const struct pid_ref *r, int pid)
{
	struct thread_group *g = group_of_locked(r, pid);
	struct task *t = r->thread;

	return g && t && t->group == g && !task_exited(t) ? t : NULL;
}

/* /proc/<pid>/mounts (or mountinfo with info): its namespace, from its
 * root; empty for a zombie. */
long pid_mounts_text(int pid, bool info, char *buf, size_t size);
/* /proc/<pid>/timens_offsets: its time_for_children's offsets. */
long pid_timens_offsets_text(int pid, char *buf, size_t size);

#endif
