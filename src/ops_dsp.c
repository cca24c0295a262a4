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

static const SpParamDef no_params[] = {SP_PARAM_END};

static size_t
difference_state_size(const SpParams *p)
{
	return sizeof(DifferenceState);
}

static bool
difference_step(const SpParams *p, void *state, const double *in, double *out)
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
difference_visit(const SpParams *p, void *state, SpStateVisitor *v)
{
	DifferenceState *s = state;

	v->i64(v, "seen", &s->seen);
	v->f64(v, "previous", &s->previous);
}

static const char *
difference_check(const SpParams *p, const void *state)
{
	int64		seen = ((const DifferenceState *) state)->seen;

	return (seen == 0 || seen == 1) ? NULL : "seen must be 0 or 1";
}

const SpOpType sp_op_difference = {
	.name = "Difference",
	.params = no_params,
	.nin = 1,
	.state_size = difference_state_size,
	.step = difference_step,
	.visit = difference_visit,
	.check_state = difference_check,
};

/* A ring of the last n values, newest at pos - 1. */
typedef struct Ring
{
	int64		seen;			/* values since reset, at most n */
	int64		pos;
} Ring;

static void
ring_push(Ring *r, double *vals, int64 n, double x)
{
	vals[r->pos] = x;
	r->pos = (r->pos + 1) % n;
	if (r->seen < n)
		r->seen++;
}

/* k-th newest value (k = 0 is the newest) */
static double
ring_get(const Ring *r, const double *vals, int64 n, int64 k)
{
	return vals[(r->pos - 1 - k + 2 * n) % n];
}

static const char *
ring_check(const Ring *r, int64 n)
{
	if (r->seen < 0 || r->seen > n || r->pos < 0 || r->pos >= Max(n, 1) ||
		(r->seen < n && r->pos != r->seen))
		return "ring position is out of range";
	return NULL;
}

/* sum of coeff[i] * (i-th newest value), compensated */
static SpSum
ring_dot(const Ring *r, const double *vals, int64 n, const double *coeff, int64 ncoeff)
{
	SpSum		acc = {0.0, 0.0};

	for (int64 i = 0; i < ncoeff; i++)
		acc = sp_sum_add_sum(acc, sp_two_prod(coeff[i], ring_get(r, vals, n, i)));
	return acc;
}

/* FiniteImpulseResponse: sum of coeff[i] * x[n - i], once len(coeff) seen. */

static const SpParamDef fir_params[] = {
	{"coeff", SP_PARAM_VECTOR, offsetof(SpParams, vec[0]), true, 0, 1, SP_MAX_COEFFS},
	SP_PARAM_END
};

typedef struct FirState
{
	Ring		x;
	double		xs[FLEXIBLE_ARRAY_MEMBER];
} FirState;

static size_t
fir_state_size(const SpParams *p)
{
	return offsetof(FirState, xs) + sizeof(double) * p->nvec[0];
}

static bool
fir_step(const SpParams *p, void *state, const double *in, double *out)
{
	FirState   *s = state;
	int64		n = p->nvec[0];

	ring_push(&s->x, s->xs, n, in[0]);
	if (s->x.seen < n)
		return false;
	*out = sp_sum_value(ring_dot(&s->x, s->xs, n, p->vec[0], n));
	return true;
}

static void
fir_visit(const SpParams *p, void *state, SpStateVisitor *v)
{
	FirState   *s = state;

	v->i64(v, "seen", &s->x.seen);
	v->i64(v, "pos", &s->x.pos);
	v->f64s(v, "values", s->xs, p->nvec[0]);
}

static const char *
fir_check(const SpParams *p, const void *state)
{
	return ring_check(&((const FirState *) state)->x, p->nvec[0]);
}

const SpOpType sp_op_fir = {
	.name = "FiniteImpulseResponse",
	.params = fir_params,
	.nin = 1,
	.state_size = fir_state_size,
	.step = fir_step,
	.visit = fir_visit,
	.check_state = fir_check,
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

typedef struct IirState
{
	Ring		x;
	Ring		y;
	double		v[FLEXIBLE_ARRAY_MEMBER];	/* inputs[len(b)], outputs[len(a)] */
} IirState;

#define IIR_XS(s) ((s)->v)
#define IIR_YS(s, p) ((s)->v + (p)->nvec[0])

static size_t
iir_state_size(const SpParams *p)
{
	return offsetof(IirState, v) + sizeof(double) * (p->nvec[0] + p->nvec[1]);
}

static bool
iir_step(const SpParams *p, void *state, const double *in, double *out)
{
	IirState   *s = state;
	int64		nb = p->nvec[0];
	int64		na = p->nvec[1];
	SpSum		acc;
	double		y;

	ring_push(&s->x, IIR_XS(s), nb, in[0]);
	if (s->x.seen < nb)
		return false;
	acc = ring_dot(&s->x, IIR_XS(s), nb, p->vec[0], nb);
	if (na > 0)
	{
		/* y ring slots not yet written are zero, the outputs not produced */
		SpSum		fb = ring_dot(&s->y, IIR_YS(s, p), na, p->vec[1], na);

		fb.hi = -fb.hi;
		fb.lo = -fb.lo;
		acc = sp_sum_add_sum(acc, fb);
	}
	y = sp_sum_value(acc);
	if (na > 0)
		ring_push(&s->y, IIR_YS(s, p), na, y);
	*out = y;
	return true;
}

static void
iir_visit(const SpParams *p, void *state, SpStateVisitor *v)
{
	IirState   *s = state;

	v->i64(v, "seen", &s->x.seen);
	v->i64(v, "pos", &s->x.pos);
	v->f64s(v, "inputs", IIR_XS(s), p->nvec[0]);
	v->i64(v, "outputs_seen", &s->y.seen);
	v->i64(v, "outputs_pos", &s->y.pos);
	v->f64s(v, "outputs", IIR_YS(s, p), p->nvec[1]);
}

static const char *
iir_check(const SpParams *p, const void *state)
{
	const IirState *s = state;
	const char *msg = ring_check(&s->x, p->nvec[0]);

	return msg ? msg : ring_check(&s->y, p->nvec[1]);
}

const SpOpType sp_op_iir = {
	.name = "InfiniteImpulseResponse",
	.params = iir_params,
	.nin = 1,
	.state_size = iir_state_size,
	.step = iir_step,
	.visit = iir_visit,
	.check_state = iir_check,
};
