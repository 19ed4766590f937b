/*
 * Self-tests of the early kernel: formatting, exception fixups, the timer,
 * command-line parsing, then each subsystem's own suite.  Output is TAP so
 * tests/harness/qemu-run and humans read the same lines.
 */
#include "selftest.h"
#include "arch/x86_64/acpi.h"
#include "arch/x86_64/extable.h"
#include "arch/x86_64/multiboot.h"
#include "arch/x86_64/smp.h"
#include "arch/x86_64/timer.h"
#include "cmdline.h"
#include "lib/backtrace.h"
#include "drivers/virtio/virtio.h"
#include "lib/ktest.h"
#include "sched/grace.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/layout.h"
#include "mm/mm.h"
#include "proc/fault_report.h"
#include "mm/paging.h"
#include "proc/task.h"
#include "fs/vfs.h"
#include "block/block_selftest.h"
#include <uapi/errno.h>

static void format_selftest(void)
{
	char buf[64];

	snprintk(buf, sizeof(buf), "%d|%5d|%-4d|%05d|%u", -42, 7, 3, -12, 4000000000u);
	KTEST_OK(!strcmp(buf, "-42|    7|3   |-0012|4000000000"), "printk: integers '%s'", buf);
	snprintk(buf, sizeof(buf), "%x|%lx|%08X|%zu|%i|%o", 0xbeef, 0xffffffff80000000UL, 0xab,
		 (size_t)123, 5, 02000002);
	KTEST_OK(!strcmp(buf, "beef|ffffffff80000000|000000AB|123|5|2000002"),
		 "printk: hex/size/octal '%s'", buf);
	snprintk(buf, sizeof(buf), "%s|%c|%p|%%", "hi", 'x', (void *)0x10);
	KTEST_OK(!strcmp(buf, "hi|x|0x0000000000000010|%"), "printk: strings/pointers '%s'", buf);
	KTEST_OK(snprintk(buf, 4, "%s", "truncated") == 9 && !strcmp(buf, "tru"),
		 "snprintk truncates and returns the full length");
}

static void extable_selftest(void)
{
	uint64_t v = 0, word = 0x1234;

	KTEST_OK(probe_read_u64(&word, &v) == 0 && v == 0x1234, "probe_read of mapped memory");
	KTEST_OK(probe_read_u64((void *)0x8, &v) == -EFAULT, "probe_read of NULL page faults");
	KTEST_OK(probe_write_u64((void *)0xffff900000000000UL, 1) == -EFAULT,
		 "probe_write of an unmapped kernel address faults");
	KTEST_OK(probe_write_u64((void *)_text_start, 1) == -EFAULT,
		 "kernel text is write-protected");
}

static void symbols_selftest(void)
{
	uint64_t off = ~0UL;
	const char *name = ksym_lookup((uint64_t)selftest_run + 5, &off);

	KTEST_OK(name && !strcmp(name, "selftest_run") && off == 5,
		 "symbol table resolves selftest_run+5 (%s)", name ? name : "none");
}

/* A chain in the task stacks' region (below the image; a page past the
 * last task's slot stands for a stack) is followed up to a user-space rbp,
 * where a syscall's chain ends. */
static void backtrace_selftest(void)
{
	uint64_t va = KSTACK_REGION + TASK_MAX * 2 * KSTACK_SIZE, *f = (uint64_t *)va, rets[4];
	int n = 0;

	if (!vm_map_anon(vm_kernel(), va, PAGE_SIZE, PTE_WRITE | PTE_NX)) {
		f[0] = (uint64_t)(f + 8);
		f[1] = (uint64_t)selftest_run + 5;
		f[8] = 0x7fffffffe000UL;
		f[9] = (uint64_t)symbols_selftest + 7;
		n = backtrace_save(va, rets, 4);
		vm_unmap_range(vm_kernel(), va, PAGE_SIZE);
	}
	KTEST_OK(n == 2 && rets[0] == (uint64_t)selftest_run + 5 &&
		     rets[1] == (uint64_t)symbols_selftest + 7,
		 "backtrace: follows a task stack's frames, stops at a user rbp (%d frames)", n);
}

