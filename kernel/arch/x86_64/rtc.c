/*
 * The CMOS real-time clock, read once at boot to give CLOCK_REALTIME its
 * starting point; afterwards wall time advances with the TSC clock.
 */
#include "arch/x86_64/rtc.h"
#include "arch/x86_64/cpu.h"

#define CMOS_INDEX	    0x70
#define CMOS_DATA	    0x71
#define RTC_UPDATING	    0x80
#define RTC_STATUS_B_BINARY 0x04
#define RTC_STATUS_B_24H    0x02

static uint8_t cmos_read(uint8_t reg)
{
	outb(CMOS_INDEX, reg);
	return inb(CMOS_DATA);
}

static unsigned from_bcd(uint8_t v, bool binary)
{
	return binary ? v : (v >> 4) * 10 + (v & 0xf);
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

int64_t rtc_read_epoch(void)
{
	while (cmos_read(0x0a) & RTC_UPDATING)
		cpu_relax();
	uint8_t b = cmos_read(0x0b);
	bool bin = b & RTC_STATUS_B_BINARY;
	unsigned sec = from_bcd(cmos_read(0x00), bin);
	unsigned min = from_bcd(cmos_read(0x02), bin);
	uint8_t hraw = cmos_read(0x04);
	unsigned hour = from_bcd(hraw & 0x7f, bin);
	unsigned day = from_bcd(cmos_read(0x07), bin);
	unsigned mon = from_bcd(cmos_read(0x08), bin);
	unsigned year = from_bcd(cmos_read(0x09), bin) + 2000;

	if (!(b & RTC_STATUS_B_24H) && (hraw & 0x80))
		hour = (hour % 12) + 12;
	return days_from_civil(year, mon, day) * 86400 + hour * 3600 + min * 60 + sec;
}
