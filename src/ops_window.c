/*
 * ops_window.c
 *	  Windowed operators: they look at the last window_size values and emit
 *	  only once the window is full.
 *
 * MovingAverage, MovingSum and StandardDeviation share one sliding core: a
 * ring of the window's values plus compensated sums that are updated by
 * adding the new value and subtracting the one leaving, so a row costs O(1)
 * whatever the window size.  Non-finite values are counted, not summed, so
 * that one Infinity or NaN affects results only while it is in the window
 * (Infinity - Infinity would otherwise poison the sums for good).
 */
#include "postgres.h"

#include <math.h>

#include "utils/float.h"

#include "sp_operator.h"
#include "sp_sum.h"

typedef struct WindowCore
{
	int64		seen;			/* values since reset, at most window_size */
	int64		pos;			/* ring slot for the next value */
	int64		nan;			/* non-finite values now in the window */
	int64		pinf;
	int64		ninf;
	SpSum		sum;			/* of the finite values in the window */
	SpSum		sumsq;			/* of their squares (StandardDeviation only) */
	double		ring[FLEXIBLE_ARRAY_MEMBER];
} WindowCore;

static size_t
core_state_size(const SpParams *p)
{
	return offsetof(WindowCore, ring) + sizeof(double) * p->window_size;
}

/* Add (sign = 1) or remove (sign = -1) one value's contribution. */
static void
core_account(WindowCore *c, double x, bool squares, int sign)
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
	{
		c->sum = sp_sum_add(c->sum, sign * x);
		if (squares)
		{
			SpSum		sq = sp_two_prod(x, x);

			sq.hi *= sign;
			sq.lo *= sign;
			c->sumsq = sp_sum_add_sum(c->sumsq, sq);
		}
	}
}

