/*
 * sp_registry.c
 *	  The table of operator types.
 *
 * Adding an operator: define its SpOpType in its family's file and add one
 * line to SP_OPERATORS below.
 */
#include "postgres.h"

#include "sp_operator.h"

#define SP_OPERATORS(X) \
	X(sp_op_identity) \
	X(sp_op_cumulative_sum) \
	X(sp_op_count_number) \
	X(sp_op_max_tracker) \
	X(sp_op_min_tracker) \
	X(sp_op_moving_average) \
	X(sp_op_moving_sum) \
	X(sp_op_standard_deviation) \
	X(sp_op_window_min_max) \
	X(sp_op_peak_detector) \
	X(sp_op_difference) \
	X(sp_op_fir) \
	X(sp_op_iir) \
	X(sp_op_scale) \
	X(sp_op_add) \
	X(sp_op_power) \
	X(sp_op_abs) \
	X(sp_op_sign) \
	X(sp_op_floor) \
	X(sp_op_ceil) \
	X(sp_op_round) \
	X(sp_op_sin) \
	X(sp_op_cos) \
	X(sp_op_tan) \
	X(sp_op_exp) \
	X(sp_op_log) \
	X(sp_op_log10) \
	X(sp_op_le_replace) \
	X(sp_op_greater_than) \
	X(sp_op_less_than) \
	X(sp_op_equal_to) \
	X(sp_op_not_equal_to) \
	X(sp_op_compare_gt) \
	X(sp_op_compare_lt) \
	X(sp_op_compare_gte) \
	X(sp_op_compare_lte) \
	X(sp_op_compare_eq) \
	X(sp_op_compare_neq) \
	X(sp_op_boolean_to_number) \
	X(sp_op_addition) \
	X(sp_op_subtraction) \
	X(sp_op_multiplication) \
	X(sp_op_division) \
	X(sp_op_linear)

#define SP_DECLARE(sym) extern const SpOpType sym;
#define SP_ENTRY(sym) &sym,

SP_OPERATORS(SP_DECLARE)

static const SpOpType *const registry[] = {SP_OPERATORS(SP_ENTRY)};

const SpOpType *
sp_find_op_type(const char *name)
{
	for (int i = 0; i < lengthof(registry); i++)
		if (strcmp(registry[i]->name, name) == 0)
			return registry[i];
	return NULL;
}

/* The i-th operator type, for listing them; NULL past the last. */
const SpOpType *
sp_op_type_at(int i)
{
	return i >= 0 && i < lengthof(registry) ? registry[i] : NULL;
}

const SpParamDef sp_no_params[] = {SP_PARAM_END};
