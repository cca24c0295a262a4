/*
 * ops_time.c
 *	  Operators over the time a segment spans: TimeWeightedAverage,
 *	  Integral and DurationTrue (docs/reference.md, "Operators over time").
 *
 * The segment spans the time from its first row to its last.  A row's value
 * holds from its timestamp to the next row's: in full for "locf" (the last
 * observation carried forward) and DurationTrue, or changing linearly to the
 * next row's value for "linear" and Integral (the trapezoid rule).  The last
 * row's value has held for no time yet, and rows with equal timestamps
 * count for no time between them (so of several rows at one timestamp, the
 * last is the one carried forward).
 *
 * The area (value x microseconds) is kept as a double-double pair, as
 * CumulativeSum keeps its sum: each product value x gap is exact (the gap
 * split in two parts exact as float8, each product an exact pair,
 * sp_two_prod), and the pair carries about 106 bits.  Non-finite values
 * are counted as the windowed sums count them, when they hold for some
 * time: NaN, or both infinities, make the area NaN.
 */
#include "postgres.h"

#include <math.h>

#include "datatype/timestamp.h"
#include "utils/float.h"

#include "sp_operator.h"
#include "sp_sum.h"
#include "sp_time.h"

typedef struct AreaState
{
	int64		n;				/* rows seen */
	int64		first;			/* timestamps of the first and last rows */
	int64		last;
	double		prev;			/* the last row's value */
	SpSum		area;			/* value x microseconds; x 2 for the trapezoids */
	int64		nan;			/* non-finite contributions */
	int64		pinf;
	int64		ninf;
} AreaState;

static const char *const method_words[] = {"locf", "linear", NULL};

#define METHOD_LINEAR 1

static bool
always_timed(const SpParams *p)
{
	return true;
}

static size_t
area_state_size(const SpParams *p)
{
	return sizeof(AreaState);
}

/* area += x * dt, exactly but for the pair's rounding; dt > 0. */
static void
area_add(AreaState *s, double x, int64 dt)
{
	double		hi = (double) (dt & ~INT64CONST(0xFFFFFFFF));
	double		lo = (double) (dt & INT64CONST(0xFFFFFFFF));

	s->area = sp_sum_add_sum(s->area, sp_two_prod(x, hi));
	s->area = sp_sum_add_sum(s->area, sp_two_prod(x, lo));
}

static void
count_nonfinite(AreaState *s, double c)
{
	if (isnan(c))
		s->nan++;
	else if (c > 0)
		s->pinf++;
	else
		s->ninf++;
}

/*
 * A row: the time since the last row is weighted by the last value (locf),
 * or by the last value and this one (trapezoid: twice the area).
 */
static void
area_step(const char *what, AreaState *s, int64 ts, double x, bool trapezoid)
{
	sp_time_order(what, s->n, s->last, ts);
	if (s->n == 0)
		s->first = ts;
	else if (ts > s->last)
	{
		int64		dt = ts - s->last;

		if (!trapezoid)
		{
			if (isfinite(s->prev))
				area_add(s, s->prev, dt);
			else
				count_nonfinite(s, s->prev);
		}
		else if (isfinite(s->prev) && isfinite(x))
		{
			area_add(s, s->prev, dt);
			area_add(s, x, dt);
		}
		else
			count_nonfinite(s, s->prev + x);
	}
	s->n = sp_count_next(s->n, SP_MAX_COUNT, what);
	s->last = ts;
	s->prev = x;
}

/* The area divided by d (microseconds, x 2 for trapezoids), float8's rules. */
static double
area_per(const AreaState *s, double d)
{
	double		r;

	if (s->nan > 0 || (s->pinf > 0 && s->ninf > 0))
		return get_float8_nan();
	if (s->pinf > 0)
		return get_float8_infinity();
	if (s->ninf > 0)
		return -get_float8_infinity();
	r = sp_sum_value(sp_sum_div(s->area, d));
	if (isinf(r))
		float_overflow_error();
	return r;
}

static void
area_visit(const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v)
{
	AreaState  *s = state;

	v->i64(v, "seen", &s->n);
	v->i64(v, "first", &s->first);
	v->i64(v, "last", &s->last);
	v->f64(v, "previous", &s->prev);
	v->f64(v, "area", &s->area.hi);
	v->f64(v, "area_err", &s->area.lo);
	v->i64(v, "nan", &s->nan);
	v->i64(v, "pinf", &s->pinf);
	v->i64(v, "ninf", &s->ninf);
}

static const char *
area_check(const SpParams *p, const void *state, const SpRing *rings)
{
	const AreaState *s = state;

	if (s->n < 0 || s->n > SP_MAX_COUNT)
		return "seen is out of range";
	/* one contribution per row after the first, at most */
	if (s->nan < 0 || s->pinf < 0 || s->ninf < 0 ||
		s->nan > Max(s->n - 1, 0) || s->pinf > Max(s->n - 1, 0) || s->ninf > Max(s->n - 1, 0))
		return "non-finite counts are out of range";
	if (s->n == 0)
		return (s->first == 0 && s->last == 0 && s->prev == 0 && s->area.hi == 0 &&
				s->area.lo == 0) ? NULL : "fields are set before any row";
	if (!IS_VALID_TIMESTAMP(s->first) || !IS_VALID_TIMESTAMP(s->last) || s->first > s->last)
		return "first and last are not timestamps in order";
	if (!isfinite(s->area.hi) || !sp_sum_is_normal(s->area))
		return "area is not finite, or area_err exceeds half of its last digit";
	return NULL;
}

