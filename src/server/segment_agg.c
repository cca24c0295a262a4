/*
 * segment_agg.c
 *	  segment_agg() and segment_key(): the segment rule as true window
 *	  functions.
 *
 * Like row_number() in windowfuncs.c, each call handles the current row
 * only: the running state lives in partition-local memory, created when the
 * partition's first row arrives, and the mark position follows the current
 * row so the executor can drop rows already consumed.  The parsed spec and
 * the key type's equality are cached in fn_extra for the query.
 *
 * With close_at_end, the partition's last row also closes the open segment.
 * The last row is found by asking for the next row's argument (one row
 * ahead, never the whole partition).  A row reports one closing at most:
 * when the last row is itself a boundary, it reports the segment it closes,
 * and the one-row segment it opens is not reported.
 */
#include "postgres.h"

#include "fmgr.h"
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/datum.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "windowapi.h"

#include "sp_codec.h"
#include "sp_compat.h"
#include "sp_engine.h"
#include "sp_key.h"
#include "sp_rowvalue.h"
#include "sp_resume.h"
#include "sp_spec.h"

PG_FUNCTION_INFO_V1(segment_agg_last);
PG_FUNCTION_INFO_V1(segment_agg_scalar);
PG_FUNCTION_INFO_V1(segment_agg_array);
PG_FUNCTION_INFO_V1(segment_agg_ts_scalar);
PG_FUNCTION_INFO_V1(segment_agg_ts_array);
PG_FUNCTION_INFO_V1(segment_key_scalar);
PG_FUNCTION_INFO_V1(segment_key_array);

#define ARG_VALUE	0
#define ARG_KEY		1
#define ARG_SPEC	2

/* What a call site is; the option, when present, is the last argument. */
#define FORM_RUN		0x01	/* segment_agg: runs a pipeline */
#define FORM_SPEC		0x02	/* the pipeline comes from the spec argument */
#define FORM_ARRAY		0x04	/* the value is a float8[] */
#define FORM_OPTION		0x08	/* close_at_end is given */
#define FORM_TS			0x10	/* the first argument is the row's timestamp */

/* Argument a (ARG_VALUE, ...) of a call site: after ts in the FORM_TS forms. */
#define ARG(form, a)	((a) + (((form) & FORM_TS) ? 1 : 0))

/*
 * What a call site keeps for the query, under fn_mcxt.  A spec that
 * carries state is decoded here once, and each partition starts from a copy
 * (docs/reference.md, "Window functions").  The spec context is reset when
 * a partition brings a different spec, so that a query whose spec changes
 * from partition to partition does not accumulate them; the run context is
 * reset when a partition starts.
 */
typedef struct CallCache
{
	MemoryContext spec_cxt;
	PipelineValue *raw;			/* copy of the value cfg was built from */
	SpConfig   *cfg;
	SpRun	   *state_run;		/* the spec's state, decoded, or NULL */
	SpKeyState	state_keys;		/* and its current key */
	MemoryContext run_cxt;		/* the current partition's run and keys */
	SpKeyType	key_type;
} CallCache;

/* Partition-local memory, zeroed by the executor for each partition. */
typedef struct PartitionState
{
	SpRun	   *run;			/* segment_agg only */
	SpKeyState	keys;
	int64		next_pos;		/* the row we expect next */
	bool		close_at_end;
} PartitionState;

/*
 * The call site's cache, made on its first row.  The key type is looked up
 * here, so a key type without equality is refused on the first row, whatever
 * the keys are.
 */
static CallCache *
call_cache(FunctionCallInfo fcinfo, int form)
{
	MemoryContext mcxt = fcinfo->flinfo->fn_mcxt;
	Oid			key_type = get_fn_expr_argtype(fcinfo->flinfo, ARG(form, ARG_KEY));
	CallCache  *cache;

	cache = MemoryContextAllocZero(mcxt, sizeof(CallCache));
	sp_key_type_init(&cache->key_type, key_type, PG_GET_COLLATION(), mcxt);
	cache->spec_cxt = AllocSetContextCreate(mcxt, "segment_agg spec",
											ALLOCSET_SMALL_SIZES);
	cache->run_cxt = AllocSetContextCreate(mcxt, "segment_agg run",
										   ALLOCSET_DEFAULT_SIZES);
	fcinfo->flinfo->fn_extra = cache;
	return cache;
}