/* Push x; returns true when the window is full. */
static bool
core_push(const SpParams *p, WindowCore *c, double x, bool squares)
{
	if (c->seen == p->window_size)
		core_account(c, c->ring[c->pos], squares, -1);
	else
		c->seen++;
	c->ring[c->pos] = x;
	core_account(c, x, squares, 1);
	if (++c->pos == p->window_size)
		c->pos = 0;
	return c->seen == p->window_size;
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
core_visit_common(const SpParams *p, WindowCore *c, SpStateVisitor *v)
{
	v->i64(v, "seen", &c->seen);
	v->i64(v, "pos", &c->pos);
	v->i64(v, "nan", &c->nan);
	v->i64(v, "pinf", &c->pinf);
	v->i64(v, "ninf", &c->ninf);
	v->f64(v, "sum", &c->sum.hi);
	v->f64(v, "sum_err", &c->sum.lo);
}

static void
core_visit_values(const SpParams *p, WindowCore *c, SpStateVisitor *v)
{
	/* the whole ring: an array's length never comes from the state itself */
	v->f64s(v, "values", c->ring, p->window_size);
}

static void
core_visit(const SpParams *p, void *state, SpStateVisitor *v)
{
	core_visit_common(p, state, v);
	core_visit_values(p, state, v);
}

static void
core_visit_squares(const SpParams *p, void *state, SpStateVisitor *v)
{
	WindowCore *c = state;

	core_visit_common(p, c, v);
	v->f64(v, "sumsq", &c->sumsq.hi);
	v->f64(v, "sumsq_err", &c->sumsq.lo);
	core_visit_values(p, c, v);
}

/*
 * Decoded states must be self-consistent: positions in range and the
 * non-finite counts equal to what the ring holds.
 */
static const char *
core_check(const SpParams *p, const void *state)
{
	const WindowCore *c = state;
	int64		nan = 0,
				pinf = 0,
				ninf = 0;

	if (c->seen < 0 || c->seen > p->window_size)
		return "seen is out of range";
	if (c->pos < 0 || c->pos >= p->window_size ||
		(c->seen < p->window_size && c->pos != c->seen))
		return "pos is out of range";
	for (int64 i = 0; i < c->seen; i++)
	{
		if (isnan(c->ring[i]))
			nan++;
		else if (isinf(c->ring[i]))
			(c->ring[i] > 0) ? pinf++ : ninf++;
	}
	if (nan != c->nan || pinf != c->pinf || ninf != c->ninf)
		return "non-finite counts do not match the window's values";
	return NULL;
}

static const SpParamDef window_params[] = {
	SP_PARAM_WINDOW_SIZE(1),
	SP_PARAM_END
};

/* MovingSum */

static bool
moving_sum_step(const SpParams *p, void *state, const double *in, double *out)
{
	WindowCore *c = state;

	if (!core_push(p, c, in[0], false))
		return false;
	*out = core_sum(c);
	return true;
}

const SpOpType sp_op_moving_sum = {
	.name = "MovingSum",
	.params = window_params,
	.nin = 1,
	.state_size = core_state_size,
	.step = moving_sum_step,
	.visit = core_visit,
	.check_state = core_check,
};

/* MovingAverage */

static bool
moving_average_step(const SpParams *p, void *state, const double *in, double *out)
{
	WindowCore *c = state;

	if (!core_push(p, c, in[0], false))
		return false;
	if (core_nonfinite(c))
		*out = core_sum(c) / p->window_size;
	else
		*out = sp_sum_value(sp_sum_div(c->sum, p->window_size));
	return true;
}

const SpOpType sp_op_moving_average = {
	.name = "MovingAverage",
	.params = window_params,
	.nin = 1,
	.state_size = core_state_size,
	.step = moving_average_step,
	.visit = core_visit,
	.check_state = core_check,
};

/*
 * StandardDeviation: sample standard deviation, (n - 1) in the denominator,
 * as stddev_samp() computes it.  Like stddev_samp(), any Infinity or NaN in
 * the window makes the result NaN.
 */

static const SpParamDef stddev_params[] = {
	SP_PARAM_WINDOW_SIZE(2),	/* n - 1 must not be zero */
	SP_PARAM_END
};

static bool
stddev_step(const SpParams *p, void *state, const double *in, double *out)
{
	WindowCore *c = state;
	SpSum		centred;
	SpSum		sq;
	double		var;

	if (!core_push(p, c, in[0], true))
		return false;
	if (core_nonfinite(c))
	{
		*out = get_float8_nan();
		return true;
	}
	/* sum of squared deviations = S2 - S1 * S1 / n, in double-double */
	sq = sp_sum_div(sp_sum_mul(c->sum, c->sum), p->window_size);
	sq.hi = -sq.hi;
	sq.lo = -sq.lo;
	centred = sp_sum_add_sum(c->sumsq, sq);
	var = sp_sum_value(centred) / (p->window_size - 1);
	/* rounding can leave a tiny negative where the true value is zero */
	*out = var < 0 ? 0.0 : sqrt(var);
	return true;
}

const SpOpType sp_op_standard_deviation = {
	.name = "StandardDeviation",
	.params = stddev_params,
	.nin = 1,
	.state_size = core_state_size,
	.step = stddev_step,
	.visit = core_visit_squares,
	.check_state = core_check,
};

/*
 * Sliding extremes with a monotonic deque: each value enters and leaves the
 * deque once, so a row costs amortised O(1) whatever the window.  The deque
 * holds (value, index) pairs in two rings of 'window' slots, values strictly
 * decreasing from the front for a maximum (increasing for a minimum), in
 * PostgreSQL's float8 ordering (NaN above everything).  Indexes are kept as
 * float8, exact below 2^53 rows, so that a state is one array of float8.
 */
typedef struct Deque
{
	int64		head;			/* slot of the front */
	int64		len;
} Deque;

/* Push value x with index t into a deque over windows of 'window' values. */
static void
deque_push(Deque *d, double *val, double *idx, int64 window, double x, int64 t,
		   bool want_max)
{
	/* what has left the window goes first, so there is always a free slot */
	while (d->len > 0 && idx[d->head] <= (double) (t - window))
	{
		d->head = (d->head + 1) % window;
		d->len--;
	}
	/* then everything x makes irrelevant, from the back */
	while (d->len > 0)
	{
		int64		back = (d->head + d->len - 1) % window;
		int			c = float8_cmp_internal(val[back], x);

		if (want_max ? c > 0 : c < 0)
			break;
		d->len--;
	}
	val[(d->head + d->len) % window] = x;
	idx[(d->head + d->len) % window] = (double) t;
	d->len++;
}

/* A decoded deque must be in range, in index order and monotonic. */
static const char *
deque_check(const Deque *d, const double *val, const double *idx, int64 window,
			int64 t, bool want_max)
{
	if (d->head < 0 || d->head >= window || d->len < 0 || d->len > window ||
		d->len > t)
		return "deque bounds are out of range";
	for (int64 k = 0; k < d->len; k++)
	{
		int64		slot = (d->head + k) % window;

		/* also refuses NaN and fractional indexes */
		if (!(idx[slot] >= (double) (t - window) && idx[slot] < (double) t) ||
			idx[slot] != floor(idx[slot]))
			return "deque index is out of range";
		if (k > 0)
		{
			int64		prev = (d->head + k - 1) % window;
			int			c = float8_cmp_internal(val[prev], val[slot]);

			if (idx[prev] >= idx[slot] || (want_max ? c <= 0 : c >= 0))
				return "deque is not monotonic";
		}
	}
	return NULL;
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
	Deque		dq;
	double		v[FLEXIBLE_ARRAY_MEMBER];	/* values[N], then indexes[N] */
} ExtremeState;

static size_t
window_min_max_state_size(const SpParams *p)
{
	return offsetof(ExtremeState, v) + sizeof(double) * 2 * p->window_size;
}

static bool
window_min_max_step(const SpParams *p, void *state, const double *in, double *out)
{
	ExtremeState *s = state;
	int64		n = p->window_size;

	deque_push(&s->dq, s->v, s->v + n, n, in[0], s->t, p->choice == MODE_MAX);
	if (++s->t < n)
		return false;
	*out = s->v[s->dq.head];
	return true;
}

static void
window_min_max_visit(const SpParams *p, void *state, SpStateVisitor *v)
{
	ExtremeState *s = state;

	v->i64(v, "seen", &s->t);
	v->i64(v, "head", &s->dq.head);
	v->i64(v, "len", &s->dq.len);
	v->f64s(v, "values", s->v, p->window_size);
	v->f64s(v, "indexes", s->v + p->window_size, p->window_size);
}

static const char *
window_min_max_check(const SpParams *p, const void *state)
{
	const ExtremeState *s = state;

	if (s->t < 0 || s->t > SP_MAX_COUNT)
		return "seen is out of range";
	return deque_check(&s->dq, s->v, s->v + p->window_size, p->window_size,
					   s->t, p->choice == MODE_MAX);
}

const SpOpType sp_op_window_min_max = {
	.name = "WindowMinMax",
	.params = window_min_max_params,
	.nin = 1,
	.state_size = window_min_max_state_size,
	.step = window_min_max_step,
	.visit = window_min_max_visit,
	.check_state = window_min_max_check,
};

/*
 * PeakDetector: with N = 2h + 1, the centre x[t-h] is a peak when it is
 * strictly greater than the maximum of the h values after it, R(t), and of
 * the h values before it, which is R(t-h-1).  R comes from a deque over
 * windows of h; the last h + 1 values of x and of R are kept in rings.
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

/* v holds, in order: deque values[h], deque indexes[h], xs[h + 1], rs[h + 1] */
typedef struct PeakState
{
	int64		t;				/* values seen since reset */
	Deque		dq;				/* maxima over windows of h */
	double		v[FLEXIBLE_ARRAY_MEMBER];
} PeakState;

#define PEAK_H(p) ((p)->window_size / 2)

static size_t
peak_state_size(const SpParams *p)
{
	return offsetof(PeakState, v) + sizeof(double) * (4 * PEAK_H(p) + 2);
}

static bool
peak_step(const SpParams *p, void *state, const double *in, double *out)
{
	PeakState  *s = state;
	int64		h = PEAK_H(p);
	int64		slot = s->t % (h + 1);
	double	   *xs = s->v + 2 * h;
	double	   *rs = xs + h + 1;
	double		right;
	bool		peak = false;

	deque_push(&s->dq, s->v, s->v + h, h, in[0], s->t, true);
	right = s->v[s->dq.head];
	if (s->t >= 2 * h)
	{
		/* read the centre and R(t-h-1) before their slots are reused */
		double		centre = xs[(s->t - h) % (h + 1)];
		double		left = rs[slot];

		peak = float8_gt(centre, left) && float8_gt(centre, right);
		if (peak)
			*out = centre;
	}
	xs[slot] = in[0];
	rs[slot] = right;
	s->t++;
	return peak;
}

static void
peak_visit(const SpParams *p, void *state, SpStateVisitor *v)
{
	PeakState  *s = state;
	int64		h = PEAK_H(p);

	v->i64(v, "seen", &s->t);
	v->i64(v, "head", &s->dq.head);
	v->i64(v, "len", &s->dq.len);
	v->f64s(v, "values", s->v, h);
	v->f64s(v, "indexes", s->v + h, h);
	v->f64s(v, "recent", s->v + 2 * h, h + 1);
	v->f64s(v, "recent_maxima", s->v + 3 * h + 1, h + 1);
}

static const char *
peak_check(const SpParams *p, const void *state)
{
	const PeakState *s = state;
	int64		h = PEAK_H(p);

	if (s->t < 0 || s->t > SP_MAX_COUNT)
		return "seen is out of range";
	return deque_check(&s->dq, s->v, s->v + h, h, s->t, true);
}

const SpOpType sp_op_peak_detector = {
	.name = "PeakDetector",
	.params = peak_params,
	.nin = 1,
	.check_params = peak_check_params,
	.state_size = peak_state_size,
	.step = peak_step,
	.visit = peak_visit,
	.check_state = peak_check,
};
