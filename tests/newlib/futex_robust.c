/* Robust futexes and the tid word: set_robust_list / get_robust_list, and
 * what a thread's exit (or exec) leaves behind: the locks on its robust
 * list get FUTEX_OWNER_DIED and a waiter each is woken; clear_child_tid is
 * zeroed and woken only when another task shares the address space (a
 * process's last thread leaves it alone, Linux's rule).  The locks sit in
 * MAP_SHARED memory, so the parent sees what the child's death did. */
#include <signal.h>
#include <stddef.h>

#include "futex_util.h"

#define OTHER_TID 12345 /* an owner that is not the dying task */

/* A lock as glibc lays it out: the list entry, then the word 8 bytes on. */
struct rlock {
	uint64_t next;
	uint32_t word, pad;
};

struct arena {
	struct robust_list_head_k head;
	struct rlock lock[4];
	uint32_t go;
};

static long set_robust(void *head, size_t len)
{
	return syscall(__NR_set_robust_list, head, len);
}

static long get_robust(int pid, uint64_t *head, uint64_t *len)
{
	return syscall(__NR_get_robust_list, pid, head, len);
}

static struct arena *new_arena(void)
{
	struct arena *a = (struct arena *)shared_page();

	a->head.futex_offset = offsetof(struct rlock, word);
	a->head.next = (uint64_t)&a->head; /* empty */
	return a;
}

/* Links the locks given (indexes, -1 ends) into a's list, in order. */
static void link_locks(struct arena *a, const int *idx)
{
	uint64_t *prev = &a->head.next;

	for (; *idx >= 0; idx++) {
		*prev = (uint64_t)&a->lock[*idx].next;
		prev = &a->lock[*idx].next;
	}
	*prev = (uint64_t)&a->head;
}

/* A child that registers a's list once a->go is 1, sets it to 2, and
 * exits 0 once it is 3 (or sleeps until killed). */
static pid_t spawn_owner(struct arena *a)
{
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		while (a->go == 0)
			futex(&a->go, FUTEX_WAIT, 0, NULL, NULL, 0);
		set_robust(&a->head, sizeof(a->head));
		a->go = 2;
		futex(&a->go, FUTEX_WAKE, 1, NULL, NULL, 0);
		while (a->go == 2)
			futex(&a->go, FUTEX_WAIT, 2, NULL, NULL, 0);
		_exit(0);
	}
	require(pid > 0, "fork");
	return pid;
}

