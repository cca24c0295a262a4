/*
 * ops_interp.c
 *	  The original library's interpolating operators: Function, a
 *	  piecewise-linear function of points, and ResamplerHermite, a cubic
 *	  Hermite (Catmull-Rom) spline through the last four rows read at the
 *	  points of a grid of time.
 *
 * Arithmetic is float8's, as in ops_arith.c: a NaN in gives NaN, and a
 * result beyond float8's range from finite inputs is PostgreSQL's overflow
 * error (22003), not an infinity.
 */
#include "postgres.h"

#include <math.h>

#include "datatype/timestamp.h"
#include "utils/float.h"

#include "sp_operator.h"
#include "sp_time.h"

#define INTERP_MAX_POINTS	4096

/* a result beyond float8 from finite inputs: what float8's operators say */
static inline double
interp_checked(double r, bool inputs_finite)
{
	if (unlikely(!isfinite(r)) && inputs_finite)
		float_overflow_error();
	return r;
}

/*
 * ---- Function: the piecewise-linear function through "points", sorted
 * by x, on every row.  Between two points the line through them; before
 * the first or after the last, the line through the first two or the last
 * two (extrapolated).  Stateless. ----
 */

static const SpParamDef function_params[] = {
	{"points", SP_PARAM_POINTS, offsetof(SpParams, vec[0]), true, 0, 2, INTERP_MAX_POINTS},
	SP_PARAM_END
};

/*
 * Sort the points by x (the original sorts them too, so the canonical text
 * lists them sorted), and refuse two at one x, whose line has no slope.
 * Insertion sort: at most 4096 points, read once per spec.
 */
static const char *
function_check_params(SpParams *p)
{
	double	   *v = p->vec[0];
	int			n = p->nvec[0];

	for (int i = 1; i < n; i++)
	{
		double		x = v[2 * i],
					y = v[2 * i + 1];
		int			k = i;

		for (; k > 0 && v[2 * (k - 1)] > x; k--)
		{
			v[2 * k] = v[2 * (k - 1)];
			v[2 * k + 1] = v[2 * (k - 1) + 1];
		}
		v[2 * k] = x;
		v[2 * k + 1] = y;
	}
	for (int i = 1; i < n; i++)
		if (v[2 * i] == v[2 * (i - 1)])
			return "\"points\" must not have two points with the same x";
	return NULL;
}

static bool
function_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out)
{
	const double *v = p->vec[0];
	int			n = p->nvec[0];
	double		x = in[0];
	int			lo = 0,
				hi = n - 2;
	double		x1,
				y1,
				x2,
				y2;

	if (isnan(x))
	{
		*out = x;
		return true;
	}
	/* the segment [k, k + 1] with x[k] <= x, the first or the last beyond */
	while (lo < hi)
	{
		int			mid = (lo + hi + 1) / 2;

		if (v[2 * mid] <= x)
			lo = mid;
		else
			hi = mid - 1;
	}
	x1 = v[2 * lo];
	y1 = v[2 * lo + 1];
	x2 = v[2 * lo + 2];
	y2 = v[2 * lo + 3];
	*out = interp_checked(y1 + (y2 - y1) * (x - x1) / (x2 - x1), isfinite(x));
	return true;
}

const SpOpType sp_op_function = {
	.name = "Function",
	.params = function_params,
	.nin = 1,
	.check_params = function_check_params,
	.step = function_step,
};

/*
 * ---- ResamplerHermite: the rows' values read at the points of a grid of
 * time, interval apart, on a cubic Hermite spline ----
 *
 * It keeps the last four rows p0..p3.  Once it holds four, the grid
 * points from p1 to p2 (both included) are read on the cubic from p1 to p2
 * whose tangents are (y2 - y0) / 2 at p1 and (y3 - y1) / 2 at p2, per
 * span (the original's tension and bias 0), at mu = (t - t1) / (t2 - t1).
 * The grid starts at t1 of the first four rows, or, with t0 (seconds since
 * 1970-01-01 00:00:00 UTC), at the first point of t0's grid at or after it.
 * A row at the timestamp of the row before replaces it (the window holds
 * distinct times; the original expects them strictly increasing).
 *
 * The mesh runs once per row, so a row gives at most one value: that of
 * the latest grid point it makes readable, as ResamplerConstant does
 * (ops_lang.c).
 */

#define HERMITE_MAX_T0	1.0e11	/* seconds: beyond the range of timestamptz */

typedef struct HermiteState
{
	int64		n;				/* rows held, 0..4 */
	int64		next;			/* the next grid point, once n is 4; else 0 */
	int64		t[4];			/* their timestamps, oldest first */
	double		y[4];			/* their values */
} HermiteState;

static bool
hermite_t0_shown(const SpParams *p)
{
	return !isnan(p->value);
}

static const SpParamDef hermite_params[] = {
	{"interval", SP_PARAM_INTERVAL, offsetof(SpParams, window_us), true},
	{"t0", SP_PARAM_FLOAT, offsetof(SpParams, value), false, NAN, 0, 0, NULL, hermite_t0_shown},
	SP_PARAM_END
};

static const char *
hermite_check_params(SpParams *p)
{
	if (!isnan(p->value) &&
		!(p->value >= -HERMITE_MAX_T0 && p->value <= HERMITE_MAX_T0))
		return "\"t0\" must be a number of seconds since 1970-01-01 00:00:00 UTC within the range of timestamptz";
	return NULL;
}

