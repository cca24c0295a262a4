/*
 * pipeline_agg.c
 *	  pipeline_agg(): the segment rule as an ordinary aggregate whose result
 *	  is a pipeline carrying its state (docs/reference.md, "Stored pipelines").
 *
 * The transition state is the engine's run plus what the segment rule
 * needs around it: the current key, the latest timestamp processed, the
 * counters, and the emissions of this run with the keys of the segments
 * they closed (kept as Datums, printed once at the end).  Nothing is kept
 * per row but emissions.  The spec comes from the group's first row; when
 * it carries state the run starts from it, and its emissions are not
 * reported again.
 */
#include "postgres.h"

#include "fmgr.h"
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "pipeline_agg.h"
#include "sp_codec.h"
#include "sp_config_cache.h"
#include "sp_engine.h"
#include "sp_key.h"
#include "sp_keyio.h"
#include "sp_rowvalue.h"
#include "sp_resume.h"
#include "sp_spec.h"
#include "sp_state.h"

PG_FUNCTION_INFO_V1(pipeline_agg_step);
PG_FUNCTION_INFO_V1(pipeline_agg_step_array);
PG_FUNCTION_INFO_V1(pipeline_agg_final);

#define ARG_TS		1
#define ARG_VALUE	2
#define ARG_KEY		3
#define ARG_SPEC	4

/* ---- the transition state ---- */

/* An emitted vector (pipeline_agg's AggState.vec). */
typedef struct AggVector
{
	int32		n;
	double	   *lanes;
} AggVector;

struct AggState
{
	MemoryContext cxt;
	FmgrInfo   *flinfo;			/* the call site, whose cache holds cfg */
	const SpConfig *cfg;
	SpRun	   *run;
	SpKeyType	kt;				/* the key type and its equality (sp_key.h) */
	SpKeyState	ks;				/* the current key, has_key as run->has_key */
	bool		has_progress;
	TimestampTz progress;
	int64		rows;
	int64		discarded;
	int64		late;
	int			n_emit;
	int			max_emit;
	AggEmission *emit;
	int			n_vec;			/* the emitted vectors, with cfg->vectors */
	int			max_vec;
	AggVector  *vec;
	int			n_seg;
	int			max_seg;
	Datum	   *seg_keys;		/* keys of the segments that emitted */
	bool		keep_checkpoints;
	int			n_ckpt;
	int			max_ckpt;
	Datum	   *ckpt;			/* pipelines as before each boundary */
	TimestampTz *ckpt_ts;		/* their progress */
};

/* Continue from a stored state: the run, the key, progress and counters. */
static void
resume(AggState *as, const SpValueView *view)
{
	SpState		info;

	as->run = sp_resume_state(view, as->cfg, &as->ks, &info);
	as->has_progress = info.has_progress;
	as->progress = info.progress;
	as->rows = info.rows;
	as->discarded = info.discarded;
	as->late = info.late;
}

/*
 * A run of the segment rule from 'spec' (a configuration, or a pipeline
 * carrying state, which it continues), in memory 'cxt'.  fcinfo gives the
 * call's collation and its cache of parsed configurations.
 */
AggState *
sp_agg_begin(FunctionCallInfo fcinfo, Datum spec, Oid key_type, Oid collation,
			 MemoryContext cxt)
{
	AggState   *as;
	SpValueView view;

	(void) sp_value_open(spec, &view);
	as = MemoryContextAllocZero(cxt, sizeof(AggState));
	as->cxt = cxt;
	as->flinfo = fcinfo->flinfo;
	as->cfg = sp_config_cached(fcinfo->flinfo, &view, cxt);
	sp_key_type_init(&as->kt, key_type, collation, cxt);
	sp_key_state_init(&as->ks, &as->kt, cxt);
	if (view.state != NULL)
		resume(as, &view);
	else
		as->run = sp_run_create(as->cfg, cxt);
	return as;
}

AggState *
sp_agg_state(FunctionCallInfo fcinfo, Oid key_type, Oid collation)
{
	MemoryContext aggcxt;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "pipeline_agg transition function called in non-aggregate context");
	if (!PG_ARGISNULL(0))
		return (AggState *) PG_GETARG_POINTER(0);
	if (PG_ARGISNULL(ARG_SPEC))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("spec must not be null")));
	return sp_agg_begin(fcinfo, PG_GETARG_DATUM(ARG_SPEC), key_type, collation, aggcxt);
}

