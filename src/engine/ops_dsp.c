/*
 * ops_dsp.c
 *	  Signal processing: Difference and the FIR and IIR filters.
 *
 * The filters are O(taps) per row by nature.  Their sums of products are
 * compensated: each product is split exactly (fused multiply-add) and added
 * into a double-double accumulator.
 */
#include "postgres.h"

#include "utils/float.h"

#include "sp_operator.h"
#include "sp_sum.h"

/* Difference: newest - previous, from the second row since reset. */

typedef struct DifferenceState
{
	int64		seen;			/* 0 or 1: whether previous holds a value */
	double		previous;
} DifferenceState;

static size_t
difference_state_size(const SpParams *p)
{
	return sizeof(DifferenceState);
}

static bool
difference_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out)
{
	DifferenceState *s = state;
	bool		emit = s->seen > 0;

	if (emit)
		*out = float8_mi(in[0], s->previous);
	s->previous = in[0];
	s->seen = 1;
	return emit;
}

static void
difference_visit(const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v)
{
	DifferenceState *s = state;

	v->i64(v, "seen", &s->seen);
	v->f64(v, "previous", &s->previous);
}

static const char *
difference_check(const SpParams *p, const void *state, const SpRing *rings)
{
	int64		seen = ((const DifferenceState *) state)->seen;

	return (seen == 0 || seen == 1) ? NULL : "seen must be 0 or 1";
}

const SpOpType sp_op_difference = {
	.name = "Difference",
	.params = sp_no_params,
	.nin = 1,
	.state_size = difference_state_size,
	.step = difference_step,
	.visit = difference_visit,
	.check_state = difference_check,
};

/* Push x into a delay line of at most 'limit' values, the oldest leaving. */
static void
delay_push(SpRing *r, double x)
{
	if (sp_ring_full(r))
		(void) sp_ring_pop_oldest(r);
	sp_ring_push(r, x);
}

/*
 * sum of coeff[i] * (i-th newest value), compensated; values not held yet
 * count as 0.
 */
static SpSum
delay_dot(const SpRing *r, const double *coeff, int64 ncoeff)
{
	SpSum		acc = {0.0, 0.0};
	int64		n = Min(ncoeff, r->count);

	for (int64 i = 0; i < n; i++)
		acc = sp_sum_add_sum(acc, sp_two_prod(coeff[i], sp_ring_newest(r, i)));
	return acc;
}

/* FiniteImpulseResponse: sum of coeff[i] * x[n - i], once len(coeff) seen. */

static const SpParamDef fir_params[] = {
	{"coeff", SP_PARAM_VECTOR, offsetof(SpParams, vec[0]), true, 0, 1, SP_MAX_COEFFS},
	SP_PARAM_END
};

static int
fir_rings(const SpParams *p, int64 *limits)
{
	limits[0] = p->nvec[0];
	return 1;
}

static bool
fir_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out)
{
	delay_push(&rings[0], in[0]);
	if (!sp_ring_full(&rings[0]))
		return false;
	*out = sp_sum_value(delay_dot(&rings[0], p->vec[0], p->nvec[0]));
	return true;
}

static void
fir_visit(const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v)
{
	v->ring(v, "values", &rings[0]);
}

const SpOpType sp_op_fir = {
	.name = "FiniteImpulseResponse",
	.params = fir_params,
	.nin = 1,
	.rings = fir_rings,
	.step = fir_step,
	.visit = fir_visit,
};

/*
 * InfiniteImpulseResponse: y[n] = sum b[i] x[n-i] - sum a[j] y[n-1-j], once
 * len(b) inputs are seen; outputs not produced yet count as 0.
 */

static const SpParamDef iir_params[] = {
	{"b_coeffs", SP_PARAM_VECTOR, offsetof(SpParams, vec[0]), true, 0, 1, SP_MAX_COEFFS},
	{"a_coeffs", SP_PARAM_VECTOR, offsetof(SpParams, vec[1]), true, 0, 0, SP_MAX_COEFFS},
	SP_PARAM_END
};

#define IIR_X 0
#define IIR_Y 1

static int
iir_rings(const SpParams *p, int64 *limits)
{
	limits[IIR_X] = p->nvec[0];
	limits[IIR_Y] = p->nvec[1];
	return 2;
}

static bool
iir_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out)
{
	SpRing	   *x = &rings[IIR_X];
	SpRing	   *y = &rings[IIR_Y];
	SpSum		acc;
	SpSum		fb;
	double		result;

	delay_push(x, in[0]);
	if (!sp_ring_full(x))
		return false;
	acc = delay_dot(x, p->vec[0], p->nvec[0]);
	fb = delay_dot(y, p->vec[1], p->nvec[1]);
	fb.hi = -fb.hi;
	fb.lo = -fb.lo;
	result = sp_sum_value(sp_sum_add_sum(acc, fb));
	if (y->limit > 0)
		delay_push(y, result);
	*out = result;
	return true;
}

static void
iir_visit(const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v)
{
	v->ring(v, "inputs", &rings[IIR_X]);
	v->ring(v, "outputs", &rings[IIR_Y]);
}

/* Outputs exist only once the inputs filled their line. */
static const char *
iir_check(const SpParams *p, const void *state, const SpRing *rings)
{
	if (rings[IIR_Y].count > 0 && !sp_ring_full(&rings[IIR_X]))
		return "outputs are held before the inputs filled the filter";
	return NULL;
}

const SpOpType sp_op_iir = {
	.name = "InfiniteImpulseResponse",
	.params = iir_params,
	.nin = 1,
	.rings = iir_rings,
	.step = iir_step,
	.visit = iir_visit,
	.check_state = iir_check,
};
