/* The kernel's writes to a futex word race with a sibling thread's fork
 * and copy-on-write break of the word's page (run it at -smp 4): every
 * FUTEX_WAKE_OP add lands in the parent's page, none in a child's
 * snapshot, and every robust lock of a thread that exits holding it gets
 * FUTEX_OWNER_DIED in the parent's page.  A kernel that wrote through a
 * pointer kept from an earlier translation lost some of them. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "../../kernel/uapi/futex.h" /* Linux's values; musl has no <linux/futex.h> */
#include "threads.h"

#define ADDERS	   2
#define MIN_ADDS   2000 /* each adder's, and as many more as MIN_FORKS take */
#define MIN_FORKS  60
#define ROBUST_OWN 150

/* One private page: the words the kernel writes and one the forker writes
 * to break copy-on-write. */
struct page {
	uint32_t counter; /* FUTEX_WAKE_OP adds here */
	uint32_t none;	  /* the word woken: nobody waits */
	uint32_t cow;	  /* the forker's write */
	uint32_t pad;
	struct robust_list_head_k head;
	uint64_t entry; /* the one lock on the list: its word follows */
	uint32_t word;
};

static struct page *pg;
static atomic_int stop, forks;
static int bad_children;

static long futex(uint32_t *w, int op, int val, uint32_t *w2, int val3)
{
	return syscall(SYS_futex, w, op | FUTEX_PRIVATE_FLAG, val, NULL, w2, val3);
}

/* Adds 1 to the counter with FUTEX_WAKE_OP while the forker forks: how
 * many times in *arg, or -1 in it if a call failed. */
static void *adder(void *arg)
{
	/* counter += 1, then wake nr_wake2 (0) of counter if it was 0 */
	int op = (FUTEX_OP_ADD << 28) | (FUTEX_OP_CMP_EQ << 24) | (1 << 12);
	long *adds = arg;

	for (*adds = 0; *adds < MIN_ADDS || atomic_load(&forks) < MIN_FORKS; ++*adds)
		if (futex(&pg->none, FUTEX_WAKE_OP, 0, &pg->counter, op) != 0) {
			*adds = -1;
			break;
		}
	return NULL;
}

/* Forks until told to stop; each child checks that its snapshot of the
 * page does not change after the fork (no write of the parent's lands in
 * it), and the parent writes the page at once, breaking copy-on-write
 * while the other threads' futex writes are under way. */
static void *forker(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		int status;
		pid_t pid = fork();

		if (pid == 0) {
			uint32_t c = pg->counter, w = pg->word;

			for (int i = 0; i < 20; i++)
				sched_yield();
			_exit(pg->counter != c || pg->word != w);
		}
		if (pid < 0)
			return (void *)1;
		__atomic_fetch_add(&pg->cow, 1, __ATOMIC_RELAXED);
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
			bad_children++;
		atomic_fetch_add(&forks, 1);
	}
	return NULL;
}

/* Takes the robust lock (its word our tid) and exits without unlocking:
 * the kernel's exit marks it FUTEX_OWNER_DIED.  musl's pthread_exit leaves
 * a list it did not register to the kernel. */
static void *owner(void *arg)
{
	(void)arg;
	pg->word = (uint32_t)syscall(SYS_gettid);
	pg->head.next = (uint64_t)&pg->entry;
	pg->entry = (uint64_t)&pg->head;
	pg->head.futex_offset = offsetof(struct page, word) - offsetof(struct page, entry);
	pg->head.list_op_pending = 0;
	if (syscall(SYS_set_robust_list, &pg->head, sizeof(pg->head)))
		return (void *)1;
	return NULL;
}

static void wake_op_adds(void)
{
	pthread_t f = start_thread(forker, NULL), t[ADDERS];
	long adds[ADDERS], total = 0;
	void *ret;
	int failed = 0;

	for (int i = 0; i < ADDERS; i++)
		t[i] = start_thread(adder, &adds[i]);
	for (int i = 0; i < ADDERS; i++) {
		pthread_join(t[i], NULL);
		failed += adds[i] < 0;
		total += adds[i];
	}
	atomic_store(&stop, 1);
	pthread_join(f, &ret);
	is_int(failed, 0, "every FUTEX_WAKE_OP returned 0 (nobody woken)");
	ok(ret == NULL && forks >= MIN_FORKS, "the forker forked (%d times)", forks);
	is_int(pg->counter, total, "every add (%ld) landed in the parent's page", total);
	is_int(bad_children, 0, "no child saw its snapshot change");
}

static void robust_exits(void)
{
	int lost = 0, failed = 0;
	pthread_t f;
	void *ret;

	atomic_store(&stop, 0);
	atomic_store(&forks, 0);
	bad_children = 0;
	f = start_thread(forker, NULL);
	for (int i = 0; i < ROBUST_OWN; i++) {
		pthread_t t = start_thread(owner, NULL);

		pthread_join(t, &ret);
		failed += ret != NULL;
		lost += pg->word != FUTEX_OWNER_DIED; /* the tid cleared, as Linux */
	}
	atomic_store(&stop, 1);
	pthread_join(f, &ret);
	is_int(failed, 0, "each owner set its robust list");
	is_int(lost, 0, "each dead owner's lock says FUTEX_OWNER_DIED in the parent's page");
	is_int(bad_children, 0, "no child saw its snapshot change (%d forks)", atomic_load(&forks));
}

int main(void)
{
	plan(7);
	pg = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	require(pg != MAP_FAILED, "mmap");
	wake_op_adds();
	robust_exits();
	return done();
}
