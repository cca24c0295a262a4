/*
 * ops_window.c
 *	  Windowed operators: they look at the last window_size values and emit
 *	  only once the window is full.
 *
 * Each keeps its window in rings (sp_ring.h) that grow with the values held,
 * so a short segment costs what it holds, not what the window could hold.
 *
 * MovingAverage, MovingSum and StandardDeviation share one sliding core: a
 * ring of the window's values plus compensated sums that are updated by
 * adding the new value and subtracting the one leaving, so a row costs O(1)
 * whatever the window size.  Non-finite values are counted, not summed, so
 * that one Infinity or NaN affects results only while it is in the window
 * (Infinity - Infinity would otherwise poison the sums for good).  Their
 * results are computed from the sums only when needed (the 'value'
 * callback): on a segment's last row, not on every row.
 */
#include "postgres.h"

#include <limits.h>
#include <math.h>

#include "miscadmin.h"
#include "utils/float.h"

#include "sp_operator.h"
#include "sp_sum.h"

/* Loops over a whole window check for interrupts this often. */
#define INTERRUPT_STRIDE 65536

typedef struct WindowCore
{
	int64		nan;			/* non-finite values now in the window */
	int64		pinf;
	int64		ninf;
	/* StandardDeviation only (zero for the others) */
	int64		scale;			/* the sums hold x * 2^-scale */
	int64		fresh;			/* pushes since the last recount */
	int64		nz;				/* finite non-zero values held */
	int64		ntop;			/* of those, near 2^scale (see below) */
	SpSum		sum;			/* of the finite values in the window */
	SpSum		sumsq;			/* of their squares (StandardDeviation only) */
} WindowCore;

static size_t
core_state_size(const SpParams *p)
{
	return sizeof(WindowCore);
}

static int
window_rings(const SpParams *p, int64 *limits)
{
	limits[0] = p->window_size;
	return 1;
}

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

/* MovingSum, MovingAverage: push x, the oldest leaving; true when full. */
static bool
core_push(WindowCore *c, SpRing *r, double x)
{
	if (sp_ring_full(r))
	{
		double		old = sp_ring_pop_oldest(r);
		SpSum		diff = sp_two_sum(x, -old);

		/*
		 * The usual row of a full window: add the exact difference x - old
		 * in one step rather than removing and adding (half the dependent
		 * floating-point chain).
		 */
		if (isfinite(diff.hi) && isfinite(old))
		{
			sp_ring_push(r, x);
			c->sum = sp_sum_add_sum(c->sum, diff);
			return true;
		}
		if (!core_count_nonfinite(c, old, -1))
			c->sum = sp_sum_add(c->sum, -old);
	}
	sp_ring_push(r, x);
	if (!core_count_nonfinite(c, x, 1))
		c->sum = sp_sum_add(c->sum, x);
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
	if (c->nan > 0 || (c->pinf > 0 && c->ninf > 0))
		return get_float8_nan();
	if (c->pinf > 0)
		return get_float8_infinity();
	if (c->ninf > 0)
		return -get_float8_infinity();
	return sp_sum_value(c->sum);
}

static void
core_visit(const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v)
{
	WindowCore *c = state;

	v->i64(v, "nan", &c->nan);
	v->i64(v, "pinf", &c->pinf);
	v->i64(v, "ninf", &c->ninf);
	v->f64(v, "sum", &c->sum.hi);
	v->f64(v, "sum_err", &c->sum.lo);
	v->ring(v, "values", &rings[0]);
}

/* Decoded states: the non-finite counts must be what the ring holds. */
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
	return NULL;
}

static const SpParamDef window_params[] = {
	SP_PARAM_WINDOW_SIZE(1),
	SP_PARAM_END
};

/* MovingSum */

static bool
moving_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out)
{
	return core_push(state, &rings[0], in[0]);
}

static double
moving_sum_value(const SpParams *p, const void *state, const SpRing *rings)
{
	return core_sum(state);
}

