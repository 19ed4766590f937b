/* Adversarial scenarios, one per class of kernel bug the outside review found
 * (issue 13): each provokes its bug and, where a program can tell, reports
 * the wrong result as a finding (fuzz_scenario.h).  Calls a kernel may
 * lack (waitid, mprotect, setitimer) are issued anyway: ENOSYS is fine.
 * Included by fuzz.c only, after fuzz_scenario.h. */
#ifndef FUZZ_CASES_H
#define FUZZ_CASES_H

#include <sys/uio.h>

#define FZ_STR_(x)     #x
#define FZ_STR(x)      FZ_STR_(x)
#define NR_GETITIMER   36
#define NR_SETITIMER   38
#define NR_WAITID      247
#define SPIN_SIGNALS   8	  /* handler runs the spinner waits for */
#define SPIN_MS	       100	  /* the signaller gives up after this */
#define RFLAGS_AC      0x40000L	  /* alignment check, also SMAP's override */
#define PORT_SOCKETS   29000	  /* more than the ephemeral range */
#define HELPER_END_MS  15000	  /* a helper that must end does by then, however loaded */
#define PORT_SLOW_MS   1000	  /* one bind with the range used up */
#define PORT_MS	       15000	  /* binding the whole range */
#define TMP_CAP	       (8L << 20) /* bytes written to /tmp: bounded, then removed */
#define NONSEQ_TRIES   64
#define ATOMIC_RECORDS 32  /* records the two writers write */
#define ATOMIC_HALF    256 /* a record's segment; the reader frees this much */
#define LINUX_P_ALL    0
#define LINUX_P_PID    1
#define LINUX_P_PGID   2
#define LINUX_WEXITED  4
#define LINUX_WNOHANG  1
#define LINUX_WNOWAIT  0x01000000
#define LINUX_SIG_IGN  1

/* --- Signals hammering a process: every register must survive. --- */

volatile int fuzz_spin_signals; /* handler runs; global: the spinner reads it */

/* Sets every general register but rsp to a known value and checks them in a
 * loop until SPIN_SIGNALS handlers ran: 0, or 1 when one changed. */
long fuzz_spin_regs(void);
__asm__(".text\n"
	".globl fuzz_spin_regs\n"
	".type fuzz_spin_regs, @function\n"
	"fuzz_spin_regs:\n"
	"	push %rbx; push %rbp; push %r12; push %r13; push %r14; push %r15\n"
	"	mov $0x10000001, %rax; mov $0x10000002, %rbx; mov $0x10000003, %rcx\n"
	"	mov $0x10000004, %rdx; mov $0x10000005, %rsi; mov $0x10000006, %rdi\n"
	"	mov $0x10000007, %rbp; mov $0x10000008, %r8; mov $0x10000009, %r9\n"
	"	mov $0x1000000a, %r10; mov $0x1000000b, %r11; mov $0x1000000c, %r12\n"
	"	mov $0x1000000d, %r13; mov $0x1000000e, %r14; mov $0x1000000f, %r15\n"
	"1:	cmp $0x10000001, %rax; jne 2f; cmp $0x10000002, %rbx; jne 2f\n"
	"	cmp $0x10000003, %rcx; jne 2f; cmp $0x10000004, %rdx; jne 2f\n"
	"	cmp $0x10000005, %rsi; jne 2f; cmp $0x10000006, %rdi; jne 2f\n"
	"	cmp $0x10000007, %rbp; jne 2f; cmp $0x10000008, %r8; jne 2f\n"
	"	cmp $0x10000009, %r9; jne 2f; cmp $0x1000000a, %r10; jne 2f\n"
	"	cmp $0x1000000b, %r11; jne 2f; cmp $0x1000000c, %r12; jne 2f\n"
	"	cmp $0x1000000d, %r13; jne 2f; cmp $0x1000000e, %r14; jne 2f\n"
	"	cmp $0x1000000f, %r15; jne 2f\n"
	"	cmpl $" FZ_STR(
	    SPIN_SIGNALS) ", fuzz_spin_signals(%rip); jl 1b\n"
			  "	xor %eax, %eax; jmp 3f\n"
			  "2:	mov $1, %eax\n"
			  "3:	pop %r15; pop %r14; pop %r13; pop %r12; pop %rbp; pop %rbx\n"
			  "	ret\n");