/* A corrupt frame (a crash's): rip in the boot code, whose text is
 * unmapped after boot, and an rbp off every stack.  The walker's reads are
 * probes: it prints that frame and stops, where a plain read faulted
 * again and lost the first fault's report. */
static void backtrace_corrupt_selftest(void)
{
	uint64_t boot_rip = (uint64_t)_kernel_phys_start + 0x238, word;

	backtrace_from(boot_rip, (uint64_t)__builtin_frame_address(0), 0x10);
	KTEST_OK(probe_read_u64((void *)boot_rip, &word) == -EFAULT,
		 "backtrace: a frame in unmapped text ends the walk, no second fault");
}

/*
 * The tick advances and the TSC clock moves forward with it.  No rate is
 * claimed: on a loaded host an emulator delivers ticks late and in bursts
 * (3 ticks once took 14.6 ms), so how many nanoseconds a tick lasts is a
 * measurement of the machine, not a property of the kernel.
 */
static void timer_selftest(void)
{
	uint64_t t0 = clock_monotonic_ns(), ticks = timer_ticks(), prev = t0;
	bool monotonic = true;

	while (timer_ticks() < ticks + 3) {
		uint64_t now = clock_monotonic_ns();
		monotonic &= now >= prev;
		prev = now;
		asm volatile("hlt");
	}
	KTEST_OK(monotonic && clock_monotonic_ns() > t0,
		 "timer ticks advance and the TSC clock moves forward, never back");
}

static void cmdline_selftest(void)
{
	struct kernel_options saved = kopts;

	cmdline_parse("  quiet  init=/bin/sh bogus test strace=cat strace=a/b");
	KTEST_OK(kopts.quiet && kopts.test && !strcmp(kopts.init, "/bin/sh") &&
		     !strcmp(kopts.strace, "cat"),
		 "command line: test, quiet, init=, strace= parsed; unknown word and bad "
		 "strace= ignored");
	kopts = saved;
	printk_set_quiet(kopts.quiet);
}

/* Fault reports: a burst of 10 per 5 s window, then the count of the dropped. */
static void fault_report_selftest(void)
{
	uint64_t t = clock_monotonic_ns() + 3 * FAULT_REPORT_WINDOW_NS;
	unsigned int missed, allowed = 0;

	for (int i = 0; i < 15; i++)
		allowed += fault_report_allowed(t + (uint64_t)i, &missed);
	KTEST_OK(allowed == 10, "fault reports: 10 of a burst of 15 print (%u)", allowed);
	allowed = fault_report_allowed(t + FAULT_REPORT_WINDOW_NS, &missed);
	KTEST_OK(allowed && missed == 5,
		 "fault reports: the next window prints and counts 5 dropped (%u)", missed);
}

int selftest_run(void)
{
	printk("# kernel self-tests\n");
	format_selftest();
	extable_selftest();
	symbols_selftest();
	backtrace_selftest();
	backtrace_corrupt_selftest();
	timer_selftest();
	ktimer_selftest();
	cmdline_selftest();
	fault_report_selftest();
	multiboot_selftest();
	multiboot_rsdp_selftest();
	acpi_selftest();
	smp_selftest();
	smp_call_selftest();
	mm_selftest();
	entry_selftest();
	vfs_selftest();
	block_selftest();
	grace_selftest();
	task_handshake_selftest();
	task_exit_timers_selftest();
	task_exit_running_timer_selftest();
	async_slots_selftest();
	virtqueue_selftest();
	printk("kernel: %d passed, %d failed\n", ktest_counts.passed, ktest_counts.failed);
	return ktest_counts.failed;
}
