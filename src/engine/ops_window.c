/*
 * ops_window.c
 *	  Windowed operators: they look at the last window_size values and emit
 *	  only once the window is full.
 *
 * Each keeps its window in rings (sp_ring.h) that grow with the values held,
 * so a short segment costs what it holds, not what the window could hold.
 *
 * MovingAverage, MovingSum and StandardDeviation share one sliding core: a
 * ring of the window's values plus exact sums (SpAcc, sp_sum.h) that are
 * updated by adding the new value and subtracting the one leaving, so a row
 * costs O(1) whatever the window size.  A window of rows whose result is
 * read only now and then (the usual case: on a segment's last row) stops
 * updating its sum after half a window of rows unread, and rebuilds it from
 * its ring when it is next read: one rebuild costs what half a window of
 * updates does, so a row still costs O(1), amortised.  Non-finite values
 * are counted, not summed, so that one Infinity or NaN affects results
 * only while it is in the window (Infinity - Infinity would otherwise
 * poison the sums for good).  Their results are computed from the sums
 * only when needed (the 'value' callback): on a segment's last row, not on
 * every row.
 *
 * Because the sums are exact, they are a function of the values held: a
 * state stores them only as the pair the exact sum rounds to ("sum",
 * "sum_err"), and reading a state rebuilds them from its ring (the
 * 'restore' callback), so a resumed run continues from exactly the sums an
 * uninterrupted one has, and a stored pair has no effect on any result.
 * How a stored pair is checked against its ring:
 *
 * - Every pair must be finite and normalised (sp_sum_is_normal), as every
 *	 version has written them.
 * - StandardDeviation's must lie within 2^-20 (SUM_TOLERANCE_BITS) of its
 *	 exact sums, measured against the magnitudes of the values held plus
 *	 what values that left since the scale was last recounted can weigh
 *	 (see stddev_check): that covers the rounding 0.2.0 and 0.3.0 left in
 *	 their sliding double-double sums, which were recounted every
 *	 window_size rows, and this version's exact pairs.
 * - MovingSum's and MovingAverage's are not compared with their ring: the
 *	 sliding double-double sum of 0.2.0 and 0.3.0 was never recounted, and
 *	 lost low-order values held beside much larger ones that later left the
 *	 window, so the pairs those versions wrote can lie arbitrarily far from
 *	 their ring (and did: so did their results).  They are read, and the run
 *	 continues from the exact sum of the ring.
 *
 * Windows of time ("window": a duration w instead of "window_size"): the
 * window at a row with timestamp t holds the rows with timestamps in
 * (t - w, t], the row itself included, so it is never empty; the operators
 * emit on every row once it holds min_rows rows (1 unless given).  Beside
 * the values, a ring keeps the gaps between the rows' timestamps
 * (SpTimeSpan, sp_time.h); the rows that leave go first, then the row
 * enters, and the sums, counts and deques are kept exactly as for a window
 * of rows, over the rows held.  These rings are bounded by the state cap
 * only, at run time (SP_RING_SHARE).
 */
#include "postgres.h"

#include <limits.h>
#include <math.h>

#include "miscadmin.h"
#include "utils/float.h"

#include "sp_operator.h"
#include "sp_sum.h"
#include "sp_time.h"

/* Loops over a whole window check for interrupts this often. */
#define INTERRUPT_STRIDE 65536

/*
 * StandardDeviation's stored sums may differ from the exact ones by 2^-this
 * of the magnitudes (see the top of the file).
 */
#define SUM_TOLERANCE_BITS 20

typedef struct WindowCore
{
	int64		nan;			/* non-finite values now in the window */
	int64		pinf;
	int64		ninf;
	/* StandardDeviation only (zero for the others) */
	int64		scale;			/* the sums hold x * 2^-scale */
	/*
	 * StandardDeviation: pushes since the last recount.  MovingSum and
	 * MovingAverage over rows: pushes since the sum was last read, which
	 * tells whether acc is up to date (core_current); never stored.
	 */
	int64		fresh;
	int64		nz;				/* finite non-zero values held */
	int64		ntop;			/* of those, near 2^scale (see below) */
	/* the pairs written to and read from a state; set when one is written */
	SpSum		sum;
	SpSum		sumsq;			/* StandardDeviation only */
	SpAcc		acc;			/* exact sum of the finite values held */
} WindowCore;

typedef struct StddevState
{
	WindowCore	core;
	SpAcc		accsq;			/* exact sum of their squares, as pairs */
} StddevState;

/* Windows of time: the span after the operator's state of rows. */
#define TW_VALUES 0
#define TW_GAPS 1

typedef struct TimedCore
{
	WindowCore	core;
	SpTimeSpan	span;
} TimedCore;

typedef struct TimedStddev
{
	StddevState s;
	SpTimeSpan	span;
} TimedStddev;

static inline bool
in_time(const SpParams *p)
{
	return p->window_us != 0;
}

/* 'value' stands for the output unless min_rows can withhold it. */
static bool
window_lazy(const SpParams *p)
{
	return !in_time(p) || p->min_rows <= 1;
}

