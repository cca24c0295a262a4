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
	if (sp_port_is_vector(cfg->in_types[0]))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a single float8 value cannot feed a vector port"),
				 errdetail("Pipeline \"%s\" takes a %s on its data port.",
						   cfg->id, cfg->in_types[0] == SP_PORT_VECTOR_BOOLEAN ?
						   "vector_boolean" : "vector_number"),
				 errhint("Pass the vector as an array.")));
	if (cfg->n_in != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a single float8 value cannot feed a pipeline with several data ports"),
				 errdetail_plural("Pipeline \"%s\" has %d data port.",
								  "Pipeline \"%s\" has %d data ports.",
								  cfg->n_in, cfg->id, cfg->n_in),
				 errhint("Pass one value per data port as a float8[].")));
}

/*
 * The elements of a float8[] or boolean[] (booleans as 1 or 0) into values
 * when given; returns false when every element is NULL.
 */
static bool
read_elements(ArrayType *a, int n, double *values)
{
	bits8	   *nulls;
	const char *data;
	int			nnull = 0;
	bool		is_bool = ARR_ELEMTYPE(a) == BOOLOID;

	Assert(ARR_ELEMTYPE(a) == FLOAT8OID || is_bool);
	nulls = ARR_NULLBITMAP(a);
	data = ARR_DATA_PTR(a);
	for (int i = 0; i < n; i++)
	{
		if (nulls && !(nulls[i / 8] & (1 << (i % 8))))
		{
			nnull++;
			continue;
		}
		if (is_bool)
		{
			if (values != NULL)
				values[i] = *(const bool *) data ? 1.0 : 0.0;
			data += sizeof(bool);
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

static int
array_length_1d(ArrayType *a)
{
	if (ARR_NDIM(a) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("value must be a one-dimensional array")));
	return ARR_NDIM(a) == 0 ? 0 : ARR_DIMS(a)[0];
}

bool
sp_read_run_row(Datum d, SpRun *run)
{
	const SpConfig *cfg = run->cfg;
	ArrayType  *a;
	int			n;
	bool		data_row;

	if (!(cfg->vectors && sp_port_is_vector(cfg->in_types[0])))
		return sp_read_array_row(d, run->row_in, cfg);
	a = DatumGetArrayTypeP(d);
	n = array_length_1d(a);
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("value must not be an empty array")));
	if (n > SP_MAX_LANES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("vector too long"),
				 errdetail("The value has %d elements; a vector has at most %d lanes.",
						   n, SP_MAX_LANES)));
	data_row = read_elements(a, n, sp_run_lanes(run, SP_AREA_IN));
	run->lane_n[SP_AREA_IN] = data_row ? n : 0;
	run->row_in[0] = data_row ? n : 0;
	return data_row;
}

bool
sp_read_array_row(Datum d, double *values, const SpConfig *cfg)
{
	ArrayType  *a = DatumGetArrayTypeP(d);
	int			n = array_length_1d(a);

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
	return read_elements(a, n, values);
}
