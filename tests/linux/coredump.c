/*
 * Core dumps: a child killed by a core-dumping signal gets WCOREDUMP and
 * leaves an ELF core ("core" in its cwd, mode 0600) when RLIMIT_CORE is a
 * page or more; the core's notes (NT_PRSTATUS per thread with the signal
 * and tid, NT_PRPSINFO, NT_SIGINFO, NT_AUXV) and PT_LOADs (the bytes of a
 * global and of a mapping, none of one under MADV_DONTDUMP, those
 * /proc/self/coredump_filter selects).  Every
 * core-dumping signal dumps, the others do not; RLIMIT_CORE 0 or under a
 * page, PR_SET_DUMPABLE 0 or a directory in the way give no core and no
 * WCOREDUMP; a limit too small for the whole core cuts the file (the
 * status has WCOREDUMP all the same, as Linux's); an old core is
 * replaced.  In fdkernel the
 * core_pattern specifiers and core_uses_pid too (the host's are the
 * machine's).  "coredump crash" is tests/harness/gdb-check's program: two
 * threads, a known backtrace, a SIGSEGV.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "testutil.h"

#define REGION (64 * 1024)

static char dir[64];
static char marker[8192]; /* filled before a crash: the core must hold it */
volatile int core_magic;  /* what gdb prints from tests/harness/gdb-check's core */
static char *region, *hidden, *shared;
static int nthreads;
static const char *child_filter; /* written to the crashing child's coredump_filter */

/* ---- The crashes, in a child ---- */

static void *blocked(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static void start_threads(int n)
{
	pthread_attr_t a;
	pthread_t t;

	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 * 1024);
	for (int i = 0; i < n; i++)
		require(pthread_create(&t, &a, blocked, NULL) == 0, "pthread_create");
}

/* Fills what the core must show, then kills itself with sig. */
static void die_by(int sig)
{
	memset(marker, 'M', sizeof marker);
	memset(region, 'R', REGION);
	memset(hidden, 'H', REGION);
	memset(shared, 'S', REGION);
	if (child_filter) {
		FILE *f = fopen("/proc/self/coredump_filter", "w");
		if (!f || fputs(child_filter, f) < 0 || fclose(f))
			_exit(97);
	}
	start_threads(nthreads);
	signal(sig, SIG_DFL);
	kill(getpid(), sig);
	pause();
}

static pid_t crash_child(int sig, rlim_t limit, int dumpable)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct rlimit rl = {limit, RLIM_INFINITY};

		if (chdir(dir) || setrlimit(RLIMIT_CORE, &rl) || prctl(PR_SET_DUMPABLE, dumpable))
			_exit(99);
		die_by(sig);
		_exit(98);
	}
	return pid;
}

/* The child's wait status. */
static int crash(int sig, rlim_t limit, int dumpable)
{
	int status = -1;
	pid_t pid = crash_child(sig, limit, dumpable);

	require(pid > 0 && waitpid(pid, &status, 0) == pid, "fork and wait");
	return status;
}

static bool core_dumped(int status, int sig)
{
	return WIFSIGNALED(status) && WTERMSIG(status) == sig && WCOREDUMP(status);
}

static bool no_core(int status, int sig)
{
	return WIFSIGNALED(status) && WTERMSIG(status) == sig && !WCOREDUMP(status);
}

/* ---- Reading a core ---- */

static char path[256];
static unsigned char *core;
static size_t core_len;

static const char *scratch(const char *name)
{
	snprintf(path, sizeof path, "%s/%s", dir, name);
	return path;
}

/* Reads dir/name into core: its size, or -1. */
static long read_core(const char *name)
{
	FILE *f = fopen(scratch(name), "r");
	long n;

	free(core);
	core = NULL;
	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	core = malloc(n > 0 ? (size_t)n : 1);
	core_len = fread(core, 1, (size_t)n, f);
	fclose(f);
	return (long)core_len;
}

static Elf64_Ehdr *ehdr(void)
{
	Elf64_Ehdr *e = (Elf64_Ehdr *)core;

	return core_len >= sizeof(*e) && !memcmp(e->e_ident, ELFMAG, SELFMAG) ? e : NULL;
}

static Elf64_Phdr *phdr(int i)
{
	Elf64_Ehdr *e = ehdr();

	if (!e || i >= e->e_phnum || e->e_phoff + (i + 1) * sizeof(Elf64_Phdr) > core_len)
		return NULL;
	return (Elf64_Phdr *)(core + e->e_phoff) + i;
}