/* Rows of the window now: window_size, or what a window of time holds. */
static inline int64
window_n(const SpParams *p, const SpRing *rings)
{
	return in_time(p) ? rings[TW_VALUES].count : p->window_size;
}

static size_t
core_state_size(const SpParams *p)
{
	return in_time(p) ? sizeof(TimedCore) : sizeof(WindowCore);
}

static const char *
window_check_params(SpParams *p)
{
	return sp_window_check(p, true);
}

/*
 * acc rounded to a pair, for a state: a sum of finite values beyond float8
 * is an error.
 */
static SpSum
acc_pair(const SpAcc *acc)
{
	SpSum		r = sp_acc_pair(acc);

	if (isinf(r.hi))
		float_overflow_error();
	return r;
}

/* The same to about 97 bits, for results (see sp_acc_approx). */
static SpSum
acc_approx(const SpAcc *acc)
{
	SpSum		r = sp_acc_approx(acc);

	if (isinf(r.hi))
		float_overflow_error();
	return r;
}

/*
 * Whether a stored pair describes the exact sum: finite, normalised as
 * sp_sum.h keeps pairs, and within 2^-SUM_TOLERANCE_BITS of mag (the sum of
 * the terms' magnitudes) from it.
 */
static bool
stored_sum_matches(SpSum stored, const SpAcc *exact, double mag)
{
	SpAcc		diff;

	if (!isfinite(stored.hi) || !sp_sum_is_normal(stored))
		return false;
	diff = *exact;
	sp_acc_add(&diff, -stored.hi);
	sp_acc_add(&diff, -stored.lo);
	return fabs(sp_acc_round(&diff)) <= ldexp(mag, -SUM_TOLERANCE_BITS);
}

static int
window_rings(const SpParams *p, int64 *limits)
{
	if (in_time(p))
	{
		limits[TW_VALUES] = limits[TW_GAPS] = SP_RING_SHARE;
		return 2;
	}
	limits[0] = p->window_size;
	return 1;
}

/*
 * A row at ts enters a window of time: the rows that leave go first (each
 * through leave()), then the row's gap; false when the ring is full.
 */
#define SPAN_ENTER(what, p, span, rings, ts, leave) \
	do { \
		SpRing	   *gaps_ = &(rings)[TW_GAPS]; \
		\
		sp_time_order((what), gaps_->count, (span)->last, (ts)); \
		while (sp_span_expires((span), gaps_, (ts), (p)->window_us)) \
		{ \
			leave; \
			sp_span_pop((span), gaps_); \
		} \
		if (!sp_span_push((span), gaps_, (ts))) \
			sp_time_ring_full((what), (p), gaps_->limit); \
	} while (0)

/* Count a non-finite value in (sign = 1) or out (-1); false if x is finite. */
static bool
core_count_nonfinite(WindowCore *c, double x, int sign)
{
	if (isnan(x))
		c->nan += sign;
	else if (isinf(x))
	{
		if (x > 0)
			c->pinf += sign;
		else
			c->ninf += sign;
	}
	else
		return false;
	return true;
}

/*
 * MovingSum and MovingAverage over rows keep acc up to date while
 * c->fresh <= unread_limit(p): until half a window of rows has gone unread.
 */
static inline int64
unread_limit(const SpParams *p)
{
	return p->window_size / 2;
}

/* acc from the finite values of the ring, as a state's restore builds it. */
static void
core_rebuild(WindowCore *c, const SpRing *r)
{
	memset(&c->acc, 0, sizeof(c->acc));
	for (int64 i = 0; i < r->count; i++)
	{
		double		x = sp_ring_get(r, i);

		if (i % INTERRUPT_STRIDE == 0)
			CHECK_FOR_INTERRUPTS();
		if (isfinite(x))
			sp_acc_add(&c->acc, x);
	}
}

/*
 * Before acc is read: rebuilt if it was left behind, and counted as read.
 * Windows of time keep it up to date on every row (fresh stays 0).
 */
static void
core_current(const SpParams *p, WindowCore *c, const SpRing *rings)
{
	if (!in_time(p) && c->fresh > unread_limit(p))
		core_rebuild(c, &rings[0]);
	c->fresh = 0;
}

/* MovingSum, MovingAverage: push x, the oldest leaving; true when full. */
static bool
core_push(const SpParams *p, WindowCore *c, SpRing *r, double x)
{
	bool		keep = c->fresh < unread_limit(p);

	/*
	 * The sum is left as the additions leave it: most rows emit nothing, and
	 * a result (sp_acc_round, sp_acc_approx) normalises a copy when it must.
	 */
	if (sp_ring_full(r))
	{
		double		old = sp_ring_pop_oldest(r);

		if (!core_count_nonfinite(c, old, -1) && keep)
			sp_acc_add(&c->acc, -old);
	}
	sp_ring_push(r, x);
	if (!core_count_nonfinite(c, x, 1) && keep)
		sp_acc_add(&c->acc, x);
	/* past the limit, acc is behind the ring until core_current */
	c->fresh = keep ? c->fresh + 1 : unread_limit(p) + 1;
	return sp_ring_full(r);
}

