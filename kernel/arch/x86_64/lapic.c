/*
 * Local APIC, xAPIC mode: 32-bit registers at 16-byte strides in the page
 * acpi_info.lapic_pa names, mapped uncached.  Every CPU sees its own LAPIC
 * at that one address.
 */
#include "arch/x86_64/lapic.h"
#include "arch/x86_64/acpi.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/idt.h"
#include "lib/printk.h"
#include "arch/x86_64/mmio.h"

#define LAPIC_ID	0x020
#define LAPIC_TPR	0x080
#define LAPIC_EOI	0x0b0
#define LAPIC_SVR	0x0f0
#define LAPIC_ICR_LO	0x300
#define LAPIC_ICR_HI	0x310
#define LAPIC_LVT_TIMER 0x320
#define LAPIC_TIMER_ICR 0x380 /* initial count */
#define LAPIC_TIMER_CCR 0x390 /* current count */
#define LAPIC_TIMER_DCR 0x3e0 /* divide configuration */

#define SVR_ENABLE	   (1u << 8)
#define LVT_MASKED	   (1u << 16)
#define LVT_TIMER_PERIODIC (1u << 17)
#define DCR_DIVIDE_16	   0x3
#define CALIBRATE_MS	   10
#define ICR_INIT	   0x4500 /* INIT, level assert */
#define ICR_STARTUP	   0x4600 /* STARTUP; the vector is the start page */
#define ICR_FIXED	   0x4000 /* fixed delivery, level assert */
#define ICR_PENDING	   (1u << 12)

/* Set once by the boot CPU before any other CPU runs; read-only after. */
static volatile uint32_t *lapic;

static uint32_t lapic_read(uint32_t reg)
{
	return lapic[reg / 4];
}

static void lapic_write(uint32_t reg, uint32_t v)
{
	lapic[reg / 4] = v;
}

void lapic_init(void)
{
	lapic = mmio_map(acpi_info.lapic_pa);
	lapic_init_cpu();
}

void lapic_init_cpu(void)
{
	lapic_write(LAPIC_TPR, 0);
	lapic_write(LAPIC_SVR, SVR_ENABLE | VEC_SPURIOUS);
	lapic_write(LAPIC_EOI, 0); /* nothing left in service from the firmware */
}

bool lapic_enabled(void)
{
	return lapic != NULL;
}

uint32_t lapic_id(void)
{
	return lapic_read(LAPIC_ID) >> 24;
}

void lapic_eoi(void)
{
	lapic_write(LAPIC_EOI, 0);
}

uint32_t lapic_timer_calibrate(uint64_t tsc_per_ms)
{
	uint64_t end = rdtsc() + tsc_per_ms * CALIBRATE_MS;
	uint32_t per_ms;

	lapic_write(LAPIC_TIMER_DCR, DCR_DIVIDE_16);
	lapic_write(LAPIC_LVT_TIMER, LVT_MASKED | VEC_LAPIC_TIMER);
	lapic_write(LAPIC_TIMER_ICR, 0xffffffff);
	while (rdtsc() < end)
		cpu_relax();
	per_ms = (0xffffffff - lapic_read(LAPIC_TIMER_CCR)) / CALIBRATE_MS;
	lapic_write(LAPIC_TIMER_ICR, 0);
	if (!per_ms)
		panic("LAPIC timer calibration failed");
	return per_ms;
}

void lapic_timer_start(uint32_t count)
{
	lapic_write(LAPIC_TIMER_DCR, DCR_DIVIDE_16);
	lapic_write(LAPIC_LVT_TIMER, LVT_TIMER_PERIODIC | VEC_LAPIC_TIMER);
	lapic_write(LAPIC_TIMER_ICR, count);
}

/* Sends one IPI and waits until the LAPIC has accepted it. */
static void lapic_send_ipi(uint32_t apic_id, uint32_t icr_lo)
{
	lapic_write(LAPIC_ICR_HI, apic_id << 24);
	lapic_write(LAPIC_ICR_LO, icr_lo);
	while (lapic_read(LAPIC_ICR_LO) & ICR_PENDING)
		cpu_relax();
}

void lapic_send_fixed(uint32_t apic_id, uint8_t vector)
{
	lapic_send_ipi(apic_id, ICR_FIXED | vector);
}

void lapic_send_init(uint32_t apic_id)
{
	lapic_send_ipi(apic_id, ICR_INIT);
}

void lapic_send_startup(uint32_t apic_id, uint64_t start_pa)
{
	lapic_send_ipi(apic_id, ICR_STARTUP | (uint32_t)(start_pa >> 12));
}