static const SpConfig *
config_for(CallCache *cache, WindowObject winobj, int form)
{
	MemoryContext old;
	PipelineValue *pv;
	SpValueView view;
	Datum		d;
	bool		isnull;

	if (!(form & FORM_SPEC))
	{
		/* two-argument form: the inner pipeline is Identity */
		if (cache->cfg == NULL)
		{
			old = MemoryContextSwitchTo(cache->spec_cxt);
			cache->cfg = sp_spec_read("{\"type\": \"Identity\"}");
			MemoryContextSwitchTo(old);
		}
		return cache->cfg;
	}

	d = WinGetFuncArgCurrent(winobj, ARG(form, ARG_SPEC), &isnull);
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("spec must not be null")));
	pv = (PipelineValue *) PG_DETOAST_DATUM(d);
	if (cache->raw != NULL && VARSIZE(cache->raw) == VARSIZE(pv) &&
		memcmp(cache->raw, pv, VARSIZE(pv)) == 0)
		return cache->cfg;

	/* a different spec (or the first): forget the old one, parse this one */
	MemoryContextReset(cache->spec_cxt);
	cache->raw = NULL;
	cache->cfg = NULL;
	cache->state_run = NULL;
	old = MemoryContextSwitchTo(cache->spec_cxt);
	sp_value_view(pv, &view);
	cache->cfg = sp_spec_read(sp_view_config_text(&view));

	/*
	 * Its state, as pipeline_agg resumes from it.  Progress, counters and
	 * emissions are for a run in time order; segment_agg has no time column
	 * and does not use them.
	 */
	if (view.state != NULL)
	{
		sp_key_state_init(&cache->state_keys, &cache->key_type, cache->spec_cxt);
		cache->state_run = sp_resume_state(&view, cache->cfg, &cache->state_keys, NULL);
	}
	cache->raw = palloc(VARSIZE(pv));
	memcpy(cache->raw, pv, VARSIZE(pv));
	MemoryContextSwitchTo(old);
	return cache->cfg;
}

/*
 * What segment_agg returns: a float8 (the first output port's value, which
 * must not be a vector), or a float8[] of one element per output port, or
 * the vector of a pipeline whose one output port is a vector.  Other
 * pipelines with vector outputs are pipeline_agg's (vector_emissions);
 * 0A000 here.
 */
static void
check_result_form(const SpConfig *cfg, int form)
{
	int			n_vec = 0;

	for (int i = 0; i < cfg->n_out; i++)
		n_vec += sp_port_is_vector(cfg->out_types[i]) ? 1 : 0;
	if (!(form & FORM_ARRAY) && sp_port_is_vector(cfg->out_types[0]))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("segment_agg cannot return a vector output as a float8"),
				 errdetail("Output port 1 of pipeline \"%s\" is a vector.", cfg->id),
				 errhint("Pass the value as an array: segment_agg then returns the vector as a float8[].")));
	if ((form & FORM_ARRAY) && n_vec > 0 && cfg->n_out > 1)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("segment_agg cannot return a vector output with other outputs"),
				 errdetail("Pipeline \"%s\" has %d output ports, %d of them vectors.",
						   cfg->id, cfg->n_out, n_vec),
				 errhint("Use pipeline_agg and vector_emissions(), or a pipeline with the vector as its one output.")));
}

/*
 * A partition's first row: its run and keys (empty, or the spec's state),
 * its option.
 */
static void
partition_begin(FunctionCallInfo fcinfo, WindowObject winobj, CallCache *cache,
				PartitionState *ps, int form)
{
	MemoryContextReset(cache->run_cxt);
	sp_key_state_init(&ps->keys, &cache->key_type, cache->run_cxt);
	ps->run = NULL;
	ps->close_at_end = false;

	if (form & FORM_RUN)
	{
		const SpConfig *cfg = config_for(cache, winobj, form);

		if (!(form & FORM_ARRAY))
			sp_check_scalar_form(cfg);
		check_result_form(cfg, form);
		if (cfg->timed && !(form & FORM_TS))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("pipeline \"%s\" needs the rows' timestamps", cfg->id),
					 errdetail("An operator of it works with durations or time."),
					 errhint("Pass the timestamp first: segment_agg(ts, value, key, spec).")));
		if (cache->state_run != NULL)
		{
			/* the spec's state: a copy, since the partition changes it */
			ps->run = sp_run_copy(cache->state_run, cache->run_cxt);
			if (cache->state_keys.has_key)
				sp_key_replace(&ps->keys, cache->state_keys.key);
		}
		else
			ps->run = sp_run_create(cfg, cache->run_cxt);
	}

	/* a plain argument, not a per-row one: read once per partition */
	if (form & FORM_OPTION)
	{
		bool		isnull;
		Datum		d = WinGetFuncArgCurrent(winobj, PG_NARGS() - 1, &isnull);

		if (isnull)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("close_at_end must not be null")));
		ps->close_at_end = DatumGetBool(d);
	}
}

#define MARK_STRIDE 16

/*
 * Every row starts here: the partition's state (created on its first row),
 * and the mark moved to this row.
 */
