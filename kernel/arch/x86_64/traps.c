/*
 * Exceptions and hardware interrupts.  A fault in kernel code either has
 * a fixup in the exception table (copy_from_user and the probes) or is a
 * kernel bug and panics with the full frame and a backtrace.
 */
#include "arch/x86_64/traps.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/extable.h"
#include "arch/x86_64/idt.h"
#include "arch/x86_64/ioapic.h"
#include "arch/x86_64/irqvec.h"
#include "arch/x86_64/lapic.h"
#include "arch/x86_64/pic.h"
#include "arch/x86_64/smp.h"
#include "arch/x86_64/timer.h"
#include "lib/backtrace.h"
#include "lib/printk.h"
#include "mm/paging.h"
#include "sched/sched.h"
#include "proc/signal.h"
#include "proc/task.h"
#include "mm/uvm.h"
#include <uapi/errno.h>
#include <uapi/signal.h>

static const char *const exception_names[32] = {"divide error",
						"debug",
						"NMI",
						"breakpoint",
						"overflow",
						"bound range exceeded",
						"invalid opcode",
						"device not available",
						"double fault",
						"coprocessor overrun",
						"invalid TSS",
						"segment not present",
						"stack-segment fault",
						"general protection",
						"page fault",
						"reserved",
						"x87 floating point",
						"alignment check",
						"machine check",
						"SIMD floating point",
						"virtualization",
						"control protection",
						"reserved",
						"reserved",
						"reserved",
						"reserved",
						"reserved",
						"reserved",
						"hypervisor injection",
						"VMM communication",
						"security",
						"reserved"};

static irq_handler_t irq_handlers[16];
static const char *irq_names[16];
static irq_handler_t selftest_handler; /* VEC_SELFTEST; set by self-tests only */

void irq_register(int irq, const char *name, irq_handler_t handler)
{
	irq_names[irq] = name;
	irq_handlers[irq] = handler;
	if (lapic_enabled())
		ioapic_route_isa(irq);
	else
		pic_unmask(irq);
}

const char *irq_name(int irq)
{
	return irq_names[irq];
}

/* An ISA IRQ: acknowledged first, since the handler may switch tasks. */
static void isa_irq(struct trapframe *tf, int irq)
{
	this_cpu()->irqs[irq]++; /* the PIC's spurious IRQ 7 and 15 included */
	if (lapic_enabled()) {
		lapic_eoi();
	} else {
		if (pic_is_spurious(irq))
			return;
		pic_eoi(irq);
	}
	if (irq_handlers[irq])
		irq_handlers[irq](tf);
}

void trap_register_selftest(irq_handler_t handler)
{
	selftest_handler = handler;
}

void trapframe_dump(const struct trapframe *tf)
{
	printk("RIP %04lx:%016lx RFLAGS %016lx  vector %lu error 0x%lx\n", tf->cs, tf->rip,
	       tf->rflags, tf->vector, tf->error);
	printk("RSP %04lx:%016lx CR2 %016lx CR3 %016lx\n", tf->ss, tf->rsp, read_cr2(), read_cr3());
	printk("RAX %016lx RBX %016lx RCX %016lx RDX %016lx\n", tf->rax, tf->rbx, tf->rcx, tf->rdx);
	printk("RSI %016lx RDI %016lx RBP %016lx R8  %016lx\n", tf->rsi, tf->rdi, tf->rbp, tf->r8);
	printk("R9  %016lx R10 %016lx R11 %016lx R12 %016lx\n", tf->r9, tf->r10, tf->r11, tf->r12);
	printk("R13 %016lx R14 %016lx R15 %016lx\n", tf->r13, tf->r14, tf->r15);
}

/* "page fault at ... (write, user, not present)" from the error code bits. */
static void describe_page_fault(const struct trapframe *tf)
{
	uint64_t e = tf->error;

	printk("page fault at %016lx: %s, %s mode, %s%s%s\n", read_cr2(),
	       e & 2 ? "write" : (e & 16 ? "instruction fetch" : "read"), e & 4 ? "user" : "kernel",
	       e & 1 ? "protection violation" : "page not present", e & 8 ? ", reserved bit" : "",
	       e & 32 ? ", protection key" : "");
}

static __attribute__((noreturn)) void kernel_fault(struct trapframe *tf)
{
	irq_disable();
	printk("\n*** kernel exception %lu (%s)\n", tf->vector,
	       tf->vector < 32 ? exception_names[tf->vector] : "?");
	if (tf->vector == VEC_PAGE_FAULT) {
		describe_page_fault(tf);
		vm_print_walk(read_cr3(), read_cr2());
	}
	trapframe_dump(tf);
	backtrace_from(tf->rip, tf->rsp, tf->rbp);
	panic("unhandled %s in kernel mode", exception_names[tf->vector]);
}

/* What a user-mode exception raises: signal, si_code and si_addr. */
struct fault_signal {
	int sig, code;
	uint64_t addr;
};

#define DR6_BS (1UL << 14) /* single step (TF) */

/* A #DB from user mode: the single step TF asked for (TRAP_TRACE), or an
 * icebp or data breakpoint (TRAP_BRKPT), as Linux's exc_debug_user.  DR6
 * is sticky: cleared for the next one. */
