/*
 * panic: the kernel cannot go on.  Prints the message, the caller's
 * registers and a backtrace, then stops: in test mode QEMU exits with a
 * failure status so a test run never hangs; otherwise the CPU halts, where
 * `make debug` can still inspect it.
 */
#include <stdbool.h>
#include <stdint.h>
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/qemu.h"
#include "lib/backtrace.h"
#include "lib/printk.h"

static int panicking;

/* Whether a panic ends QEMU with a failure status (booted with `test`). */
static bool exit_qemu;

void panic_set_test_mode(bool test)
{
	exit_qemu = test;
}

__attribute__((noreturn)) void panic(const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	uint64_t rbp, rsp;

	irq_disable();
	if (panicking++)
		cpu_halt_forever(); /* a panic while panicking: stop quietly */
	va_start(ap, fmt);
	vsnprintk(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	asm volatile("mov %%rbp, %0; mov %%rsp, %1" : "=r"(rbp), "=r"(rsp));
	printk("\nKERNEL PANIC: %s\n", msg);
	printk("RSP %016lx RBP %016lx CR2 %016lx CR3 %016lx RFLAGS %016lx\n", rsp, rbp, read_cr2(),
	       read_cr3(), read_rflags());
	backtrace_from((uint64_t)__builtin_return_address(0), 0, *(uint64_t *)rbp);
	if (exit_qemu)
		qemu_exit(QEMU_EXIT_PANIC);
	printk("system halted\n");
	cpu_halt_forever();
}
