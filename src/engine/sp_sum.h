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

#include <float.h>
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
 * Whether a is a pair in the form this file and sp_acc_pair produce: lo no
 * more than half of hi's last digit (zero beside a zero or subnormal hi), or
 * hi non-finite and lo zero.  A decoded state's pairs must be.  (hi need not
 * be the nearest float8 to hi + lo: the exact pair of a sum whose remainder
 * was rounded may fall on a tie, where hi + lo rounds to even.)
 */
static inline bool
sp_sum_is_normal(SpSum a)
{
	if (!isfinite(a.hi))
		return a.lo == 0.0;
	if (!isfinite(a.lo))
		return false;
	if (fabs(a.hi) < DBL_MIN)
		return a.lo == 0.0;
	return fabs(a.lo) <= ldexp(1.0, ilogb(a.hi) - 53);
}

/*
 * An exact sum of finite float8 values, for the sliding windows.
 *
 * Every finite float8 is an integer multiple of 2^-1074, below 2^1024, so a
 * sum of up to 2^20 of them is an integer of at most 2118 bits in units of
 * 2^-1074.  It is held in 67 chunks of 32 bits, c[i] weighing
 * 2^(32 i - 1074).  Adding a value adds its 53 bits to the three chunks
 * they fall in, without carrying: a chunk takes 2^31 additions before it
 * could overflow, and every 2^30 additions (or when asked) the chunks are
 * normalised: carried upwards until c[0..65] are between 0 and 2^32 - 1 and
 * the top chunk holds the sign (two's complement across the chunks).
 * Normalised, one sum has one representation, whatever values were added
 * and removed on the way; and adding and later removing the same value
 * returns to exactly the earlier sum, however far apart their magnitudes.
 */
#define SP_ACC_CHUNKS	67
#define SP_ACC_MASK		INT64CONST(0xFFFFFFFF)
#ifndef SP_ACC_PENDING			/* a test build may normalise more often */
#define SP_ACC_PENDING	(INT64CONST(1) << 30)
#endif

typedef struct SpAcc
{
	int64		c[SP_ACC_CHUNKS];
	int64		pending;		/* additions since the last normalisation */
	/* chunks that took them: SP_ACC_CHUNKS - bottom to top - 1 (0: none) */
	int32		bottom;
	int32		top;
	/* normalised: 1 + the highest chunk that is not the sign's (0: none) */
	int32		lead;
	int32		unused;			/* zero */
} SpAcc;

/*
 * Carry upwards from the lowest chunk an addition touched: the normalised
 * form, in which pending, bottom and top are zero and lead is set (all
 * zero bytes is the sum 0).  v >> 32 is floor(v / 2^32): the arithmetic
 * shift every compiler the server supports does for a negative v.
 */
static inline void
sp_acc_normalise(SpAcc *a)
{
	int64		carry = 0;
	int64		sign;
	int			k;
	int			t;

	if (a->bottom == 0)
		return;					/* nothing added since */
	for (k = SP_ACC_CHUNKS - a->bottom; k < SP_ACC_CHUNKS - 1; k++)
	{
		int64		v = a->c[k] + carry;

		carry = v >> 32;
		a->c[k] = v & SP_ACC_MASK;
		if (carry == 0 && k >= a->top - 1)
			break;
	}
	if (k == SP_ACC_CHUNKS - 1)
		a->c[k] += carry;
	a->pending = 0;
	a->bottom = 0;
	a->top = 0;

	/*
	 * The highest chunk not the sign's: chunks above both the last one
	 * carried into and the former lead were the sign's and still are (when
	 * the sign changes, the carry reached the top chunk).
	 */
	t = Max(k, a->lead - 1);
	if (t == SP_ACC_CHUNKS - 1 && a->c[t] != (a->c[t] < 0 ? -1 : 0))
	{
		a->lead = SP_ACC_CHUNKS;
		return;
	}
	sign = (a->c[SP_ACC_CHUNKS - 1] < 0) ? SP_ACC_MASK : 0;
	for (t = Min(t, SP_ACC_CHUNKS - 2); t >= 0 && a->c[t] == sign; t--)
		;
	a->lead = t + 1;
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
	i = p >> 5;
	sh = p & 31;
	t0 = (int64) ((m << sh) & SP_ACC_MASK);
	m >>= 32 - sh;
	t1 = (int64) (m & SP_ACC_MASK);
	t2 = (int64) (m >> 32);
	if (SP_ACC_CHUNKS - i > a->bottom)
		a->bottom = SP_ACC_CHUNKS - i;
	if (i + 3 > a->top)
		a->top = i + 3;
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
	if (++a->pending >= SP_ACC_PENDING)
		sp_acc_normalise(a);
}

