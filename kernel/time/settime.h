/* Setting the real-time clock (time/sys_settime.c). */
#ifndef TIME_SETTIME_H
#define TIME_SETTIME_H

#include <stdbool.h>
#include <stdint.h>

/* Sets the real time to ns (relative: moves it by ns), as vclock_set,
 * and tells what depends on it (timerfd's TFD_TIMER_CANCEL_ON_SET): 0 or
 * -EINVAL. */
int clock_set_realtime(int64_t ns, bool relative);

#endif
