/*
 * adjtimex and clock_adjtime: the NTP kernel clock model Linux keeps
 * (RFC 1589's, Linux's kernel/time/ntp.c) and its leap seconds.
 *
 * The clock is disciplined a second at a time: at each second of real
 * time the tick asks for the length of the next one (ntp_second_length)
 * and the clock runs at that rate for it (arch/x86_64/vclock.c scales
 * the TSC's multiplier; CLOCK_MONOTONIC_RAW keeps the calibrated one).
 * The length is the nominal second (ADJ_TICK's tick times USER_HZ),
 * plus the frequency offset (ADJ_FREQUENCY, or what the PLL/FLL made of
 * ADJ_OFFSET with STA_PLL), plus a share of the phase offset left to
 * slew (1 / 2^(SHIFT_PLL + time constant) of it a second), plus
 * adjtime's ADJ_OFFSET_SINGLESHOT slewed at 500 us a second.
 *
 * With STA_INS (STA_DEL) set, the state goes TIME_INS (TIME_DEL) at the
 * next second, and at the next midnight UTC the real-time clock repeats
 * 23:59:59 (skips it): TIME_OOP for the inserted second, TIME_WAIT after
 * until the flag is cleared, as Linux's second_overflow.  ADJ_SETOFFSET
 * steps the clock.
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
#include <uapi/time.h>

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
#define STA_FREQHOLD 0x0080
#define STA_CLOCKERR 0x1000
#define STA_NANO     0x2000
#define STA_MODE     0x4000 /* the FLL, not the PLL, set the frequency */
#define STA_FLL	     0x0008
/* What adjtimex cannot set (PPS signal and errors, clock error, NANO,
 * MODE, CLK). */
#define STA_RONLY 0xff00

enum { TIME_OK, TIME_INS, TIME_DEL, TIME_OOP, TIME_WAIT, TIME_ERROR };

#define NTP_PHASE_LIMIT 16000000L /* us: maxerror and esterror at most */
#define MAXTC		10
#define MAX_TAI_OFFSET	100000
#define USER_HZ		100
#define TICK_USEC	10000 /* USER_HZ 100 */
#define SECS_PER_DAY	86400
#define NO_LEAP		INT64_MAX

/* Lengths and offsets are ns scaled by 2^SCALE_SHIFT; frequencies are
 * such ns per second (ns/s is ppb: 1 ppm is 1000 of them). */
#define SCALE_SHIFT    32
#define NSEC_PER_USEC  1000LL
#define PPM_SCALE      (NSEC_PER_USEC << (SCALE_SHIFT - 16)) /* timex's freq is ppm << 16 */
#define MAXFREQ_NS     500000LL				     /* 500 ppm, the tolerance */
#define MAXFREQ_SCALED (MAXFREQ_NS << SCALE_SHIFT)
#define MAXPHASE       500000000LL /* ns: the largest PLL offset taken */
#define MAX_TICKADJ    500LL	   /* us a second: adjtime's slew rate */
#define SHIFT_PLL      2	   /* the PLL's gain, and the FLL's */
#define SHIFT_FLL      2
#define MINSEC	       256  /* the FLL needs updates at least this far apart */
#define MAXSEC	       2048 /* the PLL's longest update interval */

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
static int64_t time_tick = TICK_USEC; /* us a USER_HZ tick: ADJ_TICK */
static int64_t time_freq;	      /* scaled ns a second: ADJ_FREQUENCY, the PLL */
static int64_t time_offset;	      /* scaled ns of phase still to slew */
static int64_t time_reftime;	      /* the real-time second of the last ADJ_OFFSET */
static int64_t time_adjust;	      /* us adjtime still has to slew */
static int64_t slew_now;	      /* scaled ns of it slewed in this second */

static int64_t nominal_length(void)
{
	return ((time_tick * NSEC_PER_USEC * USER_HZ) << SCALE_SHIFT) + time_freq;
}

/* The phase to slew in the next second, out of time_offset and
 * time_adjust (Linux's second_overflow, with one interval a second). */
static int64_t slew_chunk(void)
{
	int64_t chunk = time_offset >> (SHIFT_PLL + time_constant), adj;

	if (time_offset < 0) /* shifted toward zero, as the positive side */
		chunk = -(-time_offset >> (SHIFT_PLL + time_constant));
	time_offset -= chunk;
	adj = time_adjust > MAX_TICKADJ	   ? MAX_TICKADJ
	      : time_adjust < -MAX_TICKADJ ? -MAX_TICKADJ
					   : time_adjust;
	time_adjust -= adj;
	return chunk + adj * NSEC_PER_USEC * (1LL << SCALE_SHIFT);
}

/* Once a second: the errors grow by the tolerance, past the limit the
 * clock is unsynchronised (Linux's second_overflow). */
static void grow_maxerror(void)
{
	time_maxerror += MAXFREQ_NS / NSEC_PER_USEC;
	if (time_maxerror > NTP_PHASE_LIMIT) {
		time_maxerror = NTP_PHASE_LIMIT;
		time_status |= STA_UNSYNC;
	}
}

int64_t ntp_second_length(void)
{
	spin_lock(&ntp_lock);
	int64_t len = nominal_length() + slew_now;
	spin_unlock(&ntp_lock);
	return len;
}

int ntp_second_overflow(int64_t sec)
{
	int leap = 0;

	spin_lock(&ntp_lock);
	grow_maxerror();
	slew_now = slew_chunk();
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
	if ((tx->modes & ADJ_FREQUENCY) &&
	    (tx->freq < INT64_MIN / PPM_SCALE || tx->freq > INT64_MAX / PPM_SCALE))
		return -EINVAL;
	return 0;
}