static int debug_code(void)
{
	uint64_t dr6;

	asm volatile("mov %%db6, %0" : "=r"(dr6));
	asm volatile("mov %0, %%db6" : : "r"(0UL));
	return dr6 & DR6_BS ? TRAP_TRACE : TRAP_BRKPT;
}

/*
 * The signal a user-mode exception raises, with Linux's si_code and
 * si_addr: a fault that names an instruction gives its address, the
 * "kernel" ones (#GP, int3, int $4) SI_KERNEL and 0.
 */
static struct fault_signal exception_signal(const struct trapframe *tf)
{
	switch (tf->vector) {
	case VEC_DIVIDE:
		return (struct fault_signal){SIGFPE, FPE_INTDIV, tf->rip};
	case VEC_DEBUG:
		return (struct fault_signal){SIGTRAP, debug_code(), tf->rip};
	case VEC_BREAKPOINT:
		return (struct fault_signal){SIGTRAP, SI_KERNEL, 0};
	case VEC_INVALID_OPCODE:
		return (struct fault_signal){SIGILL, ILL_ILLOPN, tf->rip};
	case 16: /* x87 */
	case 19: /* SIMD */
		return (struct fault_signal){SIGFPE, SI_KERNEL, tf->rip};
	case 17: /* alignment check */
		return (struct fault_signal){SIGBUS, BUS_ADRALN, 0};
	case VEC_PAGE_FAULT:
		return (struct fault_signal){SIGSEGV, tf->error & 1 ? SEGV_ACCERR : SEGV_MAPERR,
					     read_cr2()};
	default:
		return (struct fault_signal){SIGSEGV, SI_KERNEL, 0};
	}
}

static void handle_exception(struct trapframe *tf)
{
	uint64_t fixup;
	struct task *t = current();
	int sig = 0;

	/* First touch and copy-on-write, whoever touched the user page.
	 * With interrupts on when the faulting code had them (Linux's
	 * do_user_addr_fault): a disk file's page is read in, which sleeps. */
	if (tf->vector == VEC_PAGE_FAULT && t->pid) {
		bool irqs = tf->rflags & RFLAGS_IF;

		if (irqs)
			irq_enable();
		sig = uvm_handle_fault(t, read_cr2(), tf->error);
		if (irqs)
			irq_disable();
		if (!sig)
			return;
	}
	if (!trapframe_from_user(tf) && (fixup = extable_fixup(tf->rip))) {
		/* A probe or user copy faulted: resume at its fixup with -EFAULT. */
		tf->rip = fixup;
		tf->rax = (uint64_t)-EFAULT;
		return;
	}
	if (trapframe_from_user(tf)) {
		struct fault_signal fs = exception_signal(tf);
		if (tf->vector == VEC_PAGE_FAULT && sig == SIGBUS)
			fs = (struct fault_signal){SIGBUS, BUS_ADRERR, read_cr2()};
		signal_force_fault(tf, fs.sig, fs.code, fs.addr);
		return;
	}
	kernel_fault(tf);
}

unsigned long trap_nmi_count(void)
{
	unsigned long n = 0;

	for (int i = 0; i < smp_cpus_online; i++)
		n += __atomic_load_n(&cpu_get(i)->nmis, __ATOMIC_RELAXED);
	return n;
}

void trap_dispatch(struct trapframe *tf)
{
	uint64_t v = tf->vector;

	/*
	 * An NMI: nothing of the kernel's raises one, so it has no source to
	 * serve (Linux's "unknown NMI").  Counted, not printed (it may have
	 * come in the middle of a printk), and not a fault of the interrupted
	 * code, user or kernel.  Back at once: NMIs stay blocked until the
	 * IRETQ, so this is no place for the way to user mode's work.
	 */
	if (v == VEC_NMI) {
		this_cpu()->nmis++; /* the paranoid entry made GS the kernel's */
		return;
	}
	if (v < 32) {
		handle_exception(tf);
	} else if (v >= VEC_IRQ_BASE && v < VEC_IRQ_BASE + 16) {
		isa_irq(tf, (int)(v - VEC_IRQ_BASE));
	} else if (v >= VEC_DEV_BASE && v < VEC_DEV_BASE + VEC_DEV_COUNT) {
		irqvec_dispatch((int)v);
	} else if (v == VEC_LAPIC_TIMER) {
		lapic_eoi();
		timer_interrupt(tf);
	} else if (v == VEC_IPI_CALL) {
		lapic_eoi();
		this_cpu()->call_ipis++;
		smp_call_handle();
	} else if (v == VEC_IPI_RESCHED) {
		lapic_eoi(); /* the idle loop looks at the run queue again */
		this_cpu()->resched_ipis++;
		this_cpu()->need_resched = true;
	} else if (v == VEC_IPI_KICK) {
		lapic_eoi();		    /* only for the way out below: a signal to take */
		this_cpu()->resched_ipis++; /* Linux kicks with its reschedule IPI */
	} else if (v == VEC_SELFTEST && selftest_handler) {
		selftest_handler(tf);
	}
	/* Other vectors are unused.  Leaving for user mode: preemption, signals,
	 * with interrupts on (a signal frame is a user copy, which may fault
	 * and sleep); trap_return turns them off again. */
	if (trapframe_from_user(tf)) {
		irq_enable();
		return_to_user_work(tf);
	}
}
