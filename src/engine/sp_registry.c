/*
 * sp_registry.c
 *	  The table of operator types.
 *
 * Adding an operator: define its SpOpType in its family's file and add one
 * line to SP_OPERATORS in sp_operator.h.
 */
#include "postgres.h"

#include "sp_operator.h"

#define SP_ENTRY(sym) &sym,

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
