/*
 * segment_agg.c
 *	  segment_agg(): the segment rule as true window functions.
 *
 * Like row_number() in windowfuncs.c, each call handles the current row
 * only: the running state lives in partition-local memory, sized for the
 * pipeline when the partition's first row arrives, and the mark position
 * follows the current row so the executor can drop rows already consumed.
 * The parsed configuration is cached in fn_extra and rebuilt only when a
 * partition brings a different spec.
 */
#include "postgres.h"

#include "fmgr.h"
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/memutils.h"
#include "windowapi.h"

#include "sp_codec.h"
#include "sp_engine.h"
#include "sp_spec.h"

PG_FUNCTION_INFO_V1(segment_agg_last);
PG_FUNCTION_INFO_V1(segment_agg_scalar);
PG_FUNCTION_INFO_V1(segment_agg_array);

#define ARG_VALUE	0
#define ARG_KEY		1
#define ARG_SPEC	2

/*
 * Parsed spec, kept for the query under fn_mcxt.  Its own context is reset
 * when a partition brings a different spec, so that a query whose spec
 * changes from partition to partition does not accumulate them.
 */
typedef struct SpecCache
{
	MemoryContext cxt;
	PipelineValue *raw;			/* copy of the value it was built from */
	SpConfig   *cfg;
	MemoryContext run_cxt;		/* the current partition's run; reset per partition */
} SpecCache;

static SpecCache *
spec_cache(FunctionCallInfo fcinfo)
{
	SpecCache  *cache = fcinfo->flinfo->fn_extra;

	if (cache == NULL)
	{
		cache = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(SpecCache));
		cache->cxt = AllocSetContextCreate(fcinfo->flinfo->fn_mcxt,
										   "segment_agg spec",
										   ALLOCSET_SMALL_SIZES);
		cache->run_cxt = AllocSetContextCreate(fcinfo->flinfo->fn_mcxt,
											   "segment_agg run",
											   ALLOCSET_DEFAULT_SIZES);
		fcinfo->flinfo->fn_extra = cache;
	}
	return cache;
}

/*
 * Partition-local memory.  The run itself lives in the cache's run context,
 * reset when a partition starts, so that it holds what this partition's
 * segments needed and no more.
 */
typedef struct PartitionState
{
	SpRun	   *run;			/* NULL until the first row */
	int64		next_pos;		/* the row we expect next */
	double		key;			/* the current key, once run->has_key */
} PartitionState;

static const SpConfig *
config_for(FunctionCallInfo fcinfo, WindowObject winobj, bool with_spec)
{
	SpecCache  *cache = spec_cache(fcinfo);
	MemoryContext old;
	PipelineValue *pv;
	Datum		d;
	bool		isnull;

	if (!with_spec)
	{
		/* two-argument form: the inner pipeline is Identity */
		if (cache->cfg == NULL)
		{
			old = MemoryContextSwitchTo(cache->cxt);
			cache->cfg = sp_spec_read("{\"type\": \"Identity\"}");
			MemoryContextSwitchTo(old);
		}
		return cache->cfg;
	}

	d = WinGetFuncArgCurrent(winobj, ARG_SPEC, &isnull);
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("segment_agg: spec must not be NULL")));
	pv = (PipelineValue *) PG_DETOAST_DATUM(d);
	if (cache->raw != NULL && VARSIZE(cache->raw) == VARSIZE(pv) &&
		memcmp(cache->raw, pv, VARSIZE(pv)) == 0)
		return cache->cfg;

	/* a different spec (or the first): forget the old one, parse this one */
	MemoryContextReset(cache->cxt);
	cache->raw = NULL;
	cache->cfg = NULL;
	old = MemoryContextSwitchTo(cache->cxt);
	cache->cfg = sp_value_config(pv);
	cache->raw = palloc(VARSIZE(pv));
	memcpy(cache->raw, pv, VARSIZE(pv));
	MemoryContextSwitchTo(old);
	return cache->cfg;
}

/*
 * The partition's running state; created from the spec on its first row.
 * Every call, whatever the row, also advances the mark.
 */
static PartitionState *
partition_state(FunctionCallInfo fcinfo, WindowObject winobj, bool with_spec,
				bool array_form)
{
	int64		pos = WinGetCurrentPosition(winobj);
	PartitionState *ps = WinGetPartitionLocalMemory(winobj, sizeof(PartitionState));

	if (pos == 0)
	{
		const SpConfig *cfg = config_for(fcinfo, winobj, with_spec);
		MemoryContext run_cxt = spec_cache(fcinfo)->run_cxt;

		if (!array_form && cfg->n_in != 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("segment_agg: pipeline \"%s\" has %d data ports, but the value is a single float8",
							cfg->id, cfg->n_in),
					 errhint("Pass one value per data port as a float8[].")));
		MemoryContextReset(run_cxt);
		ps->run = sp_run_create(cfg, run_cxt);
	}

	/* the executor calls us once per row, in order; anything else is a bug */
	if (ps->run == NULL || pos != ps->next_pos)
		elog(ERROR, "segment_agg: rows arrived out of order (position " INT64_FORMAT ")", pos);
	ps->next_pos = pos + 1;
	WinSetMarkPosition(winobj, pos);
	return ps;
}