Oid
sp_agg_key_type(const AggState *as)
{
	return as->kt.type;
}

/*
 * pipeline_agg's state: the key is the argument, of its own type, which is
 * looked up (a walk of the call's expression) only when the group's first
 * row begins the state.
 */
static inline AggState *
agg_state_key(FunctionCallInfo fcinfo)
{
	if (!PG_ARGISNULL(0) && AggCheckCallContext(fcinfo, NULL))
		return (AggState *) PG_GETARG_POINTER(0);
	return sp_agg_state(fcinfo, get_fn_expr_argtype(fcinfo->flinfo, ARG_KEY),
						PG_GET_COLLATION());
}

static bool late_row(AggState *as, bool isnull, TimestampTz ts, bool applied);

/*
 * The row's timestamp: NULL is an error; a late one is an error or is
 * dropped (false), as the spec says.  A punctuation row applied on its own
 * (punctuate) says so in its messages.  Inline for the steps: a row in
 * time needs no call.
 */
static pg_attribute_always_inline bool
agg_time(AggState *as, bool isnull, TimestampTz ts, bool applied)
{
	if (likely(!isnull && (!as->has_progress || ts >= as->progress)))
		return true;
	return late_row(as, isnull, ts, applied);
}

bool
sp_agg_time(AggState *as, bool isnull, TimestampTz ts, bool applied)
{
	return agg_time(as, isnull, ts, applied);
}

/* agg_time's NULL and late rows */
static bool
late_row(AggState *as, bool isnull, TimestampTz ts, bool applied)
{
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 applied ? errmsg("punctuation timestamp must not be null") :
				 errmsg("row timestamp must not be null")));
	if (as->cfg->late_drop)
	{
		as->late = sp_count_next(as->late, SP_MAX_COUNT, "A pipeline");
		return false;
	}
	/* timestamptz_to_str returns a static buffer: copy each */
	ereport(ERROR,
			(errcode(ERRCODE_DATA_EXCEPTION),
			 applied ? errmsg("punctuation at %s is late", pstrdup(timestamptz_to_str(ts))) :
			 errmsg("row at %s is late", pstrdup(timestamptz_to_str(ts))),
			 errdetail("Pipeline \"%s\" has already processed rows up to %s.",
					   as->cfg->id, pstrdup(timestamptz_to_str(as->progress))),
			 applied ? errhint("Set \"late\": \"drop\" in the spec to skip late rows.") :
			 errhint("Feed the rows in timestamp order (ORDER BY ts in the aggregate call), or set \"late\": \"drop\" in the spec to skip late rows.")));
	pg_unreachable();
}

/* A copy of the vector output port i emitted; returns its index in as->vec. */
static int
keep_vector(AggState *as, int i)
{
	int			a = sp_area_emit(as->cfg, i);
	AggVector  *v;

	if (as->n_vec == as->max_vec)
	{
		as->max_vec = Max(16, as->max_vec * 2);
		as->vec = as->vec ?
			repalloc_huge(as->vec, sizeof(AggVector) * as->max_vec) :
			MemoryContextAllocHuge(as->cxt, sizeof(AggVector) * as->max_vec);
	}
	v = &as->vec[as->n_vec];
	v->n = as->run->lane_n[a];
	v->lanes = MemoryContextAlloc(as->cxt, sizeof(double) * Max(v->n, 1));
	memcpy(v->lanes, sp_run_lanes(as->run, a), sizeof(double) * v->n);
	return as->n_vec++;
}

