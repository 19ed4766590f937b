/*
 * panic: the kernel cannot go on.  Prints the message, the caller's
 * registers and a backtrace, then stops: in test mode QEMU exits with a
 * failure status so a test run never hangs; otherwise the CPU halts, where
 * `make debug` can still inspect it.
 */
#include <stdint.h>
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/qemu.h"
#include "cmdline.h"
#include "fs/proc/proc_sys.h"
#include "lib/backtrace.h"
#include "lib/printk.h"

static int panicking;

/*
 * /proc/sys/kernel/tainted: Linux's taint bits.  fdkernel loads no
 * modules and never runs on after a kernel fault (every oops is this
 * panic), so nothing ever taints it: 0, read-only.
 */
static int tainted;
PROC_SYS_ROW(tainted_row, .path = "kernel/tainted", .mode = 0444, .show = proc_sys_int_show,
	     .data = &tainted);

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
	if (kopts.test)
		qemu_exit(QEMU_EXIT_PANIC);
	printk("system halted\n");
	cpu_halt_forever();
}
