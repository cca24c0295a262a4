/*
 * ops_compare.c
 *	  Filters and comparisons.
 *
 * Filters pass a number on only when it meets their test; comparisons emit a
 * boolean (1 or 0) on every row.  Ordering is PostgreSQL's float8 ordering:
 * NaN equals NaN and sorts above every other value.  Equality tests take a
 * tolerance instead: |x - value| <= epsilon, which NaN never meets.
 */
#include "postgres.h"

#include <math.h>

#include "utils/float.h"

#include "sp_operator.h"

static const char *
check_epsilon(SpParams *p)
{
	return p->value2 < 0 ? "\"epsilon\" must not be negative" : NULL;
}

static const char *
check_tolerance(SpParams *p)
{
	return p->value2 < 0 ? "\"tolerance\" must not be negative" : NULL;
}

static const SpParamDef value_params[] = {
	SP_PARAM_VALUE,
	SP_PARAM_END
};

static const SpParamDef epsilon_params[] = {
	SP_PARAM_VALUE,
	{"epsilon", SP_PARAM_FLOAT, offsetof(SpParams, value2), false, 1e-10},
	SP_PARAM_END
};

static const SpParamDef tolerance_params[] = {
	SP_PARAM_VALUE,
	{"tolerance", SP_PARAM_FLOAT, offsetof(SpParams, value2), false, 0},
	SP_PARAM_END
};

static bool
within(const SpParams *p, double x)
{
	return fabs(x - p->value) <= p->value2;
}

/*
 * One test per operator; the filter and comparison forms of each are built
 * from it by the two macros below.
 */
static bool
test_gt(const SpParams *p, double x)
{
	return float8_gt(x, p->value);
}

static bool
test_lt(const SpParams *p, double x)
{
	return float8_lt(x, p->value);
}

static bool
test_ge(const SpParams *p, double x)
{
	return float8_ge(x, p->value);
}

static bool
test_le(const SpParams *p, double x)
{
	return float8_le(x, p->value);
}

static bool
test_eq(const SpParams *p, double x)
{
	return within(p, x);
}

static bool
test_ne(const SpParams *p, double x)
{
	return !within(p, x);
}

#define FILTER(sym, type_name, test, plist, check) \
static bool \
sym##_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out) \
{ \
	if (!test(p, in[0])) \
		return false; \
	*out = in[0]; \
	return true; \
} \
const SpOpType sym = { \
	.name = type_name, .params = plist, .nin = 1, .check_params = check, \
	.step = sym##_step, \
}

#define COMPARE(sym, type_name, test, plist, check) \
static bool \
sym##_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out) \
{ \
	*out = test(p, in[0]) ? 1.0 : 0.0; \
	return true; \
} \
const SpOpType sym = { \
	.name = type_name, .params = plist, .nin = 1, .check_params = check, \
	.out_type = SP_PORT_BOOLEAN, .step = sym##_step, \
}

FILTER(sp_op_greater_than, "GreaterThan", test_gt, value_params, NULL);
FILTER(sp_op_less_than, "LessThan", test_lt, value_params, NULL);
FILTER(sp_op_equal_to, "EqualTo", test_eq, epsilon_params, check_epsilon);
FILTER(sp_op_not_equal_to, "NotEqualTo", test_ne, epsilon_params, check_epsilon);

COMPARE(sp_op_compare_gt, "CompareGT", test_gt, value_params, NULL);
COMPARE(sp_op_compare_lt, "CompareLT", test_lt, value_params, NULL);
COMPARE(sp_op_compare_gte, "CompareGTE", test_ge, value_params, NULL);
COMPARE(sp_op_compare_lte, "CompareLTE", test_le, value_params, NULL);
COMPARE(sp_op_compare_eq, "CompareEQ", test_eq, tolerance_params, check_tolerance);
COMPARE(sp_op_compare_neq, "CompareNEQ", test_ne, tolerance_params, check_tolerance);

/* BooleanToNumber: the way from a boolean port to a number port. */

static bool
boolean_to_number_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out)
{
	*out = (in[0] != 0.0) ? 1.0 : 0.0;
	return true;
}

const SpOpType sp_op_boolean_to_number = {
	.name = "BooleanToNumber",
	.params = sp_no_params,
	.nin = 1,
	.in_type = SP_PORT_BOOLEAN,
	.out_type = SP_PORT_NUMBER,
	.step = boolean_to_number_step,
};
