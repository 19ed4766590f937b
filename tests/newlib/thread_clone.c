/* clone's other flags: CLONE_VFORK (and vfork) suspend the parent until
 * the child exits; CLONE_SETTLS and CLONE_CHILD_SETTID set up the child;
 * a TLS base in the kernel half is EPERM; a child with no exit signal is
 * seen only by __WCLONE/__WALL waits; CLONE_PARENT makes a sibling; past
 * the task limit clone gives EAGAIN and nothing leaks. */
#include <errno.h>
#include <fdkernel.h>
#include <signal.h>
#include <unistd.h>

#include "robust.h"
#include "tap.h"
#include "testutil.h"
#include "thread.h"

#define LSIGCHLD   17 /* newlib's SIGCHLD differs; clone takes Linux's */
#define WCLONE_BIT 0x80000000
#define WALL_BIT   0x40000000

static char stack[65536] __attribute__((aligned(16)));
static volatile int shared;

static int vfork_child(void *arg)
{
	struct timespec ts = {0, 30000000};

	(void)arg;
	shared = 1;
	thread_sys(__NR_nanosleep, &ts, NULL, 0);
	shared = 2;
	return 3;
}

static void test_vfork(void)
{
	int status = -1;
	long pid;

	shared = 0;
	pid = thread_clone(CLONE_VFORK | CLONE_VM | LSIGCHLD, stack + sizeof stack, NULL, NULL, 0,
			   vfork_child, NULL);
	is_int(shared, 2, "CLONE_VFORK: the parent resumes only once the child exited");
	is_int(waitpid((pid_t)pid, &status, 0), pid, "... and reaps it");
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 3, "with its status (%#x)", status);
	/* vfork(2) itself: the child shares our stack, so it exits at once. */
	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "mov $60, %%eax\n\t"
			 "mov $7, %%edi\n\t"
			 "syscall\n"
			 "1:"
			 : "=a"(pid)
			 : "a"((long)__NR_vfork)
			 : "rcx", "r11", "rdi", "memory");
	is_int(waitpid((pid_t)pid, &status, 0), pid, "vfork: the parent goes on, reaps the child");
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 7, "whose _exit(7) released it (%#x)",
	   status);
}

static int vfork_pipe[2];

/* A vfork child that never execs nor exits: it reports its pid and waits. */
static int stuck_child(void *arg)
{
	long pid = thread_sys(__NR_getpid, 0, 0, 0);

	(void)arg;
	thread_sys(__NR_write, vfork_pipe[1], &pid, sizeof pid);
	for (;;)
		thread_sys(__NR_pause, 0, 0, 0);
	return 0;
}

/* The vfork parent: its child is our sibling (CLONE_PARENT), so the test
 * can reap both. */
static void vfork_parent_of_stuck(void)
{
	thread_clone(CLONE_VFORK | CLONE_VM | CLONE_PARENT | LSIGCHLD, stack + sizeof stack, NULL,
		     NULL, 0, stuck_child, NULL);
	_exit(1); /* never reached: killed while waiting */
}

/* SIGKILL ends a vfork parent's wait; the child goes on, killed later. */
static void test_vfork_killed(void)
{
	int status = -1, cstatus = -1;
	long child = 0;
	pid_t parent;

	require(pipe(vfork_pipe) == 0, "pipe");
	fflush(stdout);
	if ((parent = fork()) == 0)
		vfork_parent_of_stuck();
	read(vfork_pipe[0], &child, sizeof child);
	sleep_ms(20);
	kill(parent, SIGKILL);
	waitpid(parent, &status, 0);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	   "SIGKILL ends a parent waiting for its stuck vfork child (%#x)", status);
	kill((pid_t)child, SIGKILL);
	ok(waitpid((pid_t)child, &cstatus, 0) == child && WIFSIGNALED(cstatus),
	   "the child outlived it and dies of its own SIGKILL");
	close(vfork_pipe[0]);
	close(vfork_pipe[1]);
}

static uint64_t tcb[2];
static volatile uint64_t fs_seen;
static volatile int settid_seen;
static int ctid_word = -1;

static int tls_child(void *arg)
{
	uint64_t v;

	(void)arg;
	__asm__ volatile("movq %%fs:0, %0" : "=r"(v));
	fs_seen = v;
	settid_seen =
	    __atomic_load_n(&ctid_word, __ATOMIC_ACQUIRE) == thread_sys(__NR_gettid, 0, 0, 0);
	return 0;
}

static void test_tls_settid(void)
{
	unsigned long flags =
	    (THREAD_FLAGS & ~CLONE_PARENT_SETTID) | CLONE_SETTLS | CLONE_CHILD_SETTID;
	long tid;

	tcb[0] = 0x5eed5eedUL;
	tid = thread_clone(flags, stack + sizeof stack, NULL, &ctid_word, (unsigned long)tcb,
			   tls_child, NULL);
	require(tid > 0, "clone");
	while (__atomic_load_n(&ctid_word, __ATOMIC_ACQUIRE))
		thread_wait_word(&ctid_word, (int)tid);
	is_int((long)fs_seen, 0x5eed5eed, "CLONE_SETTLS: the thread's %%fs:0 is its TLS block");
	ok(settid_seen, "CLONE_CHILD_SETTID: the thread finds its tid in the word at start");
	is_int(thread_clone(flags, stack + sizeof stack, NULL, &ctid_word, 0xffff800000000000UL,
			    tls_child, NULL),
	       -EPERM, "CLONE_SETTLS with a kernel-half base: EPERM");
}