static bool
core_nonfinite(const WindowCore *c)
{
	return c->nan > 0 || c->pinf > 0 || c->ninf > 0;
}

/* The window's sum, with float8's rules for non-finite values. */
static double
core_sum(const WindowCore *c)
{
	double		sum;

	if (c->nan > 0 || (c->pinf > 0 && c->ninf > 0))
		return get_float8_nan();
	if (c->pinf > 0)
		return get_float8_infinity();
	if (c->ninf > 0)
		return -get_float8_infinity();
	/* the exact sum rounded once */
	sum = sp_acc_round(&c->acc);
	if (isinf(sum))
		float_overflow_error();
	return sum;
}

/* MovingSum, MovingAverage in a window of time: push x at ts. */
static bool
core_push_at(const SpParams *p, TimedCore *s, SpRing *rings, int64 ts, double x,
			 const char *what)
{
	WindowCore *c = &s->core;
	SpRing	   *vals = &rings[TW_VALUES];

	SPAN_ENTER(what, p, &s->span, rings, ts,
			   {
				   double old = sp_ring_pop_oldest(vals);

				   if (!core_count_nonfinite(c, old, -1))
					   sp_acc_add(&c->acc, -old);
			   });
	sp_ring_push(vals, x);
	if (!core_count_nonfinite(c, x, 1))
		sp_acc_add(&c->acc, x);
	return vals->count >= p->min_rows;
}

/* A window of time's own fields and ring, after the values. */
static void
span_visit(SpTimeSpan *span, SpRing *gaps, SpStateVisitor *v)
{
	sp_span_visit(span, v);
	v->ring(v, "gaps", gaps);
}

static const char *
span_check(const SpParams *p, const SpTimeSpan *span, const SpRing *rings)
{
	if (rings[TW_GAPS].count != rings[TW_VALUES].count)
		return "gaps and values do not agree";
	return sp_span_check(span, &rings[TW_GAPS], p->window_us);
}

static void
core_visit(const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v)
{
	WindowCore *c = state;

	/*
	 * What is written: the exact sum rounded (decoding overwrites it).  The
	 * sum is normalised too, so that the state is the bytes a restore of
	 * what is written rebuilds.
	 */
	core_current(p, c, rings);
	sp_acc_normalise(&c->acc);
	c->sum = acc_pair(&c->acc);
	v->i64(v, "nan", &c->nan);
	v->i64(v, "pinf", &c->pinf);
	v->i64(v, "ninf", &c->ninf);
	v->f64(v, "sum", &c->sum.hi);
	v->f64(v, "sum_err", &c->sum.lo);
	v->ring(v, "values", &rings[0]);
	if (in_time(p))
		span_visit(&((TimedCore *) state)->span, &rings[TW_GAPS], v);
}

/*
 * Decoded states: the non-finite counts must be what the ring holds, and
 * the stored sum a pair (see the top of the file).
 */
static const char *
core_check(const SpParams *p, const void *state, const SpRing *rings)
{
	const WindowCore *c = state;
	int64		nan = 0,
				pinf = 0,
				ninf = 0;

	for (int64 i = 0; i < rings[0].count; i++)
	{
		double		x = sp_ring_get(&rings[0], i);

		if (i % INTERRUPT_STRIDE == 0)
			CHECK_FOR_INTERRUPTS();
		if (isnan(x))
			nan++;
		else if (isinf(x))
			(x > 0) ? pinf++ : ninf++;
	}
	if (nan != c->nan || pinf != c->pinf || ninf != c->ninf)
		return "non-finite counts do not match the window's values";
	if (c->scale != 0 || c->fresh != 0 || c->nz != 0 || c->ntop != 0 ||
		c->sumsq.hi != 0 || c->sumsq.lo != 0)
		return "fields of another operator are set";
	/* only its form: see the top of the file */
	if (!isfinite(c->sum.hi) || !sp_sum_is_normal(c->sum))
		return "sum is not finite, or sum_err exceeds half of its last digit";
	if (in_time(p))
		return span_check(p, &((const TimedCore *) state)->span, rings);
	return NULL;
}

/* A checked state: the exact sum from the ring, and its pair canonical. */
static void
core_restore(const SpParams *p, void *state, const SpRing *rings)
{
	WindowCore *c = state;

	core_rebuild(c, &rings[0]);
	sp_acc_normalise(&c->acc);
	c->sum = acc_pair(&c->acc);
}

static const SpParamDef window_params[] = {
	SP_PARAM_WINDOW_ROWS(1),
	SP_PARAM_WINDOW_TIME,
	SP_PARAM_MIN_ROWS,
	SP_PARAM_END
};

/* MovingSum */

static bool
moving_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out)
{
	return core_push(p, state, &rings[0], in[0]);
}

/*
 * The results read acc, which is a cache of the ring's values: bringing it up
 * to date changes no result and nothing a state stores, hence the casts.
 */
static double
moving_sum_value(const SpParams *p, const void *state, const SpRing *rings)
{
	core_current(p, (WindowCore *) state, rings);
	return core_sum(state);
}

