/*
 * Futexes: user-space words a task can sleep on until another task wakes
 * it, the kernel half of every user-space lock, condition variable and
 * thread join.  Linux's futex(2), set_robust_list and get_robust_list.
 */
#ifndef PROC_FUTEX_H
#define PROC_FUTEX_H

#include <stdbool.h>
#include <stdint.h>

struct task;

/* Empties the hash of waiters (boot, before any task). */
void futex_init(void);
/* Tasks sleeping in a futex wait now (/proc/kstat, leak check). */
unsigned long futex_waiter_count(void);

/* Wakes up to nr (at least one, as Linux) waiters on the word at uaddr
 * whose bitset meets bitset: their count, or -errno.  shared: the key is
 * the page's frame on MAP_SHARED memory (FUTEX_WAKE without
 * FUTEX_PRIVATE_FLAG), else the caller's address space. */
long futex_wake(uint64_t uaddr, bool shared, int nr, uint32_t bitset);

/* Compares the word at uaddr (4-byte aligned) with old and stores new if
 * equal, atomically, faulting the page in as a user write would: 0 with
 * the value found in *cur, or -EFAULT. */
int futex_cmpxchg_user(uint64_t uaddr, uint32_t old, uint32_t new, uint32_t *cur);

/*
 * t, the current task, exits (futex_exit_release) or execs
 * (futex_exec_release) (Linux's exit and exec_mm_release): walks its
 * robust list, marking the locks it still holds FUTEX_OWNER_DIED and
 * waking a waiter of each, gives the PI locks it owns to their waiters,
 * then, if another task shares its address space, zeroes its
 * clear_child_tid word and wakes one waiter there; all are forgotten.
 * Runs while the old address space is still loaded; user faults are
 * ignored.
 */
void futex_exit_release(struct task *t);
void futex_exec_release(struct task *t);
/* PI lock states alive (futex_pi.c; the leak check's). */
unsigned long futex_pi_state_count(void);

#endif