static void count_signal(int sig)
{
	(void)sig;
	fuzz_spin_signals++;
}

/* A helper spins with known registers while this process signals it (the
 * signals arrive on interrupts, not system calls). */
static void scenario_signals(void)
{
	int status;
	lsig_handle(LSIGUSR1, count_signal, one_in(2) ? UAPI_SA_RESTART : 0);
	lsig_handle(LSIGUSR2, count_signal, UAPI_SA_NODEFER);
	pid_t pid = helper();
	if (pid == 0)
		_exit((int)fuzz_spin_regs());
	for (long end = now_ms() + SPIN_MS; pid > 0 && now_ms() < end;) {
		lsig_kill(pid, one_in(2) ? LSIGUSR1 : LSIGUSR2);
		raw_call(__NR_sched_yield, 0, 0, 0);
		if ((status = helper_wait(pid, 0)) >= 0) {
			if (exited_with(status, 1))
				finding(F_REGS);
			return;
		}
	}
}

/* --- RFLAGS.AC set in user mode, by popf and by a sigreturn frame. --- */

static void set_ac(bool on)
{
	long f;
	__asm__ volatile("pushfq; pop %0" : "=r"(f));
	f = on ? f | RFLAGS_AC : f & ~RFLAGS_AC;
	__asm__ volatile("push %0; popfq" ::"r"(f) : "cc");
}

static void ac_in_frame(int sig, struct lsiginfo *info, void *uc)
{
	(void)sig, (void)info;
	((uint64_t *)uc)[5 + 17] |= RFLAGS_AC; /* lucontext: 5 words, then mc.eflags */
}

/* The kernel must clear AC on every entry; from here nothing can tell
 * whether it did (a kernel self-test can): the case runs system calls,
 * faults and interrupts with AC set, so a kernel that keeps it runs with
 * SMAP off. */
static void scenario_ac(void)
{
	int p[2];
	char c = 'a';
	if (pipe2(p, O_NONBLOCK) < 0)
		return;
	lsig_handle_info(LSIGUSR1, ac_in_frame, 0);
	if (one_in(2))
		set_ac(true);
	else
		lsig_kill(getpid(), LSIGUSR1);
	for (long end = now_ms() + 5; now_ms() < end;) {
		raw_call(__NR_write, p[1], (long)&c, 1);
		raw_call(__NR_read, p[0], (long)fz.buf, 1);
		raw_call(__NR_read, p[0], (long)PICK(bad_pointers), 1); /* EFAULT path */
	}
	set_ac(false);
	close(p[0]), close(p[1]);
}

/* --- readv/writev: one operation on the whole vector. --- */

/* Ten bytes in a pipe, readv with two ten-byte segments returns them. */
static void iov_pipe_short(void)
{
	int p[2];
	char a[10], b[10];
	struct iovec v[2] = {{a, sizeof a}, {b, sizeof b}};
	if (pipe(p) < 0)
		return;
	struct pollfd unread = {p[0], POLLIN, 0};
	write(p[1], "0123456789", 10);
	pid_t pid = helper();
	if (pid == 0)
		_exit(readv(p[0], v, 2) == 10 ? 0 : 2);
	int status = -1;
	while (pid > 0 && (status = helper_wait(pid, 10)) < 0 && poll(&unread, 1, 0) == 1)
		; /* not scheduled yet */
	if (pid > 0 && status < 0 && helper_wait(pid, HELPER_END_MS) < 0)
		finding(F_READV_BLOCKED); /* it took the bytes and still waits */
	close(p[0]), close(p[1]);
}

