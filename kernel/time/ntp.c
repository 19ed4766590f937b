/*
 * adjtimex and clock_adjtime: the NTP state Linux keeps (status, maximum
 * and estimated error, time constant, TAI offset) and its leap seconds.
 * With STA_INS (STA_DEL) set, the state goes TIME_INS (TIME_DEL) at the
 * next second, and at the next midnight UTC the real-time clock repeats
 * 23:59:59 (skips it): TIME_OOP for the inserted second, TIME_WAIT after
 * until the flag is cleared, as Linux's second_overflow.  ADJ_SETOFFSET
 * steps the clock.  The clock is not disciplined: there is no PLL, FLL or
 * slewing, so ADJ_FREQUENCY, ADJ_TICK and the offsets (ADJ_OFFSET with
 * STA_PLL, adjtime's ADJ_OFFSET_SINGLESHOT) take only the values in force
 * (0, 10000 us, 0) and are EINVAL otherwise: a daemon that wants to slew
 * the clock is told it cannot.
 */
#include "arch/x86_64/timer.h"
#include "arch/x86_64/uaccess.h"
#include "arch/x86_64/vclock.h"
#include "lib/spinlock.h"
#include "proc/cpuclock.h"
#include "proc/cred.h"
#include "sys/syscall.h"
#include "time/ntp.h"
#include "time/settime.h"
#include <uapi/capability.h>
#include <uapi/errno.h>

#define ADJ_OFFSET	      0x0001
#define ADJ_FREQUENCY	      0x0002
#define ADJ_MAXERROR	      0x0004
#define ADJ_ESTERROR	      0x0008
#define ADJ_STATUS	      0x0010
#define ADJ_TIMECONST	      0x0020
#define ADJ_TAI		      0x0080
#define ADJ_SETOFFSET	      0x0100
#define ADJ_MICRO	      0x1000
#define ADJ_NANO	      0x2000
#define ADJ_TICK	      0x4000
#define ADJ_ADJTIME	      0x8000
#define ADJ_OFFSET_SINGLESHOT 0x8001
#define ADJ_OFFSET_READONLY   0x2000 /* with ADJ_ADJTIME: ADJ_OFFSET_SS_READ */

#define STA_PLL	     0x0001
#define STA_INS	     0x0010
#define STA_DEL	     0x0020
#define STA_UNSYNC   0x0040
#define STA_CLOCKERR 0x1000
#define STA_NANO     0x2000
/* What adjtimex cannot set (PPS signal and errors, clock error, NANO,
 * MODE, CLK). */
#define STA_RONLY 0xff00

enum { TIME_OK, TIME_INS, TIME_DEL, TIME_OOP, TIME_WAIT, TIME_ERROR };

#define NTP_PHASE_LIMIT 16000000L /* us: maxerror and esterror at most */
#define MAXTC		10
#define MAX_TAI_OFFSET	100000
#define TICK_USEC	10000 /* USER_HZ 100 */
#define SECS_PER_DAY	86400
#define NO_LEAP		INT64_MAX

/* struct timex as the x86_64 ABI lays it out (208 bytes). */
struct timex_k {
	uint32_t modes;
	int32_t pad0;
	int64_t offset, freq, maxerror, esterror;
	int32_t status, pad1;
	int64_t constant, precision, tolerance;
	int64_t time_sec, time_usec;
	int64_t tick, ppsfreq, jitter;
	int32_t shift, pad2;
	int64_t stabil, jitcnt, calcnt, errcnt, stbcnt;
	int32_t tai;
	int32_t pad3[11];
};
_Static_assert(sizeof(struct timex_k) == 208, "Linux's struct timex");

/* The NTP state, under ntp_lock (taken inside the vDSO page's write lock
 * by the tick: never the other way round). */
static struct spinlock ntp_lock = SPINLOCK_INIT("ntp");
static int time_state = TIME_OK;
static int time_status = STA_UNSYNC;
static int64_t time_maxerror = NTP_PHASE_LIMIT, time_esterror = NTP_PHASE_LIMIT;
static int64_t time_constant = 2;
static int64_t next_leap_sec = NO_LEAP;

