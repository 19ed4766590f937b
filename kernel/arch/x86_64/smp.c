/*
 * Application processor start-up: the trampoline (trampoline.asm) is
 * copied to TRAMPOLINE_PA, then each AP gets INIT, STARTUP, STARTUP (the
 * second only if the first did not take, as the MP specification allows),
 * and runs ap_entry on its own stack with its own struct cpu, GDT, TSS and
 * LAPIC timer.  It parks until the scheduler takes it: tasks run on every
 * CPU, or with the boot word smp=off on CPU 0 only (docs/smp.md).  Also
 * the cross-CPU calls (smp_call_many), on which TLB shootdown is built.
 */
#include "arch/x86_64/smp.h"
#include "arch/x86_64/cpuinfo.h"
#include "arch/x86_64/acpi.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/idt.h"
#include "arch/x86_64/lapic.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/timer.h"
#include "lib/ktest.h"
#include "sched/grace.h"
#include "lib/printk.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "cmdline.h"
#include "sched/sched.h"
#include "sys/dispatch.h"
#include "mm/layout.h"
#include "mm/paging.h"

/* Below 1 MiB, page aligned, and never handed out: the frame allocator
 * starts at 1 MiB (frame.c), so this page needs no reservation of its own. */
#define TRAMPOLINE_PA 0x8000 /* trampoline.asm */
#define AP_STACK_SIZE 16384
#define EFER_LMA      (1UL << 10) /* read-only status bit: not written back */

/* The block at the end of the trampoline, filled before each start. */
struct trampoline_data {
	uint64_t cr3; /* the boot page tables (boot/entry.asm), below 4 GiB */
	uint64_t efer;
	uint64_t stack;
	uint64_t cpu;
	uint64_t entry;
};

extern const uint8_t trampoline_start[], trampoline_end[], trampoline_data[];
extern uint8_t boot_pml4[]; /* linked at its physical address */

/* The APs' per-CPU data and boot stacks: static, they live forever. */
static struct cpu ap_cpus[MAX_CPUS - 1];
static uint8_t ap_stacks[MAX_CPUS - 1][AP_STACK_SIZE] __attribute__((aligned(16)));
/* CPU 0's control registers, copied by each AP; written before any start. */
static uint64_t bsp_cr0, bsp_cr4;

int smp_cpus_online = 1;
uint32_t smp_online_mask = 1;
bool smp_sched_on;

/* Serializes cross-CPU calls: one caller at a time owns every call slot. */
static struct spinlock call_lock = SPINLOCK_INIT("smp_call");
/* Work for a parked AP, run in its idle loop outside interrupt context
 * (the concurrent-call self-test); taken with an exchange. */
static void (*park_work[MAX_CPUS])(void);

struct cpu *cpu_get(int id)
{
	return id ? &ap_cpus[id - 1] : &cpu0;
}

#define for_each_cpu_in(id, mask)                                                                  \
	for (int id = 0; id < MAX_CPUS; id++)                                                      \
		if ((mask) & (1u << id))

void smp_call_many(uint32_t cpus, void (*fn)(void *arg), void *arg)
{
	struct cpu *self;

	spin_lock(&call_lock); /* interrupts off: this CPU stays self */
	self = this_cpu();
	cpus &= smp_online_mask & ~(1u << self->id);
	for_each_cpu_in(id, cpus)
	{
		struct cpu *c = cpu_get(id);

		c->call_done = 0;
		c->call_arg = arg;
		__atomic_store_n(&c->call_fn, fn, __ATOMIC_RELEASE); /* publishes both */
		lapic_send_fixed(c->apic_id, VEC_IPI_CALL);
	}
	/* The callees may spin on a lock this caller holds: they serve the
	 * call from their waiting loop (spin_lock), not only from the IPI. */
	for_each_cpu_in(id, cpus) while (
	    !__atomic_load_n(&cpu_get(id)->call_done, __ATOMIC_ACQUIRE)) cpu_relax();
	spin_unlock(&call_lock);
}

void smp_call(int cpu, void (*fn)(void *arg), void *arg)
{
	kassert(cpu >= 0 && cpu < smp_cpus_online);
	smp_call_many(1u << cpu, fn, arg);
}

void smp_call_handle(void)
{
	struct cpu *c = this_cpu();
	/* Taken, not read: a lock waited for inside fn polls again. */
	void (*fn)(void *) = __atomic_exchange_n(&c->call_fn, NULL, __ATOMIC_ACQUIRE);

	if (!fn)
		return;
	fn(c->call_arg);
	__atomic_store_n(&c->call_done, 1, __ATOMIC_RELEASE); /* the caller may go on */
}

/* smp_call_handle with every caller-saved register kept (smp_call_poll);
 * nine pushes after the call's return address leave rsp 16-byte aligned. */
