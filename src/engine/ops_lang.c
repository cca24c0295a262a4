/*
 * ops_lang.c
 *	  The original library's operators that fit a segment and were not in
 *	  segpipe before: constants, logic over boolean ports, comparisons and
 *	  filters across data ports, MovingKeyCount and ResamplerConstant.
 *
 * Values on a boolean port are 1 or 0 (sp_engine.c).  Orderings are
 * PostgreSQL's float8 orderings, as in ops_compare.c: NaN equals NaN and
 * sorts above every other value; a tolerance test |x - y| <= t is never met
 * by NaN.  Every operator here but the last two is stateless.
 */
#include "postgres.h"

#include <math.h>

#include "datatype/timestamp.h"
#include "utils/float.h"

#include "sp_operator.h"
#include "sp_time.h"

static int32
nin_num_ports(const SpParams *p)
{
	return p->num_ports;
}

/* ---- constants: one output per input row, always the configured value ---- */

static const SpParamDef number_value_params[] = {
	SP_PARAM_VALUE,
	SP_PARAM_END
};

static const SpParamDef boolean_value_params[] = {
	{"value", SP_PARAM_BOOL, offsetof(SpParams, flag), true},
	SP_PARAM_END
};

static bool
constant_number_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out)
{
	*out = p->value;
	return true;
}

static bool
constant_boolean_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out)
{
	*out = p->flag ? 1.0 : 0.0;
	return true;
}

const SpOpType sp_op_constant_number = {
	.name = "ConstantNumber", .params = number_value_params, .nin = 1,
	.step = constant_number_step,
};

const SpOpType sp_op_constant_boolean = {
	.name = "ConstantBoolean", .params = boolean_value_params, .nin = 1,
	.in_type = SP_PORT_BOOLEAN, .out_type = SP_PORT_BOOLEAN,
	.step = constant_boolean_step,
};

const SpOpType sp_op_constant_number_to_boolean = {
	.name = "ConstantNumberToBoolean", .params = boolean_value_params, .nin = 1,
	.out_type = SP_PORT_BOOLEAN,
	.step = constant_boolean_step,
};

const SpOpType sp_op_constant_boolean_to_number = {
	.name = "ConstantBooleanToNumber", .params = number_value_params, .nin = 1,
	.in_type = SP_PORT_BOOLEAN,
	.step = constant_number_step,
};

/* ---- logic across boolean data ports ---- */

static const SpParamDef logic_params[] = {
	SP_PARAM_NUM_PORTS,
	SP_PARAM_END
};

/*
 * And, Or and Xor (odd parity) over all ports; Nand and Nor are their
 * negations.  Xnor and Implication fold from the left, as the original
 * does: ((a == b) == c), ((a -> b) -> c).
 */
static bool
logic_all(const SpParams *p, const double *in)
{
	for (int i = 0; i < p->num_ports; i++)
		if (in[i] == 0.0)
			return false;
	return true;
}

static bool
logic_any(const SpParams *p, const double *in)
{
	for (int i = 0; i < p->num_ports; i++)
		if (in[i] != 0.0)
			return true;
	return false;
}

static bool
logic_xor(const SpParams *p, const double *in)
{
	bool		acc = false;

	for (int i = 0; i < p->num_ports; i++)
		acc = acc != (in[i] != 0.0);
	return acc;
}

static bool
logic_nand(const SpParams *p, const double *in)
{
	return !logic_all(p, in);
}

static bool
logic_nor(const SpParams *p, const double *in)
{
	return !logic_any(p, in);
}

static bool
logic_xnor(const SpParams *p, const double *in)
{
	bool		acc = in[0] != 0.0;

	for (int i = 1; i < p->num_ports; i++)
		acc = acc == (in[i] != 0.0);
	return acc;
}

static bool
logic_implication(const SpParams *p, const double *in)
{
	bool		acc = in[0] != 0.0;

	for (int i = 1; i < p->num_ports; i++)
		acc = !acc || (in[i] != 0.0);
	return acc;
}