/* TimeWeightedAverage: the area over the span; nothing before it spans time. */

static const SpParamDef twa_params[] = {
	{"method", SP_PARAM_CHOICE, offsetof(SpParams, choice), true, 0, 0, 0, method_words},
	SP_PARAM_END
};

static bool
twa_step_at(const SpParams *p, void *state, SpRing *rings, int64 ts,
			const double *in, double *out)
{
	AreaState  *s = state;

	area_step("TimeWeightedAverage", s, ts, in[0], p->choice == METHOD_LINEAR);
	return s->last > s->first;
}

static double
twa_value(const SpParams *p, const void *state, const SpRing *rings)
{
	const AreaState *s = state;
	double		span = (double) (s->last - s->first);

	return area_per(s, p->choice == METHOD_LINEAR ? 2.0 * span : span);
}

const SpOpType sp_op_time_weighted_average = {
	.name = "TimeWeightedAverage",
	.params = twa_params,
	.nin = 1,
	.state_size = area_state_size,
	.timed = always_timed,
	.step_at = twa_step_at,
	.value = twa_value,
	.visit = area_visit,
	.check_state = area_check,
};

/* Integral: the trapezoids' area, per unit (a second unless given). */

static const SpParamDef integral_params[] = {
	{"unit", SP_PARAM_INTERVAL, offsetof(SpParams, unit_us), false},
	SP_PARAM_END
};

static const char *
unit_check_params(SpParams *p)
{
	if (p->unit_us == 0)
		p->unit_us = SP_USECS_PER_SECOND;
	return NULL;
}

static bool
integral_step_at(const SpParams *p, void *state, SpRing *rings, int64 ts,
				 const double *in, double *out)
{
	area_step("Integral", state, ts, in[0], true);
	return true;
}

static double
integral_value(const SpParams *p, const void *state, const SpRing *rings)
{
	return area_per(state, 2.0 * (double) p->unit_us);
}

const SpOpType sp_op_integral = {
	.name = "Integral",
	.params = integral_params,
	.nin = 1,
	.check_params = unit_check_params,
	.state_size = area_state_size,
	.timed = always_timed,
	.step_at = integral_step_at,
	.value = integral_value,
	.visit = area_visit,
	.check_state = area_check,
};

/*
 * DurationTrue: how long a boolean input was true, per unit (a second
 * unless given): the time from each row whose input is true to the next
 * row, counted exactly in microseconds.
 */

typedef struct TrueState
{
	int64		n;
	int64		first;
	int64		last;
	int64		prev;			/* the last row's input, 0 or 1 */
	int64		total;			/* microseconds true */
} TrueState;

static size_t
true_state_size(const SpParams *p)
{
	return sizeof(TrueState);
}

static bool
true_step_at(const SpParams *p, void *state, SpRing *rings, int64 ts,
			 const double *in, double *out)
{
	TrueState  *s = state;

	sp_time_order("DurationTrue", s->n, s->last, ts);
	if (s->n == 0)
		s->first = ts;
	else if (s->prev)
		s->total += ts - s->last;
	s->n = sp_count_next(s->n, SP_MAX_COUNT, "DurationTrue");
	s->last = ts;
	/* a boolean port carries 1 or 0 (sp_engine.c) */
	s->prev = in[0] != 0.0;
	return true;
}

static double
true_value(const SpParams *p, const void *state, const SpRing *rings)
{
	const TrueState *s = state;

	return (double) s->total / (double) p->unit_us;
}

static void
true_visit(const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v)
{
	TrueState  *s = state;

	v->i64(v, "seen", &s->n);
	v->i64(v, "first", &s->first);
	v->i64(v, "last", &s->last);
	v->i64(v, "previous", &s->prev);
	v->i64(v, "true", &s->total);
}

static const char *
true_check(const SpParams *p, const void *state, const SpRing *rings)
{
	const TrueState *s = state;

	if (s->n < 0 || s->n > SP_MAX_COUNT)
		return "seen is out of range";
	if (s->n == 0)
		return (s->first == 0 && s->last == 0 && s->prev == 0 && s->total == 0) ? NULL :
			"fields are set before any row";
	if (!IS_VALID_TIMESTAMP(s->first) || !IS_VALID_TIMESTAMP(s->last) || s->first > s->last)
		return "first and last are not timestamps in order";
	if (s->prev != 0 && s->prev != 1)
		return "previous is not 0 or 1";
	if (s->total < 0 || s->total > s->last - s->first)
		return "true is not within the span from first to last";
	return NULL;
}

