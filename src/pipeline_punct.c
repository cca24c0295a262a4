/*
 * pipeline_punct.c
 *	  punctuate(p, ts, key): one punctuation row applied to a stored
 *	  pipeline, so that a watermark can close the open segment of a source
 *	  that has gone quiet.
 *
 * It is pipeline_agg(ts, NULL, key, p) run through the aggregate's own row
 * step (pipeline_agg.h): the same resume, late rule, counters and key rule,
 * and the emissions of this one row only (a resumed run does not report the
 * previous run's emissions again, as flush() does not).  The punctuate
 * suite checks the equality byte for byte.
 */
#include "postgres.h"

#include "fmgr.h"

#include "pipeline_agg.h"

PG_FUNCTION_INFO_V1(pipeline_punctuate);

#define ARG_P		0
#define ARG_TS		1
#define ARG_KEY		2

/*
 * punctuate(p pipeline, ts timestamptz, key anyelement) -> pipeline
 *
 * Not STRICT: a NULL key is a punctuation row without a key (it moves the
 * progress and closes nothing), a NULL ts is an error as in pipeline_agg,
 * and a NULL pipeline gives NULL, as flush() does.
 */
Datum
pipeline_punctuate(PG_FUNCTION_ARGS)
{
	AggState   *as;
	TimestampTz ts;

	if (PG_ARGISNULL(ARG_P))
		PG_RETURN_NULL();
	as = sp_agg_begin(fcinfo, PG_GETARG_DATUM(ARG_P),
					  get_fn_expr_argtype(fcinfo->flinfo, ARG_KEY), PG_GET_COLLATION(),
					  CurrentMemoryContext);
	ts = PG_ARGISNULL(ARG_TS) ? 0 : PG_GETARG_TIMESTAMPTZ(ARG_TS);
	if (sp_agg_time(as, PG_ARGISNULL(ARG_TS), ts, true))
		sp_agg_row(as, ts, NULL, PG_ARGISNULL(ARG_KEY), PG_GETARG_DATUM(ARG_KEY));
	PG_RETURN_DATUM(sp_agg_result(as));
}
