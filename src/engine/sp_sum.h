/*
 * sp_sum.h
 *	  Compensated (double-double) accumulation for the summing operators.
 *
 * A sum is kept as an unevaluated pair hi + lo with |lo| <= ulp(hi)/2, which
 * carries about 106 bits: adding and later removing the same values (a
 * sliding window) returns to the exact previous sum for millions of rows,
 * and a variance computed as S2 - S1^2/n loses nothing visible to cancellation.
 *
 * As in PostgreSQL's float8 arithmetic, finite operands whose result
 * overflows raise "value out of range: overflow"; infinite operands give
 * infinite or NaN results.
 */
#ifndef SP_SUM_H
#define SP_SUM_H

#include <math.h>

#include "utils/float.h"

typedef struct SpSum
{
	double		hi;
	double		lo;
} SpSum;

/* Renormalise a + b (|a| >= |b| not required) into a pair. */
static inline SpSum
sp_two_sum(double a, double b)
{
	SpSum		r;
	double		bb;

	r.hi = a + b;
	bb = r.hi - a;
	r.lo = (a - (r.hi - bb)) + (b - bb);
	return r;
}

static inline SpSum
sp_sum_add_sum(SpSum a, SpSum b)
{
	SpSum		s = sp_two_sum(a.hi, b.hi);

	/* Infinity and NaN have no error term; keep lo finite and zero. */
	if (!isfinite(s.hi))
	{
		if (isinf(s.hi) && isfinite(a.hi) && isfinite(b.hi))
			float_overflow_error();
		s.lo = 0.0;
		return s;
	}
	s.lo += a.lo + b.lo;
	s = sp_two_sum(s.hi, s.lo);
	if (isinf(s.hi))
		float_overflow_error();
	return s;
}

static inline SpSum
sp_sum_add(SpSum a, double x)
{
	SpSum		b = {x, 0.0};

	return sp_sum_add_sum(a, b);
}

/* Exact product of two doubles (barring overflow), via fused multiply-add. */
static inline SpSum
sp_two_prod(double a, double b)
{
	SpSum		r;

	r.hi = a * b;
	if (isfinite(r.hi))
		r.lo = fma(a, b, -r.hi);
	else
	{
		if (isinf(r.hi) && isfinite(a) && isfinite(b))
			float_overflow_error();
		r.lo = 0.0;
	}
	return r;
}

static inline SpSum
sp_sum_mul(SpSum a, SpSum b)
{
	SpSum		p = sp_two_prod(a.hi, b.hi);

	if (!isfinite(p.hi))
		return p;
	p.lo += a.hi * b.lo + a.lo * b.hi;
	return sp_two_sum(p.hi, p.lo);
}

static inline SpSum
sp_sum_div(SpSum a, double d)
{
	double		q1 = a.hi / d;
	SpSum		p;

	if (!isfinite(q1))
	{
		SpSum		r = {q1, 0.0};

		return r;
	}
	/* one Newton correction: (a - q1*d) / d */
	p = sp_two_prod(q1, d);
	p.hi = -p.hi;
	p.lo = -p.lo;
	p = sp_sum_add_sum(a, p);
	return sp_two_sum(q1, (p.hi + p.lo) / d);
}

static inline double
sp_sum_value(SpSum a)
{
	return a.hi + a.lo;
}

#endif							/* SP_SUM_H */