const SpOpType sp_op_duration_true = {
	.name = "DurationTrue",
	.params = integral_params,
	.nin = 1,
	.in_type = SP_PORT_BOOLEAN,
	.check_params = unit_check_params,
	.state_size = true_state_size,
	.timed = always_timed,
	.step_at = true_step_at,
	.value = true_value,
	.visit = true_visit,
	.check_state = true_check,
};

/*
 * CounterIncrease, CounterRate: the increase of a counter over the segment,
 * as Prometheus' increase() counts it across resets: a reading below the
 * one before means the counter restarted from zero, so it adds its own
 * value; any other reading adds its difference from the one before.  No
 * extrapolation: the increase is what the readings show between the
 * segment's first row and the row at hand (docs/reference.md says how this
 * differs from Prometheus).  The sum is a double-double pair, each reading
 * added and the one before subtracted, so that without resets it is the
 * last reading minus the first to about 106 bits.  A NaN reading makes the
 * increase NaN for the rest of the segment, as float8 arithmetic does.
 */

typedef struct CounterState
{
	int64		n;
	double		prev;
	SpSum		inc;
} CounterState;

typedef struct RateState
{
	CounterState c;
	int64		first;
	int64		last;
} RateState;

static void
counter_add(CounterState *c, double x, const char *what)
{
	if (c->n > 0)
	{
		c->inc = sp_sum_add(c->inc, x);
		/* a drop is a reset: the new reading is the increase since */
		if (!(x < c->prev))
			c->inc = sp_sum_add(c->inc, -c->prev);
	}
	c->n = sp_count_next(c->n, SP_MAX_COUNT, what);
	c->prev = x;
}

static double
counter_increase(const CounterState *c)
{
	return sp_sum_value(c->inc);
}

static void
counter_visit_fields(CounterState *c, SpStateVisitor *v)
{
	v->i64(v, "seen", &c->n);
	v->f64(v, "previous", &c->prev);
	v->f64(v, "increase", &c->inc.hi);
	v->f64(v, "increase_err", &c->inc.lo);
}

static const char *
counter_check_fields(const CounterState *c)
{
	if (c->n < 0 || c->n > SP_MAX_COUNT)
		return "seen is out of range";
	if (c->n == 0 && (c->prev != 0 || c->inc.hi != 0 || c->inc.lo != 0))
		return "fields are set before any row";
	if (!sp_sum_is_normal(c->inc))
		return "increase_err exceeds half of increase's last digit";
	return NULL;
}

static size_t
counter_state_size(const SpParams *p)
{
	return sizeof(CounterState);
}

static bool
counter_increase_step(const SpParams *p, void *state, SpRing *rings,
					  const double *in, double *out)
{
	counter_add(state, in[0], "CounterIncrease");
	return true;
}

static double
counter_increase_value(const SpParams *p, const void *state, const SpRing *rings)
{
	return counter_increase(state);
}

static void
counter_visit(const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v)
{
	counter_visit_fields(state, v);
}

static const char *
counter_check(const SpParams *p, const void *state, const SpRing *rings)
{
	return counter_check_fields(state);
}

const SpOpType sp_op_counter_increase = {
	.name = "CounterIncrease",
	.params = sp_no_params,
	.nin = 1,
	.state_size = counter_state_size,
	.step = counter_increase_step,
	.value = counter_increase_value,
	.visit = counter_visit,
	.check_state = counter_check,
};

static size_t
rate_state_size(const SpParams *p)
{
	return sizeof(RateState);
}

static bool
counter_rate_step_at(const SpParams *p, void *state, SpRing *rings, int64 ts,
					 const double *in, double *out)
{
	RateState  *s = state;

	sp_time_order("CounterRate", s->c.n, s->last, ts);
	if (s->c.n == 0)
		s->first = ts;
	s->last = ts;
	counter_add(&s->c, in[0], "CounterRate");
	return s->last > s->first;
}

static double
counter_rate_value(const SpParams *p, const void *state, const SpRing *rings)
{
	const RateState *s = state;

	/* increase per microsecond, times the unit, as one division */
	return sp_sum_value(sp_sum_div(s->c.inc, (double) (s->last - s->first) /
								   (double) p->unit_us));
}

static void
counter_rate_visit(const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v)
{
	RateState  *s = state;

	counter_visit_fields(&s->c, v);
	v->i64(v, "first", &s->first);
	v->i64(v, "last", &s->last);
}

static const char *
counter_rate_check(const SpParams *p, const void *state, const SpRing *rings)
{
	const RateState *s = state;
	const char *msg = counter_check_fields(&s->c);

	if (msg != NULL)
		return msg;
	if (s->c.n == 0)
		return (s->first == 0 && s->last == 0) ? NULL : "fields are set before any row";
	if (!IS_VALID_TIMESTAMP(s->first) || !IS_VALID_TIMESTAMP(s->last) || s->first > s->last)
		return "first and last are not timestamps in order";
	return NULL;
}

const SpOpType sp_op_counter_rate = {
	.name = "CounterRate",
	.params = integral_params,
	.nin = 1,
	.check_params = unit_check_params,
	.state_size = rate_state_size,
	.timed = always_timed,
	.step_at = counter_rate_step_at,
	.value = counter_rate_value,
	.visit = counter_rate_visit,
	.check_state = counter_rate_check,
};