/* 2^e as a float8, for e in [-1022, 1023], without a call into libm. */
static inline double
sp_pow2(int e)
{
	uint64		bits = (uint64) (e + 1023) << 52;
	double		r;

	Assert(e >= -1022 && e <= 1023);
	memcpy(&r, &bits, sizeof(r));
	return r;
}

/* m * 2^e for the results here: exact when normal, libm otherwise. */
static inline double
sp_scale(double m, int e)
{
	if (e >= -1022 && e <= 1023)
		return m * sp_pow2(e);
	return ldexp(m, e);
}

/* Whether every chunk below k is zero. */
static inline bool
sp_acc_zero_below(const SpAcc *a, int k)
{
	while (--k >= 0)
		if (a->c[k] != 0)
			return false;
	return true;
}

/*
 * The magnitude of a normalised sum, read a few chunks at a time without
 * negating all of it: for a negative sum (two's complement) the magnitude
 * is the complement plus one, and the one carries into chunk k only when
 * every chunk below k is zero.  mag[0..n) receives chunks from..from + n - 1
 * (from >= 0); chunk 66's may exceed 32 bits.
 */
static inline void
sp_acc_mag_chunks(const SpAcc *a, bool negative, int from, int n, uint64 *mag)
{
	uint64		carry;

	if (!negative)
	{
		for (int i = 0; i < n; i++)
			mag[i] = (uint64) a->c[from + i];
		return;
	}
	carry = sp_acc_zero_below(a, from) ? 1 : 0;
	for (int i = 0; i < n; i++)
	{
		int			k = from + i;

		if (k == SP_ACC_CHUNKS - 1)
			mag[i] = (uint64) (-a->c[k] - 1) + carry;
		else
		{
			uint64		v = (uint64) (SP_ACC_MASK - a->c[k]) + carry;

			carry = v >> 32;
			mag[i] = v & (uint64) SP_ACC_MASK;
		}
	}
}

/*
 * The highest non-zero chunk of the magnitude of a normalised sum, or -1
 * when it is zero.
 */
static inline int
sp_acc_mag_top(const SpAcc *a, bool negative)
{
	int			t = a->lead - 1;

	Assert(a->bottom == 0);
	if (!negative)
		return t;
	/*
	 * Above t every chunk is all ones: its complement is zero, unless the
	 * one carried in from below reaches it, which happens when every chunk
	 * up to t is zero (the magnitude is then a power of two).
	 */
	if (t < 0)
		return 0;				/* -1 unit: all ones */
	if (t < SP_ACC_CHUNKS - 1 && a->c[t] == 0 && sp_acc_zero_below(a, t))
		return t + 1;
	return t;
}

/*
 * The sum rounded to the nearest float8, ties to even: Infinity (with the
 * sum's sign) beyond float8's range.  a is normalised.
 */