/* The PT_LOAD that maps addr. */
static Elf64_Phdr *load_of(const void *addr)
{
	Elf64_Phdr *p;

	for (int i = 0; (p = phdr(i)); i++)
		if (p->p_type == PT_LOAD && (uintptr_t)addr >= p->p_vaddr &&
		    (uintptr_t)addr < p->p_vaddr + p->p_memsz)
			return p;
	return NULL;
}

/* Whether the core holds len bytes of c at addr (across PT_LOADs: a
 * global may straddle the data mapping and the bss after it). */
static bool holds(const void *addr, size_t len, char c)
{
	for (uintptr_t a = (uintptr_t)addr; a < (uintptr_t)addr + len; a++) {
		Elf64_Phdr *p = load_of((const void *)a);
		uint64_t off = p ? a - p->p_vaddr : 0;

		if (!p || off >= p->p_filesz || p->p_offset + off >= core_len ||
		    core[p->p_offset + off] != c)
			return false;
	}
	return true;
}

/* Calls fn for each note of type (any: 0) with its descriptor: how many. */
static int each_note(uint32_t type, void (*fn)(const void *desc, size_t len, void *arg), void *arg)
{
	Elf64_Phdr *p;
	int n = 0;

	for (int i = 0; (p = phdr(i)); i++) {
		if (p->p_type != PT_NOTE || p->p_offset + p->p_filesz > core_len)
			continue;
		for (size_t at = p->p_offset;
		     at + sizeof(Elf64_Nhdr) <= p->p_offset + p->p_filesz;) {
			Elf64_Nhdr *nh = (Elf64_Nhdr *)(core + at);
			size_t desc = at + sizeof(*nh) + ((nh->n_namesz + 3) & ~3u);

			if (desc + nh->n_descsz > core_len)
				break;
			if (!type || nh->n_type == type) {
				n++;
				if (fn)
					fn(core + desc, nh->n_descsz, arg);
			}
			at = desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
	return n;
}

/* elf_prstatus's fields the checks read (x86_64 offsets). */
struct status_seen {
	int count, signo_ok, pid_match;
	pid_t pid;
};

static void seen_status(const void *desc, size_t len, void *arg)
{
	struct status_seen *s = arg;
	int32_t signo, pid;
	int16_t cursig;

	if (len != 336)
		return;
	memcpy(&signo, desc, 4);
	memcpy(&cursig, (const char *)desc + 12, 2);
	memcpy(&pid, (const char *)desc + 32, 4);
	s->count++;
	s->signo_ok += signo == SIGABRT && cursig == SIGABRT;
	s->pid_match += pid == s->pid;
}

static void seen_psinfo(const void *desc, size_t len, void *arg)
{
	if (len == 136)
		snprintf(arg, 16, "%.15s", (const char *)desc + 40);
}

static void seen_siginfo(const void *desc, size_t len, void *arg)
{
	if (len == 128)
		memcpy(arg, desc, sizeof(int));
}

static void seen_auxv(const void *desc, size_t len, void *arg)
{
	const uint64_t *a = desc;

	for (size_t i = 0; i + 1 < len / 8; i += 2)
		if (a[i] == AT_PAGESZ)
			*(uint64_t *)arg = a[i + 1];
}

/* ---- The checks ---- */

static void test_no_limit(void)
{
	struct stat st;

	ok(no_core(crash(SIGABRT, 0, 1), SIGABRT), "RLIMIT_CORE 0: SIGABRT without WCOREDUMP");
	ok(stat(scratch("core"), &st) && errno == ENOENT, "and no core file");
	ok(no_core(crash(SIGABRT, 1000, 1), SIGABRT), "RLIMIT_CORE under a page: none either");
	ok(no_core(crash(SIGABRT, RLIM_INFINITY, 0), SIGABRT), "PR_SET_DUMPABLE 0: none either");
	ok(stat(scratch("core"), &st) && errno == ENOENT, "no file after those");
}

static void test_core(const char *comm)
{
	pid_t pid = crash_child(SIGABRT, RLIM_INFINITY, 1);
	struct status_seen s = {.pid = pid};
	char fname[16] = "";
	int signo = 0, status;
	uint64_t pagesz = 0;
	struct stat st;
	Elf64_Phdr *p;

	require(pid > 0 && waitpid(pid, &status, 0) == pid, "fork and wait");
	ok(core_dumped(status, SIGABRT), "RLIMIT_CORE unlimited: SIGABRT with WCOREDUMP");
	ok(stat(scratch("core"), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600,
	   "a regular file \"core\" in its cwd, mode 0600");
	ok(read_core("core") > 0 && ehdr() && ehdr()->e_type == ET_CORE &&
	       ehdr()->e_machine == EM_X86_64 && ehdr()->e_ident[EI_CLASS] == ELFCLASS64,
	   "an x86_64 ELF core");
	each_note(NT_PRSTATUS, seen_status, &s);
	ok(s.count == 1 && s.signo_ok == 1 && s.pid_match == 1,
	   "NT_PRSTATUS: one thread, SIGABRT, its pid");
	each_note(NT_PRPSINFO, seen_psinfo, fname);
	ok(!strcmp(fname, comm), "NT_PRPSINFO names the program (%s)", fname);
	each_note(NT_SIGINFO, seen_siginfo, &signo);
	ok(signo == SIGABRT, "NT_SIGINFO: si_signo SIGABRT");
	each_note(NT_AUXV, seen_auxv, &pagesz);
	ok(pagesz == 4096, "NT_AUXV: AT_PAGESZ 4096");
	ok(holds(marker, sizeof marker, 'M'), "a PT_LOAD holds a global's bytes");
	ok(holds(region, REGION, 'R'), "and an anonymous mapping's");
	ok(holds(shared, REGION, 'S'), "and a shared anonymous mapping's");
	p = load_of(hidden);
	ok(p && p->p_filesz == 0 && p->p_memsz == REGION,
	   "a MADV_DONTDUMP mapping: a PT_LOAD with no bytes");
}

/* /proc/self/coredump_filter chooses the mappings (Linux's bits). */
static void test_filter(void)
{
	Elf64_Phdr *p;

	child_filter = "0x32"; /* all but anonymous private memory */
	ok(core_dumped(crash(SIGABRT, RLIM_INFINITY, 1), SIGABRT) && read_core("core") > 0 &&
	       (p = load_of(region)) && p->p_filesz == 0 && holds(shared, REGION, 'S'),
	   "coredump_filter 0x32: no private anonymous bytes, shared ones kept");
	child_filter = "0x31"; /* all but anonymous shared memory */
	ok(core_dumped(crash(SIGABRT, RLIM_INFINITY, 1), SIGABRT) && read_core("core") > 0 &&
	       (p = load_of(shared)) && p->p_filesz == 0 && holds(region, REGION, 'R'),
	   "coredump_filter 0x31: no shared anonymous bytes, private ones kept");
	child_filter = NULL;
}

static void test_threads(void)
{
	pid_t pid;
	struct status_seen s;
	int status;

	nthreads = 3;
	pid = crash_child(SIGABRT, RLIM_INFINITY, 1);
	s = (struct status_seen){.pid = pid};
	require(pid > 0 && waitpid(pid, &status, 0) == pid, "fork and wait");
	nthreads = 0;
	ok(core_dumped(status, SIGABRT), "with 3 more threads: WCOREDUMP");
	read_core("core");
	each_note(NT_PRSTATUS, seen_status, &s);
	ok(s.count == 4 && s.signo_ok == 4 && s.pid_match == 1,
	   "4 NT_PRSTATUS notes, the process's own tid among them (%d)", s.count);
}

static void test_signals(void)
{
	static const int dumping[] = {SIGQUIT, SIGILL,	SIGTRAP, SIGABRT, SIGBUS,
				      SIGFPE,  SIGSEGV, SIGXCPU, SIGXFSZ, SIGSYS};
	static const int not [] = {SIGTERM, SIGKILL, SIGUSR1, SIGALRM};
	int good = 0, quiet = 0;

	for (size_t i = 0; i < sizeof dumping / sizeof dumping[0]; i++)
		good += core_dumped(crash(dumping[i], RLIM_INFINITY, 1), dumping[i]);
	for (size_t i = 0; i < sizeof not / sizeof not [0]; i++)
		quiet += no_core(crash(not [i], RLIM_INFINITY, 1), not [i]);
	is_int(good, 10, "each core-dumping signal dumps core");
	is_int(quiet, 4, "SIGTERM, SIGKILL, SIGUSR1, SIGALRM do not");
}

static void test_limits(void)
{
	struct stat st;

	unlink(scratch("core"));
	ok(core_dumped(crash(SIGABRT, 8192, 1), SIGABRT),
	   "RLIMIT_CORE 8192, too small for the core: WCOREDUMP (Linux's: the dump began)");
	st.st_size = -1;
	stat(scratch("core"), &st);
	ok(st.st_size > 0 && st.st_size <= 8192, "and the file cut at the limit (%ld bytes)",
	   (long)st.st_size);
	ok(core_dumped(crash(SIGABRT, RLIM_INFINITY, 1), SIGABRT) &&
	       stat(scratch("core"), &st) == 0 && st.st_size > 8192,
	   "an old core is replaced");
	unlink(scratch("core"));
	require(mkdir(scratch("core"), 0755) == 0, "mkdir core");
	ok(no_core(crash(SIGABRT, RLIM_INFINITY, 1), SIGABRT),
	   "a directory named core: no dump, no WCOREDUMP");
	ok(stat(scratch("core"), &st) == 0 && S_ISDIR(st.st_mode), "the directory stays");
	rmdir(scratch("core"));
}

/* fdkernel only: /proc/sys/kernel/core_pattern and core_uses_pid. */
static bool set_sys(const char *file, const char *value)
{
	char p[96];
	FILE *f;

	snprintf(p, sizeof p, "/proc/sys/kernel/%s", file);
	if (!(f = fopen(p, "w")))
		return false;
	fputs(value, f);
	return fclose(f) == 0;
}

static void test_pattern(void)
{
	char name[96];
	struct stat st;
	pid_t pid;
	int status;

	if (!on_fdkernel()) {
		for (int i = 0; i < 4; i++)
			skip("the host's core_pattern is the whole machine's", "core_pattern");
		return;
	}
	require(set_sys("core_pattern", "core.%p.%e.%s.%%.%u%Z"), "core_pattern");
	pid = crash_child(SIGABRT, RLIM_INFINITY, 1);
	require(pid > 0 && waitpid(pid, &status, 0) == pid, "fork and wait");
	snprintf(name, sizeof name, "core.%d.coredump.%d.%%.0", pid, SIGABRT);
	ok(core_dumped(status, SIGABRT) && stat(scratch(name), &st) == 0,
	   "core_pattern %%p %%e %%s %%%% %%u: %s (unknown %%Z: nothing)", name);
	unlink(scratch(name));
	require(set_sys("core_pattern", "core") && set_sys("core_uses_pid", "1"), "core_uses_pid");
	pid = crash_child(SIGABRT, RLIM_INFINITY, 1);
	require(pid > 0 && waitpid(pid, &status, 0) == pid, "fork and wait");
	snprintf(name, sizeof name, "core.%d", pid);
	ok(stat(scratch(name), &st) == 0, "core_uses_pid: %s", name);
	unlink(scratch(name));
	require(set_sys("core_uses_pid", "0") && set_sys("core_pattern", "|/bin/cat"), "pipe");
	ok(no_core(crash(SIGABRT, RLIM_INFINITY, 1), SIGABRT), "a pipe pattern: no dump");
	require(set_sys("core_pattern", "core"), "core_pattern back");
	ok(stat(scratch("core"), &st) && errno == ENOENT, "and no file");
}

/* ---- tests/harness/gdb-check's crash ---- */

static int *volatile nowhere; /* NULL, which the compiler cannot know */

__attribute__((noinline)) static void crash_here(int depth)
{
	*nowhere = depth; /* SIGSEGV */
}

__attribute__((noinline)) static void level_two(int depth)
{
	crash_here(depth + 1);
	__asm__ volatile("" ::: "memory"); /* no tail call: the frame stays */
}

__attribute__((noinline)) static void level_one(int depth)
{
	level_two(depth + 1);
	__asm__ volatile("" ::: "memory");
}

static int gdb_crash(void)
{
	core_magic = 0x600dc0de;
	start_threads(2);
	level_one(1);
	return 1;
}

int main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');
	char comm[16];

	if (argc > 1 && !strcmp(argv[1], "crash"))
		return gdb_crash();
	snprintf(comm, sizeof comm, "%.15s", base ? base + 1 : argv[0]);
	region = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	hidden = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	shared = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	require(region != MAP_FAILED && hidden != MAP_FAILED && shared != MAP_FAILED, "mmap");
	require(madvise(hidden, REGION, MADV_DONTDUMP) == 0, "MADV_DONTDUMP");
	snprintf(dir, sizeof dir, "/tmp/coredump.XXXXXX");
	require(mkdtemp(dir) != NULL, "mkdtemp");
	plan(5 + 11 + 2 + 2 + 2 + 5 + 4);
	test_no_limit();
	test_core(comm);
	test_filter();
	test_threads();
	test_signals();
	test_limits();
	test_pattern();
	unlink(scratch("core"));
	rmdir(dir);
	return done();
}
