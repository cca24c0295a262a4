/*
 * ops_trackers.c
 *	  Running operators: they emit on every row from what they have
 *	  accumulated since the last reset.
 */
#include "postgres.h"

#include "utils/float.h"

#include "sp_operator.h"
#include "sp_sum.h"

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

/* CountNumber: 1, 2, 3, ... */

static size_t
count_state_size(const SpParams *p)
{
	return sizeof(int64);
}

static bool
count_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out)
{
	int64	   *n = state;

	*n = sp_count_next(*n, SP_MAX_COUNT, "CountNumber");
	*out = (double) *n;
	return true;
}

static void
count_visit(const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v)
{
	v->i64(v, "count", (int64 *) state);
}

static const char *
count_check(const SpParams *p, const void *state, const SpRing *rings)
{
	int64		n = *(const int64 *) state;

	return (n < 0 || n > SP_MAX_COUNT) ? "count is out of range" : NULL;
}

const SpOpType sp_op_count_number = {
	.name = "CountNumber",
	.params = sp_no_params,
	.nin = 1,
	.state_size = count_state_size,
	.step = count_step,
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
