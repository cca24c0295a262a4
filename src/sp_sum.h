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

#include "port/pg_bitutils.h"
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

/*
 * Whether a is a pair this file produces: finite with hi the nearest float8
 * to hi + lo, or non-finite with lo zero.  A decoded state's pairs must be.
 */
static inline bool
sp_sum_is_normal(SpSum a)
{
	if (!isfinite(a.hi))
		return a.lo == 0.0;
	return isfinite(a.lo) && a.hi + a.lo == a.hi;
}

/*
 * An exact sum of finite float8 values, for the sliding windows.
 *
 * Every finite float8 is an integer multiple of 2^-1074, below 2^1024, so a
 * sum of up to 2^20 of them is an integer of at most 2118 bits in units of
 * 2^-1074.  It is held in 67 chunks of 32 bits, c[i] weighing
 * 2^(32 i - 1074): c[0..65] between 0 and 2^32 - 1 and the top chunk signed
 * (two's complement across the chunks).  Adding a value touches the three
 * chunks its 53 bits fall in and carries upwards, so the chunks are always
 * in that form: one sum has one representation, whatever values were added
 * and removed on the way.  Adding and later removing the same value thus
 * returns to exactly the earlier sum, however far apart their magnitudes.
 */
#define SP_ACC_CHUNKS	67
#define SP_ACC_MASK		INT64CONST(0xFFFFFFFF)

typedef struct SpAcc
{
	int64		c[SP_ACC_CHUNKS];
} SpAcc;

/* Carry from chunk i upwards, after chunks i..i+2 received an addend. */
static inline void
sp_acc_carry(SpAcc *a, int i)
{
	int64		carry = 0;

	for (int k = i; k < SP_ACC_CHUNKS - 1; k++)
	{
		int64		v = a->c[k] + carry;

		/* v is in (-2^32, 2^33): the carry is -1, 0 or 1 */
		carry = (v >= 0) ? (v >> 32) : -((-v + SP_ACC_MASK) >> 32);
		a->c[k] = v - carry * (SP_ACC_MASK + 1);
		if (carry == 0 && k >= i + 2)
			return;
	}
	a->c[SP_ACC_CHUNKS - 1] += carry;
}

/* a += x, x finite. */
static inline void
sp_acc_add(SpAcc *a, double x)
{
	uint64		bits;
	uint64		m;
	int			e;
	int			p;
	int			i;
	int			sh;
	int64		t0,
				t1,
				t2;

	memcpy(&bits, &x, sizeof(bits));
	e = (int) ((bits >> 52) & 0x7FF);
	m = bits & ((UINT64CONST(1) << 52) - 1);
	Assert(e != 0x7FF);
	/* x = m * 2^(p - 1074) with m below 2^53 */
	if (e != 0)
	{
		m |= UINT64CONST(1) << 52;
		p = e - 1;
	}
	else
		p = 0;
	if (m == 0)
		return;
	i = p >> 5;
	sh = p & 31;
	t0 = (int64) ((m << sh) & SP_ACC_MASK);
	m >>= 32 - sh;
	t1 = (int64) (m & SP_ACC_MASK);
	t2 = (int64) (m >> 32);
	if (bits >> 63)
	{
		a->c[i] -= t0;
		a->c[i + 1] -= t1;
		a->c[i + 2] -= t2;
	}
	else
	{
		a->c[i] += t0;
		a->c[i + 1] += t1;
		a->c[i + 2] += t2;
	}
	sp_acc_carry(a, i);
}

/*
 * The sum rounded to the nearest float8, ties to even: Infinity (with the
 * sum's sign) beyond float8's range.
 */
static inline double
sp_acc_round(const SpAcc *a)
{
	SpAcc		neg;
	const SpAcc *v = a;
	bool		negative = a->c[SP_ACC_CHUNKS - 1] < 0;
	int			top;
	int			lead;
	int			low;
	int			j;
	int			o;
	uint64		m;
	uint64		w;
	bool		sticky;
	double		r;

	if (negative)
	{
		/* round the magnitude: -a, chunk by chunk with borrows */
		int64		borrow = 0;

		for (int k = 0; k < SP_ACC_CHUNKS - 1; k++)
		{
			int64		d = -a->c[k] - borrow;

			borrow = (d < 0) ? 1 : 0;
			neg.c[k] = d + borrow * (SP_ACC_MASK + 1);
		}
		neg.c[SP_ACC_CHUNKS - 1] = -a->c[SP_ACC_CHUNKS - 1] - borrow;
		v = &neg;
	}
	for (top = SP_ACC_CHUNKS - 1; top >= 0 && v->c[top] == 0; top--)
		;
	if (top < 0)
		return 0.0;
	/* the leading bit, in units of 2^-1074; the 64 bits from it down */
	lead = 32 * top + pg_leftmost_one_pos64((uint64) v->c[top]);
	low = lead - 63;
	if (low <= 0)
	{
		/* below 2^64 units: the whole of it, exact in a uint64 */
		m = 0;
		for (int k = top; k >= 0; k--)
			m = (m << 32) | (uint64) v->c[k];
		r = ldexp((double) m, -1074);
	}
	else
	{
		j = low >> 5;
		o = low & 31;
		w = (uint64) v->c[j] | ((uint64) v->c[j + 1] << 32);
		m = w >> o;
		if (o > 0 && j + 2 < SP_ACC_CHUNKS)
			m |= (uint64) v->c[j + 2] << (64 - o);
		sticky = (w & ((UINT64CONST(1) << o) - 1)) != 0;
		for (int k = j - 1; k >= 0 && !sticky; k--)
			sticky = v->c[k] != 0;
		/*
		 * m has its top bit set; float8 keeps 53 of its 64 bits, so a bit
		 * below all of them settles a tie (to even) as the bits cut off
		 * would.  The scaling is exact: the result is normal or infinite.
		 */
		if (sticky)
			m |= 1;
		r = ldexp((double) m, low - 1074);
	}
	return negative ? -r : r;
}

/*
 * The sum as a normalised pair: hi the nearest float8, lo the nearest to
 * what remains.  hi is infinite when the sum is beyond float8's range.
 */
static inline SpSum
sp_acc_pair(const SpAcc *a)
{
	SpSum		r;
	SpAcc		rest;

	r.hi = sp_acc_round(a);
	r.lo = 0.0;
	if (r.hi == 0.0 || !isfinite(r.hi))
		return r;
	rest = *a;
	sp_acc_add(&rest, -r.hi);
	r.lo = sp_acc_round(&rest);
	return r;
}

#endif							/* SP_SUM_H */
