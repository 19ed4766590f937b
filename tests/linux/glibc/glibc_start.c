/* glibc's static start-up, what a glibc program does before main and what
 * only glibc does: the TLS block and its TCB (%fs:0 points at itself),
 * IRELATIVE relocations (glibc's own ifunc'd string functions and one of
 * ours), rseq registration or its fallback when the kernel has none,
 * getrandom (glibc's malloc seeds from it) and the auxiliary vector.  Built
 * with gcc -static (glibc_start) and -static-pie (glibc_start_pie). */
#define _GNU_SOURCE
#include <elf.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/random.h>
#include <sys/rseq.h>
#include <unistd.h>

#include "testutil.h"

extern char _start[];
/* A bad user pointer the compiler cannot see through. */
static void *volatile bad_pointer = (void *)8;

static __thread int tls_value = 42;
static __thread char tls_zeroed[256];

/* An ifunc of our own: the resolver runs once, before main, from the
 * IRELATIVE relocation the static link leaves for glibc to apply. */
static int resolver_calls;
static int answer_impl(void)
{
	return 4242;
}
static int (*resolve_answer(void))(void)
{
	resolver_calls++;
	return answer_impl;
}
int answer(void) __attribute__((ifunc("resolve_answer")));

static void *tls_thread(void *arg)
{
	(void)arg;
	return (void *)(intptr_t)(tls_value == 42 && tls_zeroed[100] == 0 ? 1 : 0);
}

static void check_tls(void)
{
	void *self, *res = NULL;
	pthread_t t;

	__asm__("mov %%fs:0, %0" : "=r"(self));
	ok(self == __builtin_thread_pointer(), "%%fs:0 holds the thread pointer (glibc's TCB)");
	ok(tls_value == 42 && tls_zeroed[0] == 0 && tls_zeroed[255] == 0,
	   "__thread variables: initialised and zeroed");
	tls_value = 7;
	tls_zeroed[100] = 1;
	require(pthread_create(&t, NULL, tls_thread, NULL) == 0, "pthread_create");
	pthread_join(t, &res);
	ok(res == (void *)1 && tls_value == 7, "a new thread gets fresh TLS, ours stays");
}

/* The rseq area glibc registered, or its fallback (rseq ENOSYS): size 0. */
static void check_rseq(void)
{
	struct rseq *rs = (struct rseq *)((char *)__builtin_thread_pointer() + __rseq_offset);

	if (__rseq_size == 0) {
		ok(1, "rseq not registered: glibc fell back (__rseq_size 0)");
		return;
	}
	ok(__rseq_size >= 20 && rs->cpu_id < (unsigned)sysconf(_SC_NPROCESSORS_CONF),
	   "rseq registered: size %u, cpu_id %u", __rseq_size, rs->cpu_id);
}

static void check_ifuncs(void)
{
	enum { LEN = 100000 };
	char *a = malloc(LEN + 1), *b = malloc(LEN + 1);

	require(a && b, "malloc");
	ok(resolver_calls == 1 && answer() == 4242, "our ifunc resolved once, before main");
	memset(a, 'x', LEN);
	a[LEN] = '\0';
	memcpy(b, a, LEN + 1);
	b[LEN / 2] = 'y';
	ok(strlen(a) == LEN && memcmp(a, b, LEN / 2) == 0 && memcmp(a, b, LEN) < 0 &&
	       strchr(b, 'y') == b + LEN / 2,
	   "glibc's ifunc'd strlen, memcpy, memcmp, strchr");
	free(a);
	free(b);
}

static void check_getrandom(void)
{
	unsigned char x[32] = {0}, y[32] = {0};

	ok(getrandom(x, sizeof(x), 0) == 32 && getrandom(y, sizeof(y), GRND_NONBLOCK) == 32 &&
	       memcmp(x, y, sizeof(x)) != 0,
	   "getrandom fills 32 bytes, twice differently");
	is_errno(getrandom(x, sizeof(x), 0x100), EINVAL, "getrandom with an unknown flag: EINVAL");
	is_errno(getrandom(bad_pointer, 16, 0), EFAULT, "getrandom into a bad pointer: EFAULT");
}

static void check_auxv(void)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)(getauxval(AT_PHDR) - sizeof(Elf64_Ehdr));

	ok(getauxval(AT_ENTRY) == (unsigned long)_start,
	   "auxv AT_ENTRY is where _start was placed");
	ok(memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_phnum == getauxval(AT_PHNUM),
	   "auxv AT_PHDR points at the mapped program headers");
	ok(getauxval(AT_RANDOM) && getauxval(AT_PAGESZ) == 4096, "auxv AT_RANDOM and AT_PAGESZ");
}

int main(void)
{
	plan(12);
	check_tls();
	check_rseq();
	check_ifuncs();
	check_getrandom();
	check_auxv();
	return done();
}