static bool
moving_sum_step_at(const SpParams *p, void *state, SpRing *rings, int64 ts,
				   const double *in, double *out)
{
	if (!core_push_at(p, state, rings, ts, in[0], "MovingSum"))
		return false;
	if (!window_lazy(p))
		*out = moving_sum_value(p, state, rings);
	return true;
}

const SpOpType sp_op_moving_sum = {
	.name = "MovingSum",
	.params = window_params,
	.nin = 1,
	.check_params = window_check_params,
	.state_size = core_state_size,
	.rings = window_rings,
	.step = moving_step,
	.timed = sp_window_in_time,
	.step_at = moving_sum_step_at,
	.value = moving_sum_value,
	.lazy = window_lazy,
	.visit = core_visit,
	.check_state = core_check,
	.restore = core_restore,
};

/* MovingAverage */

static double
moving_average_value(const SpParams *p, const void *state, const SpRing *rings)
{
	const WindowCore *c = state;
	int64		n = window_n(p, rings);

	core_current(p, (WindowCore *) state, rings);
	if (core_nonfinite(c))
		return core_sum(c) / n;
	return sp_sum_value(sp_sum_div(acc_approx(&c->acc), n));
}

static bool
moving_average_step_at(const SpParams *p, void *state, SpRing *rings, int64 ts,
					   const double *in, double *out)
{
	if (!core_push_at(p, state, rings, ts, in[0], "MovingAverage"))
		return false;
	if (!window_lazy(p))
		*out = moving_average_value(p, state, rings);
	return true;
}

const SpOpType sp_op_moving_average = {
	.name = "MovingAverage",
	.params = window_params,
	.nin = 1,
	.check_params = window_check_params,
	.state_size = core_state_size,
	.rings = window_rings,
	.step = moving_step,
	.timed = sp_window_in_time,
	.step_at = moving_average_step_at,
	.value = moving_average_value,
	.lazy = window_lazy,
	.visit = core_visit,
	.check_state = core_check,
	.restore = core_restore,
};

/*
 * StandardDeviation: sample standard deviation, (n - 1) in the denominator,
 * as stddev_samp() computes it; 0 for a window of one value (docs/design.md
 * says why).  Like stddev_samp(), any Infinity or NaN in the
 * window makes the result NaN.
 *
 * Squares of values beyond 2^512 overflow and squares below 2^-537 vanish,
 * so the sums hold every value scaled by 2^-scale, a power of two (exact
 * but for values that become subnormal, which is the same loss every time
 * the value is scaled at that scale), with scale the largest binary
 * exponent in the window.  The scale is recounted from the window's
 * values, O(window), only when it must move: a value more than
 * SCALE_HEADROOM orders above it arrives, or no value within TOP_BAND
 * orders below it is left.  Values further below are too small to change
 * the result by 2^-TOP_BAND of it while a top value is there.  Every
 * window_size pushes the scale is recounted anyway.  So the result neither
 * overflows where stddev_samp() does not, nor loses values too small to
 * square, at amortised O(1) a row.  The sums are exact (each square is
 * added as its exact pair, sp_two_prod), so given the scale they are a
 * function of the values held, and a state restores them from its ring.
 */
#define SCALE_HEADROOM 400
#define TOP_BAND 200

/* Scaled by 2^-scale; scale is in [-1100, 1100] (checked when decoded). */
static inline double
scaled(const WindowCore *c, double x)
{
	return ldexp(x, (int) -c->scale);
}

/* Add (sign = 1) or remove (-1) the finite x at the current scale. */
static void
stddev_add(StddevState *s, double x, int sign)
{
	double		y = scaled(&s->core, x);
	SpSum		sq = sp_two_prod(y, y);

	sp_acc_add(&s->core.acc, sign * y);
	sp_acc_add(&s->accsq, sign * sq.hi);
	sp_acc_add(&s->accsq, sign * sq.lo);
}

static void
stddev_account(StddevState *s, double x, int sign)
{
	if (!core_count_nonfinite(&s->core, x, sign))
		stddev_add(s, x, sign);
}

static size_t
stddev_state_size(const SpParams *p)
{
	return in_time(p) ? sizeof(TimedStddev) : sizeof(StddevState);
}

/* The scale is recounted after this many pushes at the latest. */
static inline int64
stddev_every(const SpParams *p, const SpRing *r)
{
	return in_time(p) ? Max(r->count, 1) : p->window_size;
}

static inline bool
finite_nonzero(double x)
{
	return isfinite(x) && x != 0.0;
}

static inline bool
near_top(const WindowCore *c, double x)
{
	return ilogb(x) >= c->scale - TOP_BAND;
}

/* The largest binary exponent of the finite non-zero values held, or 0. */
static int
stddev_top(const SpRing *r)
{
	int			top = INT_MIN;

	for (int64 i = 0; i < r->count; i++)
	{
		double		x = sp_ring_get(r, i);

		if (i % INTERRUPT_STRIDE == 0)
			CHECK_FOR_INTERRUPTS();
		if (finite_nonzero(x))
			top = Max(top, ilogb(x));
	}
	return (top == INT_MIN) ? 0 : top;
}