/* writev of several segments is one datagram; readv reads one. */
static void iov_dgram(void)
{
	int sv[2];
	char a[64], b[64];
	struct iovec v[3] = {{a, below(32)}, {NULL, 0}, {b, 1 + below(32)}};
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0, sv) < 0)
		return;
	size_t total = v[0].iov_len + v[2].iov_len;
	if (writev(sv[0], v, 3) == (ssize_t)total && recv(sv[1], fz.buf, 4096, 0) != (ssize_t)total)
		finding(F_WRITEV_DGRAM);
	while (recv(sv[1], fz.buf, 4096, 0) >= 0) /* what a split writev left */
		;
	send(sv[0], "aaaa", 4, 0), send(sv[0], "bbbb", 4, 0);
	v[0].iov_len = 4, v[1] = v[2], v[1].iov_len = 4;
	if (readv(sv[1], v, 2) > 4)
		finding(F_READV_DGRAM);
	close(sv[0]), close(sv[1]);
}

/* Many, empty and odd segments (up to IOV_MAX and past it) on pipes and
 * sockets, non-blocking. */
static void iov_odd(void)
{
	static const int counts[] = {0, 1, 2, 3, 64, 1023, 1024, 1025, -1, INT_MAX};
	struct iovec *v = (struct iovec *)fz.buf; /* 1024 of them fill the buffer */
	int fds[4], n = PICK(counts);
	if (pipe2(fds, O_NONBLOCK) < 0)
		return;
	if (socketpair(AF_UNIX, (one_in(2) ? SOCK_STREAM : SOCK_DGRAM) | SOCK_NONBLOCK, 0,
		       fds + 2)) {
		close(fds[0]), close(fds[1]);
		return;
	}
	for (int i = 0; i < BUF_SIZE / (int)sizeof *v; i++)
		v[i] = (struct iovec){one_in(8) ? NULL : fz.buf + below(BUF_SIZE),
				      below(4) * below(64)};
	for (int i = 0; i < 4; i++) {
		writev(fds[PICK(((const int[]){1, 2, 3}))], v, n);
		readv(fds[PICK(((const int[]){0, 2, 3}))], v, n);
	}
	for (int i = 0; i < 4; i++)
		close(fds[i]);
}

/* Read exactly N bytes (a pipe may return less); false at EOF or error. */
static bool read_full(int fd, char *buf, size_t n)
{
	for (ssize_t r; n; buf += r, n -= (size_t)r)
		if ((r = read(fd, buf, n)) <= 0)
			return false;
	return true;
}

/* Two writers writev 512-byte records of two 256-byte segments into a full
 * pipe, the reader frees 256 bytes at a time: a writer that wrote its first
 * segment and waits for room for the second must not let the other in. */
static void iov_atomic(void)
{
	static char half[ATOMIC_HALF], rec[2 * ATOMIC_HALF];
	int p[2], filler = 0; /* 256-byte chunks the pipe held */
	if (pipe2(p, O_NONBLOCK) < 0)
		return;
	memset(half, 'f', sizeof half);
	while (write(p[1], half, sizeof half) == sizeof half)
		filler++;
	fcntl(p[1], F_SETFL, 0), fcntl(p[0], F_SETFL, 0);
	for (int w = 0; w < 2; w++)
		if (helper() == 0) {
			char s[ATOMIC_HALF];
			struct iovec v[2] = {{s, sizeof s}, {s, sizeof s}};
			memset(s, 'a' + w, sizeof s);
			for (int i = 0; i < ATOMIC_RECORDS / 2; i++)
				writev(p[1], v, 2);
			_exit(0);
		}
	for (int i = 0; i < filler && read_full(p[0], half, sizeof half); i++)
		if (i < ATOMIC_RECORDS) /* the writers run with 256 bytes free (not */
			raw_call(__NR_sched_yield, 0, 0, 0); /* always: a yield may cost 10 ms) */
	for (int i = 0; i < ATOMIC_RECORDS && read_full(p[0], rec, sizeof half) &&
			read_full(p[0], rec + sizeof half, sizeof half);
	     i++)
		if (memchr(rec, rec[0] == 'a' ? 'b' : 'a', sizeof rec)) {
			finding(F_WRITEV_TORN);
			break;
		}
	close(p[0]), close(p[1]);
}

static void scenario_iov(void)
{
	static void (*const cases[])(void) = {iov_pipe_short, iov_dgram, iov_odd, iov_odd,
					      iov_atomic};
	PICK(cases)();
}

/* --- The ephemeral port range used up (bounded: PORT_SOCKETS sockets). ---
 * Each bind must cost the same however many sockets are bound, and a bind
 * or autobinding sendto with the range used up must fail fast. */