#define LOGIC(sym, type_name, fn) \
static bool \
sym##_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out) \
{ \
	*out = fn(p, in) ? 1.0 : 0.0; \
	return true; \
} \
const SpOpType sym = { \
	.name = type_name, .params = logic_params, .nin_from = nin_num_ports, \
	.in_type = SP_PORT_BOOLEAN, .out_type = SP_PORT_BOOLEAN, .step = sym##_step, \
}

LOGIC(sp_op_logical_and, "LogicalAnd", logic_all);
LOGIC(sp_op_logical_or, "LogicalOr", logic_any);
LOGIC(sp_op_logical_xor, "LogicalXor", logic_xor);
LOGIC(sp_op_logical_nand, "LogicalNand", logic_nand);
LOGIC(sp_op_logical_nor, "LogicalNor", logic_nor);
LOGIC(sp_op_logical_xnor, "LogicalXnor", logic_xnor);
LOGIC(sp_op_logical_implication, "LogicalImplication", logic_implication);

/* ---- comparisons of i1 with i2: a boolean on every row ---- */

static const SpParamDef tolerance_params[] = {
	{"tolerance", SP_PARAM_FLOAT, offsetof(SpParams, value2), false, 0},
	SP_PARAM_END
};

static const char *
check_tolerance(SpParams *p)
{
	return p->value2 >= 0 ? NULL : "\"tolerance\" must not be negative";
}

static bool
within(double x, double y, double tolerance)
{
	return fabs(x - y) <= tolerance;
}

#define COMPARE_SYNC(sym, type_name, expr, plist, check) \
static bool \
sym##_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out) \
{ \
	double		x = in[0], \
				y = in[1]; \
\
	*out = (expr) ? 1.0 : 0.0; \
	return true; \
} \
const SpOpType sym = { \
	.name = type_name, .params = plist, .nin = 2, .check_params = check, \
	.out_type = SP_PORT_BOOLEAN, .step = sym##_step, \
}

COMPARE_SYNC(sp_op_compare_sync_gt, "CompareSyncGT", float8_gt(x, y), sp_no_params, NULL);
COMPARE_SYNC(sp_op_compare_sync_lt, "CompareSyncLT", float8_lt(x, y), sp_no_params, NULL);
COMPARE_SYNC(sp_op_compare_sync_gte, "CompareSyncGTE", float8_ge(x, y), sp_no_params, NULL);
COMPARE_SYNC(sp_op_compare_sync_lte, "CompareSyncLTE", float8_le(x, y), sp_no_params, NULL);
COMPARE_SYNC(sp_op_compare_sync_eq, "CompareSyncEQ", within(x, y, p->value2),
			 tolerance_params, check_tolerance);
COMPARE_SYNC(sp_op_compare_sync_neq, "CompareSyncNEQ", !within(x, y, p->value2),
			 tolerance_params, check_tolerance);

/*
 * ---- filters across ports: i1's value passes when it meets the test
 * against every other port ----
 */

static const SpParamDef sync_params[] = {
	SP_PARAM_NUM_PORTS,
	SP_PARAM_END
};

static const SpParamDef sync_epsilon_params[] = {
	SP_PARAM_NUM_PORTS,
	{"epsilon", SP_PARAM_FLOAT, offsetof(SpParams, value2), false, 1e-10},
	SP_PARAM_END
};

static const char *
check_epsilon(SpParams *p)
{
	/* the original refuses 0 too: its test is strict, |x - y| < epsilon */
	return p->value2 > 0 ? NULL : "\"epsilon\" must be positive";
}