const SpOpType sp_op_moving_sum = {
	.name = "MovingSum",
	.params = window_params,
	.nin = 1,
	.state_size = core_state_size,
	.rings = window_rings,
	.step = moving_step,
	.value = moving_sum_value,
	.visit = core_visit,
	.check_state = core_check,
};

/* MovingAverage */

static double
moving_average_value(const SpParams *p, const void *state, const SpRing *rings)
{
	const WindowCore *c = state;

	if (core_nonfinite(c))
		return core_sum(c) / p->window_size;
	return sp_sum_value(sp_sum_div(c->sum, p->window_size));
}

const SpOpType sp_op_moving_average = {
	.name = "MovingAverage",
	.params = window_params,
	.nin = 1,
	.state_size = core_state_size,
	.rings = window_rings,
	.step = moving_step,
	.value = moving_average_value,
	.visit = core_visit,
	.check_state = core_check,
};

/*
 * StandardDeviation: sample standard deviation, (n - 1) in the denominator,
 * as stddev_samp() computes it; 0 for a window of one value, as the
 * original design has it.  Like stddev_samp(), any Infinity or NaN in the
 * window makes the result NaN.
 *
 * Squares of values beyond 2^512 overflow and squares below 2^-537 vanish,
 * so the sums hold every value scaled by 2^-scale, a power of two (exact),
 * with scale the largest binary exponent in the window.  The scale is
 * recounted from the window's values, O(window), only when it must move: a
 * value more than SCALE_HEADROOM orders above it arrives, or no value
 * within TOP_BAND orders below it is left.  Values further below are too
 * small to change the result by 2^-TOP_BAND of it while a top value is
 * there.  Every window_size pushes the sums are recounted anyway, which
 * clears any drift of the sliding sums.  So the result neither overflows
 * where stddev_samp() does not, nor loses values too small to square, at
 * amortised O(1) a row.
 */
#define SCALE_HEADROOM 400
#define TOP_BAND 200

static void
stddev_account(WindowCore *c, double x, int sign)
{
	double		y;
	SpSum		sq;

	if (core_count_nonfinite(c, x, sign))
		return;
	y = ldexp(x, (int) -c->scale);
	c->sum = sp_sum_add(c->sum, sign * y);
	sq = sp_two_prod(y, y);
	sq.hi *= sign;
	sq.lo *= sign;
	c->sumsq = sp_sum_add_sum(c->sumsq, sq);
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
stddev_recount(WindowCore *c, const SpRing *r)
{
	memset(c, 0, sizeof(WindowCore));
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
		stddev_account(c, x, 1);
	}
}

static const SpParamDef stddev_params[] = {
	SP_PARAM_WINDOW_SIZE(1),
	SP_PARAM_END
};

static bool
stddev_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out)
{
	WindowCore *c = state;
	SpRing	   *r = &rings[0];
	double		x = in[0];
	bool		recount = false;

	if (sp_ring_full(r))
	{
		double		old = sp_ring_pop_oldest(r);

		if (finite_nonzero(old))
		{
			c->nz--;
			if (near_top(c, old))
				c->ntop--;
		}
		stddev_account(c, old, -1);
	}
	sp_ring_push(r, x);
	if (finite_nonzero(x))
	{
		int			e = ilogb(x);

		if (c->nz == 0)
		{
			/* only zeros held: their sums are exactly zero at any scale */
			c->scale = e;
			c->sum.hi = c->sum.lo = c->sumsq.hi = c->sumsq.lo = 0.0;
		}
		else if (e - c->scale > SCALE_HEADROOM)
			recount = true;
		c->nz++;
		if (near_top(c, x))
			c->ntop++;
	}
	if (recount || (c->nz > 0 && c->ntop == 0) || ++c->fresh >= p->window_size)
		stddev_recount(c, r);
	else
		stddev_account(c, x, 1);
	return sp_ring_full(r);
}

