/* The fuzzer's per-process state and the random argument values it draws:
 * interesting numbers, bad and good pointers, fds, lengths, flags, pids.
 * Included by fuzz.c only, after its limits (every .c in tests/newlib is a
 * test program of its own). */
#ifndef FUZZ_VALUES_H
#define FUZZ_VALUES_H

/* --- One fuzzing process's state (each process has its own copy). --- */

static struct fuzzer {
	uint64_t rng;
	int worker, depth;
	int playing; /* the scenario class being played (its index), 0: none */
	long budget, unreported;
	pid_t children[MAX_CHILDREN];
	int nchildren;
	long recent[16]; /* results of earlier calls: fds, pids, addresses */
	unsigned nrecent;
	char *buf;
} fz;

static char long_name[300], long_path[5000], own_dir[32];

static uint64_t rnd(void)
{
	uint64_t z = (fz.rng += 0x9e3779b97f4a7c15ULL); /* splitmix64 */
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t below(uint64_t n)
{
	return rnd() % n;
}

static bool one_in(uint64_t n)
{
	return below(n) == 0;
}

#define PICK(array) ((array)[below(sizeof(array) / sizeof((array)[0]))])

static long raw_syscall(long nr, const long a[6])
{
	register long r10 __asm__("r10") = a[3];
	register long r8 __asm__("r8") = a[4];
	register long r9 __asm__("r9") = a[5];
	long ret;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a[0]), "S"(a[1]), "d"(a[2]), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

static long raw_call(long nr, long a0, long a1, long a2)
{
	const long a[6] = {a0, a1, a2, 0, 0, 0};
	return raw_syscall(nr, a);
}

/* --- Argument values. --- */

static const uint64_t interesting[] = {
    0,	       1,      2,	   3,	       7,	   8,		16,
    64,	       255,    256,	   4095,       4096,	   4097,	65535,
    65536,     0x7fff, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000, 0x7fffffffffffffff,
    1UL << 63, -1UL,   -2UL,	   -4096UL,    -4095UL,	   1UL << 40,	INT_MIN,
};

static const uint64_t bad_pointers[] = {
    0,
    1,
    0xfff,
    0x1000,
    0x100000000000,
    0x7ffffffff000,
    0x7fffffffffff,
    0x800000000000,
    1UL << 63,
    0xffff800000000000,
    0xffff888000000000,
    0xffffffff80000000,
    0xffffffff80100000,
    0xfffffffffffff000,
    0xffffffffffffffff,
};

/* Paths any call may change: all inside the worker's own directory. */
static const char *const paths[] = {
    "f", "a", "a/f", "a/b", "b", ".", "", own_dir, "/nonexistent/x", "f/x", long_name, long_path,
};

/* Files only opened, read or looked at (no directories: a dirfd outside the
 * worker's directory would let *at calls create files there). */
static const char *const system_files[] = {"/dev/null",	   "/dev/zero",	   "/dev/full",
					   "/dev/urandom", "/dev/profile", "/proc/kstat"};

static long recent_result(void)
{
	return fz.nrecent ? fz.recent[below(fz.nrecent)] : 0;
}

static void remember(long ret)
{
	if (ret >= 0)
		fz.recent[fz.nrecent < 16 ? fz.nrecent++ : below(16)] = ret;
}

/* A pointer into the writable buffer, possibly misaligned, possibly so close
 * to its end that a longer access runs into the unmapped page after it. */
static long buffer_pointer(void)
{
	switch (below(4)) {
	case 0:
		return (long)fz.buf; /* the struct area */
	case 1:
		return (long)(fz.buf + below(BUF_SIZE));
	case 2:
		return (long)(fz.buf + BUF_SIZE - below(64));
	default:
		return (long)(fz.buf + below(BUF_SIZE / 8) * 8);
	}
}

static long any_pointer(void)
{
	switch (below(8)) {
	case 0:
		return (long)PICK(bad_pointers);
	case 1:
		return (long)&interesting[below(8)]; /* read-only data */
	case 2:
		return (long)"/nonexistent/x"; /* a string; paths[] are writable */
	default:
		return buffer_pointer();
	}
}

static long fd_value(void)
{
	static const long odd[] = {
	    -1,	     -100 /* AT_FDCWD */, INT_MAX,	     INT_MIN, 1023, 1024,
	    1 << 20, NONSEQ_FD_BASE,	  NONSEQ_FD_BASE + 1};
	switch (below(8)) {
	case 0:
		return PICK(odd);
	case 1:
	case 2:
		return recent_result();
	default:
		return (long)below(12);
	}
}

static long length_value(void)
{
	static const long lens[] = {0,	      1,	8,	  16,		28,	 110,
				    128,      4096,	BUF_SIZE, BUF_SIZE + 1, 1 << 20, INT_MAX,
				    UINT_MAX, LONG_MAX, -1,	  1L << 40};
	return one_in(3) ? (long)below(BUF_SIZE) : PICK(lens);
}

/* Flags: a few random bits over a small base (access modes, socket types). */
static long flags_value(void)
{
	long v = (long)below(4);
	for (int n = (int)below(4); n > 0; n--)
		v |= 1L << below(32);
	return one_in(16) ? -1 : v;
}

static long address_value(void)
{
	switch (below(6)) {
	case 0:
		return (long)PICK(bad_pointers);
	case 1:
		return (long)(PLAYGROUND + below(64) * 4096 + (one_in(8) ? below(4096) : 0));
	case 2:
		return recent_result();
	default:
		return (long)(PLAYGROUND + below(16) * 4096);
	}
}

/* Socket option levels and names: SOL_SOCKET's (SO_PASSCRED, SO_PEERCRED,
 * the timeouts, SO_REUSEPORT, ..., SO_DOMAIN), IPPROTO_IP/TCP/UDP/IPV6 and
 * theirs (TCP_NODELAY, TCP_CORK, UDP_CORK, IPV6_V6ONLY, the multicast
 * ones: IP_MULTICAST_IF..IP_DROP_MEMBERSHIP 32-36, MCAST_JOIN_GROUP 42,
 * MCAST_LEAVE_GROUP 45, IP_MULTICAST_ALL 49). */
static long sockopt_value(void)
{
	static const long keys[] = {0,	1,  2,	3,  4,	7,  8,	10, 15, 16, 17, 20, 21,
				    26, 30, 32, 33, 34, 35, 36, 38, 39, 41, 42, 45, 49};
	return one_in(8) ? (long)below(64) : PICK(keys);
}

/* Socket families: those fdkernel has and some it has not. */
static long family_value(void)
{
	static const long families[] = {1 /* AF_UNIX */, 2 /* AF_INET */, 10 /* AF_INET6 */};
	return one_in(8) ? (long)below(48) : PICK(families);
}

/* Pids a fuzzing process may name without harming anyone outside its group. */
static long pid_value(void)
{
	static const long odd[] = {0, -1, 99999, INT_MAX, INT_MIN};
	if (fz.nchildren && one_in(2))
		return fz.children[below(fz.nchildren)];
	return one_in(3) ? raw_call(__NR_getpid, 0, 0, 0) : PICK(odd);
}

static long any_value(void)
{
	switch (below(6)) {
	case 0:
		return (long)rnd();
	case 1:
		return any_pointer();
	case 2:
		return recent_result();
	default:
		return (long)PICK(interesting);
	}
}

/* One argument of kind K (see struct call). */
static long arg_value(char k)
{
	/* Pids and paths stay in their safe sets: an "any" path could be
	 * /dev/null for unlink, or a buffer's bytes naming something in /. */
	if (!strchr("Ppo", k) && one_in(10))
		return any_value();
	switch (k) {
	case 'f':
		return fd_value();
	case 'b':
		return any_pointer();
	case 'l':
		return length_value();
	case 'p':
		return one_in(8) ? (long)PICK(bad_pointers) : (long)PICK(paths);
	case 'o':
		return one_in(4) ? (long)PICK(system_files) : arg_value('p');
	case 'F':
		return flags_value();
	case 'm':
		return one_in(2) ? 0600 : (long)below(010000);
	case 's':
		return one_in(8) ? -1 : (long)below(17);
	case 'a':
		return address_value();
	case 'P':
		return pid_value();
	case 'S':
		return one_in(16) ? 100 : (long)below(66);
	case 't':
		return one_in(16) ? -1 : (long)below(3);
	case 'k':
		return sockopt_value();
	case 'd':
		return family_value();
	default:
		return any_value();
	}
}

/* Fill the buffer's head with plausible struct fields: small numbers, sizes
 * and pointers, so iovecs, msghdrs, sigactions and timespecs get past the
 * first check now and then. */
static void refill_struct_area(void)
{
	long *w = (long *)fz.buf;
	for (int i = 0; i < STRUCT_WORDS; i++)
		w[i] = one_in(3) ? (long)below(64) : one_in(2) ? length_value() : any_pointer();
}

#endif