#define SYNC_FILTER(sym, type_name, expr, plist, check) \
static bool \
sym##_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out) \
{ \
	double		x = in[0]; \
\
	for (int i = 1; i < p->num_ports; i++) \
	{ \
		double		y = in[i]; \
\
		if (!(expr)) \
			return false; \
	} \
	*out = x; \
	return true; \
} \
const SpOpType sym = { \
	.name = type_name, .params = plist, .nin_from = nin_num_ports, \
	.check_params = check, .step = sym##_step, \
}

SYNC_FILTER(sp_op_sync_greater_than, "SyncGreaterThan", float8_gt(x, y), sync_params, NULL);
SYNC_FILTER(sp_op_sync_less_than, "SyncLessThan", float8_lt(x, y), sync_params, NULL);
SYNC_FILTER(sp_op_sync_equal, "SyncEqual", fabs(x - y) < p->value2,
			sync_epsilon_params, check_epsilon);
SYNC_FILTER(sp_op_sync_not_equal, "SyncNotEqual", !(fabs(x - y) < p->value2),
			sync_epsilon_params, check_epsilon);

/*
 * ---- MovingKeyCount: how many of the last window_size values (this one
 * included) equal this one, on every row.  Equality is float8's: NaN equals
 * NaN, -0 equals 0.  O(window_size) per row: the window is scanned rather
 * than kept in a hash table, so that the state is the window alone ----
 */

static const SpParamDef key_count_params[] = {
	SP_PARAM_WINDOW_SIZE(1),
	SP_PARAM_END
};

static int
key_count_rings(const SpParams *p, int64 *limits)
{
	limits[0] = p->window_size;
	return 1;
}

static bool
key_count_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out)
{
	SpRing	   *r = &rings[0];
	int64		n = 0;

	if (sp_ring_full(r))
		(void) sp_ring_pop_oldest(r);
	sp_ring_push(r, in[0]);
	for (int64 i = 0; i < r->count; i++)
		if (float8_eq(sp_ring_get(r, i), in[0]))
			n++;
	*out = (double) n;
	return true;
}

static void
key_count_visit(const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v)
{
	v->ring(v, "keys", &rings[0]);
}

static const char *
key_count_check(const SpParams *p, const void *state, const SpRing *rings)
{
	return NULL;				/* any values, at most window_size of them */
}

const SpOpType sp_op_moving_key_count = {
	.name = "MovingKeyCount",
	.params = key_count_params,
	.nin = 1,
	.rings = key_count_rings,
	.step = key_count_step,
	.visit = key_count_visit,
	.check_state = key_count_check,
};

/*
 * ---- ResamplerConstant: the value held at each point of a grid of time,
 * interval apart ----
 *
 * The grid starts at t0 (seconds since 1970-01-01 00:00:00 UTC) when given,
 * else one interval after the segment's first row.  A grid point before a
 * row takes the value of the row before it; a grid point at a row takes that
 * row's value.  Without snapFirst the first row only sets the value and the
 * grid; with it, the first row's value also stands for the grid point at or
 * before it (the original's rule for bins that arrive after their end).
 *
 * The mesh runs once per row, so a row gives at most one value: that of the
 * latest grid point it reaches.  The original emits one message per grid
 * point; its latest is the one segpipe emits, so the pipeline's output (the
 * latest value a segment produced) is the same, and an operator after this
 * one sees one value per row rather than one per grid point.
 */

#define RESAMPLER_MAX_T0	1.0e11	/* seconds: beyond the range of timestamptz */

typedef struct ResamplerState
{
	int64		n;				/* 0 before the segment's first row, else 1 */
	int64		next;			/* the next grid point (TimestampTz) */
	int64		last;			/* the last row's timestamp */
	double		held;			/* the last row's value */
} ResamplerState;

static bool
t0_shown(const SpParams *p)
{
	return !isnan(p->value);
}

static const SpParamDef resampler_params[] = {
	{"interval", SP_PARAM_INTERVAL, offsetof(SpParams, window_us), true},
	{"t0", SP_PARAM_FLOAT, offsetof(SpParams, value), false, NAN, 0, 0, NULL, t0_shown},
	{"snapFirst", SP_PARAM_INT, offsetof(SpParams, choice), false, 0, 0, 1},
	SP_PARAM_END
};

