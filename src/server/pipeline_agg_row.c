/*
 * pipeline_agg_row.c
 *	  pipeline_agg_row(ts, value, key_row record, spec): pipeline_agg with
 *	  the key passed as the only column of a row, ROW(key).
 *
 * Generated code (the trigger segpipe_maintain writes) calls this form:
 * its argument types are fixed (timestamptz, float8 or float8[], record,
 * pipeline), so a call that gives them exactly matches this aggregate and
 * no other.  An exact match wins over every candidate, and two functions
 * of one schema cannot share a signature, so nothing planted in any schema
 * can be a closer match, as it can be for pipeline_agg's anyelement key.
 * The rows are run by pipeline_agg's own steps (pipeline_agg.h).
 *
 * pipeline_agg_checkpoints is the same with the checkpoints of the run
 * (pipeline_agg.h) after its result, in one array: the maintained trigger
 * keeps them, and corrects a sensor by running its readings again from
 * the last checkpoint before the change.
 */
#include "postgres.h"

#include "fmgr.h"
#include "access/htup_details.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

#include "pipeline_agg.h"

PG_FUNCTION_INFO_V1(pipeline_agg_row_step);
PG_FUNCTION_INFO_V1(pipeline_agg_row_step_array);
PG_FUNCTION_INFO_V1(pipeline_agg_checkpoints_step);
PG_FUNCTION_INFO_V1(pipeline_agg_checkpoints_step_array);
PG_FUNCTION_INFO_V1(pipeline_agg_checkpoints_final);

#define ARG_KEY_ROW	3

/*
 * The group's state and the row's key.  The first row's column gives the
 * key type and its collation; every later row's column must be of that
 * type (a record argument may change its row type from row to row).
 */
static AggState *
row_state(FunctionCallInfo fcinfo, bool *knull, Datum *key, bool checkpoints)
{
	HeapTupleHeader th;
	TupleDesc	desc;
	Form_pg_attribute att;
	HeapTupleData tuple;
	AggState   *as;

	if (PG_ARGISNULL(ARG_KEY_ROW))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("key row must not be null"),
				 errhint("Pass the key as ROW(key); a NULL key is ROW(NULL).")));
	th = PG_GETARG_HEAPTUPLEHEADER(ARG_KEY_ROW);
	desc = lookup_rowtype_tupdesc(HeapTupleHeaderGetTypeId(th), HeapTupleHeaderGetTypMod(th));
	att = TupleDescAttr(desc, 0);
	if (desc->natts != 1 || att->attisdropped)
	{
		ReleaseTupleDesc(desc);
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("key row must have exactly one column"),
				 errhint("Pass the key as ROW(key).")));
	}
	as = sp_agg_state(fcinfo, att->atttypid, att->attcollation);
	if (checkpoints)
		sp_agg_keep_checkpoints(as);
	if (att->atttypid != sp_agg_key_type(as))
	{
		Oid			type = att->atttypid;

		ReleaseTupleDesc(desc);
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("key rows of one group must have one key type"),
				 errdetail("A key of type %s follows keys of type %s.",
						   format_type_be(type), format_type_be(sp_agg_key_type(as)))));
	}
	tuple.t_len = HeapTupleHeaderGetDatumLength(th);
	ItemPointerSetInvalid(&tuple.t_self);
	tuple.t_tableOid = InvalidOid;
	tuple.t_data = th;
	*key = heap_getattr(&tuple, 1, desc, knull);
	ReleaseTupleDesc(desc);
	return as;
}

/* One row of either aggregate, in either value form. */
static Datum
row_step(FunctionCallInfo fcinfo, bool checkpoints, bool array)
{
	bool		knull;
	Datum		key;
	AggState   *as = row_state(fcinfo, &knull, &key, checkpoints);

	if (array)
		sp_agg_step_array(fcinfo, as, knull, key);
	else
		sp_agg_step_scalar(fcinfo, as, knull, key);
	PG_RETURN_POINTER(as);
}

/* pipeline_agg_row(ts timestamptz, value float8 or float8[], key_row record, spec pipeline) */
Datum
pipeline_agg_row_step(PG_FUNCTION_ARGS)
{
	return row_step(fcinfo, false, false);
}

Datum
pipeline_agg_row_step_array(PG_FUNCTION_ARGS)
{
	return row_step(fcinfo, false, true);
}

/* pipeline_agg_checkpoints(ts timestamptz, value float8 or float8[], key_row record, spec pipeline) */
Datum
pipeline_agg_checkpoints_step(PG_FUNCTION_ARGS)
{
	return row_step(fcinfo, true, false);
}

Datum
pipeline_agg_checkpoints_step_array(PG_FUNCTION_ARGS)
{
	return row_step(fcinfo, true, true);
}

/* the result, then the checkpoints: pipeline[] */
Datum
pipeline_agg_checkpoints_final(PG_FUNCTION_ARGS)
{
	AggState   *as;
	const Datum *ckpt;
	Datum	   *elems;
	int			n;
	Oid			elemtype;
	int16		typlen;
	bool		typbyval;
	char		typalign;

	if (!AggCheckCallContext(fcinfo, NULL))
		elog(ERROR, "pipeline_agg_checkpoints final function called in non-aggregate context");
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	as = (AggState *) PG_GETARG_POINTER(0);
	elemtype = get_element_type(get_fn_expr_rettype(fcinfo->flinfo));
	if (!OidIsValid(elemtype))
		elog(ERROR, "pipeline_agg_checkpoints must return an array");
	ckpt = sp_agg_checkpoints(as, &n);
	elems = palloc(sizeof(Datum) * (n + 1));
	elems[0] = sp_agg_result(as);
	if (n > 0)
		memcpy(elems + 1, ckpt, sizeof(Datum) * n);
	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	PG_RETURN_ARRAYTYPE_P(construct_array(elems, n + 1, elemtype, typlen, typbyval, typalign));
}
