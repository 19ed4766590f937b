/*
 * Threads for the newlib test programs, over raw clone(2): a stack from
 * mmap, the thread-group flags, and a join that waits for the kernel to
 * zero the thread's tid word (CLONE_CHILD_CLEARTID) as the thread exits.
 * The same code runs on the host Linux.
 *
 * newlib's errno and stdio are not thread-safe: thread bodies use only
 * thread_sys() (raw system calls returning -errno) and __atomic builtins;
 * the main thread reports results once the others are joined.
 */
#ifndef USER_THREAD_H
#define USER_THREAD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <uapi/sched.h>
#include <uapi/syscalls.h>

#define THREAD_STACK_SIZE (64 * 1024)
#define THREAD_FLAGS                                                                               \
	(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |        \
	 CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID)

struct thread {
	/* The thread's tid from its creation (CLONE_PARENT_SETTID) until the
	 * kernel zeroes it at its exit (CLONE_CHILD_CLEARTID). */
	int tid;
	void *stack;
};

/* A raw system call: the result, or -errno. */
static inline long thread_sys6(long n, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}
#define thread_sys(n, a, b, c) thread_sys6((n), (long)(a), (long)(b), (long)(c), 0, 0, 0)

/*
 * System call nr (clone or clone3) with up to five arguments; in the child
 * (rax 0) fn(arg) runs on the new stack and its result ends the thread
 * (SYS_exit).  Returns the child's tid in the caller, or -errno.
 */
static inline long thread_clone_call(long nr, long a1, long a2, long a3, long a4, long a5,
				     int (*fn)(void *), void *arg)
{
	register long r10 __asm__("r10") = a4;
	register long r8 __asm__("r8") = a5;
	register void *r9 __asm__("r9") = (void *)fn;
	register void *r12 __asm__("r12") = arg;
	long ret;

	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "xor %%ebp, %%ebp\n\t"
			 "mov %%r12, %%rdi\n\t"
			 "call *%%r9\n\t"
			 "mov %%eax, %%edi\n\t"
			 "mov %[exit], %%eax\n\t"
			 "syscall\n\t"
			 "ud2\n"
			 "1:"
			 : "=a"(ret)
			 : "a"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9),
			   "r"(r12), [exit] "i"(__NR_exit)
			 : "rcx", "r11", "memory");
	return ret;
}

/*
 * clone(flags, stack_top, ptid, ctid, tls); the child calls fn(arg) on
 * stack_top (0: a copy of the caller's stack, for fork-style clones).
 */
static inline long thread_clone(unsigned long flags, void *stack_top, int *ptid, int *ctid,
				unsigned long tls, int (*fn)(void *), void *arg)
{
	return thread_clone_call(__NR_clone, (long)flags, (long)stack_top, (long)ptid, (long)ctid,
				 (long)tls, fn, arg);
}

/* Starts fn(arg) in a new thread of this process: its tid, or -errno. */
static inline long thread_start(struct thread *t, int (*fn)(void *), void *arg)
{
	long tid;

	t->stack = mmap(NULL, THREAD_STACK_SIZE, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t->stack == MAP_FAILED)
		return -12; /* ENOMEM */
	tid = thread_clone(THREAD_FLAGS, (char *)t->stack + THREAD_STACK_SIZE, &t->tid, &t->tid, 0,
			   fn, arg);
	if (tid < 0)
		munmap(t->stack, THREAD_STACK_SIZE);
	return tid;
}

/* Sleeps until the tid word changes from tid: the kernel zeroes it and
 * wakes it with a shared futex wake (CLONE_CHILD_CLEARTID), as Linux. */
static inline void thread_wait_word(int *word, int tid)
{
	thread_sys(__NR_futex, word, 0 /* FUTEX_WAIT */, tid);
}

/* Waits for t to exit (the kernel zeroed its tid word), frees its stack. */
static inline void thread_join(struct thread *t)
{
	int tid;

	while ((tid = __atomic_load_n(&t->tid, __ATOMIC_ACQUIRE)))
		thread_wait_word(&t->tid, tid);
	munmap(t->stack, THREAD_STACK_SIZE);
}

#endif
