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

/*
 * One call for one CPU, queued on that CPU's call_queue (struct cpu).
 * Lifetime: it lives in the caller's smp_call_many frame, which does not
 * return before done is set; so the called CPU reads next, fn and arg
 * before it sets done and never touches the descriptor after.
 */
struct call_desc {
	struct call_desc *next; /* the queue's next older call; read before done */
	void (*fn)(void *arg);
	void *arg;
	int done; /* set (release) by the called CPU once fn returned */
};

/* Pushes d on c's queue; true if the queue was empty (no IPI on its way). */
static bool call_enqueue(struct cpu *c, struct call_desc *d)
{
	struct call_desc *head = __atomic_load_n(&c->call_queue, __ATOMIC_RELAXED);

	do
		d->next = head;
	while (!__atomic_compare_exchange_n(&c->call_queue, &head, d, true, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED));
	return !head;
}

void smp_call_many(uint32_t cpus, void (*fn)(void *arg), void *arg)
{
	struct call_desc calls[MAX_CPUS];
	struct cpu *self;

	irq_push_off(); /* this CPU stays self, and serves its queue below */
	self = this_cpu();
	cpus &= smp_online_mask & ~(1u << self->id);
	for_each_cpu_in(id, cpus)
	{
		struct cpu *c = cpu_get(id);

		calls[id] = (struct call_desc){.fn = fn, .arg = arg};
		/* A queue that was not empty has an IPI on its way, or its CPU
		 * is serving it: the call is taken with the others. */
		if (call_enqueue(c, &calls[id]))
			lapic_send_fixed(c->apic_id, VEC_IPI_CALL);
	}
	/* A called CPU may be waiting for this one (for its own calls, or on
	 * a lock this caller holds): this CPU serves its own queue meanwhile,
	 * so two CPUs that call each other both go on. */
	for_each_cpu_in(id, cpus) while (!__atomic_load_n(&calls[id].done, __ATOMIC_ACQUIRE))
	{
		smp_call_poll(self);
		cpu_relax();
	}
	irq_pop_off();
}

void smp_call(int cpu, void (*fn)(void *arg), void *arg)
{
	kassert(cpu >= 0 && cpu < smp_cpus_online);
	smp_call_many(1u << cpu, fn, arg);
}

void smp_call_handle(void)
{
	/* The whole queue, taken: a poll nested in fn takes what comes after. */
	struct call_desc *d = __atomic_exchange_n(&this_cpu()->call_queue, NULL, __ATOMIC_ACQUIRE);
	struct call_desc *fifo = NULL;

	while (d) { /* newest first: reversed, so calls run in the order made */
		struct call_desc *next = d->next;
		d->next = fifo;
		fifo = d;
		d = next;
	}
	while (fifo) {
		struct call_desc *call = fifo;
		fifo = call->next; /* after done, the caller may have returned */
		call->fn(call->arg);
		__atomic_store_n(&call->done, 1, __ATOMIC_RELEASE);
	}
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

#define CROSS_CALLS 1000

/* The concurrent-call test: every CPU calls every other one at once. */
static int cross_served[MAX_CPUS]; /* calls each CPU answered */
static int cross_done;		   /* the APs that made all their calls */
static struct spinlock cross_lock = SPINLOCK_INIT("smp_cross");

static void cross_answer(void *arg)
{
	(void)arg;
	cross_served[this_cpu()->id]++; /* only this CPU writes its count */
}

/* This CPU calls all the others CROSS_CALLS times; every 64th call with
 * cross_lock held, which the others also spin on. */
static void cross_calls(void)
{
	for (int i = 0; i < CROSS_CALLS; i++) {
		bool locked = i % 64 == 0;

		if (locked)
			spin_lock(&cross_lock);
		smp_call_many(~0u, cross_answer, NULL);
		if (locked)
			spin_unlock(&cross_lock);
	}
}

static void cross_ap(void)
{
	cross_calls();
	__atomic_add_fetch(&cross_done, 1, __ATOMIC_RELEASE);
}

static void count_call(void *arg)
{
	((int *)arg)[this_cpu()->id]++;
}

static void nothing(void *arg)
{
	(void)arg;
}

void smp_park_run(int cpu, void (*work)(void))
{
	kassert(cpu > 0 && cpu < smp_cpus_online && !smp_sched_on);
	__atomic_store_n(&park_work[cpu], work, __ATOMIC_RELEASE);
	smp_call(cpu, nothing, NULL); /* wakes it from hlt: it runs its park work */
}

/* CPU 0 calls every other CPU, twice, and each answers as itself; then
 * every CPU calls every other one at once, and none deadlocks. */
void smp_call_selftest(void)
{
	int right = 0, aps = smp_cpus_online - 1, served = 0;
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
	for (int n = 1; n <= aps; n++)
		smp_park_run(n, cross_ap);
	cross_calls();
	while (__atomic_load_n(&cross_done, __ATOMIC_ACQUIRE) < aps)
		cpu_relax();
	for (int n = 0; n <= aps; n++)
		served += cross_served[n] == aps * CROSS_CALLS;
	KTEST_OK(served == aps + 1,
		 "smp: %d CPUs called each other %d times at once: %d answered every call", aps + 1,
		 CROSS_CALLS, served);
}
