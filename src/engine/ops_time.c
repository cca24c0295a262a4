/*
 * ops_time.c
 *	  Operators over the time a segment spans: TimeWeightedAverage,
 *	  Integral and DurationTrue (docs/reference.md, "Operators over time"),
 *	  the counters' CounterIncrease and CounterRate, and Transitions.
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
 *
 * With "carry" (docs/reference.md, "Carried values"), a segment begins at
 * the instant the one before it ended, with the signal's value there: the
 * carried value is a row of the state's own at the segment's start (counted
 * in "seen", and in "carried", so that the rows the segment had are
 * known), and the segment's end edge extends the signal from its last row
 * to the closing row's timestamp.  Under "linear" the value at the end edge
 * is the closing row's when the operator reads it; a heartbeat brings no
 * reading, and the signal is then held flat from the last row to the edge.
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
	int64		carried;		/* carry: 1 when a value was carried in */
} AreaState;

static const char *const method_words[] = {"locf", "linear", NULL};

#define METHOD_LINEAR 1

/* "carry": none (the default, not shown), the last reading, or the line */
static const char *const carry_words[] = {"none", "locf", "linear", NULL};

#define CARRY_NONE		0
#define CARRY_LINEAR	2

static bool
carry_shown(const SpParams *p)
{
	return p->carry != CARRY_NONE;
}

static bool
fill_shown(const SpParams *p)
{
	return p->flag != 0;
}

#define SP_PARAM_CARRY \
	{"carry", SP_PARAM_CHOICE, offsetof(SpParams, carry), false, CARRY_NONE, 0, 0, \
	 carry_words, carry_shown}
#define SP_PARAM_FILL \
	{"fill", SP_PARAM_BOOL, offsetof(SpParams, flag), false, 0, 0, 0, NULL, fill_shown}

static bool
carries(const SpParams *p)
{
	return p->carry != CARRY_NONE;
}

/*
 * A decoded "carried": 0 or 1, and 1 only with a row (the carried one)
 * seen.  Read only when the operator carries: without, the field lies past
 * its state (state_size leaves it out).
 */
static const char *
carried_check(const SpParams *p, const int64 *carried, int64 n)
{
	return carries(p) && (*carried < 0 || *carried > Min(n, 1)) ?
		"carried is not 0 or 1, or exceeds seen" : NULL;
}

/*
 * At the end edge: a segment emits when it had rows of its own, or only
 * the carried one and "fill" asks for it.
 */
static bool
carry_emits(const SpParams *p, int64 n, int64 carried)
{
	return n > 0 && (n > carried || p->flag);
}

/* "fill" asks for what the carried signal gives an empty segment */
static const char *
carry_check(const SpParams *p, bool linear_ok)
{
	if (p->flag && p->carry == CARRY_NONE)
		return "\"fill\" requires \"carry\"";
	if (!linear_ok && p->carry == CARRY_LINEAR)
		return "\"carry\" must be \"locf\" for this operator";
	return NULL;
}

static bool
always_timed(const SpParams *p)
{
	return true;
}

