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
		return NAN;
	if (c->pinf > 0)
		return INFINITY;
	if (c->ninf > 0)
		return -INFINITY;
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
	/* only the slots written since reset carry anything */
	v->f64s(v, "values", c->ring, (int) c->seen);
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
		*out = NAN;
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