/* Recompute the scale, the counts and the sums from the values held. */
static void
stddev_recount(StddevState *s, const SpRing *r)
{
	WindowCore *c = &s->core;

	memset(s, 0, sizeof(StddevState));
	c->scale = stddev_top(r);
	for (int64 i = 0; i < r->count; i++)
	{
		double		x = sp_ring_get(r, i);

		if (i % INTERRUPT_STRIDE == 0)
			CHECK_FOR_INTERRUPTS();
		if (finite_nonzero(x))
		{
			c->nz++;
			if (near_top(c, x))
				c->ntop++;
		}
		stddev_account(s, x, 1);
	}
}

static const SpParamDef stddev_params[] = {
	SP_PARAM_WINDOW_ROWS(1),
	SP_PARAM_WINDOW_TIME,
	SP_PARAM_MIN_ROWS,
	SP_PARAM_END
};

/* The oldest value leaves. */
static void
stddev_pop(StddevState *s, SpRing *r)
{
	WindowCore *c = &s->core;
	double		old = sp_ring_pop_oldest(r);

	if (finite_nonzero(old))
	{
		c->nz--;
		if (near_top(c, old))
			c->ntop--;
	}
	stddev_account(s, old, -1);
}

/* x enters (there is room). */
static void
stddev_push(const SpParams *p, StddevState *s, SpRing *r, double x)
{
	WindowCore *c = &s->core;
	bool		recount = false;

	sp_ring_push(r, x);
	if (finite_nonzero(x))
	{
		int			e = ilogb(x);

		/*
		 * Only zeros held: the exact sums are zero at any scale, so the
		 * scale may move to x's.
		 */
		if (c->nz == 0)
			c->scale = e;
		else if (e - c->scale > SCALE_HEADROOM)
			recount = true;
		c->nz++;
		if (near_top(c, x))
			c->ntop++;
	}
	if (recount || (c->nz > 0 && c->ntop == 0) || ++c->fresh >= stddev_every(p, r))
		stddev_recount(s, r);
	else
		stddev_account(s, x, 1);
}

static bool
stddev_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out)
{
	if (sp_ring_full(&rings[0]))
		stddev_pop(state, &rings[0]);
	stddev_push(p, state, &rings[0], in[0]);
	return sp_ring_full(&rings[0]);
}

static double stddev_value(const SpParams *p, const void *state, const SpRing *rings);

static bool
stddev_step_at(const SpParams *p, void *state, SpRing *rings, int64 ts,
			   const double *in, double *out)
{
	TimedStddev *t = state;

	SPAN_ENTER("StandardDeviation", p, &t->span, rings, ts,
			   stddev_pop(&t->s, &rings[TW_VALUES]));
	stddev_push(p, &t->s, &rings[TW_VALUES], in[0]);
	if (rings[TW_VALUES].count < p->min_rows)
		return false;
	if (!window_lazy(p))
		*out = stddev_value(p, state, rings);
	return true;
}

static double
stddev_value(const SpParams *p, const void *state, const SpRing *rings)
{
	const StddevState *s = state;
	const WindowCore *c = &s->core;
	int64		n = window_n(p, rings);
	SpSum		sum;
	SpSum		sq;
	double		var;

	if (core_nonfinite(c))
		return get_float8_nan();
	if (n == 1)
		return 0.0;
	/* sum of squared deviations = S2 - S1 * S1 / n, in double-double */
	sum = acc_approx(&c->acc);
	sq = sp_sum_div(sp_sum_mul(sum, sum), n);
	sq.hi = -sq.hi;
	sq.lo = -sq.lo;
	var = sp_sum_value(sp_sum_add_sum(acc_approx(&s->accsq), sq)) / (n - 1);
	/* rounding can leave a tiny negative where the true value is zero */
	return var <= 0 ? 0.0 : ldexp(sqrt(var), (int) c->scale);
}

static void
stddev_visit(const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v)
{
	StddevState *s = state;
	WindowCore *c = &s->core;

	/* what is written, as in core_visit */
	sp_acc_normalise(&c->acc);
	sp_acc_normalise(&s->accsq);
	c->sum = acc_pair(&c->acc);
	c->sumsq = acc_pair(&s->accsq);
	v->i64(v, "nan", &c->nan);
	v->i64(v, "pinf", &c->pinf);
	v->i64(v, "ninf", &c->ninf);
	v->i64(v, "scale", &c->scale);
	v->i64(v, "fresh", &c->fresh);
	v->i64(v, "nonzero", &c->nz);
	v->i64(v, "near_top", &c->ntop);
	v->f64(v, "sum", &c->sum.hi);
	v->f64(v, "sum_err", &c->sum.lo);
	v->f64(v, "sumsq", &c->sumsq.hi);
	v->f64(v, "sumsq_err", &c->sumsq.lo);
	v->ring(v, "values", &rings[0]);
	if (in_time(p))
		span_visit(&((TimedStddev *) state)->span, &rings[TW_GAPS], v);
}

