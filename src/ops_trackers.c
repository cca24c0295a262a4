/*
 * ops_trackers.c
 *	  Running operators: they emit on every row from what they have
 *	  accumulated since the last reset.
 */
#include "postgres.h"

#include "sp_operator.h"
#include "sp_sum.h"

static const SpParamDef no_params[] = {SP_PARAM_END};

/* Identity: the input, unchanged. */

static bool
identity_step(const SpParams *p, void *state, const double *in, double *out)
{
	*out = in[0];
	return true;
}

const SpOpType sp_op_identity = {
	.name = "Identity",
	.params = no_params,
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
cumulative_sum_step(const SpParams *p, void *state, const double *in, double *out)
{
	SpSum	   *s = state;

	*s = sp_sum_add(*s, in[0]);
	*out = sp_sum_value(*s);
	return true;
}

static void
sum_visit(const SpParams *p, void *state, SpStateVisitor *v)
{
	SpSum	   *s = state;

	v->f64(v, "sum", &s->hi);
	v->f64(v, "sum_err", &s->lo);
}

const SpOpType sp_op_cumulative_sum = {
	.name = "CumulativeSum",
	.params = no_params,
	.nin = 1,
	.state_size = sum_state_size,
	.step = cumulative_sum_step,
	.visit = sum_visit,
};

/* CountNumber: 1, 2, 3, ... */

static size_t
count_state_size(const SpParams *p)
{
	return sizeof(int64);
}

static bool
count_step(const SpParams *p, void *state, const double *in, double *out)
{
	int64	   *n = state;

	*out = (double) ++(*n);
	return true;
}

static void
count_visit(const SpParams *p, void *state, SpStateVisitor *v)
{
	v->i64(v, "count", (int64 *) state);
}

static const char *
count_check(const SpParams *p, const void *state)
{
	return *(const int64 *) state < 0 ? "count must not be negative" : NULL;
}

const SpOpType sp_op_count_number = {
	.name = "CountNumber",
	.params = no_params,
	.nin = 1,
	.state_size = count_state_size,
	.step = count_step,
	.visit = count_visit,
	.check_state = count_check,
};
