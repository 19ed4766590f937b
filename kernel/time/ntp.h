/*
 * The kernel's NTP state (time/ntp.c): what adjtimex reports and sets,
 * and the leap-second state machine that CPU 0's tick drives.
 */
#ifndef TIME_NTP_H
#define TIME_NTP_H

#include <stdint.h>

/*
 * The real-time clock just entered second sec (CPU 0's tick, under the
 * vDSO page's write lock): -1 to step it back a second (an inserted leap
 * second: 23:59:59 again), +1 to step it forward (a deleted one), else 0.
 * Linux's second_overflow.
 */
int ntp_second_overflow(int64_t sec);
/*
 * How long the clock's current second lasts, in ns scaled by 2^32: the
 * nominal second adjusted by ADJ_TICK, the frequency offset and this
 * second's share of the phase to slew.  The clock runs at this rate.
 */
int64_t ntp_second_length(void);

#endif