static inline PartitionState *
row_begin(FunctionCallInfo fcinfo, WindowObject winobj, int form)
{
	CallCache  *cache = fcinfo->flinfo->fn_extra;
	int64		pos = WinGetCurrentPosition(winobj);
	PartitionState *ps = WinGetPartitionLocalMemory(winobj, sizeof(PartitionState));

	if (unlikely(cache == NULL))
		cache = call_cache(fcinfo, form);
	if (pos == 0)
		partition_begin(fcinfo, winobj, cache, ps, form);
	else if (unlikely(pos != ps->next_pos))
		/* the executor calls us once per row, in order */
		elog(ERROR, "window function called out of order (position " INT64_FORMAT ")",
			 pos);
	ps->next_pos = pos + 1;

	/*
	 * Let the executor forget the rows before this one.  Every row would do,
	 * but moving the mark costs a seek in the tuplestore each time; every
	 * MARK_STRIDE rows costs a fraction and keeps at most that many rows
	 * more, few enough to stay in memory at the smallest work_mem.
	 */
	if (pos % MARK_STRIDE == 0)
		WinSetMarkPosition(winobj, pos);
	return ps;
}

/* Is the current row the partition's last?  Looks one row ahead. */
static bool
is_last_row(FunctionCallInfo fcinfo, WindowObject winobj)
{
	bool		isnull,
				isout;

	/* the option argument: a cheap expression to evaluate on the next row */
	(void) WinGetFuncArgInPartition(winobj, PG_NARGS() - 1, 1, WINDOW_SEEK_CURRENT,
									false, &isnull, &isout);
	return isout;
}

/*
 * After a row's key tracking: should the open segment close now, at the
 * end of the partition?  Not when the row is itself a boundary (it reports
 * the segment it closed), nor when no segment is open.
 */
static inline bool
close_now(FunctionCallInfo fcinfo, WindowObject winobj, PartitionState *ps,
		  bool boundary)
{
	return unlikely(ps->close_at_end) && !boundary && ps->keys.has_key &&
		is_last_row(fcinfo, winobj);
}

/*
 * One row of segment_agg: classify, track the key, run the row, and close
 * the open segment when the option asks and this is the last row.  Returns
 * whether the row emitted (run->emitted / run->emit say what).
 */
static inline bool
agg_row(FunctionCallInfo fcinfo, WindowObject winobj, PartitionState *ps,
		const double *values, int form)
{
	SpRun	   *run = ps->run;
	bool		knull;
	Datum		k;
	bool		had_key = ps->keys.has_key;
	SpKeyEvent	ev;
	bool		emitted;

	if (form & FORM_TS)
	{
		bool		tnull;
		Datum		t = WinGetFuncArgCurrent(winobj, 0, &tnull);

		if (tnull)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("row timestamp must not be null")));
		run->ts = DatumGetTimestampTz(t);
	}
	k = WinGetFuncArgCurrent(winobj, ARG(form, ARG_KEY), &knull);
	ev = sp_key_track(&ps->keys, knull, k);
	emitted = sp_run_row(run, values, ev);

	if (close_now(fcinfo, winobj, ps, ev == SP_KEY_NEW && had_key))
	{
		sp_key_close(&ps->keys);
		emitted = sp_run_flush(run);
	}
	return emitted;
}

static Datum
agg_scalar(FunctionCallInfo fcinfo, int form)
{
	WindowObject winobj = PG_WINDOW_OBJECT();
	PartitionState *ps = row_begin(fcinfo, winobj, form);
	bool		vnull;
	Datum		v = WinGetFuncArgCurrent(winobj, ARG(form, ARG_VALUE), &vnull);
	double		value = vnull ? 0.0 : DatumGetFloat8(v);

	if (agg_row(fcinfo, winobj, ps, vnull ? NULL : &value, form) && ps->run->emitted[0])
		PG_RETURN_FLOAT8(ps->run->emit[0]);
	PG_RETURN_NULL();
}

/* segment_agg(value float8, key anyelement) */
Datum
segment_agg_last(PG_FUNCTION_ARGS)
{
	return agg_scalar(fcinfo, FORM_RUN);
}

/* segment_agg(value float8, key anyelement, spec pipeline [, close_at_end boolean]) */
Datum
segment_agg_scalar(PG_FUNCTION_ARGS)
{
	return agg_scalar(fcinfo, FORM_RUN | FORM_SPEC |
					  (PG_NARGS() > ARG_SPEC + 1 ? FORM_OPTION : 0));
}

/*
 * segment_agg(ts timestamptz, value float8, key anyelement, spec pipeline
 * [, close_at_end boolean]): the same, with the rows' timestamps for the
 * operators that know time.
 */
