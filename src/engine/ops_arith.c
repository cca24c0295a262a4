/*
 * ops_arith.c
 *	  Arithmetic: one-input functions and operators across several data ports.
 *
 * Everything here computes what PostgreSQL's float8 operators and functions
 * compute, errors included: overflow and underflow, division by zero, and
 * the domain errors of ln, log, power and the trigonometric functions.  A
 * pipeline fed a value that SQL would refuse stops the query the same way.
 */
#include "postgres.h"

#include <math.h>

#include "utils/float.h"

#include "sp_float.h"
#include "sp_operator.h"
#include "sp_sum.h"

static const SpParamDef value_params[] = {
	SP_PARAM_VALUE,
	SP_PARAM_END
};

/* ---- one input, every row ---- */

static double
fn_scale(const SpParams *p, double x)
{
	return float8_mul(x, p->value);
}

static double
fn_add(const SpParams *p, double x)
{
	return float8_pl(x, p->value);
}

/* power(x, y) as PostgreSQL defines it */
double
sp_float8_power(double x, double y)
{
	double		r;

	if (isnan(x))
		return (y == 0.0) ? 1.0 : x;
	if (isnan(y))
		return (x == 1.0) ? 1.0 : y;
	if (x == 0.0 && y < 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_ARGUMENT_FOR_POWER_FUNCTION),
				 errmsg("zero raised to a negative power is undefined")));
	if (x < 0.0 && floor(y) != y)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_ARGUMENT_FOR_POWER_FUNCTION),
				 errmsg("a negative number raised to a non-integer power yields a complex result")));
	errno = 0;
	r = pow(x, y);
	if (errno == ERANGE && isfinite(x) && isfinite(y))
	{
		if (r != 0.0)
			float_overflow_error();
		float_underflow_error();
	}
	return r;
}

static double
fn_power(const SpParams *p, double x)
{
	return sp_float8_power(x, p->value);
}

static double
fn_abs(const SpParams *p, double x)
{
	return fabs(x);
}

static double
fn_sign(const SpParams *p, double x)
{
	/* NaN compares false both ways and gets 0, as sign() gives */
	return (x > 0) ? 1.0 : (x < 0) ? -1.0 : 0.0;
}

static double
fn_floor(const SpParams *p, double x)
{
	return floor(x);
}

static double
fn_ceil(const SpParams *p, double x)
{
	return ceil(x);
}

static double
fn_round(const SpParams *p, double x)
{
	return rint(x);				/* round(float8): half to even */
}

static void
check_trig_input(double x)
{
	if (isinf(x))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("input is out of range")));
}

double
sp_float8_sin(double x)
{
	check_trig_input(x);
	return sin(x);
}

static double
fn_sin(const SpParams *p, double x)
{
	return sp_float8_sin(x);
}

double
sp_float8_cos(double x)
{
	check_trig_input(x);
	return cos(x);
}

static double
fn_cos(const SpParams *p, double x)
{
	return sp_float8_cos(x);
}

double
sp_float8_tan(double x)
{
	check_trig_input(x);
	return tan(x);
}

static double
fn_tan(const SpParams *p, double x)
{
	return sp_float8_tan(x);
}

double
sp_float8_exp(double x)
{
	double		r;

	if (isnan(x))
		return x;
	if (isinf(x))
		return (x > 0) ? x : 0.0;
	errno = 0;
	r = exp(x);
	if (errno == ERANGE)
	{
		if (r != 0.0)
			float_overflow_error();
		float_underflow_error();
	}
	return r;
}

static double
fn_exp(const SpParams *p, double x)
{
	return sp_float8_exp(x);
}

static void
check_log_input(double x)
{
	if (x == 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_ARGUMENT_FOR_LOG),
				 errmsg("cannot take logarithm of zero")));
	if (x < 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_ARGUMENT_FOR_LOG),
				 errmsg("cannot take logarithm of a negative number")));
}

double
sp_float8_ln(double x)
{
	check_log_input(x);
	return log(x);
}

double
sp_float8_log10(double x)
{
	check_log_input(x);
	return log10(x);
}

static double
fn_log(const SpParams *p, double x)
{
	return sp_float8_ln(x);
}

