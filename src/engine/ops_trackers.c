/*
 * ops_trackers.c
 *	  Running operators: they emit on every row from what they have
 *	  accumulated since the last reset.
 */
#include "postgres.h"

#include "utils/float.h"

#include "sp_operator.h"
#include "sp_sum.h"
#include "sp_time.h"

/* Identity: the input, unchanged. */

static bool
identity_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out)
{
	*out = in[0];
	return true;
}

const SpOpType sp_op_identity = {
	.name = "Identity",
	.params = sp_no_params,
	.nin = 1,
	.step = identity_step,
};

/* CumulativeSum: compensated running sum. */

static size_t
sum_state_size(const SpParams *p)
{
	return sizeof(SpSum);
}

static bool
cumulative_sum_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out)
{
	SpSum	   *s = state;

	*s = sp_sum_add(*s, in[0]);
	*out = sp_sum_value(*s);
	return true;
}

static void
sum_visit(const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v)
{
	SpSum	   *s = state;

	v->f64(v, "sum", &s->hi);
	v->f64(v, "sum_err", &s->lo);
}

/*
 * The running sum has no ring to be checked against, but the engine only
 * ever holds pairs in the form sp_sum.h keeps them.
 */
static const char *
sum_check(const SpParams *p, const void *state, const SpRing *rings)
{
	return sp_sum_is_normal(*(const SpSum *) state) ? NULL :
		"sum_err exceeds half of sum's last digit";
}

const SpOpType sp_op_cumulative_sum = {
	.name = "CumulativeSum",
	.params = sp_no_params,
	.nin = 1,
	.state_size = sum_state_size,
	.step = cumulative_sum_step,
	.visit = sum_visit,
	.check_state = sum_check,
};

/*
 * CountNumber: 1, 2, 3, ...; with a window of time, the rows the window
 * holds (ops_window.c says how such a window works).
 */

static const SpParamDef count_params[] = {
	SP_PARAM_WINDOW_TIME,
	SP_PARAM_MIN_ROWS,
	SP_PARAM_END
};

static const char *
count_check_params(SpParams *p)
{
	return sp_window_check(p, false);
}

static size_t
count_state_size(const SpParams *p)
{
	return sp_window_in_time(p) ? sizeof(SpTimeSpan) : sizeof(int64);
}

static int
count_rings(const SpParams *p, int64 *limits)
{
	if (!sp_window_in_time(p))
		return 0;
	limits[0] = SP_RING_SHARE;
	return 1;
}

static bool
count_step_at_named(const char *name, const SpParams *p, void *state, SpRing *rings,
					int64 ts, double *out)
{
	SpTimeSpan *span = state;
	SpRing	   *gaps = &rings[0];

	sp_time_order(name, gaps->count, span->last, ts);
	while (sp_span_expires(span, gaps, ts, p->window_us))
		sp_span_pop(span, gaps);
	if (!sp_span_push(span, gaps, ts))
		sp_time_ring_full(name, p, gaps->limit);
	if (gaps->count < p->min_rows)
		return false;
	*out = (double) gaps->count;
	return true;
}

static bool
count_step_named(const char *name, void *state, double *out)
{
	int64	   *n = state;

	*n = sp_count_next(*n, SP_MAX_COUNT, name);
	*out = (double) *n;
	return true;
}

static bool
count_step_at(const SpParams *p, void *state, SpRing *rings, int64 ts,
			  const double *in, double *out)
{
	return count_step_at_named("CountNumber", p, state, rings, ts, out);
}

static bool
count_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out)
{
	return count_step_named("CountNumber", state, out);
}

static void
count_visit(const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v)
{
	if (sp_window_in_time(p))
	{
		sp_span_visit(state, v);
		v->ring(v, "gaps", &rings[0]);
		return;
	}
	v->i64(v, "count", (int64 *) state);
}

static const char *
count_check(const SpParams *p, const void *state, const SpRing *rings)
{
	int64		n;

	if (sp_window_in_time(p))
		return sp_span_check(state, &rings[0], p->window_us);
	n = *(const int64 *) state;

	return (n < 0 || n > SP_MAX_COUNT) ? "count is out of range" : NULL;
}

const SpOpType sp_op_count_number = {
	.name = "CountNumber",
	.params = count_params,
	.nin = 1,
	.check_params = count_check_params,
	.state_size = count_state_size,
	.rings = count_rings,
	.step = count_step,
	.timed = sp_window_in_time,
	.step_at = count_step_at,
	.visit = count_visit,
	.check_state = count_check,
};

/*
 * CountBoolean: CountNumber over a boolean port (the original's two count
 * the messages of either type); its parameters, state and reset are
 * CountNumber's.
 */

static bool
count_boolean_step_at(const SpParams *p, void *state, SpRing *rings, int64 ts,
					  const double *in, double *out)
{
	return count_step_at_named("CountBoolean", p, state, rings, ts, out);
}

static bool
count_boolean_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out)
{
	return count_step_named("CountBoolean", state, out);
}

const SpOpType sp_op_count_boolean = {
	.name = "CountBoolean",
	.params = count_params,
	.nin = 1,
	.in_type = SP_PORT_BOOLEAN,
	.check_params = count_check_params,
	.state_size = count_state_size,
	.rings = count_rings,
	.step = count_boolean_step,
	.timed = sp_window_in_time,
	.step_at = count_boolean_step_at,
	.visit = count_visit,
	.check_state = count_check,
};

/*
 * MaxTracker / MinTracker: running extreme since reset, in PostgreSQL's
 * float8 ordering (NaN above everything), as max() and min() see it.
 */

typedef struct TrackerState
{
	int64		n;				/* values seen; 0 means no extreme yet */
	double		best;
} TrackerState;

static size_t
tracker_state_size(const SpParams *p)
{
	return sizeof(TrackerState);
}

static bool
max_tracker_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out)
{
	TrackerState *s = state;
	bool		first = (s->n == 0);

	s->n = sp_count_next(s->n, SP_MAX_COUNT, "MaxTracker");
	if (first || float8_gt(in[0], s->best))
		s->best = in[0];
	*out = s->best;
	return true;
}

static bool
min_tracker_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out)
{
	TrackerState *s = state;
	bool		first = (s->n == 0);

	s->n = sp_count_next(s->n, SP_MAX_COUNT, "MinTracker");
	if (first || float8_lt(in[0], s->best))
		s->best = in[0];
	*out = s->best;
	return true;
}

static void
tracker_visit(const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v)
{
	TrackerState *s = state;

	v->i64(v, "count", &s->n);
	v->f64(v, "extreme", &s->best);
}

static const char *
tracker_check(const SpParams *p, const void *state, const SpRing *rings)
{
	int64		n = ((const TrackerState *) state)->n;

	return (n < 0 || n > SP_MAX_COUNT) ? "count is out of range" : NULL;
}

const SpOpType sp_op_max_tracker = {
	.name = "MaxTracker",
	.params = sp_no_params,
	.nin = 1,
	.state_size = tracker_state_size,
	.step = max_tracker_step,
	.visit = tracker_visit,
	.check_state = tracker_check,
};

const SpOpType sp_op_min_tracker = {
	.name = "MinTracker",
	.params = sp_no_params,
	.nin = 1,
	.state_size = tracker_state_size,
	.step = min_tracker_step,
	.visit = tracker_visit,
	.check_state = tracker_check,
};
