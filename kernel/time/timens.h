/*
 * Time namespaces (time/timens.c, Linux's CLONE_NEWTIME): each holds an
 * offset for CLOCK_MONOTONIC (with its RAW and COARSE forms) and one for
 * CLOCK_BOOTTIME (with BOOTTIME_ALARM), added to what a task in it reads
 * and taken off the absolute times it sleeps or arms timers to.  The
 * real-time clocks have none.  docs/namespaces.md.
 */
#ifndef TIME_TIMENS_H
#define TIME_TIMENS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ns_common;
struct nsproxy;
struct uvm;

/*
 * Lifetime: refs counts the nsproxies holding the namespace (as a task's
 * time namespace or as the one its children go to) and the nsfs inodes
 * (atomic); the last put frees it.  The initial one holds a reference of
 * its own and is never freed.
 */
struct time_namespace;
struct user_namespace;
extern struct time_namespace init_time_ns;

/* unshare/clone with CLONE_NEWTIME: a new namespace with old's offsets,
 * owned by owner, open for /proc/<pid>/timens_offsets until a task
 * enters it; referenced, or NULL without memory. */
struct time_namespace *timens_copy(struct time_namespace *old, struct user_namespace *owner);
void timens_get(struct time_namespace *ns);
void timens_put(struct time_namespace *ns);
struct ns_common *timens_common(struct time_namespace *ns);
/* Namespaces alive but the initial one (the leak check's count). */
unsigned long timens_count(void);

/* Namespaces alive but the initial one (atomic): while there are none,
 * every task reads the host's clocks without looking further. */
extern unsigned long timens_live;
int64_t timens_offset_of(int clk);

/* What the caller's namespace adds to clock clk's reading, in ns (0 for
 * the clocks without an offset). */
static inline int64_t timens_offset(int clk)
{
	return __atomic_load_n(&timens_live, __ATOMIC_RELAXED) ? timens_offset_of(clk) : 0;
}
/* A task of address space u enters ns (a fork's child, setns): the
 * offsets are fixed from now on, and u's [vvar] shows the page that suits
 * ns (the initial namespace's clocks, or one that sends the vDSO's clock
 * reads to the system calls, which add the offsets). */
void timens_enter(struct time_namespace *ns, struct uvm *u);

/* /proc/<pid>/timens_offsets of the namespace ns (a process's
 * time_for_children): Linux's "monotonic <s> <ns>" lines, and a write of
 * at most two "<clock> <s> <ns>" lines (clock "monotonic", "boottime" or
 * their ids): its length, or -EINVAL, -ERANGE (a clock that would fall
 * below 0 or past KTIME_SEC_MAX / 2), -EPERM (no CAP_SYS_TIME), -EACCES
 * (a task entered ns already). */
void timens_show_offsets(struct ns_common *ns, char *buf, size_t size);
long timens_write_offsets(struct ns_common *ns, const char *text, size_t len);

#endif