static const char *
resampler_check_params(SpParams *p)
{
	if (!isnan(p->value) &&
		!(p->value >= -RESAMPLER_MAX_T0 && p->value <= RESAMPLER_MAX_T0))
		return "\"t0\" must be a number of seconds since 1970-01-01 00:00:00 UTC within the range of timestamptz";
	return NULL;
}

static size_t
resampler_state_size(const SpParams *p)
{
	return sizeof(ResamplerState);
}

static bool
resampler_timed(const SpParams *p)
{
	return true;
}

static bool
resampler_step_at(const SpParams *p, void *state, SpRing *rings, int64 ts,
				  const double *in, double *out)
{
	ResamplerState *s = state;
	int64		dt = p->window_us;
	bool		emit = false;

	sp_time_order("ResamplerConstant", s->n, s->last, ts);
	if (s->n == 0)
	{
		/* (past the last timestamp, the grid has no more points) */
		if (isnan(p->value))
			s->next = sp_grid_add(ts, dt);
		else
		{
			int64		t0 = sp_grid_t0(p->value);

			if (ts < t0)
				s->next = t0;
			else
				s->next = sp_grid_add(t0, (((uint64) ts - (uint64) t0) / dt + (p->choice ? 0 : 1)) * dt);
		}
		s->n = 1;
		s->last = ts;
		s->held = in[0];
		if (!p->choice)
			return false;
	}
	if (p->choice)
		s->held = in[0];
	if (s->next < ts)
	{
		/* the grid points in [next, ts): the latest takes the held value */
		uint64		k = ((uint64) ts - (uint64) s->next - 1) / dt + 1;

		*out = s->held;
		emit = true;
		s->next = sp_grid_add(s->next, k * dt);
	}
	if (s->next == ts)
	{
		*out = in[0];
		emit = true;
		s->next = sp_grid_add(s->next, dt);
	}
	s->held = in[0];
	s->last = ts;
	return emit;
}

static void
resampler_visit(const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v)
{
	ResamplerState *s = state;

	v->i64(v, "n", &s->n);
	v->i64(v, "next", &s->next);
	v->i64(v, "last", &s->last);
	v->f64(v, "held", &s->held);
}

static const char *
resampler_check(const SpParams *p, const void *state, const SpRing *rings)
{
	const ResamplerState *s = state;

	if (s->n == 0)
		return (s->next == 0 && s->last == 0 && s->held == 0 && !signbit(s->held)) ? NULL :
			"next, last and held must be 0 before the first row";
	if (s->n != 1)
		return "n must be 0 or 1";
	if (!IS_VALID_TIMESTAMP(s->last))
		return "last is not a timestamp";
	/* after a row, the next grid point is after it, and at most t0 or one interval away */
	if (s->next <= s->last)
		return "next is not a grid point after last";
	else
	{
		int64		t0 = isnan(p->value) ? PG_INT64_MIN : sp_grid_t0(p->value);
		uint64		reach = (uint64) p->window_us;

		if (t0 > s->last)
			reach = Max(reach, (uint64) t0 - (uint64) s->last);
		if (s->next > sp_grid_add(s->last, reach))
			return "next is not a grid point after last";
	}
	return NULL;
}

const SpOpType sp_op_resampler_constant = {
	.name = "ResamplerConstant",
	.params = resampler_params,
	.nin = 1,
	.check_params = resampler_check_params,
	.state_size = resampler_state_size,
	.timed = resampler_timed,
	.step_at = resampler_step_at,
	.visit = resampler_visit,
	.check_state = resampler_check,
};

/*
 * ---- Multiplexer: numPorts number ports i1.., numPorts boolean control
 * ports c1..; the value of port k when control k alone is true, else
 * nothing ----
 */