asm(".pushsection .text\n"
    ".globl smp_call_handle_thunk\n"
    "smp_call_handle_thunk:\n"
    "	push %rax; push %rcx; push %rdx; push %rsi; push %rdi\n"
    "	push %r8; push %r9; push %r10; push %r11\n"
    "	call smp_call_handle\n"
    "	pop %r11; pop %r10; pop %r9; pop %r8\n"
    "	pop %rdi; pop %rsi; pop %rdx; pop %rcx; pop %rax\n"
    "	ret\n"
    ".popsection");

void smp_resched(int cpu)
{
	lapic_send_fixed(cpu_get(cpu)->apic_id, VEC_IPI_RESCHED);
}

void smp_kick(int cpu)
{
	lapic_send_fixed(cpu_get(cpu)->apic_id, VEC_IPI_KICK);
}

/* An AP's loop until the scheduler takes it (smp_sched_start; with smp=off, never). */
static __attribute__((noreturn)) void ap_park(struct cpu *c)
{
	for (;;) {
		/* Parked: an extended quiescent state, so a CPU asleep in hlt
		 * never holds a grace period up. */
		grace_idle_enter();
		asm volatile("sti; hlt" ::: "memory");
		grace_idle_exit();
		void (*work)(void) = __atomic_exchange_n(&park_work[c->id], NULL, __ATOMIC_ACQUIRE);
		if (work)
			work();
		if (__atomic_load_n(&smp_sched_on, __ATOMIC_ACQUIRE))
			sched_idle_loop();
	}
}

static __attribute__((noreturn)) void ap_entry(struct cpu *c)
{
	write_cr3(vm_kernel()->pml4);
	write_cr4(bsp_cr4);
	asm volatile("mov %0, %%cr0" : : "r"(bsp_cr0));
	c->self = c;
	wrmsr(MSR_GS_BASE, (uint64_t)c);
	gdt_init();
	idt_load();
	syscall_init();
	sched_init_cpu();
	lapic_init_cpu();
	timer_start_cpu();
	cpuinfo_identify(c->id);
	printk("cpu %d online (LAPIC id %u)\n", c->id, lapic_id());
	__atomic_or_fetch(&smp_online_mask, 1u << c->id, __ATOMIC_SEQ_CST);
	__atomic_store_n(&c->online, true, __ATOMIC_RELEASE);
	ap_park(c);
}

void smp_sched_start(void)
{
	if (!kopts.smp || smp_cpus_online < 2)
		return;
	__atomic_store_n(&smp_sched_on, true, __ATOMIC_RELEASE);
	for (int n = 1; n < smp_cpus_online; n++)
		smp_resched(n);
	printk("smp: tasks run on all %d CPUs\n", smp_cpus_online);
}

static void delay_us(uint64_t us)
{
	uint64_t end = clock_monotonic_ns() + us * 1000;

	while (clock_monotonic_ns() < end)
		cpu_relax();
}

/* True once the CPU says it is online, polling for up to ms milliseconds. */
static bool wait_online(const struct cpu *c, uint64_t ms)
{
	uint64_t end = clock_monotonic_ns() + ms * 1000000;

	while (!__atomic_load_n(&c->online, __ATOMIC_ACQUIRE))
		if (clock_monotonic_ns() >= end)
			return false;
	return true;
}

/* Starts the CPU with LAPIC id apic_id as c, on stack top. */
static bool ap_start(uint32_t apic_id, struct cpu *c, uint64_t stack_top)
{
	struct trampoline_data *d = P2V(TRAMPOLINE_PA + (trampoline_data - trampoline_start));

	d->cr3 = (uint64_t)boot_pml4;
	d->efer = rdmsr(MSR_EFER) & ~EFER_LMA;
	d->stack = stack_top;
	d->cpu = (uint64_t)c;
	d->entry = (uint64_t)ap_entry;
	lapic_send_init(apic_id);
	delay_us(10000);
	lapic_send_startup(apic_id, TRAMPOLINE_PA);
	if (wait_online(c, 1))
		return true;
	lapic_send_startup(apic_id, TRAMPOLINE_PA);
	return wait_online(c, 200);
}

void smp_boot(void)
{
	uint32_t self = lapic_id();

	if (!lapic_enabled() || acpi_info.ncpus < 2)
		return;
	cpu0.apic_id = self;
	bsp_cr0 = read_cr0();
	bsp_cr4 = read_cr4();
	memcpy(P2V(TRAMPOLINE_PA), trampoline_start, (size_t)(trampoline_end - trampoline_start));
	for (int i = 0; i < acpi_info.ncpus; i++) {
		int n = smp_cpus_online;
		uint32_t id = acpi_info.lapic_ids[i];

		if (id == self)
			continue;
		if (id > 0xfe) { /* xAPIC IPIs carry 8-bit ids; 0xff broadcasts */
			printk("smp: LAPIC id %u needs x2APIC, not started\n", id);
			continue;
		}
		if (n == MAX_CPUS)
			break; /* the boot CPU was not in the MADT's list */
		ap_cpus[n - 1].id = n;
		ap_cpus[n - 1].apic_id = id;
		/* A CPU that never answered might still start later and read
		 * the trampoline: start no other after it. */
		if (!ap_start(id, &ap_cpus[n - 1], (uint64_t)ap_stacks[n - 1] + AP_STACK_SIZE)) {
			printk("smp: the CPU with LAPIC id %u did not start; no more started\n",
			       id);
			break;
		}
		smp_cpus_online++;
	}
	printk("smp: %d CPUs online%s\n", smp_cpus_online,
	       kopts.smp ? "" : "; tasks run on CPU 0 only");
}

