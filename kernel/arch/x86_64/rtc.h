/* CMOS real-time clock. */
#ifndef ARCH_RTC_H
#define ARCH_RTC_H

#include <stdbool.h>
#include <stdint.h>

/* Seconds since the Unix epoch, from the RTC (UTC). */
int64_t rtc_read_epoch(void);

#endif