static bool port_too_slow(long start, long limit)
{
	if (now_ms() - start <= limit)
		return false;
	finding(F_PORT_SLOW);
	return true;
}

static void scenario_ports(void)
{
	struct sockaddr_in in;
	int first = next_fd();
	long start = now_ms();
	set_nofile(first + PORT_SOCKETS + 8);
	loopback(&in);
	for (int n = 0; n < PORT_SOCKETS && !port_too_slow(start, PORT_MS); n++) {
		int s = socket(AF_INET, one_in(2) ? SOCK_STREAM : SOCK_DGRAM, 0);
		if (s < 0 || bind(s, (struct sockaddr *)&in, sizeof in) < 0)
			break;
	}
	for (int i = 0; i < 3; i++) {
		int s = socket(AF_INET, SOCK_DGRAM, 0);
		start = now_ms();
		if (i == 0)
			bind(s, (struct sockaddr *)&in, sizeof in);
		else
			sendto(s, "x", 1, MSG_DONTWAIT, (struct sockaddr *)&in, sizeof in);
		close(s);
		if (port_too_slow(start, PORT_SLOW_MS))
			break;
	}
	if (!one_in(4)) /* or let exit close them */
		close_range((unsigned)first, ~0U, 0);
}

/* --- Listeners: accept at EMFILE, shutdown, close with queued clients. --- */

/* A listener and a connected, not yet accepted client, AF_UNIX or TCP. */
static bool listener_with_client(int *l, int *c)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;
	bool unix_family = one_in(2);
	*l = socket(unix_family ? AF_UNIX : AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	*c = socket(unix_family ? AF_UNIX : AF_INET, SOCK_STREAM, 0);
	if (unix_family)
		len = unix_name((struct sockaddr_un *)&ss, "a", 0);
	else
		loopback((struct sockaddr_in *)&ss);
	bool ok = bind(*l, (struct sockaddr *)&ss, len) == 0 && listen(*l, 4) == 0 &&
		  getsockname(*l, (struct sockaddr *)&ss, &len) == 0 &&
		  connect(*c, (struct sockaddr *)&ss, len) == 0;
	if (unix_family)
		unlink(((struct sockaddr_un *)&ss)->sun_path);
	return ok;
}

/* With no fd free accept fails, and the connection stays queued. */
static void listener_emfile(int l, int c)
{
	char byte = 0;
	set_nofile(next_fd());
	int a = accept(l, NULL, NULL);
	set_nofile(1024);
	if (a >= 0)
		return;
	send(c, "x", 1, MSG_NOSIGNAL);
	sleep_ms(1);
	a = accept(l, NULL, NULL);
	if (a < 0 || recv(a, &byte, 1, MSG_DONTWAIT) != 1)
		finding(F_ACCEPT_LOST);
	close(a);
}

/* shutdown(SHUT_RDWR) of a listener succeeds and ends a blocked accept. */
static void listener_shutdown(int l, int c)
{
	(void)c;
	int flags = fcntl(l, F_GETFL);
	fcntl(l, F_SETFL, flags & ~O_NONBLOCK);
	pid_t pid = helper();
	if (pid == 0) { /* the queued connection first, then the wait */
		close(accept(l, NULL, NULL));
		_exit(accept(l, NULL, NULL) < 0 ? 0 : 1);
	}
	sleep_ms(2);
	if (shutdown(l, SHUT_RDWR) < 0 || (pid > 0 && helper_wait(pid, HELPER_END_MS) < 0))
		finding(F_LISTEN_SHUTDOWN);
}

/* A queued connection whose listener closes reads ECONNRESET, not EOF. */
static void listener_close(int *l, int c)
{
	char byte;
	close(*l), *l = -1;
	if (recv(c, &byte, 1, MSG_DONTWAIT) == 0)
		finding(F_QUEUED_EOF);
}

/* A datagram send after SHUT_WR is EPIPE. */
static void dgram_shut_wr(void)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0)
		return;
	shutdown(sv[0], SHUT_WR);
	if (send(sv[0], "x", 1, MSG_DONTWAIT | MSG_NOSIGNAL) >= 0)
		finding(F_DGRAM_SHUT_WR);
	close(sv[0]), close(sv[1]);
}

