/* User code may set RFLAGS.AC (popf): the kernel keeps it for the program
 * across system calls, interrupts and signal handlers (Linux does), and
 * clears it for itself on every entry (kernel self-test "entry:"), so the
 * system keeps working while such a program runs. */
#include <signal.h>
#include <unistd.h>

#include "sigutil.h"

#define RFLAGS_AC (1UL << 18)
#define SPIN	  20000000UL

/* ac_run(calls, spin): sets AC, makes `calls` getpid system calls, spins
 * `spin` times on registers only (timer interrupts, signals from the
 * sender), and returns RFLAGS as they were before AC is cleared again. */
uint64_t ac_run(uint64_t calls, uint64_t spin);
__asm__(".text\n"
	"ac_run:\n"
	"	pushfq\n"
	"	orq $0x40000, (%rsp)\n"
	"	popfq\n"
	"1:	test %rdi, %rdi\n"
	"	jz 2f\n"
	"	mov $39, %eax\n" /* getpid */
	"	syscall\n"
	"	dec %rdi\n"
	"	jmp 1b\n"
	"2:	dec %rsi\n"
	"	jnz 2b\n"
	"	pushfq\n"
	"	mov (%rsp), %rax\n"
	"	andq $~0x40000, (%rsp)\n"
	"	popfq\n"
	"	ret\n");

static volatile sig_atomic_t handled;

static void count(int sig)
{
	(void)sig;
	handled++;
}

/* A child process doing the same. */
static void child_with_ac(void)
{
	if (!(ac_run(10, SPIN / 10) & RFLAGS_AC))
		_exit(1);
}

int main(void)
{
	pid_t sender;
	uint64_t flags;

	plan(3);
	require(lsig_handle(LSIGUSR1, count, 0) == 0, "sigaction");
	ok(ac_run(1000, 1) & RFLAGS_AC, "AC survives 1000 system calls");
	sender = lsig_sender(LSIGUSR1, 1);
	flags = ac_run(100, SPIN);
	lsig_stop_sender(sender);
	diag("%d handlers ran while AC was set", (int)handled);
	ok(flags & RFLAGS_AC, "AC survives timer interrupts and signal handlers");
	ok(exited_with(child_status(child_with_ac), 0),
	   "a child runs with AC set and exits normally");
	return tap_failed != 0;
}