static size_t
hermite_state_size(const SpParams *p)
{
	return sizeof(HermiteState);
}

static bool
hermite_timed(const SpParams *p)
{
	return true;
}

/* the first grid point at or after t */
static int64
hermite_first_point(const SpParams *p, int64 t)
{
	int64		t0;
	uint64		dt = (uint64) p->window_us;

	if (isnan(p->value))
		return t;
	t0 = sp_grid_t0(p->value);
	if (t <= t0)
		return t0;
	return sp_grid_add(t0, (((uint64) t - (uint64) t0 + dt - 1) / dt) * dt);
}

static double
hermite_at(const HermiteState *s, int64 g)
{
	double		y0 = s->y[0],
				y1 = s->y[1],
				y2 = s->y[2],
				y3 = s->y[3];
	double		mu = (double) ((uint64) g - (uint64) s->t[1]) /
		(double) ((uint64) s->t[2] - (uint64) s->t[1]);
	double		m0 = (y1 - y0) / 2 + (y2 - y1) / 2;
	double		m1 = (y2 - y1) / 2 + (y3 - y2) / 2;
	double		mu2 = mu * mu;
	double		mu3 = mu2 * mu;
	double		h00 = 2 * mu3 - 3 * mu2 + 1;
	double		h10 = mu3 - 2 * mu2 + mu;
	double		h01 = -2 * mu3 + 3 * mu2;
	double		h11 = mu3 - mu2;

	return interp_checked(h00 * y1 + h10 * m0 + h01 * y2 + h11 * m1,
						  isfinite(y0) && isfinite(y1) && isfinite(y2) && isfinite(y3));
}

static bool
hermite_step_at(const SpParams *p, void *state, SpRing *rings, int64 ts,
				const double *in, double *out)
{
	HermiteState *s = state;
	uint64		dt = (uint64) p->window_us;
	int64		g;

	sp_time_order("ResamplerHermite", s->n, s->n > 0 ? s->t[s->n - 1] : 0, ts);
	if (s->n > 0 && s->t[s->n - 1] == ts)
	{
		/* the same time: the later row stands for it; no new span */
		s->y[s->n - 1] = in[0];
		return false;
	}
	if (s->n < 4)
	{
		s->t[s->n] = ts;
		s->y[s->n] = in[0];
		s->n++;
		if (s->n < 4)
			return false;
		s->next = hermite_first_point(p, s->t[1]);
	}
	else
	{
		for (int k = 0; k < 3; k++)
		{
			s->t[k] = s->t[k + 1];
			s->y[k] = s->y[k + 1];
		}
		s->t[3] = ts;
		s->y[3] = in[0];
	}
	/* next >= t1 here (check_state holds it between rows) */
	if (s->next > s->t[2])
		return false;
	/* the latest grid point at or before t2 */
	g = (int64) ((uint64) s->next +
				 (((uint64) s->t[2] - (uint64) s->next) / dt) * dt);
	*out = hermite_at(s, g);
	s->next = sp_grid_add(g, dt);
	return true;
}

static void
hermite_visit(const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v)
{
	HermiteState *s = state;
	static const char *const tnames[4] = {"time0", "time1", "time2", "time3"};

	v->i64(v, "n", &s->n);
	v->i64(v, "next", &s->next);
	for (int k = 0; k < 4; k++)
		v->i64(v, tnames[k], &s->t[k]);
	v->f64s(v, "values", s->y, 4);
}

static const char *
hermite_check(const SpParams *p, const void *state, const SpRing *rings)
{
	const HermiteState *s = state;
	int64		extra;

	if (s->n < 0 || s->n > 4)
		return "n must be between 0 and 4";
	for (int k = 0; k < s->n; k++)
	{
		if (!IS_VALID_TIMESTAMP(s->t[k]))
			return "a time held is not a timestamp";
		if (k > 0 && s->t[k] <= s->t[k - 1])
			return "the times held must be increasing";
	}
	for (int k = (int) s->n; k < 4; k++)
		if (s->t[k] != 0 || s->y[k] != 0 || signbit(s->y[k]))
			return "the times and values past n must be 0";
	if (s->n < 4)
		return s->next == 0 ? NULL : "next must be 0 before four rows";

	/*
	 * After a row, next is the first grid point past t2 (at most one
	 * interval past it), or the grid's first point, past t2 too, at most t0;
	 * PG_INT64_MAX when that is past every timestamp.
	 */
	if (s->next <= s->t[2])
		return "next is not a grid point after t2";
	extra = p->window_us;
	if (!isnan(p->value))
	{
		int64		t0 = sp_grid_t0(p->value);

		if (t0 > s->t[2])
			extra = Max(extra, t0 - s->t[2]);
		if (s->next < t0)
			return "next is before t0";
		if (s->next != PG_INT64_MAX &&
			((uint64) s->next - (uint64) t0) % (uint64) p->window_us != 0)
			return "next is not a point of t0's grid";
	}
	if (s->next > sp_grid_add(s->t[2], (uint64) extra))
		return "next is not a grid point after t2";
	return NULL;
}

const SpOpType sp_op_resampler_hermite = {
	.name = "ResamplerHermite",
	.params = hermite_params,
	.nin = 1,
	.check_params = hermite_check_params,
	.state_size = hermite_state_size,
	.timed = hermite_timed,
	.step_at = hermite_step_at,
	.visit = hermite_visit,
	.check_state = hermite_check,
};