/*
 * A decoded state must agree with a recount of its window in everything
 * but the scale, which must fit its values, and the sums, which must be
 * the values' at that scale (see the top of the file).
 */
static const char *
stddev_check(const SpParams *p, const void *state, const SpRing *rings)
{
	const StddevState *s = state;
	const WindowCore *c = &s->core;
	StddevState fresh;
	int64		ntop = 0;
	double		mag = 0.0;
	double		magsq = 0.0;

	stddev_recount(&fresh, &rings[0]);
	if (c->nan != fresh.core.nan || c->pinf != fresh.core.pinf ||
		c->ninf != fresh.core.ninf || c->nz != fresh.core.nz)
		return "counts do not match the window's values";
	/* fresh.core.scale is the top exponent held */
	if (c->nz > 0 && (fresh.core.scale - c->scale > SCALE_HEADROOM ||
					  c->scale - fresh.core.scale > TOP_BAND))
		return "scale does not fit the window's values";
	if (c->scale < -1100 || c->scale > 1100)
		return "scale is out of range";
	for (int64 i = 0; i < rings[0].count; i++)
	{
		double		x = sp_ring_get(&rings[0], i);

		if (finite_nonzero(x) && near_top(c, x))
			ntop++;
	}
	if (ntop != c->ntop || (c->nz > 0 && ntop == 0))
		return "near_top does not match the window's values";
	if (c->fresh < 0 || c->fresh >= stddev_every(p, &rings[0]))
		return "fresh is out of range";
	/* the exact sums at the stored scale, in fresh again */
	memset(&fresh, 0, sizeof(fresh));
	fresh.core.scale = c->scale;
	for (int64 i = 0; i < rings[0].count; i++)
	{
		double		x = sp_ring_get(&rings[0], i);

		if (i % INTERRUPT_STRIDE == 0)
			CHECK_FOR_INTERRUPTS();
		if (isfinite(x))
		{
			double		y = scaled(c, x);

			stddev_add(&fresh, x, 1);
			mag += fabs(y);
			magsq += y * y;
		}
	}
	/*
	 * The sums 0.2.0 and 0.3.0 wrote were recounted from the window at the
	 * scale's last recount (or started from zero with only zeros held) and
	 * then slid by fewer than window_size pushes, so every value they ever
	 * held is in the window now, or left it since and was in it at that
	 * recount, below 2^(scale + 1): scaled, less than 2, its square less
	 * than 4.  With those counted, the magnitudes bound every partial sum,
	 * and the rounding of at most 3 x window_size double-double steps, each
	 * well below 2^-50 of them, stays within 2^-SUM_TOLERANCE_BITS.
	 */
	mag += 2.0 * window_n(p, rings);
	magsq += 4.0 * window_n(p, rings);
	if (!stored_sum_matches(c->sum, &fresh.core.acc, mag) ||
		!stored_sum_matches(c->sumsq, &fresh.accsq, magsq))
		return "sums do not match the window's values";
	if (in_time(p))
		return span_check(p, &((const TimedStddev *) state)->span, rings);
	return NULL;
}

/* A checked state: the exact sums from the ring, and their pairs canonical. */
static void
stddev_restore(const SpParams *p, void *state, const SpRing *rings)
{
	StddevState *s = state;

	memset(&s->core.acc, 0, sizeof(SpAcc));
	memset(&s->accsq, 0, sizeof(SpAcc));
	for (int64 i = 0; i < rings[0].count; i++)
	{
		double		x = sp_ring_get(&rings[0], i);

		if (i % INTERRUPT_STRIDE == 0)
			CHECK_FOR_INTERRUPTS();
		if (isfinite(x))
			stddev_add(s, x, 1);
	}
	sp_acc_normalise(&s->core.acc);
	sp_acc_normalise(&s->accsq);
	s->core.sum = acc_pair(&s->core.acc);
	s->core.sumsq = acc_pair(&s->accsq);
}

const SpOpType sp_op_standard_deviation = {
	.name = "StandardDeviation",
	.params = stddev_params,
	.nin = 1,
	.check_params = window_check_params,
	.state_size = stddev_state_size,
	.rings = window_rings,
	.step = stddev_step,
	.timed = sp_window_in_time,
	.step_at = stddev_step_at,
	.value = stddev_value,
	.lazy = window_lazy,
	.visit = stddev_visit,
	.check_state = stddev_check,
	.restore = stddev_restore,
};

/*
 * Sliding extremes with a monotonic deque: each value enters and leaves the
 * deque once, so a row costs amortised O(1) whatever the window.  The deque
 * is two rings in step, values and their indexes (as float8: exact, since
 * these operators count at most SP_MAX_POSITION = 2^53 values between
 * resets), non-increasing from the front for a maximum (non-decreasing
 * for a minimum), in PostgreSQL's float8 ordering (NaN above everything).
 * A value equal to one already queued is queued behind it, so the front is
 * the first seen of equal extremes (-0 and 0 are equal): the trackers keep
 * the first seen too.
 */
#define DQ_VAL 0
#define DQ_IDX 1