static double
stddev_value(const SpParams *p, const void *state, const SpRing *rings)
{
	const WindowCore *c = state;
	int64		n = p->window_size;
	SpSum		sq;
	double		var;

	if (core_nonfinite(c))
		return get_float8_nan();
	if (n == 1)
		return 0.0;
	/* sum of squared deviations = S2 - S1 * S1 / n, in double-double */
	sq = sp_sum_div(sp_sum_mul(c->sum, c->sum), n);
	sq.hi = -sq.hi;
	sq.lo = -sq.lo;
	var = sp_sum_value(sp_sum_add_sum(c->sumsq, sq)) / (n - 1);
	/* rounding can leave a tiny negative where the true value is zero */
	return var <= 0 ? 0.0 : ldexp(sqrt(var), (int) c->scale);
}

static void
stddev_visit(const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v)
{
	WindowCore *c = state;

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
}

/*
 * A decoded state must agree with a recount of its window in everything
 * but the sums, which must be in the range the scale allows.
 */
static const char *
stddev_check(const SpParams *p, const void *state, const SpRing *rings)
{
	const WindowCore *c = state;
	WindowCore	fresh;
	int64		ntop = 0;
	double		bound;

	stddev_recount(&fresh, &rings[0]);
	if (c->nan != fresh.nan || c->pinf != fresh.pinf || c->ninf != fresh.ninf ||
		c->nz != fresh.nz)
		return "counts do not match the window's values";
	/* fresh.scale is the top exponent held */
	if (c->nz > 0 && (fresh.scale - c->scale > SCALE_HEADROOM ||
					  c->scale - fresh.scale > TOP_BAND))
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
	if (c->fresh < 0 || c->fresh >= p->window_size)
		return "fresh is out of range";
	bound = ldexp((double) (c->nz + 1), 2 * SCALE_HEADROOM + 2);
	if (!(fabs(c->sum.hi) <= bound && fabs(c->sum.lo) <= bound &&
		  fabs(c->sumsq.hi) <= bound && fabs(c->sumsq.lo) <= bound))
		return "sums are out of range";
	return NULL;
}

const SpOpType sp_op_standard_deviation = {
	.name = "StandardDeviation",
	.params = stddev_params,
	.nin = 1,
	.state_size = core_state_size,
	.rings = window_rings,
	.step = stddev_step,
	.value = stddev_value,
	.visit = stddev_visit,
	.check_state = stddev_check,
};

/*
 * Sliding extremes with a monotonic deque: each value enters and leaves the
 * deque once, so a row costs amortised O(1) whatever the window.  The deque
 * is two rings in step, values and their indexes (as float8, exact below
 * 2^53 rows), non-increasing from the front for a maximum (non-decreasing
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
	SP_PARAM_WINDOW_SIZE(1),
	{"mode", SP_PARAM_CHOICE, offsetof(SpParams, choice), true, 0, 0, 0, min_max_words},
	SP_PARAM_END
};

typedef struct ExtremeState
{
	int64		t;				/* values seen since reset */
} ExtremeState;

static size_t
extreme_state_size(const SpParams *p)
{
	return sizeof(ExtremeState);
}

static int
window_min_max_rings(const SpParams *p, int64 *limits)
{
	limits[DQ_VAL] = limits[DQ_IDX] = p->window_size;
	return 2;
}

static bool
window_min_max_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out)
{
	ExtremeState *s = state;

	deque_push(rings, p->window_size, in[0], s->t, p->choice == MODE_MAX);
	if (++s->t < p->window_size)
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
}

static const char *
window_min_max_check(const SpParams *p, const void *state, const SpRing *rings)
{
	const ExtremeState *s = state;

	if (s->t < 0 || s->t > SP_MAX_COUNT)
		return "seen is out of range";
	return deque_check(rings, p->window_size, s->t, p->choice == MODE_MAX);
}

const SpOpType sp_op_window_min_max = {
	.name = "WindowMinMax",
	.params = window_min_max_params,
	.nin = 1,
	.state_size = extreme_state_size,
	.rings = window_min_max_rings,
	.step = window_min_max_step,
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
	s->t++;
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

	if (s->t < 0 || s->t > SP_MAX_COUNT)
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