int ntp_second_overflow(int64_t sec)
{
	int leap = 0;

	spin_lock(&ntp_lock);
	switch (time_state) {
	case TIME_OK:
		if (time_status & STA_INS) {
			time_state = TIME_INS;
			next_leap_sec = sec + SECS_PER_DAY - sec % SECS_PER_DAY;
		} else if (time_status & STA_DEL) {
			time_state = TIME_DEL;
			next_leap_sec = sec + SECS_PER_DAY - (sec + 1) % SECS_PER_DAY;
		}
		break;
	case TIME_INS:
		if (!(time_status & STA_INS)) {
			next_leap_sec = NO_LEAP;
			time_state = TIME_OK;
		} else if (sec == next_leap_sec) {
			leap = -1;
			time_state = TIME_OOP;
		}
		break;
	case TIME_DEL:
		if (!(time_status & STA_DEL)) {
			next_leap_sec = NO_LEAP;
			time_state = TIME_OK;
		} else if (sec == next_leap_sec) {
			leap = 1;
			next_leap_sec = NO_LEAP;
			time_state = TIME_WAIT;
		}
		break;
	case TIME_OOP:
		next_leap_sec = NO_LEAP;
		time_state = TIME_WAIT;
		break;
	case TIME_WAIT:
		if (!(time_status & (STA_INS | STA_DEL)))
			time_state = TIME_OK;
		break;
	}
	spin_unlock(&ntp_lock);
	return leap;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Linux's ntp_validate_timex, and what this clock cannot do (above). */
static int validate(const struct timex_k *tx)
{
	if (tx->modes & ADJ_ADJTIME) {
		if ((tx->modes & ADJ_OFFSET_SINGLESHOT) != ADJ_OFFSET_SINGLESHOT)
			return -EINVAL;
		if (!(tx->modes & ADJ_OFFSET_READONLY) && !capable(CAP_SYS_TIME))
			return -EPERM;
		if (!(tx->modes & ADJ_OFFSET_READONLY) && tx->offset)
			return -EINVAL; /* no slewing */
		return 0;
	}
	if (tx->modes && !capable(CAP_SYS_TIME))
		return -EPERM;
	if ((tx->modes & ADJ_TICK) && (tx->tick < 9000 || tx->tick > 11000))
		return -EINVAL;
	if (tx->modes & ADJ_SETOFFSET) {
		int64_t limit = tx->modes & ADJ_NANO ? 1000000000 : 1000000;
		if (tx->time_usec < 0 || tx->time_usec >= limit)
			return -EINVAL;
	}
	if ((tx->modes & ADJ_FREQUENCY) && tx->freq)
		return -EINVAL; /* no frequency discipline */
	if ((tx->modes & ADJ_TICK) && tx->tick != TICK_USEC)
		return -EINVAL;
	return 0;
}

/* Linux's process_adj_status: leaving STA_PLL resets the state. */
static void set_status(int status)
{
	if ((time_status & STA_PLL) && !(status & STA_PLL)) {
		time_state = TIME_OK;
		time_status = STA_UNSYNC;
		next_leap_sec = NO_LEAP;
	}
	time_status &= STA_RONLY;
	time_status |= status & ~STA_RONLY;
}

/* A PLL offset can only be the one in force, 0, while STA_PLL is on;
 * without it Linux ignores the offset too. */
static int apply_modes(const struct timex_k *tx, int64_t *tai)
{

	if ((tx->modes & ADJ_OFFSET) && !(tx->modes & ADJ_ADJTIME) && tx->offset &&
	    ((time_status & STA_PLL) || ((tx->modes & ADJ_STATUS) && (tx->status & STA_PLL))))
		return -EINVAL;
	if (tx->modes & ADJ_STATUS)
		set_status(tx->status);
	if (tx->modes & ADJ_NANO)
		time_status |= STA_NANO;
	if (tx->modes & ADJ_MICRO)
		time_status &= ~STA_NANO;
	if (tx->modes & ADJ_MAXERROR)
		time_maxerror = clamp64(tx->maxerror, 0, NTP_PHASE_LIMIT);
	if (tx->modes & ADJ_ESTERROR)
		time_esterror = clamp64(tx->esterror, 0, NTP_PHASE_LIMIT);
	if (tx->modes & ADJ_TIMECONST) {
		time_constant = clamp64(tx->constant, 0, MAXTC);
		if (!(time_status & STA_NANO))
			time_constant = clamp64(time_constant + 4, 0, MAXTC);
	}
	if ((tx->modes & ADJ_TAI) && tx->constant >= 0 && tx->constant <= MAX_TAI_OFFSET)
		*tai = tx->constant;
	return 0;
}

/* Linux's __do_adjtimex: applies tx and fills it with what it reads
 * back; the clock state, or -errno. */
static int do_adjtimex(struct timex_k *tx)
{
	int64_t tai = vclock_tai_offset();
	int err = 0, result;

	if (!(tx->modes & ADJ_ADJTIME) && (tx->modes & ADJ_SETOFFSET)) {
		int64_t ns = tx->time_sec * 1000000000 +
			     (tx->modes & ADJ_NANO ? tx->time_usec : tx->time_usec * 1000);
		if ((err = clock_set_realtime(ns, true)))
			return err;
	}
	spin_lock(&ntp_lock);
	if (!(tx->modes & ADJ_ADJTIME) && tx->modes)
		err = apply_modes(tx, &tai);
	result = time_state;
	if (time_status & (STA_UNSYNC | STA_CLOCKERR))
		result = TIME_ERROR;
	int64_t now = vclock_realtime_offset() + (int64_t)clock_monotonic_ns();
	struct timex_k out = {
	    .modes = tx->modes,
	    .maxerror = time_maxerror,
	    .esterror = time_esterror,
	    .status = time_status,
	    .constant = time_constant,
	    .precision = 1,
	    .tolerance = 500 << 16, /* 500 ppm, Linux's MAXFREQ */
	    .tick = TICK_USEC,
	    .tai = (int32_t)tai,
	    .time_sec = now / 1000000000,
	    .time_usec = now % 1000000000,
	};
	if (!(time_status & STA_NANO))
		out.time_usec /= 1000;
	if (out.time_sec >= next_leap_sec) { /* the tick has not stepped it yet */
		if (time_state == TIME_INS && (time_status & STA_INS)) {
			result = TIME_OOP;
			out.tai++;
			out.time_sec--;
		}
		if (time_state == TIME_DEL && (time_status & STA_DEL)) {
			result = TIME_WAIT;
			out.tai--;
			out.time_sec++;
		}
		if (time_state == TIME_OOP && out.time_sec == next_leap_sec)
			result = TIME_WAIT;
	}
	spin_unlock(&ntp_lock);
	if (err)
		return err;
	if (tai != vclock_tai_offset()) /* the page's lock comes before ntp_lock */
		vclock_set_tai(tai);
	*tx = out;
	return result;
}

static long adjtimex_user(struct timex_k *utx)
{
	struct timex_k tx;
	int err, result;

	if (copy_from_user(&tx, utx, sizeof(tx)))
		return -EFAULT;
	if ((err = validate(&tx)))
		return err;
	result = do_adjtimex(&tx);
	if (result < 0)
		return result;
	return copy_to_user(utx, &tx, sizeof(tx)) ? -EFAULT : result;
}

SYSCALL_DEFINE1(adjtimex, struct timex_k *, utx)
{
	return adjtimex_user(utx);
}

#define CLOCK_REALTIME 0
#define CLOCK_TAI      11

/* Only the real-time clock is adjustable: another clock Linux knows is
 * EOPNOTSUPP (it has no clock_adj; no dynamic POSIX clocks, PTP devices,
 * here), an unknown id EINVAL. */
SYSCALL_DEFINE2(clock_adjtime, int, clk, struct timex_k *, utx)
{
	if (clk == CLOCK_REALTIME)
		return adjtimex_user(utx);
	if ((clk > CLOCK_REALTIME && clk <= CLOCK_TAI && clk != 10) || cpuclock_id(clk))
		return -EOPNOTSUPP;
	return -EINVAL;
}