static void scenario_listener(void)
{
	int l, c;
	if (!listener_with_client(&l, &c)) {
		close(l), close(c);
		return;
	}
	switch (below(4)) {
	case 0:
		listener_emfile(l, c);
		break;
	case 1:
		listener_shutdown(l, c);
		break;
	case 2:
		listener_close(&l, c);
		break;
	default:
		dgram_shut_wr();
	}
	close(l), close(c);
}

/* --- recvmsg of SCM_RIGHTS at the fd limit; fds in flight. --- */

static void scenario_scm_limit(void)
{
	int sv[2], fds[SCM_MAX], flags, n = 2 + (int)below(SCM_MAX - 1);
	if (socketpair(AF_UNIX, one_in(2) ? SOCK_STREAM : SOCK_DGRAM, 0, sv) < 0)
		return;
	for (int i = 0; i < n; i++)
		fds[i] = 0;
	send_fds(sv[0], fds, n, false);
	send_fds(sv[0], fds, 0, false);
	set_nofile(next_fd() + (int)below(2)); /* room for no fd, or one */
	int got = recv_fds(sv[1], fds, MSG_DONTWAIT, &flags);
	if (got < 0 && errno == EMFILE)
		finding(F_SCM_EMFILE);
	while (got > 0)
		close(fds[--got]);
	set_nofile(1 + (int)below(8)); /* fds in flight against a low limit */
	for (int i = 0; i < 64 && send_fds(sv[0], fds, SCM_MAX, false) >= 0; i++)
		;
	close(sv[0]), close(sv[1]);
}

/* --- wait4/waitid with process groups; SIGCHLD ignored. --- */

/* A child in a group of its own exits: wait4(0) must not reap it,
 * wait4(-pgid) and waitid(P_PGID) must. */
static void wait_pgid(void)
{
	struct lsiginfo si;
	pid_t pid = fork(); /* not a helper: it exits at once, in its own group */
	if (pid == 0) {
		raw_call(__NR_setpgid, 0, 0, 0);
		_exit(7);
	}
	if (pid < 0)
		return;
	raw_call(__NR_setpgid, pid, pid, 0);
	sleep_ms(2);
	bool own_group = raw_call(__NR_getpgid, pid, 0, 0) == pid;
	long r = raw_call(__NR_wait4, 0, 0, LINUX_WNOHANG);
	if (own_group && r == pid)
		finding(F_WAIT_PGID);
	if (one_in(2))
		syscall(NR_WAITID, LINUX_P_PGID, pid, &si, LINUX_WEXITED | LINUX_WNOWAIT, 0);
	syscall(NR_WAITID, PICK(((const int[]){LINUX_P_ALL, LINUX_P_PID, LINUX_P_PGID})), pid, &si,
		LINUX_WEXITED | LINUX_WNOHANG, 0);
	raw_call(__NR_wait4, -pid, 0, 0);
	raw_call(__NR_wait4, pid, 0, 0);
}

/* SIGCHLD ignored (or SA_NOCLDWAIT): children are reaped at once and wait
 * ends with ECHILD. */
static void wait_nocldwait(void)
{
	bool ign = one_in(2);
	lsig_action(LSIGCHLD, ign ? LINUX_SIG_IGN : 0, ign ? 0 : UAPI_SA_NOCLDWAIT, 0);
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid > 0 && raw_call(__NR_wait4, pid, 0, 0) == pid)
		finding(F_NOCLDWAIT);
	lsig_action(LSIGCHLD, 0, 0, 0);
}

static void scenario_wait(void)
{
	if (one_in(2))
		wait_pgid();
	else
		wait_nocldwait();
}

/* --- Memory: MAP_SHARED across fork, PROT_NONE, mprotect. --- */

/* Fork a child that runs FN on P; its status. */
static int in_child(void (*fn)(volatile char *), volatile char *p)
{
	int status = -1;
	pid_t pid = helper();
	helpers.faulting = true; /* read_one faults on purpose */
	if (pid == 0) {
		fn(p);
		_exit(0);
	}
	if (pid > 0)
		status = helper_wait(pid, 100);
	return status;
}