static size_t
area_state_size(const SpParams *p)
{
	return carries(p) ? sizeof(AreaState) : offsetof(AreaState, carried);
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
 * The signal from the last row to ts > last: weighted by the last value
 * (locf), or by the last value and x (trapezoid: twice the area).
 */
static inline void
area_extend(AreaState *s, int64 ts, double x, bool trapezoid)
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

/* A row: the time since the last row is weighted as area_extend says. */
static void
area_step(const char *what, AreaState *s, int64 ts, double x, bool trapezoid)
{
	sp_time_order(what, s->n, s->last, ts);
	if (s->n == 0)
		s->first = ts;
	else if (ts > s->last)
		area_extend(s, ts, x, trapezoid);
	s->n = sp_count_next(s->n, SP_MAX_COUNT, what);
	s->last = ts;
	s->prev = x;
}

/*
 * The end edge: the signal to 'end', to the closing row's value under
 * linear when the operator reads it, else held flat (the value there is
 * then the one carried).  Returns whether a value spans the segment to
 * its end (the caller asks for time spanned or not).
 */
static bool
area_edge(const char *what, const SpParams *p, AreaState *s, int64 end,
		  const double *next, bool trapezoid)
{
	if (s->n == 0)
		return false;
	sp_time_order(what, s->n, s->last, end);
	if (end > s->last)
	{
		bool		line = p->carry == CARRY_LINEAR && next != NULL;

		area_extend(s, end, line ? *next : s->prev, trapezoid);
		s->last = end;
		if (line)
			s->prev = *next;
	}
	/* an empty segment (only the carried row) emits on request */
	return carry_emits(p, s->n, s->carried);
}

/* The next segment begins at 'start' with the last value, once there is one. */
static void
area_carry(const SpParams *p, void *state, int64 start)
{
	AreaState  *s = state;
	double		x = s->prev;
	bool		any = s->n > 0;

	memset(s, 0, sizeof(AreaState));
	if (any)
	{
		s->n = 1;
		s->carried = 1;
		s->first = start;
		s->last = start;
		s->prev = x;
	}
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
	if (carries(p))
		v->i64(v, "carried", &s->carried);
}

static const char *
area_check(const SpParams *p, const void *state, const SpRing *rings)
{
	const AreaState *s = state;
	const char *msg;

	if (s->n < 0 || s->n > SP_MAX_COUNT)
		return "seen is out of range";
	/* one contribution per row after the first, at most */
	if (s->nan < 0 || s->pinf < 0 || s->ninf < 0 ||
		s->nan > Max(s->n - 1, 0) || s->pinf > Max(s->n - 1, 0) || s->ninf > Max(s->n - 1, 0))
		return "non-finite counts are out of range";
	if ((msg = carried_check(p, &s->carried, s->n)) != NULL)
		return msg;
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
	SP_PARAM_CARRY,
	SP_PARAM_FILL,
	SP_PARAM_END
};

static const char *
twa_check_params(SpParams *p)
{
	return carry_check(p, true);
}

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

static bool
twa_edge(const SpParams *p, void *state, int64 end, const double *next)
{
	AreaState  *s = state;

	return area_edge("TimeWeightedAverage", p, s, end, next, p->choice == METHOD_LINEAR) &&
		s->last > s->first;
}

const SpOpType sp_op_time_weighted_average = {
	.name = "TimeWeightedAverage",
	.params = twa_params,
	.nin = 1,
	.check_params = twa_check_params,
	.state_size = area_state_size,
	.timed = always_timed,
	.step_at = twa_step_at,
	.value = twa_value,
	.carries = carries,
	.edge = twa_edge,
	.carry = area_carry,
	.visit = area_visit,
	.check_state = area_check,
};

/* Integral: the trapezoids' area, per unit (a second unless given). */

static const SpParamDef integral_params[] = {
	{"unit", SP_PARAM_INTERVAL, offsetof(SpParams, unit_us), false},
	SP_PARAM_CARRY,
	SP_PARAM_FILL,
	SP_PARAM_END
};

static const char *
unit_check_params(SpParams *p)
{
	if (p->unit_us == 0)
		p->unit_us = SP_USECS_PER_SECOND;
	return carry_check(p, true);
}

/* DurationTrue, CounterRate: a boolean or a counter holds between readings */
static const char *
unit_check_locf(SpParams *p)
{
	if (p->unit_us == 0)
		p->unit_us = SP_USECS_PER_SECOND;
	return carry_check(p, false);
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

static bool
integral_edge(const SpParams *p, void *state, int64 end, const double *next)
{
	return area_edge("Integral", p, state, end, next, true);
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
	.carries = carries,
	.edge = integral_edge,
	.carry = area_carry,
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
	int64		carried;		/* carry: 1 when a value was carried in */
} TrueState;

static size_t
true_state_size(const SpParams *p)
{
	return carries(p) ? sizeof(TrueState) : offsetof(TrueState, carried);
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

/* The end edge: the last input holds to it (a boolean is never interpolated). */
static bool
true_edge(const SpParams *p, void *state, int64 end, const double *next)
{
	TrueState  *s = state;

	if (s->n == 0)
		return false;
	sp_time_order("DurationTrue", s->n, s->last, end);
	if (s->prev)
		s->total += end - s->last;
	s->last = end;
	return carry_emits(p, s->n, s->carried);
}

static void
true_carry(const SpParams *p, void *state, int64 start)
{
	TrueState  *s = state;
	int64		x = s->prev;
	bool		any = s->n > 0;

	memset(s, 0, sizeof(TrueState));
	if (any)
	{
		s->n = 1;
		s->carried = 1;
		s->first = start;
		s->last = start;
		s->prev = x;
	}
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
	if (carries(p))
		v->i64(v, "carried", &s->carried);
}

static const char *
true_check(const SpParams *p, const void *state, const SpRing *rings)
{
	const TrueState *s = state;
	const char *msg;

	if (s->n < 0 || s->n > SP_MAX_COUNT)
		return "seen is out of range";
	if ((msg = carried_check(p, &s->carried, s->n)) != NULL)
		return msg;
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
	.check_params = unit_check_locf,
	.state_size = true_state_size,
	.timed = always_timed,
	.step_at = true_step_at,
	.value = true_value,
	.carries = carries,
	.edge = true_edge,
	.carry = true_carry,
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
	int64		carried;		/* carry: 1 when a reading was carried in */
} CounterState;

typedef struct RateState
{
	CounterState c;
	int64		first;
	int64		last;
} RateState;

/*
 * Carried, the last reading is the segment's first: the increase counts
 * from it, so that the segments' increases add up to the whole's.
 */
static void
counter_carry_fields(CounterState *c)
{
	double		x = c->prev;
	bool		any = c->n > 0;

	memset(c, 0, sizeof(CounterState));
	if (any)
	{
		c->n = 1;
		c->carried = 1;
		c->prev = x;
	}
}

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

static void
counter_visit_carried(const SpParams *p, CounterState *c, SpStateVisitor *v)
{
	if (carries(p))
		v->i64(v, "carried", &c->carried);
}

static const char *
counter_check_fields(const SpParams *p, const CounterState *c)
{
	const char *msg;

	if (c->n < 0 || c->n > SP_MAX_COUNT)
		return "seen is out of range";
	if ((msg = carried_check(p, &c->carried, c->n)) != NULL)
		return msg;
	if (c->n == 0 && (c->prev != 0 || c->inc.hi != 0 || c->inc.lo != 0))
		return "fields are set before any row";
	if (!sp_sum_is_normal(c->inc))
		return "increase_err exceeds half of increase's last digit";
	return NULL;
}

static size_t
counter_state_size(const SpParams *p)
{
	return carries(p) ? sizeof(CounterState) : offsetof(CounterState, carried);
}

static const SpParamDef counter_params[] = {
	SP_PARAM_CARRY,
	SP_PARAM_FILL,
	SP_PARAM_END
};

static const char *
counter_check_params(SpParams *p)
{
	return carry_check(p, false);
}

/* The counter holds from its last reading to the edge: nothing to add. */
static bool
counter_edge(const SpParams *p, void *state, int64 end, const double *next)
{
	const CounterState *c = state;

	return carry_emits(p, c->n, c->carried);
}

static void
counter_carry(const SpParams *p, void *state, int64 start)
{
	counter_carry_fields(state);
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
	counter_visit_carried(p, state, v);
}

static const char *
counter_check(const SpParams *p, const void *state, const SpRing *rings)
{
	return counter_check_fields(p, state);
}

const SpOpType sp_op_counter_increase = {
	.name = "CounterIncrease",
	.params = counter_params,
	.nin = 1,
	.check_params = counter_check_params,
	.state_size = counter_state_size,
	.step = counter_increase_step,
	.value = counter_increase_value,
	.carries = carries,
	.edge = counter_edge,
	.carry = counter_carry,
	.visit = counter_visit,
	.check_state = counter_check,
};

static size_t
rate_state_size(const SpParams *p)
{
	return sizeof(RateState);
}

/* The rate is the increase over the segment's span, to its end edge. */
static bool
counter_rate_edge(const SpParams *p, void *state, int64 end, const double *next)
{
	RateState  *s = state;

	if (s->c.n == 0)
		return false;
	sp_time_order("CounterRate", s->c.n, s->last, end);
	s->last = end;
	return carry_emits(p, s->c.n, s->c.carried) && s->last > s->first;
}

static void
counter_rate_carry(const SpParams *p, void *state, int64 start)
{
	RateState  *s = state;

	counter_carry_fields(&s->c);
	s->first = s->c.n > 0 ? start : 0;
	s->last = s->first;
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
	counter_visit_carried(p, &s->c, v);
}

static const char *
counter_rate_check(const SpParams *p, const void *state, const SpRing *rings)
{
	const RateState *s = state;
	const char *msg = counter_check_fields(p, &s->c);

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
	.check_params = unit_check_locf,
	.state_size = rate_state_size,
	.timed = always_timed,
	.step_at = counter_rate_step_at,
	.value = counter_rate_value,
	.carries = carries,
	.edge = counter_rate_edge,
	.carry = counter_rate_carry,
	.visit = counter_rate_visit,
	.check_state = counter_rate_check,
};

/*
 * Transitions: how many times the input changed within the segment (or
 * rose, or fell), counted row by row: a boolean's edges, or a state
 * code's changes.  Carried, the segment's first row is compared with the
 * value the segment began with, so that a change at the edge counts in the
 * segment it opens.  NaN is a state of its own: NaN after NaN is no change;
 * it neither rises nor falls.
 */

typedef struct TransState
{
	int64		n;
	double		prev;
	int64		count;
	int64		carried;		/* carry: 1 when a value was carried in */
} TransState;

static const char *const trans_port_words[] = {"number", "boolean", NULL};
static const char *const trans_count_words[] = {"changes", "rising", "falling", NULL};

#define TRANS_RISING	1
#define TRANS_FALLING	2

static const SpParamDef trans_params[] = {
	{"portType", SP_PARAM_CHOICE, offsetof(SpParams, choice), false, 0, 0, 0, trans_port_words},
	{"count", SP_PARAM_CHOICE, offsetof(SpParams, choice2), false, 0, 0, 0, trans_count_words},
	SP_PARAM_CARRY,
	SP_PARAM_FILL,
	SP_PARAM_END
};

static SpPortType
trans_in_type_at(const SpParams *p, int port)
{
	return p->choice == 1 ? SP_PORT_BOOLEAN : SP_PORT_NUMBER;
}

static size_t
trans_state_size(const SpParams *p)
{
	return carries(p) ? sizeof(TransState) : offsetof(TransState, carried);
}

static bool
trans_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out)
{
	TransState *s = state;
	double		x = in[0];

	if (s->n > 0)
	{
		bool		moved;

		if (p->choice2 == TRANS_RISING)
			moved = x > s->prev;
		else if (p->choice2 == TRANS_FALLING)
			moved = x < s->prev;
		else
			moved = isnan(x) ? !isnan(s->prev) : x != s->prev;
		s->count += moved;
	}
	s->n = sp_count_next(s->n, SP_MAX_COUNT, "Transitions");
	s->prev = x;
	return true;
}

static double
trans_value(const SpParams *p, const void *state, const SpRing *rings)
{
	return (double) ((const TransState *) state)->count;
}

static bool
trans_edge(const SpParams *p, void *state, int64 end, const double *next)
{
	const TransState *s = state;

	return carry_emits(p, s->n, s->carried);
}

static void
trans_carry(const SpParams *p, void *state, int64 start)
{
	TransState *s = state;
	double		x = s->prev;
	bool		any = s->n > 0;

	memset(s, 0, sizeof(TransState));
	if (any)
	{
		s->n = 1;
		s->carried = 1;
		s->prev = x;
	}
}

static void
trans_visit(const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v)
{
	TransState *s = state;

	v->i64(v, "seen", &s->n);
	v->f64(v, "previous", &s->prev);
	v->i64(v, "transitions", &s->count);
	if (carries(p))
		v->i64(v, "carried", &s->carried);
}

static const char *
trans_check(const SpParams *p, const void *state, const SpRing *rings)
{
	const TransState *s = state;
	const char *msg;

	if (s->n < 0 || s->n > SP_MAX_COUNT)
		return "seen is out of range";
	if ((msg = carried_check(p, &s->carried, s->n)) != NULL)
		return msg;
	if (s->n == 0 && (s->prev != 0 || s->count != 0))
		return "fields are set before any row";
	/* at most one transition per row after the first */
	if (s->count < 0 || s->count > Max(s->n - 1, 0))
		return "transitions is out of range";
	if (p->choice == 1 && s->prev != 0 && s->prev != 1)
		return "previous is not 0 or 1";
	return NULL;
}

static const char *
trans_check_params(SpParams *p)
{
	return carry_check(p, false);
}

const SpOpType sp_op_transitions = {
	.name = "Transitions",
	.params = trans_params,
	.nin = 1,
	.in_type_at = trans_in_type_at,
	.check_params = trans_check_params,
	.state_size = trans_state_size,
	.step = trans_step,
	.value = trans_value,
	.carries = carries,
	.edge = trans_edge,
	.carry = trans_carry,
	.visit = trans_visit,
	.check_state = trans_check,
};