static inline double
sp_acc_round_normal(const SpAcc *a)
{
	bool		negative = a->c[SP_ACC_CHUNKS - 1] < 0;
	int			top = sp_acc_mag_top(a, negative);
	uint64		mag[3] = {0, 0, 0};	/* n >= 2 below; the compiler cannot tell */
	int			lead;
	int			low;
	int			j;
	int			o;
	int			n;
	uint64		m;
	uint64		w;
	bool		sticky;
	double		r;

	if (top < 0)
		return 0.0;
	sp_acc_mag_chunks(a, negative, top, 1, mag);
	/* the leading bit, in units of 2^-1074; the 64 bits from it down */
	lead = 32 * top + pg_leftmost_one_pos64(mag[0]);
	low = lead - 63;
	if (low <= 0)
	{
		/* below 2^64 units: the whole of it (chunks 0 and 1), exact */
		n = Min(top + 1, 2);
		sp_acc_mag_chunks(a, negative, 0, n, mag);
		m = mag[0] | (n > 1 ? mag[1] << 32 : 0);
		r = ldexp((double) m, -1074);	/* subnormal or small: libm */
	}
	else
	{
		/* lead is in chunk j + 1 or j + 2 */
		j = low >> 5;
		o = low & 31;
		n = Min(3, SP_ACC_CHUNKS - j);
		sp_acc_mag_chunks(a, negative, j, n, mag);
		w = mag[0] | (mag[1] << 32);
		m = w >> o;
		if (o > 0 && n > 2)
			m |= mag[2] << (64 - o);
		/* the magnitude has bits below chunk j where the sum has */
		sticky = (w & ((UINT64CONST(1) << o) - 1)) != 0 ||
			!sp_acc_zero_below(a, j);
		/*
		 * m has its top bit set; float8 keeps 53 of its 64 bits, so a bit
		 * below all of them settles a tie (to even) as the bits cut off
		 * would.  The scaling is exact: the result is normal or infinite.
		 */
		if (sticky)
			m |= 1;
		r = sp_scale((double) m, low - 1074);
	}
	return negative ? -r : r;
}

/* The same, for a sum in any form. */
static inline double
sp_acc_round(const SpAcc *acc)
{
	SpAcc		norm;

	if (acc->pending == 0 && acc->bottom == 0)
		return sp_acc_round_normal(acc);
	norm = *acc;
	sp_acc_normalise(&norm);
	return sp_acc_round_normal(&norm);
}

/*
 * The sum as a normalised pair: hi the nearest float8, lo the nearest to
 * what remains.  hi is infinite when the sum is beyond float8's range.
 */
static inline SpSum
sp_acc_pair(const SpAcc *a)
{
	SpSum		r;
	SpAcc		rest = *a;

	sp_acc_normalise(&rest);
	r.hi = sp_acc_round_normal(&rest);
	r.lo = 0.0;
	if (r.hi == 0.0 || !isfinite(r.hi))
		return r;
	sp_acc_add(&rest, -r.hi);
	sp_acc_normalise(&rest);
	r.lo = sp_acc_round_normal(&rest);
	return r;
}

/*
 * The sum to about 97 bits, as a pair: the top four chunks of its
 * magnitude summed in double-double, for results computed on every row
 * (the exact pair needs a second rounding).  A function of the sum alone,
 * as a is normalised.  hi is infinite beyond float8's range.
 */
static inline SpSum
sp_acc_approx_normal(const SpAcc *a)
{
	bool		negative = a->c[SP_ACC_CHUNKS - 1] < 0;
	int			top = sp_acc_mag_top(a, negative);
	int			from = Max(top - 3, 0);
	uint64		mag[4];
	SpSum		r = {0.0, 0.0};

	if (top < 0)
		return r;
	sp_acc_mag_chunks(a, negative, from, top - from + 1, mag);
	for (int k = top; k >= from; k--)
	{
		double		x = sp_scale((double) mag[k - from], 32 * k - 1074);

		if (!isfinite(x))
		{
			r.hi = x;
			r.lo = 0.0;
			break;
		}
		r = sp_sum_add(r, x);
	}
	if (negative)
	{
		r.hi = -r.hi;
		r.lo = -r.lo;
	}
	return r;
}

/* sp_acc_approx of a sum normalised or not (as sp_acc_round takes it). */
static inline SpSum
sp_acc_approx(const SpAcc *acc)
{
	SpAcc		norm;

	if (acc->pending == 0 && acc->bottom == 0)
		return sp_acc_approx_normal(acc);
	norm = *acc;
	sp_acc_normalise(&norm);
	return sp_acc_approx_normal(&norm);
}

#endif							/* SP_SUM_H */