/* Push value x with index t into a deque over windows of 'window' values. */
static void
deque_push(SpRing *rings, int64 window, double x, int64 t, bool want_max)
{
	SpRing	   *val = &rings[DQ_VAL];
	SpRing	   *idx = &rings[DQ_IDX];

	/* what has left the window goes first, so there is always room */
	while (idx->count > 0 && sp_ring_get(idx, 0) <= (double) (t - window))
	{
		(void) sp_ring_pop_oldest(val);
		(void) sp_ring_pop_oldest(idx);
	}
	/* then everything x beats, from the back; an equal value stays */
	while (val->count > 0)
	{
		int			c = float8_cmp_internal(sp_ring_newest(val, 0), x);

		if (want_max ? c >= 0 : c <= 0)
			break;
		sp_ring_pop_newest(val);
		sp_ring_pop_newest(idx);
	}
	sp_ring_push(val, x);
	sp_ring_push(idx, (double) t);
}

/* A decoded deque must be in index order, in the window, and monotonic. */
static const char *
deque_check(const SpRing *rings, int64 window, int64 t, bool want_max)
{
	const SpRing *val = &rings[DQ_VAL];
	const SpRing *idx = &rings[DQ_IDX];

	if (val->count != idx->count || val->count > t)
		return "deque lengths do not agree";
	for (int64 k = 0; k < val->count; k++)
	{
		double		i = sp_ring_get(idx, k);

		if (k % INTERRUPT_STRIDE == 0)
			CHECK_FOR_INTERRUPTS();
		/* also refuses NaN and fractional indexes */
		if (!(i >= (double) (t - window) && i < (double) t) || i != floor(i))
			return "deque index is out of range";
		if (k > 0)
		{
			int			c = float8_cmp_internal(sp_ring_get(val, k - 1),
												sp_ring_get(val, k));

			if (sp_ring_get(idx, k - 1) >= i || (want_max ? c < 0 : c > 0))
				return "deque is not monotonic";
		}
	}
	return NULL;
}

static void
deque_visit(SpRing *rings, SpStateVisitor *v)
{
	v->ring(v, "values", &rings[DQ_VAL]);
	v->ring(v, "indexes", &rings[DQ_IDX]);
}

/* WindowMinMax: min or max of the last window_size values. */

static const char *const min_max_words[] = {"min", "max", NULL};

#define MODE_MAX 1

static const SpParamDef window_min_max_params[] = {
	SP_PARAM_WINDOW_ROWS(1),
	SP_PARAM_WINDOW_TIME,
	SP_PARAM_MIN_ROWS,
	{"mode", SP_PARAM_CHOICE, offsetof(SpParams, choice), true, 0, 0, 0, min_max_words},
	SP_PARAM_END
};

typedef struct ExtremeState
{
	int64		t;				/* values seen since reset */
} ExtremeState;

/* WindowMinMax in a window of time: its gaps ring follows the deque's two. */
#define MM_GAPS 2

typedef struct TimedExtreme
{
	ExtremeState e;
	SpTimeSpan	span;
} TimedExtreme;

static size_t
extreme_state_size(const SpParams *p)
{
	return sizeof(ExtremeState);
}

static size_t
window_min_max_state_size(const SpParams *p)
{
	return in_time(p) ? sizeof(TimedExtreme) : sizeof(ExtremeState);
}

static int
window_min_max_rings(const SpParams *p, int64 *limits)
{
	if (in_time(p))
	{
		limits[DQ_VAL] = limits[DQ_IDX] = limits[MM_GAPS] = SP_RING_SHARE;
		return 3;
	}
	limits[DQ_VAL] = limits[DQ_IDX] = p->window_size;
	return 2;
}

/*
 * The window holds the last gaps->count rows, so the deque is the one over
 * windows of that many rows: its indexes count rows as in a window of rows.
 */
static bool
window_min_max_step_at(const SpParams *p, void *state, SpRing *rings, int64 ts,
					   const double *in, double *out)
{
	TimedExtreme *s = state;
	int64		next = sp_count_next(s->e.t, SP_MAX_POSITION, "WindowMinMax");
	SpRing	   *gaps = &rings[MM_GAPS];

	sp_time_order("WindowMinMax", gaps->count, s->span.last, ts);
	while (sp_span_expires(&s->span, gaps, ts, p->window_us))
		sp_span_pop(&s->span, gaps);
	if (!sp_span_push(&s->span, gaps, ts))
		sp_time_ring_full("WindowMinMax", p, gaps->limit);
	deque_push(rings, gaps->count, in[0], s->e.t, p->choice == MODE_MAX);
	s->e.t = next;
	if (gaps->count < p->min_rows)
		return false;
	*out = sp_ring_get(&rings[DQ_VAL], 0);
	return true;
}

static bool
window_min_max_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out)
{
	ExtremeState *s = state;
	int64		next = sp_count_next(s->t, SP_MAX_POSITION, "WindowMinMax");

	deque_push(rings, p->window_size, in[0], s->t, p->choice == MODE_MAX);
	s->t = next;
	if (s->t < p->window_size)
		return false;
	*out = sp_ring_get(&rings[DQ_VAL], 0);
	return true;
}