/* Sets a->go to val and wakes whoever waits for it. */
static void set_go(struct arena *a, uint32_t val)
{
	a->go = val;
	futex(&a->go, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* Lets the owner register its list, and returns once it has. */
static void owner_registers(struct arena *a)
{
	set_go(a, 1);
	while (a->go == 1)
		futex(&a->go, FUTEX_WAIT, 1, NULL, NULL, 0);
}

/* Lets the owner exit; returns its exit code. */
static int owner_exits(struct arena *a, pid_t owner)
{
	set_go(a, 3);
	return child_code(owner);
}

static void test_calls(void)
{
	struct robust_list_head_k h = {(uint64_t)&h, 0, 0};
	uint64_t head = 1, len = 0;
	pid_t pid;

	is_errno(set_robust(&h, sizeof(h) - 1), EINVAL, "set_robust_list with len 23: EINVAL");
	is_errno(set_robust(&h, 0), EINVAL, "set_robust_list with len 0: EINVAL");
	ok(set_robust(&h, sizeof(h)) == 0, "set_robust_list with len 24: 0");
	ok(get_robust(0, &head, &len) == 0 && head == (uint64_t)&h && len == 24,
	   "get_robust_list(0) returns the head and 24");
	is_errno(get_robust(0, (uint64_t *)KERNEL_PTR, &len), EFAULT,
		 "get_robust_list into a kernel head pointer: EFAULT");
	is_errno(get_robust(0, &head, (uint64_t *)KERNEL_PTR), EFAULT,
		 "get_robust_list into a kernel len pointer: EFAULT");
	is_errno(get_robust(-1, &head, &len), ESRCH, "get_robust_list(-1): ESRCH");
	ok(get_robust(getpid(), &head, &len) == 0 && head == (uint64_t)&h,
	   "get_robust_list(own pid) works too");
	fflush(stdout);
	if ((pid = fork()) == 0) {
		uint64_t mine = 1;
		_exit(get_robust(0, &mine, &len) == 0 && mine == 0 ? 0 : 1);
	}
	ok(child_code(pid) == 0, "fork's child starts with no robust list");
	is_errno(get_robust(pid, &head, &len), ESRCH, "get_robust_list of a reaped pid: ESRCH");
	ok(set_robust(NULL, sizeof(h)) == 0 && get_robust(0, &head, &len) == 0 && head == 0,
	   "set_robust_list(NULL) clears it");
	ok(set_robust((void *)0xdead0000, sizeof(h)) == 0,
	   "any head pointer is accepted (read only at exit)");
	set_robust(NULL, sizeof(h));
}

/* The owner exits holding three locks of its list and the pending one. */
static void test_exit(void)
{
	struct arena *a = new_arena();
	pid_t owner = spawn_owner(a), waiter;
	uint64_t head = 0, len;
	uint32_t tid = (uint32_t)owner;

	a->lock[0].word = tid | FUTEX_WAITERS;
	a->lock[1].word = tid;
	a->lock[2].word = OTHER_TID;
	a->lock[3].word = tid; /* pending, not on the list */
	link_locks(a, (const int[]){0, 1, 2, -1});
	a->head.list_op_pending = (uint64_t)&a->lock[3].next;
	waiter = spawn_waiter(&a->lock[0].word, 0, tid | FUTEX_WAITERS, FUTEX_BITSET_MATCH_ANY, 0);
	ok(await_waiters(&a->lock[0].word, 0, 1), "a child waits on a lock the owner holds");
	owner_registers(a);
	ok(get_robust(owner, &head, &len) == 0 && head == (uint64_t)&a->head,
	   "get_robust_list(pid) reads another process's head");
	ok(owner_exits(a, owner) == 0, "the owner exits");
	ok(child_code(waiter) == 0, "the waiter is woken");
	ok(a->lock[0].word == (FUTEX_WAITERS | FUTEX_OWNER_DIED),
	   "a held lock with waiters: FUTEX_WAITERS|FUTEX_OWNER_DIED (0x%x)", a->lock[0].word);
	ok(a->lock[1].word == FUTEX_OWNER_DIED, "a held lock without waiters: FUTEX_OWNER_DIED");
	ok(a->lock[2].word == OTHER_TID, "a lock owned by another tid is left alone");
	ok(a->lock[3].word == FUTEX_OWNER_DIED, "the pending lock it held: FUTEX_OWNER_DIED");
	munmap(a, 4096);
}

/* Killed while holding a lock; its pending lock was just released (owner
 * 0), so the waiter it may not have woken is woken by the kernel. */
static void test_killed(void)
{
	struct arena *a = new_arena();
	pid_t owner = spawn_owner(a), w0, w1;
	uint32_t tid = (uint32_t)owner;
	int status;

	a->lock[0].word = tid | FUTEX_WAITERS;
	a->lock[1].word = 0;
	link_locks(a, (const int[]){0, -1});
	a->head.list_op_pending = (uint64_t)&a->lock[1].next;
	w0 = spawn_waiter(&a->lock[0].word, 0, tid | FUTEX_WAITERS, FUTEX_BITSET_MATCH_ANY, 0);
	w1 = spawn_waiter(&a->lock[1].word, 0, 0, FUTEX_BITSET_MATCH_ANY, 0);
	ok(await_waiters(&a->lock[0].word, 0, 1) && await_waiters(&a->lock[1].word, 0, 1),
	   "waiters on a held lock and on a just-released one");
	owner_registers(a);
	kill(owner, SIGKILL);
	ok(waitpid(owner, &status, 0) == owner && killed_by(status, SIGKILL),
	   "the owner is killed");
	ok(child_code(w0) == 0 && a->lock[0].word == (FUTEX_WAITERS | FUTEX_OWNER_DIED),
	   "death by SIGKILL releases the held lock and wakes its waiter");
	ok(child_code(w1) == 0 && a->lock[1].word == 0,
	   "the pending lock with owner 0: its waiter is woken, the word left 0");
	munmap(a, 4096);
}

/* Lists a buggy or hostile program may leave: exit must still finish. */
static void test_bad_lists(void)
{
	struct arena *a = new_arena();
	pid_t owner = spawn_owner(a);

	a->lock[0].word = (uint32_t)owner;
	a->lock[0].next = (uint64_t)&a->lock[0].next; /* loops on itself */
	a->head.next = (uint64_t)&a->lock[0].next;
	owner_registers(a);
	ok(owner_exits(a, owner) == 0 && a->lock[0].word == FUTEX_OWNER_DIED,
	   "a list that loops forever: the exit stops after ROBUST_LIST_LIMIT entries");

	a->go = 0;
	owner = spawn_owner(a);
	a->lock[0].word = (uint32_t)owner;
	a->lock[1].word = (uint32_t)owner;
	link_locks(a, (const int[]){0, 1, -1});
	a->lock[0].next = 0x10; /* unmapped: the walk stops there */
	owner_registers(a);
	ok(owner_exits(a, owner) == 0 && a->lock[0].word == FUTEX_OWNER_DIED &&
	       a->lock[1].word == (uint32_t)owner,
	   "an entry pointing at unmapped memory ends the walk after that lock");

	a->go = 0;
	owner = spawn_owner(a);
	a->lock[0].word = (uint32_t)owner;
	link_locks(a, (const int[]){0, -1});
	a->head.futex_offset = 9; /* misaligned lock words */
	owner_registers(a);
	ok(owner_exits(a, owner) == 0 && a->lock[0].word == (uint32_t)owner,
	   "a misaligned futex_offset: nothing is touched");
	munmap(a, 4096);
}

/* execve releases the old image's robust list and forgets it. */
static void test_exec(const char *self)
{
	struct arena *a = new_arena();
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		char *args[] = {(char *)self, "--no-robust-list", NULL};
		char *env[] = {NULL};
		a->lock[0].word = (uint32_t)getpid();
		link_locks(a, (const int[]){0, -1});
		set_robust(&a->head, sizeof(a->head));
		execve(self, args, env);
		_exit(99);
	}
	ok(child_code(pid) == 0, "after execve get_robust_list(0) is empty");
	ok(a->lock[0].word == FUTEX_OWNER_DIED, "execve marked the held lock FUTEX_OWNER_DIED");
	munmap(a, 4096);
}

/* A process's last task leaves its clear_child_tid word alone (Linux's
 * mm_users > 1 rule): nobody is left in the space to join it. */
static void test_tid_word_fork(void)
{
	volatile uint32_t *w = shared_page();
	pid_t pid;

	*w = 77;
	fflush(stdout);
	if ((pid = fork()) == 0) {
		syscall(__NR_set_tid_address, w);
		_exit(0);
	}
	ok(child_code(pid) == 0 && *w == 77,
	   "set_tid_address in a process that exits: the word is left as it was");
	munmap((void *)w, 4096);
}

#define CLONE_VM	     0x00000100
#define CLONE_CHILD_CLEARTID 0x00200000
#define LINUX_SIGCHLD	     17

/* clone(CLONE_VM | CLONE_CHILD_CLEARTID): the child exits at once on its
 * own stack, touching nothing.  Returns its pid or -errno. */
static long clone_exit_child(volatile uint32_t *ctid, void *stack_top)
{
	register long r10 __asm__("r10") = (long)ctid;
	register long r8 __asm__("r8") = 0;
	long ret;

	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "mov $60, %%eax\n\t"
			 "xor %%edi, %%edi\n\t"
			 "syscall\n\t"
			 "1:"
			 : "=a"(ret)
			 : "0"((long)__NR_clone),
			   "D"((long)(CLONE_VM | CLONE_CHILD_CLEARTID | LINUX_SIGCHLD)),
			   "S"(stack_top), "d"(0L), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	return ret;
}

/* A task sharing the space exits: the word becomes 0 and its waiter wakes. */
static void test_tid_word_clone(void)
{
	static char stack[16384] __attribute__((aligned(16)));
	static volatile uint32_t word = 55;
	struct timespec ts = {10, 0};
	uint32_t v;
	long pid;

	fflush(stdout);
	pid = clone_exit_child(&word, stack + sizeof(stack));
	if (pid < 0) {
		skip("clone(CLONE_VM) not available yet", "clear_child_tid wakes the joiner");
		skip("clone(CLONE_VM) not available yet", "and the tid word is 0");
		return;
	}
	while ((v = word) != 0 && futex(&word, FUTEX_WAIT, v, &ts, NULL, 0) == 0)
		;
	ok(word == 0, "CLONE_CHILD_CLEARTID: the word is 0 once the child exits, its waiter woken");
	ok(child_code((pid_t)pid) == 0, "and the child is reaped");
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		uint64_t head = 1, len;
		return get_robust(0, &head, &len) == 0 && head == 0 ? 0 : 1;
	}
	plan(32);
	test_calls();
	test_exit();
	test_killed();
	test_bad_lists();
	test_exec(argv[0]);
	test_tid_word_fork();
	test_tid_word_clone();
	return done();
}
