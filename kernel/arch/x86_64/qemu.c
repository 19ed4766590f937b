/* isa-debug-exit: a write ends QEMU (see qemu.h and tests/harness/qemu-run). */
#include "arch/x86_64/qemu.h"
#include "arch/x86_64/cpu.h"
#include "lib/printk.h"

#define DEBUG_EXIT_PORT 0xf4

__attribute__((noreturn)) void qemu_exit(int code)
{
	outl(DEBUG_EXIT_PORT, (uint32_t)code);
	/* Still here: QEMU has no debug-exit device (a custom command line). */
	printk("qemu_exit(%d): no isa-debug-exit device; halting\n", code);
	cpu_halt_forever();
}