static void
window_min_max_visit(const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v)
{
	ExtremeState *s = state;

	v->i64(v, "seen", &s->t);
	deque_visit(rings, v);
	if (in_time(p))
	{
		sp_span_visit(&((TimedExtreme *) state)->span, v);
		v->ring(v, "gaps", &rings[MM_GAPS]);
	}
}

static const char *
window_min_max_check(const SpParams *p, const void *state, const SpRing *rings)
{
	const ExtremeState *s = state;
	const char *msg;

	if (s->t < 0 || s->t > SP_MAX_POSITION)
		return "seen is out of range";
	if (!in_time(p))
		return deque_check(rings, p->window_size, s->t, p->choice == MODE_MAX);
	if (rings[MM_GAPS].count > s->t)
		return "gaps do not match the count seen";
	if ((rings[MM_GAPS].count > 0) != (rings[DQ_VAL].count > 0))
		return "deque does not match the window";
	msg = deque_check(rings, rings[MM_GAPS].count, s->t, p->choice == MODE_MAX);
	if (msg == NULL)
		msg = sp_span_check(&((const TimedExtreme *) state)->span, &rings[MM_GAPS],
							p->window_us);
	return msg;
}

const SpOpType sp_op_window_min_max = {
	.name = "WindowMinMax",
	.params = window_min_max_params,
	.nin = 1,
	.check_params = window_check_params,
	.state_size = window_min_max_state_size,
	.rings = window_min_max_rings,
	.step = window_min_max_step,
	.timed = sp_window_in_time,
	.step_at = window_min_max_step_at,
	.visit = window_min_max_visit,
	.check_state = window_min_max_check,
};

/*
 * PeakDetector: with N = 2h + 1, the centre x[t-h] is a peak when it is
 * strictly greater than the maximum of the h values after it, R(t), and of
 * the h values before it, which is R(t-h-1).  R comes from a deque over
 * windows of h; the last h + 1 values of x and of R are kept in rings.
 * "Strictly greater" makes a centre equal to any other value of its window
 * no peak, whichever of the equal values the deque keeps.
 */

static const char *
peak_check_params(SpParams *p)
{
	return (p->window_size % 2 == 0) ? "\"window_size\" must be odd" : NULL;
}

static const SpParamDef peak_params[] = {
	SP_PARAM_WINDOW_SIZE(3),
	SP_PARAM_END
};

#define PEAK_H(p) ((p)->window_size / 2)
#define PEAK_XS 2				/* rings after the deque's two */
#define PEAK_RS 3

static int
peak_rings(const SpParams *p, int64 *limits)
{
	limits[DQ_VAL] = limits[DQ_IDX] = PEAK_H(p);
	limits[PEAK_XS] = limits[PEAK_RS] = PEAK_H(p) + 1;
	return 4;
}

static void
recent_push(SpRing *r, double x)
{
	if (sp_ring_full(r))
		(void) sp_ring_pop_oldest(r);
	sp_ring_push(r, x);
}

static bool
peak_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out)
{
	ExtremeState *s = state;
	int64		h = PEAK_H(p);
	SpRing	   *xs = &rings[PEAK_XS];
	SpRing	   *rs = &rings[PEAK_RS];
	double		right;
	bool		peak = false;
	int64		next = sp_count_next(s->t, SP_MAX_POSITION, "PeakDetector");

	deque_push(rings, h, in[0], s->t, true);
	right = sp_ring_get(&rings[DQ_VAL], 0);
	if (s->t >= 2 * h)
	{
		/* xs holds x[t-h-1 .. t-1] and rs holds R(t-h-1 .. t-1) */
		double		centre = sp_ring_newest(xs, h - 1);
		double		left = sp_ring_newest(rs, h);

		peak = float8_gt(centre, left) && float8_gt(centre, right);
		if (peak)
			*out = centre;
	}
	recent_push(xs, in[0]);
	recent_push(rs, right);
	s->t = next;
	return peak;
}

static void
peak_visit(const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v)
{
	ExtremeState *s = state;

	v->i64(v, "seen", &s->t);
	deque_visit(rings, v);
	v->ring(v, "recent", &rings[PEAK_XS]);
	v->ring(v, "recent_maxima", &rings[PEAK_RS]);
}

static const char *
peak_check(const SpParams *p, const void *state, const SpRing *rings)
{
	const ExtremeState *s = state;
	int64		h = PEAK_H(p);

	if (s->t < 0 || s->t > SP_MAX_POSITION)
		return "seen is out of range";
	if (rings[PEAK_XS].count != Min(s->t, h + 1) ||
		rings[PEAK_RS].count != Min(s->t, h + 1))
		return "recent values do not match the count seen";
	return deque_check(rings, h, s->t, true);
}

const SpOpType sp_op_peak_detector = {
	.name = "PeakDetector",
	.params = peak_params,
	.nin = 1,
	.check_params = peak_check_params,
	.state_size = extreme_state_size,
	.rings = peak_rings,
	.step = peak_step,
	.visit = peak_visit,
	.check_state = peak_check,
};
