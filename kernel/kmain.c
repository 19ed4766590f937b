/*
 * kmain: the first C code.  Brings the machine up in dependency order
 * (console, boot information, CPU tables, memory, interrupts) and then runs
 * what the command line asks for.
 */
#include "block/blkdev.h"
#include <stdint.h>
#include "arch/x86_64/cpuinfo.h"
#include "arch/x86_64/acpi.h"
#include "arch/x86_64/bootinfo.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/fpu.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/hardening.h"
#include "arch/x86_64/idt.h"
#include "arch/x86_64/ioapic.h"
#include "arch/x86_64/lapic.h"
#include "arch/x86_64/multiboot.h"
#include "arch/x86_64/pic.h"
#include "arch/x86_64/qemu.h"
#include "arch/x86_64/serial.h"
#include "arch/x86_64/smp.h"
#include "arch/x86_64/timer.h"
#include "cmdline.h"
#include "drivers/pci/pci.h"
#include "fs/sysfs/sysfs.h"
#include "lib/lockdep.h"
#include "lib/printk.h"
#include "lib/profile.h"
#include "fs/vfs.h"
#include "ipc/ipc.h"
#include "mm/filemap.h"
#include "mm/vdso.h"
#include "mm/heaptrace.h"
#include "mm/uvm.h"
#include "mm/mm.h"
#include "proc/futex.h"
#include "proc/proc.h"
#include "sched/mutex.h"
#include "sched/sched.h"
#include "selftest.h"
#include "sys/strace.h"
#include "sys/dispatch.h"

struct cpu cpu0;

/* The boot stack (boot/entry.asm switches to it before calling kmain). */
__attribute__((aligned(16))) uint8_t boot_stack[16384];
extern uint8_t boot_stack_top[];
asm(".globl boot_stack_top; .set boot_stack_top, boot_stack + 16384");

/* The faulting write of `crashtest`: a leaf, so gcc gives it no frame and
 * the backtrace must still name its caller. */
static __attribute__((noinline)) void crashtest_write(volatile uint64_t *p)
{
	*p = 0xdead;
}

/* `crashtest`: a kernel NULL write, so tests can check the panic report. */
static __attribute__((noinline)) void crashtest_fault(void)
{
	volatile uint64_t *p = (volatile uint64_t *)0x10;

	/* Launder the address so gcc cannot prove it invalid at compile time. */
	asm("" : "+r"(p));
	printk("crashtest: writing to %p\n", (void *)p);
	crashtest_write(p);
	asm(""); /* not a tail call: crashtest_fault stays on the stack */
}

void kmain(uint32_t magic, uint64_t info_pa)
{
	cpu0.self = &cpu0;
	wrmsr(MSR_GS_BASE, (uint64_t)&cpu0); /* this_cpu() works from here on */
	serial_init();
	if (magic != MULTIBOOT2_BOOTLOADER_MAGIC)
		panic("bad Multiboot2 magic %x", magic);
	multiboot_parse(info_pa);
	cmdline_parse(boot_info.cmdline);
	panic_set_test_mode(kopts.test);
	printk("fdkernel: booting (%s), command line '%s'\n", boot_info.uefi ? "UEFI" : "BIOS",
	       boot_info.cmdline);
	multiboot_print_summary();

	gdt_init();
	idt_init();
	pic_init();
	mm_init();
	randomize_init();
	if (kopts.test || kopts.heaptrace)
		heaptrace_start();
	acpi_init();
	if (ioapic_init()) { /* the APICs take over; the 8259s stay masked */
		pic_disable();
		lapic_init();
	}
	hardening_init();
	fpu_init();
	cpuinfo_identify(0);
	sched_init(&task_sched_hooks);
	sched_init_cpu();
	mutex_sys_init();
	futex_init();
	ipc_init();
	syscall_init();
	proc_time_init();
	profile_init(kopts.profile);
	timer_init();
	vdso_init(); /* after timer_init: the clock page exists */
	vfs_init();  /* after timer_init: file times read the clock */
	filemap_init();
	strace_init(); /* after vfs_init: it looks for the program */
	irq_enable();
	smp_boot();	  /* after timer_init: the APs' timers use its calibration */
	block_init();	  /* after vfs_init (/dev) and irq_enable: it sleeps on mutexes */
	pci_init();	  /* after smp_boot (MSI-X to any CPU) and vfs_init (nodes, /sys) */
	vfs_mount_root(); /* root=: after the drivers registered their disks */
	sysfs_seal();
	printk("fdkernel: up (%lu ms since boot)\n", clock_monotonic_ns() / 1000000);

	if (kopts.crashtest)
		crashtest_fault();
	if (kopts.lockdeptest[0])
		lockdep_misuse(kopts.lockdeptest);
	/* In test mode the kernel's own tests run before user space starts;
	 * a failure there still lets the user suite run and report. */
	if (kopts.test)
		selftest_run();
	smp_sched_start(); /* unless smp=off, the other CPUs take tasks from here on */
	proc_start_init(kopts.init, kopts.test ? "test" : kopts.bench ? "bench" : NULL);
	sched_idle_loop();
}
