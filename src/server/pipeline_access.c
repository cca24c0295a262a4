/*
 * pipeline_access.c
 *	  Reading a pipeline value: its emissions, what is pending, its key,
 *	  progress and counters; and flush(), which closes the open segment.
 *
 * They read the stored texts only (keys stay text), so they run no type's
 * I/O and depend on no setting.
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "sp_codec.h"
#include "sp_config_cache.h"
#include "sp_spec.h"
#include "sp_state.h"

PG_FUNCTION_INFO_V1(pipeline_emissions);
PG_FUNCTION_INFO_V1(pipeline_pending);
PG_FUNCTION_INFO_V1(pipeline_vector_emissions);
PG_FUNCTION_INFO_V1(pipeline_vector_pending);
PG_FUNCTION_INFO_V1(pipeline_flush);
PG_FUNCTION_INFO_V1(pipeline_without_emissions);
PG_FUNCTION_INFO_V1(pipeline_key);
PG_FUNCTION_INFO_V1(pipeline_progress);
PG_FUNCTION_INFO_V1(pipeline_rows);
PG_FUNCTION_INFO_V1(pipeline_discarded);
PG_FUNCTION_INFO_V1(pipeline_late);

/*
 * The value's state, or NULL when it has none; its configuration in *cfg.
 * Its emissions are checked, and kept only for emissions().  With flinfo,
 * the configuration is parsed once for the call site (sp_config_cache.h).
 */
static SpState *
open_state_cached(FmgrInfo *flinfo, Datum d, const SpConfig **cfg, bool keep_emissions)
{
	SpValueView view;

	(void) sp_value_open(d, &view);
	*cfg = flinfo ? sp_config_cached(flinfo, &view, CurrentMemoryContext) :
		sp_spec_read(sp_view_config_text(&view));
	if (view.state == NULL)
		return NULL;
	return sp_view_read_state(&view, *cfg, CurrentMemoryContext, keep_emissions);
}

static SpState *
open_state_emissions(Datum d, SpConfig **cfg, bool keep_emissions)
{
	return open_state_cached(NULL, d, (const SpConfig **) cfg, keep_emissions);
}

static SpState *
open_state(Datum d, SpConfig **cfg)
{
	return open_state_emissions(d, cfg, false);
}