/* Every CPU of the MADT is up, each with its own struct cpu behind GS, and
 * idles with its LAPIC timer ticking. */
void smp_selftest(void)
{
	uint64_t before[MAX_CPUS - 1], t0 = timer_ticks();
	int aps = smp_cpus_online - 1, ticking = 0, own = 0;

	for (int i = 0; i < aps; i++)
		before[i] = __atomic_load_n(&ap_cpus[i].ticks, __ATOMIC_RELAXED);
	while (timer_ticks() < t0 + 3)
		asm volatile("hlt");
	for (int i = 0; i < aps; i++) {
		ticking += __atomic_load_n(&ap_cpus[i].ticks, __ATOMIC_RELAXED) > before[i];
		own += ap_cpus[i].self == &ap_cpus[i] && ap_cpus[i].id == i + 1 &&
		       __atomic_load_n(&ap_cpus[i].online, __ATOMIC_ACQUIRE);
	}
	KTEST_OK(smp_cpus_online == acpi_info.ncpus && this_cpu() == &cpu0 && own == aps,
		 "smp: %d of the MADT's %d CPUs online, each with its own struct cpu",
		 smp_cpus_online, acpi_info.ncpus);
	KTEST_OK(ticking == aps, "smp: %d of the %d other CPUs idle with their timer ticking",
		 ticking, aps);
}

/* Runs on the called CPU: who am I, by struct cpu and by LAPIC. */
static void whoami(void *arg)
{
	uint32_t *out = arg;

	out[0] = (uint32_t)this_cpu()->id;
	out[1] = lapic_id();
}

#define PINGPONG_CALLS 2000

/* The concurrent-call test: CPU 0 and CPU 1 call each other at once. */
static int pingpong_served[2]; /* calls each CPU answered */
static int pingpong_ap_done;   /* CPU 1 made all its calls */
static struct spinlock pingpong_lock = SPINLOCK_INIT("pingpong");

static void pingpong_answer(void *arg)
{
	(void)arg;
	pingpong_served[this_cpu()->id]++;
}

/* CPU n calls CPU 1 - n; every 64th call with pingpong_lock held, which
 * the other CPU also spins on. */
static void pingpong_calls(int n)
{
	for (int i = 0; i < PINGPONG_CALLS; i++) {
		bool locked = i % 64 == 0;

		if (locked)
			spin_lock(&pingpong_lock);
		smp_call(1 - n, pingpong_answer, NULL);
		if (locked)
			spin_unlock(&pingpong_lock);
	}
}

static void pingpong_ap(void)
{
	pingpong_calls(1);
	__atomic_store_n(&pingpong_ap_done, 1, __ATOMIC_RELEASE);
}

static void count_call(void *arg)
{
	((int *)arg)[this_cpu()->id]++;
}

static void nothing(void *arg)
{
	(void)arg;
}

/* CPU 0 calls every other CPU, twice, and each answers as itself; then
 * CPU 0 and CPU 1 call each other concurrently, and neither deadlocks. */
void smp_call_selftest(void)
{
	int right = 0, aps = smp_cpus_online - 1;
	int counted[MAX_CPUS] = {0};

	for (int round = 0; round < 2; round++)
		for (int n = 1; n <= aps; n++) {
			uint32_t out[2] = {~0u, ~0u};
			smp_call(n, whoami, out);
			right += out[0] == (uint32_t)n && out[1] == cpu_get(n)->apic_id;
		}
	KTEST_OK(right == 2 * aps, "smp: cross-CPU calls: %d of %d answered by the right CPU",
		 right, 2 * aps);
	smp_call_many(~0u, count_call, counted);
	for (int n = 0; n < smp_cpus_online; n++)
		right += counted[n] == (n > 0);
	KTEST_OK(right == 2 * aps + smp_cpus_online,
		 "smp: a call to every CPU runs once on each other CPU, not on the caller");
	if (!aps)
		return;
	park_work[1] = pingpong_ap;
	smp_call(1, nothing, NULL); /* wakes CPU 1 from hlt: it runs its park work */
	pingpong_calls(0);
	while (!__atomic_load_n(&pingpong_ap_done, __ATOMIC_ACQUIRE))
		cpu_relax();
	KTEST_OK(pingpong_served[0] == PINGPONG_CALLS && pingpong_served[1] == PINGPONG_CALLS,
		 "smp: CPUs 0 and 1 called each other %d times at once: %d and %d answered",
		 PINGPONG_CALLS, pingpong_served[0], pingpong_served[1]);
}