/* Linux's process_adj_status: leaving STA_PLL resets the state,
 * entering it starts the PLL's interval. */
static void set_status(int status, int64_t now_sec)
{
	if ((time_status & STA_PLL) && !(status & STA_PLL)) {
		time_state = TIME_OK;
		time_status = STA_UNSYNC;
		next_leap_sec = NO_LEAP;
	}
	if (!(time_status & STA_PLL) && (status & STA_PLL))
		time_reftime = now_sec;
	time_status &= STA_RONLY;
	time_status |= status & ~STA_RONLY;
}

static int64_t clamp_freq(int64_t freq)
{
	return clamp64(freq, -MAXFREQ_SCALED, MAXFREQ_SCALED);
}

/* The FLL's frequency step for an offset measured secs after the last:
 * it takes over from the PLL for long intervals or with STA_FLL. */
static int64_t fll_step(int64_t offset, int64_t secs)
{
	time_status &= ~STA_MODE;
	if (secs < MINSEC || (!(time_status & STA_FLL) && secs <= MAXSEC))
		return 0;
	time_status |= STA_MODE;
	return offset * (1LL << (SCALE_SHIFT - SHIFT_FLL)) / secs;
}

/* ADJ_OFFSET with STA_PLL: a measured phase offset (us, or ns with
 * STA_NANO) to slew away, and the frequency error it implies; without
 * STA_PLL the offset is ignored, as Linux. */
static void pll_update(int64_t offset, int64_t now_sec)
{
	if (!(time_status & STA_PLL))
		return;
	if (!(time_status & STA_NANO))
		offset = clamp64(offset, -1000000, 1000000) * NSEC_PER_USEC;
	offset = clamp64(offset, -MAXPHASE, MAXPHASE);
	int64_t secs = (time_status & STA_FREQHOLD) ? 0 : now_sec - time_reftime;
	time_reftime = now_sec;
	int64_t step = fll_step(offset, secs);
	if (secs > 1LL << (SHIFT_PLL + 1 + time_constant))
		secs = 1LL << (SHIFT_PLL + 1 + time_constant);
	step += offset * secs * (1LL << (SCALE_SHIFT - 2 * (SHIFT_PLL + 2 + time_constant)));
	time_freq = clamp_freq(time_freq + step);
	time_offset = offset * (1LL << SCALE_SHIFT);
}

/* Linux's process_adjtimex_modes, in its order. */
static void apply_modes(const struct timex_k *tx, int64_t *tai, int64_t now_sec)
{
	if (tx->modes & ADJ_STATUS)
		set_status(tx->status, now_sec);
	if (tx->modes & ADJ_NANO)
		time_status |= STA_NANO;
	if (tx->modes & ADJ_MICRO)
		time_status &= ~STA_NANO;
	if (tx->modes & ADJ_FREQUENCY)
		time_freq = clamp_freq(tx->freq * PPM_SCALE);
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
	if (tx->modes & ADJ_OFFSET)
		pll_update(tx->offset, now_sec);
	if (tx->modes & ADJ_TICK)
		time_tick = tx->tick;
}

/* What adjtime reads and sets: the slew still to do, in us. */
static int64_t adjtime_swap(const struct timex_k *tx)
{
	int64_t left = time_adjust;

	if (!(tx->modes & ADJ_OFFSET_READONLY))
		time_adjust = tx->offset;
	return left;
}

/* The PLL's offset still to slew and its frequency, in timex's units. */
static int64_t offset_out(void)
{
	int64_t off = time_offset / (1LL << SCALE_SHIFT);

	return time_status & STA_NANO ? off : off / NSEC_PER_USEC;
}

/* Linux's __do_adjtimex: applies tx and fills it with what it reads
 * back; the clock state, or -errno. */
static int do_adjtimex(struct timex_k *tx)
{
	int64_t tai = vclock_tai_offset(), offset;
	int result;

	if (!(tx->modes & ADJ_ADJTIME) && (tx->modes & ADJ_SETOFFSET)) {
		int64_t ns = tx->time_sec * 1000000000 +
			     (tx->modes & ADJ_NANO ? tx->time_usec : tx->time_usec * 1000);
		int err = clock_set_realtime(ns, true);
		if (err)
			return err;
	}
	int64_t now = vclock_realtime_offset() + (int64_t)clock_monotonic_ns();
	spin_lock(&ntp_lock);
	if (tx->modes & ADJ_ADJTIME) {
		offset = adjtime_swap(tx);
	} else {
		if (tx->modes)
			apply_modes(tx, &tai, now / 1000000000);
		offset = offset_out();
	}
	result = time_state;
	if (time_status & (STA_UNSYNC | STA_CLOCKERR))
		result = TIME_ERROR;
	struct timex_k out = {
	    .modes = tx->modes,
	    .offset = offset,
	    .freq = time_freq / PPM_SCALE,
	    .maxerror = time_maxerror,
	    .esterror = time_esterror,
	    .status = time_status,
	    .constant = time_constant,
	    .precision = 1,
	    .tolerance = 500 << 16, /* 500 ppm, Linux's MAXFREQ */
	    .tick = time_tick,
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
	/* the page's lock comes before ntp_lock: these after it is dropped */
	if (tai != vclock_tai_offset())
		vclock_set_tai(tai);
	if (tx->modes & (ADJ_TICK | ADJ_FREQUENCY | ADJ_OFFSET))
		vclock_rate_changed();
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