/* A vector's lanes as a float8[]. */
static Datum
lanes_array(const double *lanes, int n)
{
	Datum	   *elems = palloc(sizeof(Datum) * Max(n, 1));

	for (int i = 0; i < n; i++)
		elems[i] = Float8GetDatum(lanes[i]);
	return PointerGetDatum(construct_array(elems, n, FLOAT8OID, sizeof(double),
										   FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

/*
 * The rows of emissions() (vectors false) or vector_emissions() (true):
 * (ts, key, port, value), value a float8 or a vector's float8[].  Among
 * the numbers a vector port's value is NULL; among the vectors only vector
 * ports appear.
 */
static Datum
emission_rows(FunctionCallInfo fcinfo, bool vectors)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const SpConfig *cfg;
	SpState    *st = open_state_cached(fcinfo->flinfo, PG_GETARG_DATUM(0), &cfg, true);

	InitMaterializedSRF(fcinfo, 0);
	for (int e = 0; st != NULL && e < st->n_emit; e++)
	{
		const SpEmission *em = &st->emit[e];
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};

		if (vectors && em->lanes == NULL)
			continue;
		values[0] = TimestampTzGetDatum(em->ts);
		values[1] = CStringGetTextDatum(em->key);
		values[2] = Int32GetDatum(em->port + 1);
		if (vectors)
			values[3] = lanes_array(em->lanes, (int) em->value);
		else
		{
			values[3] = Float8GetDatum(em->value);
			nulls[3] = em->lanes != NULL;
		}
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/* emissions(p) -> TABLE(ts timestamptz, key text, port int, value float8) */
Datum
pipeline_emissions(PG_FUNCTION_ARGS)
{
	return emission_rows(fcinfo, false);
}

/* vector_emissions(p) -> TABLE(ts timestamptz, key text, port int, value float8[]) */
Datum
pipeline_vector_emissions(PG_FUNCTION_ARGS)
{
	return emission_rows(fcinfo, true);
}

/*
 * The rows of pending() (vectors false) or vector_pending() (true): what
 * the open segment's buffer holds, (key, port, value), as emission_rows.
 */
static Datum
pending_rows(FunctionCallInfo fcinfo, bool vectors)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const SpConfig *cfg;
	SpState    *st = open_state_cached(fcinfo->flinfo, PG_GETARG_DATUM(0), &cfg, false);

	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; st != NULL && st->key != NULL && i < cfg->n_out; i++)
	{
		bool		vector = sp_port_is_vector(cfg->out_types[i]);
		Datum		values[3];
		bool		nulls[3] = {false, false, false};

		if (!st->run->buffered[i] || (vectors && !vector))
			continue;
		values[0] = CStringGetTextDatum(st->key);
		values[1] = Int32GetDatum(i + 1);
		if (vectors)
		{
			int			a = sp_area_buffer(cfg, i);

			values[2] = lanes_array(sp_run_lanes(st->run, a), st->run->lane_n[a]);
		}
		else if (vector)
		{
			values[2] = (Datum) 0;
			nulls[2] = true;
		}
		else
			values[2] = Float8GetDatum(sp_run_buffer_value(st->run, i));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/* pending(p) -> TABLE(key text, port int, value float8) */
Datum
pipeline_pending(PG_FUNCTION_ARGS)
{
	return pending_rows(fcinfo, false);
}

/* vector_pending(p) -> TABLE(key text, port int, value float8[]) */
Datum
pipeline_vector_pending(PG_FUNCTION_ARGS)
{
	return pending_rows(fcinfo, true);
}

/*
 * flush(p, ts timestamptz DEFAULT NULL) -> pipeline: the open segment's
 * buffer is emitted, stamped ts or the latest ts processed; the operators
 * are reset and the key forgotten.  A flush at ts also moves the progress
 * to ts, so it may not be earlier than the progress.  A pipeline that has
 * processed nothing is returned as it is.
 */
Datum
pipeline_flush(PG_FUNCTION_ARGS)
{
	SpConfig   *cfg;
	SpState    *st;
	TimestampTz stamp;
	int			n = 0;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	st = open_state(PG_GETARG_DATUM(0), &cfg);
	if (st == NULL)
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	if (!PG_ARGISNULL(1))
	{
		stamp = PG_GETARG_TIMESTAMPTZ(1);
		if (st->has_progress && stamp < st->progress)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("cannot flush at %s, before the pipeline's progress",
							pstrdup(timestamptz_to_str(stamp))),
					 errdetail("Pipeline \"%s\" has already processed rows up to %s.",
							   cfg->id, pstrdup(timestamptz_to_str(st->progress)))));
		st->has_progress = true;
		st->progress = stamp;
	}
	else
		stamp = st->progress;	/* a key implies a progress */

	st->emit = palloc(sizeof(SpEmission) * cfg->n_out);
	/* the segment ends at the flush: its end edge for the operators that carry */
	st->run->ts = stamp;
	if (sp_run_flush(st->run))
		for (int i = 0; i < cfg->n_out; i++)
		{
			if (!st->run->emitted[i])
				continue;
			st->emit[n].ts = stamp;
			st->emit[n].key = st->key;
			st->emit[n].port = i;
			st->emit[n].value = st->run->emit[i];
			st->emit[n].lanes = sp_port_is_vector(cfg->out_types[i]) ?
				sp_run_lanes(st->run, sp_area_emit(cfg, i)) : NULL;
			n++;
		}
	st->n_emit = n;
	st->key = NULL;
	PG_RETURN_POINTER(sp_value_build(cfg, st));
}

/*
 * without_emissions(p) -> pipeline: p without the emissions of the run that
 * made it, which a later run does not report again anyway.  What a state
 * table keeps: two runs over the same rows, in one statement or in many,
 * leave the same bytes.
 */
Datum
pipeline_without_emissions(PG_FUNCTION_ARGS)
{
	const SpConfig *cfg;
	SpState    *st = open_state_cached(fcinfo->flinfo, PG_GETARG_DATUM(0), &cfg, false);

	if (st == NULL)
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	st->n_emit = 0;
	PG_RETURN_POINTER(sp_value_build(cfg, st));
}

/*
 * The state's header only (sp_view_read_header): the key, the progress and
 * the counters come before the run, and reading them needs neither the
 * configuration nor the operators.  Stored values were checked whole when
 * they were read in or built.
 */
static bool
open_header(Datum d, SpState *st)
{
	SpValueView view;

	(void) sp_value_open(d, &view);
	return sp_view_read_header(&view, st);
}

Datum
pipeline_key(PG_FUNCTION_ARGS)
{
	SpState		st;

	if (!open_header(PG_GETARG_DATUM(0), &st) || st.key == NULL)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(st.key));
}

Datum
pipeline_progress(PG_FUNCTION_ARGS)
{
	SpState		st;

	if (!open_header(PG_GETARG_DATUM(0), &st) || !st.has_progress)
		PG_RETURN_NULL();
	PG_RETURN_TIMESTAMPTZ(st.progress);
}

/* Counters: 0 for a pipeline that has processed nothing. */
#define COUNTER(fn, field) \
Datum \
fn(PG_FUNCTION_ARGS) \
{ \
	SpState		st; \
\
	(void) open_header(PG_GETARG_DATUM(0), &st); \
	PG_RETURN_INT64(st.field); \
}

COUNTER(pipeline_rows, rows)
COUNTER(pipeline_discarded, discarded)
COUNTER(pipeline_late, late)