static void
record_emissions(AggState *as, TimestampTz ts, Datum closed)
{
	const SpRun *run = as->run;

	if (as->n_seg == as->max_seg)
	{
		as->max_seg = Max(16, as->max_seg * 2);
		as->seg_keys = as->seg_keys ?
			repalloc_huge(as->seg_keys, sizeof(Datum) * as->max_seg) :
			MemoryContextAllocHuge(as->cxt, sizeof(Datum) * as->max_seg);
	}
	as->seg_keys[as->n_seg] = closed;
	for (int i = 0; i < as->cfg->n_out; i++)
	{
		AggEmission *em;

		if (!run->emitted[i])
			continue;
		if (as->n_emit == as->max_emit)
		{
			as->max_emit = Max(16, as->max_emit * 2);
			as->emit = as->emit ?
				repalloc_huge(as->emit, sizeof(AggEmission) * as->max_emit) :
				MemoryContextAllocHuge(as->cxt, sizeof(AggEmission) * as->max_emit);
		}
		em = &as->emit[as->n_emit++];
		em->ts = ts;
		em->seg = as->n_seg;
		em->port = i;
		em->value = run->emit[i];
		if (unlikely(as->cfg->vectors) && sp_port_is_vector(as->cfg->out_types[i]))
			em->value = keep_vector(as, i);
	}
	as->n_seg++;
}

/*
 * After its state was written: forget the emissions, the segments' keys
 * and the checkpoints (freeing what they hold, for a run that goes on), so
 * that as is what that state reads back as.
 */
void
sp_agg_rest(AggState *as)
{
	if (!as->kt.typbyval)
		for (int i = 0; i < as->n_seg; i++)
			pfree(DatumGetPointer(as->seg_keys[i]));
	for (int i = 0; i < as->n_ckpt; i++)
		pfree(DatumGetPointer(as->ckpt[i]));
	for (int i = 0; i < as->n_vec; i++)
		pfree(as->vec[i].lanes);
	as->n_emit = as->n_vec = as->n_seg = as->n_ckpt = 0;
	if (as->ks.has_closed)
	{
		Datum		closed = sp_key_take_closed(&as->ks);

		if (!as->kt.typbyval)
			pfree(DatumGetPointer(closed));
	}
}

void
sp_agg_keep_checkpoints(AggState *as)
{
	as->keep_checkpoints = true;
}

/*
 * A value of as's configuration holding st; the configuration's text is
 * written once for the call site (sp_config_canonical).
 */
static Datum
value_of(const AggState *as, const SpState *st)
{
	uint32		len;
	bool		written;
	const char *config = sp_config_canonical(as->flinfo, as->cfg, &len, &written);
	PipelineValue *pv = sp_value_build_text(config, len, st);

	if (written)
		pfree(unconstify(char *, config));
	return PointerGetDatum(pv);
}

/* The state's header and run, as they are now, for value_of. */
static void
state_header(const AggState *as, SpState *st)
{
	memset(st, 0, sizeof(SpState));
	st->key_type = sp_keyio_type_name(as->kt.type);
	st->has_progress = as->has_progress;
	st->progress = as->progress;
	st->rows = as->rows;
	st->discarded = as->discarded;
	st->late = as->late;
	st->run = as->run;
}

/*
 * The state as it was before the row that just opened a new segment (its
 * key is now the closed one; the run has not seen the row; progress and
 * rows are given as they were), without emissions.  Taken when that row
 * is later than every row before it, it is the pipeline over exactly the
 * rows up to its progress, and a run from it over the later rows gives
 * what a run from the start gives.
 */
static void
take_checkpoint(AggState *as, TimestampTz progress, int64 rows)
{
	MemoryContext old = MemoryContextSwitchTo(as->cxt);
	SpState		st;
	SpKeyIO		io;
	int			nest;

	state_header(as, &st);
	st.progress = progress;
	st.rows = rows;
	sp_keyio_init(&io, as->kt.type, CurrentMemoryContext);
	nest = sp_keyio_begin(&io);
	st.key = sp_keyio_to_text(&io, as->ks.closed);
	sp_keyio_end(nest);
	if (as->n_ckpt == as->max_ckpt)
	{
		as->max_ckpt = Max(8, as->max_ckpt * 2);
		as->ckpt = as->ckpt ?
			repalloc_huge(as->ckpt, sizeof(Datum) * as->max_ckpt) :
			MemoryContextAllocHuge(as->cxt, sizeof(Datum) * as->max_ckpt);
		as->ckpt_ts = as->ckpt_ts ?
			repalloc_huge(as->ckpt_ts, sizeof(TimestampTz) * as->max_ckpt) :
			MemoryContextAllocHuge(as->cxt, sizeof(TimestampTz) * as->max_ckpt);
	}
	as->ckpt_ts[as->n_ckpt] = progress;
	as->ckpt[as->n_ckpt++] = value_of(as, &st);
	MemoryContextSwitchTo(old);
}