static int32
mux_nin(const SpParams *p)
{
	return 2 * p->num_ports;
}

static int32
mux_nctl(const SpParams *p)
{
	return p->num_ports;
}

static SpPortType
mux_in_type_at(const SpParams *p, int port)
{
	return port < p->num_ports ? SP_PORT_NUMBER : SP_PORT_BOOLEAN;
}

static bool
mux_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out)
{
	int			chosen = -1;

	for (int k = 0; k < p->num_ports; k++)
	{
		if (in[p->num_ports + k] == 0.0)
			continue;
		if (chosen >= 0)
			return false;
		chosen = k;
	}
	if (chosen < 0)
		return false;
	*out = in[chosen];
	return true;
}

const SpOpType sp_op_multiplexer = {
	.name = "Multiplexer", .params = logic_params, .nin_from = mux_nin,
	.nctl_from = mux_nctl, .in_type_at = mux_in_type_at, .step = mux_step,
};

/*
 * ---- TimestampExtract: the row's timestamp, in seconds since 1970-01-01
 * 00:00:00 UTC, on every row: the float8 nearest the exact value, as
 * extract(epoch from ts)::float8 gives ----
 */

static bool
timestamp_extract_step_at(const SpParams *p, void *state, SpRing *rings, int64 ts,
						  const double *in, double *out)
{
	/* exact in int64; one rounding, in the division */
	int64		unix_us = ts + (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SP_USECS_PER_DAY;

	*out = (double) unix_us / 1e6;
	return true;
}

/*
 * Its port takes any value, the original's vector or a number, as the
 * value is not read.
 */
const SpOpType sp_op_timestamp_extract = {
	.name = "TimestampExtract", .params = sp_no_params, .nin = 1,
	.in_type = SP_PORT_ANY,
	.timed = resampler_timed, .step_at = timestamp_extract_step_at,
};

/*
 * ---- Demultiplexer: a value on i1 (of portType), numPorts boolean
 * control ports c1.. and as many outputs: the value goes out on o_k for
 * every control c_k that is true ----
 */

static const char *const port_type_words[] = {"number", "boolean", NULL};

static const SpParamDef demux_params[] = {
	{"numPorts", SP_PARAM_INT, offsetof(SpParams, num_ports), false, 1, 1, SP_MAX_PORTS},
	{"portType", SP_PARAM_CHOICE, offsetof(SpParams, choice), false, 0, 0, 0, port_type_words},
	SP_PARAM_END
};

static int32
demux_nin(const SpParams *p)
{
	return 1 + p->num_ports;
}

static SpPortType
demux_value_type(const SpParams *p)
{
	return p->choice == 1 ? SP_PORT_BOOLEAN : SP_PORT_NUMBER;
}

static SpPortType
demux_in_type_at(const SpParams *p, int port)
{
	return port == 0 ? demux_value_type(p) : SP_PORT_BOOLEAN;
}

static SpPortType
demux_out_type_at(const SpParams *p, int port)
{
	return demux_value_type(p);
}

static bool
demux_step_multi(const SpParams *p, void *state, SpRing *rings, int64 ts, const double *in,
				 double *out, bool *have)
{
	bool		any = false;

	for (int k = 0; k < p->num_ports; k++)
	{
		if (in[1 + k] == 0.0)
			continue;
		out[k] = in[0];
		have[k] = true;
		any = true;
	}
	return any;
}

/* with one output port, the engine steps it as any operator */
static bool
demux_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out)
{
	bool		have = false;

	return demux_step_multi(p, state, rings, 0, in, out, &have) && have;
}

const SpOpType sp_op_demultiplexer = {
	.name = "Demultiplexer", .params = demux_params, .nin_from = demux_nin,
	.nctl_from = mux_nctl, .in_type_at = demux_in_type_at,
	.nout_from = mux_nctl, .out_type_at = demux_out_type_at,
	.step = demux_step, .step_multi = demux_step_multi,
};
