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
	X(sp_op_moving_average) \
	X(sp_op_moving_sum) \
	X(sp_op_standard_deviation)

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