/*
 * One row, its timestamp checked; values is NULL for punctuation.  Inline
 * for the steps, and sp_agg_row for the insert trigger's rows.
 */
static pg_attribute_always_inline void
agg_row(AggState *as, TimestampTz ts, const double *values, bool knull, Datum key)
{
	bool		later = !as->has_progress || ts > as->progress;
	TimestampTz progress = as->progress;
	int64		rows = as->rows;
	SpKeyEvent	change;

	/* discarded rows are among these, so they stay within the cap too */
	as->rows = sp_count_next(as->rows, SP_MAX_COUNT, "A pipeline");
	if (knull)
	{
		/* an unpaired row is discarded and does not advance time */
		if (values != NULL)
			as->discarded++;
		else
		{
			as->has_progress = true;
			as->progress = ts;
		}
		return;
	}
	as->has_progress = true;
	as->progress = ts;
	as->run->ts = ts;			/* for the operators that know time */
	change = sp_key_track(&as->ks, false, key);
	if (unlikely(as->keep_checkpoints) && change == SP_KEY_NEW && as->ks.has_closed && later)
		take_checkpoint(as, progress, rows);
	/* a boundary emits the closed segment: its key is kept with the emissions */
	if (sp_run_row(as->run, values, change))
		record_emissions(as, ts, sp_key_take_closed(&as->ks));
}

void
sp_agg_row(AggState *as, TimestampTz ts, const double *values, bool knull, Datum key)
{
	agg_row(as, ts, values, knull, key);
}

/*
 * One row from its values: the scalar form's value is a float8, the array
 * form's a float8[]; a NULL value is punctuation.  Inline, for the steps
 * below: it runs on every row.
 */
static pg_attribute_always_inline void
step_values(AggState *as, bool array, bool tsnull, TimestampTz ts,
			bool vnull, Datum value, bool knull, Datum key)
{
	/* raises when the pipeline does not take one number (inline: every row) */
	if (!array && unlikely(as->cfg->n_in != 1 || sp_port_is_vector(as->cfg->in_types[0])))
		sp_check_scalar_form(as->cfg);
	if (!agg_time(as, tsnull, ts, false))
		return;
	if (array)
	{
		bool		data_row = !vnull && sp_read_run_row(value, as->run);

		agg_row(as, ts, data_row ? as->run->row_in : NULL, knull, key);
	}
	else
	{
		double		v = vnull ? 0.0 : DatumGetFloat8(value);

		agg_row(as, ts, vnull ? NULL : &v, knull, key);
	}
}

void
sp_agg_step_values(AggState *as, bool array, bool tsnull, TimestampTz ts,
				   bool vnull, Datum value, bool knull, Datum key)
{
	step_values(as, array, tsnull, ts, vnull, value, knull, key);
}

/* inline for pipeline_agg_step, and extern for the other steps */
static pg_attribute_always_inline void
step_scalar(FunctionCallInfo fcinfo, AggState *as, bool knull, Datum key)
{
	step_values(as, false, PG_ARGISNULL(ARG_TS),
				PG_ARGISNULL(ARG_TS) ? 0 : PG_GETARG_TIMESTAMPTZ(ARG_TS),
				PG_ARGISNULL(ARG_VALUE), PG_ARGISNULL(ARG_VALUE) ? (Datum) 0 : PG_GETARG_DATUM(ARG_VALUE),
				knull, key);
}

void
sp_agg_step_scalar(FunctionCallInfo fcinfo, AggState *as, bool knull, Datum key)
{
	step_scalar(fcinfo, as, knull, key);
}