/* Compare the row's key with the current one, and keep it when it is new. */
static SpKeyEvent
key_event(PartitionState *ps, bool knull, Datum k)
{
	double		key;

	if (knull)
		return SP_KEY_NULL;
	key = DatumGetFloat8(k);
	if (ps->run->has_key && sp_key_equal(ps->key, key))
		return SP_KEY_SAME;
	ps->key = key;
	return SP_KEY_NEW;
}

static Datum
scalar_row(FunctionCallInfo fcinfo, bool with_spec)
{
	WindowObject winobj = PG_WINDOW_OBJECT();
	PartitionState *ps = partition_state(fcinfo, winobj, with_spec, false);
	SpRun	   *run = ps->run;
	bool		vnull,
				knull;
	Datum		v = WinGetFuncArgCurrent(winobj, ARG_VALUE, &vnull);
	Datum		k = WinGetFuncArgCurrent(winobj, ARG_KEY, &knull);
	double		value = vnull ? 0.0 : DatumGetFloat8(v);

	if (sp_run_row(run, vnull ? NULL : &value, key_event(ps, knull, k)) &&
		run->emitted[0])
		PG_RETURN_FLOAT8(run->emit[0]);
	PG_RETURN_NULL();
}

/* segment_agg(value float8, key float8) */
Datum
segment_agg_last(PG_FUNCTION_ARGS)
{
	return scalar_row(fcinfo, false);
}

/* segment_agg(value float8, key float8, spec pipeline) */
Datum
segment_agg_scalar(PG_FUNCTION_ARGS)
{
	return scalar_row(fcinfo, true);
}

/*
 * Read a float8[] of one value per data port into values[].  Returns false
 * for punctuation (a NULL array, or every element NULL).
 */
static bool
read_array_row(Datum d, const SpConfig *cfg, double *values)
{
	ArrayType  *a = DatumGetArrayTypeP(d);
	int			n;
	bits8	   *nulls;
	const char *data;
	int			nnull = 0;

	if (ARR_NDIM(a) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("segment_agg: value must be a one-dimensional array")));
	n = ARR_NDIM(a) == 0 ? 0 : ARR_DIMS(a)[0];
	if (n != cfg->n_in)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("segment_agg: value has %d element%s, but pipeline \"%s\" has %d data port%s",
						n, n == 1 ? "" : "s", cfg->id, cfg->n_in,
						cfg->n_in == 1 ? "" : "s")));
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
		memcpy(&values[i], data, sizeof(double));
		data += sizeof(double);
	}
	if (nnull == n)
		return false;
	if (nnull > 0)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("segment_agg: value has %d NULL element%s out of %d",
						nnull, nnull == 1 ? "" : "s", n),
				 errdetail("A row is punctuation only when every element is NULL.")));
	return true;
}

/* segment_agg(value float8[], key float8, spec pipeline) */
Datum
segment_agg_array(PG_FUNCTION_ARGS)
{
	WindowObject winobj = PG_WINDOW_OBJECT();
	PartitionState *ps = partition_state(fcinfo, winobj, true, true);
	SpRun	   *run = ps->run;
	const SpConfig *cfg = run->cfg;
	bool		vnull,
				knull;
	Datum		v = WinGetFuncArgCurrent(winobj, ARG_VALUE, &vnull);
	Datum		k = WinGetFuncArgCurrent(winobj, ARG_KEY, &knull);
	bool		data_row;
	Datum	   *elems;
	bool	   *elem_nulls;
	int			dims[1];
	int			lbs[1] = {1};

	/* unpack straight into the engine's row buffer: no per-row allocation */
	data_row = !vnull && read_array_row(v, cfg, run->row_in);
	if (!sp_run_row(run, data_row ? run->row_in : NULL, key_event(ps, knull, k)))
		PG_RETURN_NULL();

	elems = palloc(sizeof(Datum) * cfg->n_out);
	elem_nulls = palloc(sizeof(bool) * cfg->n_out);
	for (int i = 0; i < cfg->n_out; i++)
	{
		elem_nulls[i] = !run->emitted[i];
		elems[i] = Float8GetDatum(elem_nulls[i] ? 0.0 : run->emit[i]);
	}
	dims[0] = cfg->n_out;
	PG_RETURN_ARRAYTYPE_P(construct_md_array(elems, elem_nulls, 1, dims, lbs,
											 FLOAT8OID, sizeof(double),
											 FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}