static double
fn_log10(const SpParams *p, double x)
{
	return sp_float8_log10(x);
}

static double
fn_le_replace(const SpParams *p, double x)
{
	return float8_le(x, p->value) ? p->value2 : x;
}

static const SpParamDef le_replace_params[] = {
	SP_PARAM_VALUE,
	{"replaceBy", SP_PARAM_FLOAT, offsetof(SpParams, value2), true},
	SP_PARAM_END
};

#define UNARY(sym, type_name, fn, plist) \
static bool \
sym##_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out) \
{ \
	*out = fn(p, in[0]); \
	return true; \
} \
const SpOpType sym = { \
	.name = type_name, .params = plist, .nin = 1, .step = sym##_step, \
}

UNARY(sp_op_scale, "Scale", fn_scale, value_params);
UNARY(sp_op_add, "Add", fn_add, value_params);
UNARY(sp_op_power, "Power", fn_power, value_params);
UNARY(sp_op_abs, "Abs", fn_abs, sp_no_params);
UNARY(sp_op_sign, "Sign", fn_sign, sp_no_params);
UNARY(sp_op_floor, "Floor", fn_floor, sp_no_params);
UNARY(sp_op_ceil, "Ceil", fn_ceil, sp_no_params);
UNARY(sp_op_round, "Round", fn_round, sp_no_params);
UNARY(sp_op_sin, "Sin", fn_sin, sp_no_params);
UNARY(sp_op_cos, "Cos", fn_cos, sp_no_params);
UNARY(sp_op_tan, "Tan", fn_tan, sp_no_params);
UNARY(sp_op_exp, "Exp", fn_exp, sp_no_params);
UNARY(sp_op_log, "Log", fn_log, sp_no_params);
UNARY(sp_op_log10, "Log10", fn_log10, sp_no_params);
UNARY(sp_op_le_replace, "LessThanOrEqualToReplace", fn_le_replace, le_replace_params);

/* ---- across data ports, left to right ---- */

static const SpParamDef ports_params[] = {
	SP_PARAM_NUM_PORTS,
	SP_PARAM_END
};

static int32
nin_num_ports(const SpParams *p)
{
	return p->num_ports;
}

#define FOLD(sym, type_name, fn) \
static bool \
sym##_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out) \
{ \
	double		acc = in[0]; \
	for (int i = 1; i < p->num_ports; i++) \
		acc = fn(acc, in[i]); \
	*out = acc; \
	return true; \
} \
const SpOpType sym = { \
	.name = type_name, .params = ports_params, .nin_from = nin_num_ports, \
	.step = sym##_step, \
}

FOLD(sp_op_addition, "Addition", float8_pl);
FOLD(sp_op_subtraction, "Subtraction", float8_mi);
FOLD(sp_op_multiplication, "Multiplication", float8_mul);
FOLD(sp_op_division, "Division", float8_div);

/* Linear: sum of coefficients[i] * x[i], one coefficient per data port. */

static const SpParamDef linear_params[] = {
	{"coefficients", SP_PARAM_VECTOR, offsetof(SpParams, vec[0]), true, 0, 2, SP_MAX_PORTS},
	{"numPorts", SP_PARAM_INT, offsetof(SpParams, num_ports), false, 0, 2, SP_MAX_PORTS},
	SP_PARAM_END
};

static const char *
linear_check_params(SpParams *p)
{
	if (p->num_ports == 0)
		p->num_ports = p->nvec[0];
	else if (p->num_ports != p->nvec[0])
		return psprintf("\"numPorts\" must equal the number of \"coefficients\" (%d)",
						p->nvec[0]);
	return NULL;
}

static bool
linear_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out)
{
	SpSum		acc = {0.0, 0.0};

	for (int i = 0; i < p->num_ports; i++)
		acc = sp_sum_add_sum(acc, sp_two_prod(p->vec[0][i], in[i]));
	*out = sp_sum_value(acc);
	return true;
}

const SpOpType sp_op_linear = {
	.name = "Linear",
	.params = linear_params,
	.nin_from = nin_num_ports,
	.check_params = linear_check_params,
	.step = linear_step,
};