static void write_two(volatile char *p)
{
	p[0] = 2;
}

static void read_one(volatile char *p)
{
	(void)p[0];
}

/* madvise(p, len, MADV_DONTNEED) in a helper, whose exit status says
 * whether it succeeded (1).  Over a range past the end of user space
 * Linux drops every mapping's pages from p up (ENOMEM for the holes),
 * the caller's stack among them: in the scenario process a return then
 * found 0 on its zeroed stack (the SIGSEGV at rip 0 of docs/robustness.md).
 * So the call and the exit run from registers, touching no memory. */
static int madvise_in_helper(volatile char *p, unsigned long len)
{
	pid_t pid = helper();
	if (pid == 0)
		__asm__ volatile("syscall\n\t"
				 "xor %%edi, %%edi\n\t"
				 "test %%rax, %%rax\n\t"
				 "setns %%dil\n\t"
				 "mov %[exit], %%eax\n\t"
				 "syscall\n\t"
				 "ud2"
				 :
				 : "a"(__NR_madvise), "D"(p), "S"(len),
				   "d"(MADV_DONTNEED), [exit] "i"(__NR_exit_group)
				 : "rcx", "r11", "memory");
	return pid > 0 ? helper_wait(pid, HELPER_END_MS) : -1;
}

/* A call on a mapped page with a length reaching past the end of user
 * space (2^63 once page-aligned, the kernel's heap, a wrap past 2^64) must
 * fail and leave the page alone: such a range once reached the kernel
 * half's page tables (issue 19's mremap sweep). */
static void range_past_user(volatile char *p)
{
	static const unsigned long lens[] = {1UL << 47, LONG_MAX, 0xc00000400000UL, -4096UL};
	unsigned long len = PICK(lens);
	long r;

	p[0] = 3;
	switch (below(4)) {
	case 0:
		r = syscall(__NR_munmap, p, len);
		break;
	case 1:
		r = syscall(__NR_mremap, p, len, 4096, 0, 0);
		break;
	case 2: /* shared anonymous memory keeps its page, on Linux too */
		r = exited_with(madvise_in_helper(p, len), 0) ? -1 : 0;
		break;
	default:
		r = syscall(__NR_msync, p, len, MS_ASYNC);
		break;
	}
	if (r != -1 || p[0] != 3)
		finding(F_RANGE_PAST_USER);
}

static void scenario_mem(void)
{
	volatile char *shared =
	    mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	volatile char *none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (shared != MAP_FAILED) {
		shared[0] = 1;
		if (in_child(write_two, shared) == 0 && shared[0] != 2)
			finding(F_SHARED_COW);
	}
	if (none != MAP_FAILED && exited_with(in_child(read_one, none), 0))
		finding(F_PROT_NONE);
	if (shared != MAP_FAILED &&
	    syscall(__NR_mprotect, shared, 4096 * (1 + below(2)), PROT_NONE) == 0 &&
	    exited_with(in_child(read_one, shared), 0))
		finding(F_PROT_NONE);
	syscall(__NR_mprotect, PLAYGROUND + below(16) * 4096, below(8) * 4096, below(8));
	if (shared != MAP_FAILED && !mprotect((void *)shared, 8192, PROT_READ | PROT_WRITE))
		range_past_user(shared + 4096);
	munmap((void *)shared, 8192);
	munmap((void *)none, 4096);
}

/* --- Filling /tmp, bounded; the file goes after. --- */

