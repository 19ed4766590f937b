/* timerfd (fs/event/timerfd.c): what the clock's setters call. */
#ifndef FS_EVENT_TIMERFD_H
#define FS_EVENT_TIMERFD_H

/* The real-time clock was set: every timerfd armed with
 * TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET on it is canceled (its
 * read fails ECANCELED once, poll says readable), as Linux's
 * timerfd_clock_was_set. */
void timerfd_clock_was_set(void);

#endif