void
sp_agg_step_array(FunctionCallInfo fcinfo, AggState *as, bool knull, Datum key)
{
	step_values(as, true, PG_ARGISNULL(ARG_TS),
				PG_ARGISNULL(ARG_TS) ? 0 : PG_GETARG_TIMESTAMPTZ(ARG_TS),
				PG_ARGISNULL(ARG_VALUE), PG_ARGISNULL(ARG_VALUE) ? (Datum) 0 : PG_GETARG_DATUM(ARG_VALUE),
				knull, key);
}

bool
sp_agg_progress(const AggState *as, TimestampTz *progress)
{
	*progress = as->progress;
	return as->has_progress;
}

bool
sp_agg_has_vectors(const AggState *as)
{
	return as->cfg->vectors;
}

/* pipeline_agg(ts timestamptz, value float8, key anyelement, spec pipeline) */
Datum
pipeline_agg_step(PG_FUNCTION_ARGS)
{
	AggState   *as = agg_state_key(fcinfo);

	step_scalar(fcinfo, as, PG_ARGISNULL(ARG_KEY), PG_GETARG_DATUM(ARG_KEY));
	PG_RETURN_POINTER(as);
}

/* pipeline_agg(ts timestamptz, value float8[], key anyelement, spec pipeline) */
Datum
pipeline_agg_step_array(PG_FUNCTION_ARGS)
{
	AggState   *as = agg_state_key(fcinfo);

	sp_agg_step_array(fcinfo, as, PG_ARGISNULL(ARG_KEY), PG_GETARG_DATUM(ARG_KEY));
	PG_RETURN_POINTER(as);
}

/*
 * The pipeline with its state and this run's emissions.  Reads the run
 * only, so it may be called more than once.
 */
Datum
sp_agg_result(const AggState *as)
{
	SpState		st;
	SpKeyIO		io;
	char	  **seg_text;
	int			nest;

	state_header(as, &st);
	st.n_emit = as->n_emit;
	st.emit = palloc(sizeof(SpEmission) * Max(as->n_emit, 1));
	seg_text = palloc(sizeof(char *) * Max(as->n_seg, 1));

	sp_keyio_init(&io, as->kt.type, CurrentMemoryContext);
	nest = sp_keyio_begin(&io);
	if (as->ks.has_key)
		st.key = sp_keyio_to_text(&io, as->ks.key);
	for (int s = 0; s < as->n_seg; s++)
		seg_text[s] = sp_keyio_to_text(&io, as->seg_keys[s]);
	sp_keyio_end(nest);

	for (int e = 0; e < as->n_emit; e++)
	{
		st.emit[e].ts = as->emit[e].ts;
		st.emit[e].key = seg_text[as->emit[e].seg];
		st.emit[e].port = as->emit[e].port;
		st.emit[e].value = as->emit[e].value;
		st.emit[e].lanes = NULL;
		if (unlikely(as->cfg->vectors) && sp_port_is_vector(as->cfg->out_types[as->emit[e].port]))
		{
			const AggVector *v = &as->vec[(int) as->emit[e].value];

			st.emit[e].value = v->n;
			st.emit[e].lanes = v->lanes;
		}
	}
	return value_of(as, &st);
}

/*
 * The pipeline with its state, without emissions: what a state table keeps.
 * The caller holds the key I/O settings (sp_keyio_begin).
 */
Datum
sp_agg_state_datum(const AggState *as, SpKeyIO *io)
{
	SpState		st;

	state_header(as, &st);
	if (as->ks.has_key)
		st.key = sp_keyio_to_text(io, as->ks.key);
	return value_of(as, &st);
}

const AggEmission *
sp_agg_emissions(const AggState *as, int *n, const Datum **seg_keys)
{
	*n = as->n_emit;
	*seg_keys = as->seg_keys;
	return as->emit;
}

const Datum *
sp_agg_checkpoints(const AggState *as, int *n)
{
	*n = as->n_ckpt;
	return as->ckpt;
}

const TimestampTz *
sp_agg_checkpoint_times(const AggState *as)
{
	return as->ckpt_ts;
}

Datum
pipeline_agg_final(PG_FUNCTION_ARGS)
{
	if (!AggCheckCallContext(fcinfo, NULL))
		elog(ERROR, "pipeline_agg final function called in non-aggregate context");
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_DATUM(sp_agg_result((AggState *) PG_GETARG_POINTER(0)));
}