Datum
segment_agg_ts_scalar(PG_FUNCTION_ARGS)
{
	return agg_scalar(fcinfo, FORM_RUN | FORM_SPEC | FORM_TS |
					  (PG_NARGS() > ARG_SPEC + 2 ? FORM_OPTION : 0));
}

static Datum
agg_array(FunctionCallInfo fcinfo, int form)
{
	WindowObject winobj = PG_WINDOW_OBJECT();
	PartitionState *ps = row_begin(fcinfo, winobj, form);
	SpRun	   *run = ps->run;
	const SpConfig *cfg = run->cfg;
	bool		vnull;
	Datum		v = WinGetFuncArgCurrent(winobj, ARG(form, ARG_VALUE), &vnull);
	bool		data_row;
	Datum	   *elems;
	bool	   *elem_nulls;
	int			dims[1];
	int			lbs[1] = {1};

	/* unpack straight into the engine's row buffer: no per-row allocation */
	data_row = !vnull && sp_read_run_row(v, run);
	if (!agg_row(fcinfo, winobj, ps, data_row ? run->row_in : NULL, form))
		PG_RETURN_NULL();

	/* a vector output, the pipeline's only one: its lanes (check_result_form) */
	if (cfg->vectors && sp_port_is_vector(cfg->out_types[0]))
	{
		int			e = sp_area_emit(cfg, 0);
		const double *lanes = sp_run_lanes(run, e);

		if (!run->emitted[0])
			PG_RETURN_NULL();
		elems = palloc(sizeof(Datum) * Max(run->lane_n[e], 1));
		for (int i = 0; i < run->lane_n[e]; i++)
			elems[i] = Float8GetDatum(lanes[i]);
		PG_RETURN_ARRAYTYPE_P(construct_array(elems, run->lane_n[e], FLOAT8OID, sizeof(double),
											  FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	}

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

/* segment_agg(value float8[], key anyelement, spec pipeline [, close_at_end boolean]) */
Datum
segment_agg_array(PG_FUNCTION_ARGS)
{
	return agg_array(fcinfo, FORM_RUN | FORM_SPEC | FORM_ARRAY |
					 (PG_NARGS() > ARG_SPEC + 1 ? FORM_OPTION : 0));
}

/* segment_agg(ts timestamptz, value float8[], key anyelement, spec pipeline [, close_at_end boolean]) */
Datum
segment_agg_ts_array(PG_FUNCTION_ARGS)
{
	return agg_array(fcinfo, FORM_RUN | FORM_SPEC | FORM_ARRAY | FORM_TS |
					 (PG_NARGS() > ARG_SPEC + 2 ? FORM_OPTION : 0));
}

/*
 * One row of segment_key: the key of the segment this row closes, else
 * NULL.  Keys are tracked exactly as in segment_agg: a row with a NULL key
 * (unpaired, or punctuation without a key) changes nothing, any other row
 * (data or punctuation) closes the segment when its key differs.  So the
 * value decides nothing here, except that an array value is checked as
 * segment_agg checks it.
 */
static Datum
key_row(FunctionCallInfo fcinfo, int form)
{
	WindowObject winobj = PG_WINDOW_OBJECT();
	PartitionState *ps = row_begin(fcinfo, winobj, form);
	SpKeyState *keys = &ps->keys;
	bool		knull;
	Datum		k;
	bool		had_key = keys->has_key;
	SpKeyEvent	ev;

	if (form & FORM_ARRAY)
	{
		bool		vnull;
		Datum		v = WinGetFuncArgCurrent(winobj, ARG_VALUE, &vnull);

		if (!vnull)
			(void) sp_read_array_row(v, NULL, NULL);
	}
	k = WinGetFuncArgCurrent(winobj, ARG_KEY, &knull);
	ev = sp_key_track(keys, knull, k);
	if (!(ev == SP_KEY_NEW && had_key))
	{
		if (!close_now(fcinfo, winobj, ps, false))
			PG_RETURN_NULL();
		sp_key_close(keys);
	}
	/* the closed key lives until the next boundary; the result gets a copy */
	if (keys->kt->typbyval)
		return keys->closed;
	return datumCopy(keys->closed, false, keys->kt->typlen);
}

/* segment_key(value float8, key anyelement [, close_at_end boolean]) */
Datum
segment_key_scalar(PG_FUNCTION_ARGS)
{
	return key_row(fcinfo, PG_NARGS() > ARG_KEY + 1 ? FORM_OPTION : 0);
}

/* segment_key(value float8[], key anyelement [, close_at_end boolean]) */
Datum
segment_key_array(PG_FUNCTION_ARGS)
{
	return key_row(fcinfo, FORM_ARRAY | (PG_NARGS() > ARG_KEY + 1 ? FORM_OPTION : 0));
}