static int quiet(void *arg)
{
	(void)arg;
	return 5;
}

static void test_no_exit_signal(void)
{
	int status = -1;
	long pid = thread_clone(0, NULL, NULL, NULL, 0, quiet, NULL); /* fork, no exit signal */

	require(pid > 0, "clone");
	sleep_ms(20); /* most likely a zombie by then; exited or not, the same answers */
	is_errno(syscall(__NR_wait4, pid, &status, 0, NULL), ECHILD,
		 "a child without exit signal is not seen by a plain wait");
	is_int(syscall(__NR_wait4, pid, &status, WCLONE_BIT, NULL), pid, "__WCLONE reaps it");
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 5, "with its status (%#x)", status);
	pid = thread_clone(0, NULL, NULL, NULL, 0, quiet, NULL);
	is_int(syscall(__NR_wait4, pid, &status, WALL_BIT, NULL), pid, "so does __WALL");
}

static int pipefd[2];

static void clone_parent_middle(void)
{
	long pid = thread_clone(CLONE_PARENT | LSIGCHLD, NULL, NULL, NULL, 0, quiet, NULL);

	write(pipefd[1], &pid, sizeof pid);
}

static void test_clone_parent(void)
{
	long sibling = 0;
	int status = -1;

	require(pipe(pipefd) == 0, "pipe");
	status = child_status(clone_parent_middle);
	read(pipefd[0], &sibling, sizeof sibling);
	ok(WIFEXITED(status) && sibling > 0, "a child clones with CLONE_PARENT and exits");
	is_int(waitpid((pid_t)sibling, &status, 0), sibling, "its clone is our child: we reap it");
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 5, "with its status (%#x)", status);
	close(pipefd[0]);
	close(pipefd[1]);
}

/* A thread on an unmapped stack faults at its first push: the process dies. */
static void child_thread_bad_stack(void)
{
	thread_clone(THREAD_FLAGS & ~(CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID), (void *)0x10000,
		     NULL, NULL, 0, quiet, NULL);
	for (;;)
		pause();
}

/* Unmapped tid words: clone succeeds, the writes are dropped (Linux). */
static void child_thread_bad_tid_words(void)
{
	long tid = thread_clone(THREAD_FLAGS | CLONE_CHILD_SETTID, stack + sizeof stack,
				(int *)0x10000, (int *)0x10000, 0, quiet, NULL);

	sleep_ms(50);
	thread_sys(__NR_exit_group, tid > 0 ? 0 : 1, 0, 0);
}

static void test_bad_pointers(void)
{
	int status = child_status(child_thread_bad_stack);

	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV,
	   "a thread started on an unmapped stack kills its process with SIGSEGV (%#x)", status);
	status = child_status(child_thread_bad_tid_words);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "unmapped parent/child tid words: clone succeeds, the thread runs and exits (%#x)",
	   status);
}

static int pauser(void *arg)
{
	(void)arg;
	for (;;)
		thread_sys(__NR_pause, 0, 0, 0);
	return 0;
}

/* Threads until clone refuses: exits 0 if that was EAGAIN after many. */
static void spawn_until_refused(void)
{
	enum { MAX = 1100, STACK = 4096 };
	char *stacks = mmap(NULL, (size_t)MAX * STACK, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	static int tids[MAX];
	long ret = 0;
	int n;

	require(stacks != MAP_FAILED, "mmap");
	for (n = 0; n < MAX; n++) {
		ret = thread_clone(THREAD_FLAGS, stacks + (size_t)(n + 1) * STACK, &tids[n],
				   &tids[n], 0, pauser, NULL);
		if (ret < 0)
			break;
	}
	thread_sys(__NR_exit_group, ret == -EAGAIN && n > 500 ? 0 : 1, 0, 0);
}

static void test_task_limit(void)
{
	struct kstat before;
	bool have = kstat_read(&before);
	int status;

	if (!on_fdkernel()) {
		skip("the host's limit is far away", "threads past the task limit: EAGAIN");
		skip("the host's limit is far away", "nothing left behind");
		return;
	}
	status = child_status(spawn_until_refused);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "hundreds of threads, then clone gives EAGAIN at the task limit (%#x)", status);
	kstat_unchanged(&before, have, "exit_group ended them all: nothing left behind");
}

int main(void)
{
	plan(21);
	test_vfork();
	test_vfork_killed();
	test_tls_settid();
	test_no_exit_signal();
	test_clone_parent();
	test_bad_pointers();
	test_task_limit();
	return done();
}
