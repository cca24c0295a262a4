/*
 * sp_rowvalue.c
 *	  Checking and unpacking a row's value for the SQL functions.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/array.h"

#include "sp_rowvalue.h"

void
sp_check_scalar_form(const SpConfig *cfg)
{
	if (cfg->n_in != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a single float8 value cannot feed a pipeline with several data ports"),
				 errdetail_plural("Pipeline \"%s\" has %d data port.",
								  "Pipeline \"%s\" has %d data ports.",
								  cfg->n_in, cfg->id, cfg->n_in),
				 errhint("Pass one value per data port as a float8[].")));
}

bool
sp_read_array_row(Datum d, double *values, const SpConfig *cfg)
{
	ArrayType  *a = DatumGetArrayTypeP(d);
	int			n;
	bits8	   *nulls;
	const char *data;
	int			nnull = 0;

	if (ARR_NDIM(a) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("value must be a one-dimensional array")));
	n = ARR_NDIM(a) == 0 ? 0 : ARR_DIMS(a)[0];
	if (cfg != NULL && n != cfg->n_in)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("value does not have one element per data port"),
				 errdetail("Number of elements (%d) does not match number of data ports (%d) of pipeline \"%s\".",
						   n, cfg->n_in, cfg->id)));
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("value must not be an empty array")));
	Assert(ARR_ELEMTYPE(a) == FLOAT8OID);
	nulls = ARR_NULLBITMAP(a);
	data = ARR_DATA_PTR(a);
	for (int i = 0; i < n; i++)
	{
		if (nulls && !(nulls[i / 8] & (1 << (i % 8))))
		{
			nnull++;
			continue;
		}
		if (values != NULL)
			memcpy(&values[i], data, sizeof(double));
		data += sizeof(double);
	}
	if (nnull == n)
		return false;
	if (nnull > 0)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg_plural("value has %d null element out of %d",
							   "value has %d null elements out of %d",
							   nnull, nnull, n),
				 errdetail("A row is punctuation only when every element is null.")));
	return true;
}