static void scenario_tmpfs(void)
{
	int fd = open("big", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	for (long n = 0; fd >= 0 && n < TMP_CAP / BUF_SIZE; n++)
		if (write(fd, fz.buf, BUF_SIZE) < 0)
			break;
	ftruncate(fd, one_in(2) ? 1L << 40 : (off_t)below(TMP_CAP)); /* sparse, or cut */
	close(fd);
	unlink("big");
}

/* --- Record locks: a holder killed while others wait. --- */

#define LOCK_WAITERS 3

/* Linux's struct flock (newlib's differs); fuzz_calls.h draws them too. */
struct fz_flock {
	short type, whence;
	long start, len;
	int pid, pad;
};

static long lock_range(int fd, long cmd, short type, long start, long len)
{
	struct fz_flock fl = {.type = type, .whence = 0, .start = start, .len = len};
	return raw_call(__NR_fcntl, fd, cmd, (long)&fl);
}

/* A helper that takes a lock (POSIX or OFD) with a wait through its own
 * open of the file, then exits. */
static void lock_waiter(void)
{
	if (helper() == 0) {
		long cmd = one_in(2) ? 7 /* F_SETLKW */ : 38 /* F_OFD_SETLKW */;
		int fd = open("locks", O_RDWR);
		_exit(lock_range(fd, cmd, (short)below(2), (long)below(8), (long)below(8)) != 0);
	}
}

/*
 * The holder locks the file (POSIX or OFD), waiters queue behind it, then
 * the holder and some waiters are killed in a random order: the others
 * must get their locks and end, and nothing may stay locked after.
 */
static void scenario_locks(void)
{
	int fd = open("locks", O_RDWR | O_CREAT, 0600), ready[2];
	pid_t holder;
	char c;

	if (fd < 0 || pipe(ready) < 0)
		return;
	if ((holder = helper()) == 0) {
		long cmd = one_in(2) ? 6 /* F_SETLK */ : 37 /* F_OFD_SETLK */;
		lock_range(open("locks", O_RDWR), cmd, 1 /* F_WRLCK */, 0, 0);
		if (write(ready[1], "r", 1) == 1)
			for (;;)
				pause();
		_exit(1);
	}
	if (holder > 0 && read(ready[0], &c, 1) == 1) {
		for (int i = 0; i < LOCK_WAITERS; i++)
			lock_waiter();
		settle();
		for (int i = 0; i < helpers.n; i++)
			if (helpers.pid[i] == holder)
				kill_helper(i);
		if (one_in(2) && helpers.n)
			kill_helper((int)below(helpers.n));
		while (helpers.n)
			if (helper_wait(helpers.pid[0], SCENARIO_MS / 2) == -1)
				break; /* a waiter never woke: the watchdog reports it */
		struct fz_flock fl = {.type = 1, .whence = 0, .start = 0, .len = 0};
		if (!helpers.n && raw_call(__NR_fcntl, fd, 5 /* F_GETLK */, (long)&fl) == 0 &&
		    fl.type != 2 /* F_UNLCK */)
			finding(F_LOCK_LEFT);
	}
	kill_helpers();
	close(ready[0]);
	close(ready[1]);
	close(fd);
	unlink("locks");
}

/* --- O_NONSEQFD counts against RLIMIT_NOFILE. --- */

static void scenario_nonseq(void)
{
	int limit = (int)below(8), opened = next_fd(), sv[2];
	set_nofile(limit);
	for (int i = 0; i < NONSEQ_TRIES; i++) {
		int fd = -1;
		switch (below(3)) {
		case 0:
			fd = open("/dev/null", O_RDONLY | O_NONSEQFD);
			break;
		case 1:
			fd = socket2(AF_UNIX, SOCK_DGRAM, 0, O_NONSEQFD);
			break;
		default:
			if (pipe2(sv, O_NONSEQFD) == 0)
				opened++, fd = sv[0];
		}
		opened += fd >= 0;
	}
	if (opened > (limit > 3 ? limit : 3))
		finding(F_NONSEQ_LIMIT);
}

/* --- Timers and long sleeps. --- */

static void scenario_timers(void)
{
	long itv[4] = {0, 0, 0, (long)below(20000)}; /* it_interval, it_value */
	pid_t pid = helper();
	if (pid == 0) {
		struct timespec forever = {INT64_MAX, 0};
		raw_call(NR_SETITIMER, 0, (long)itv, 0); /* SIGALRM ends it, if implemented */
		raw_call(__NR_alarm, (long)below(2), 0, 0);
		nanosleep(&forever, NULL);
		_exit(3);
	}
	raw_call(NR_GETITIMER, 0, (long)fz.buf, 0);
	if (pid > 0 && exited_with(helper_wait(pid, 30), 3))
		finding(F_SLEEP_OVERFLOW);
}

#endif
