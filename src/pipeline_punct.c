/*
 * pipeline_punct.c
 *	  punctuate(p, ts, key): one punctuation row applied to a stored
 *	  pipeline, so that a watermark can close the open segment of a source
 *	  that has gone quiet.
 *
 * The result is, byte for byte, what pipeline_agg(ts, NULL, key, p) returns:
 * the same resume (sp_resume.c), the same late rule, counters and key
 * rule, and the emissions of this one row only (SPEC section 3: a resumed
 * run does not report the previous run's emissions again, as flush() does
 * not).  The punctuate suite checks the equality.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "sp_codec.h"
#include "sp_key.h"
#include "sp_keyio.h"
#include "sp_resume.h"
#include "sp_spec.h"
#include "sp_state.h"

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
	Oid			key_type = get_fn_expr_argtype(fcinfo->flinfo, ARG_KEY);
	SpValueView view;
	SpConfig   *cfg;
	SpKeyType	kt;
	SpKeyState	ks;
	SpState		st;
	SpKeyIO		io;
	TimestampTz ts;
	bool		late;
	SpKeyEvent	ev = SP_KEY_NULL;
	int			nest;

	if (PG_ARGISNULL(ARG_P))
		PG_RETURN_NULL();
	if (!OidIsValid(key_type))
		ereport(ERROR,
				(errcode(ERRCODE_INDETERMINATE_DATATYPE),
				 errmsg("could not determine the key's data type")));

	(void) sp_value_open(PG_GETARG_DATUM(ARG_P), &view);
	cfg = sp_spec_read(sp_view_config_text(&view));
	sp_key_type_init(&kt, key_type, PG_GET_COLLATION(), CurrentMemoryContext);
	sp_key_state_init(&ks, &kt, CurrentMemoryContext);
	memset(&st, 0, sizeof(st));
	if (view.state != NULL)
		st.run = sp_resume_state(&view, cfg, &ks, &st);
	else
		st.run = sp_run_create(cfg, CurrentMemoryContext);
	st.key_type = sp_keyio_type_name(key_type);

	/* time first, as pipeline_agg checks it (after the resume) */
	if (PG_ARGISNULL(ARG_TS))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("punctuation timestamp must not be null")));
	ts = PG_GETARG_TIMESTAMPTZ(ARG_TS);
	late = st.has_progress && ts < st.progress;
	if (late && !cfg->late_drop)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("punctuation at %s is late",
						pstrdup(timestamptz_to_str(ts))),
				 errdetail("Pipeline \"%s\" has already processed rows up to %s.",
						   cfg->id, pstrdup(timestamptz_to_str(st.progress))),
				 errhint("Set \"late\": \"drop\" in the spec to skip late rows.")));

	/* the key compares as in pipeline_agg, under the session's settings */
	if (!late && !PG_ARGISNULL(ARG_KEY))
		ev = (ks.has_key && sp_keys_equal(&kt, ks.key, PG_GETARG_DATUM(ARG_KEY))) ?
			SP_KEY_SAME : SP_KEY_NEW;

	/* keys are printed under fixed settings, as pipeline_agg prints them */
	sp_keyio_init(&io, key_type, CurrentMemoryContext);
	nest = sp_keyio_begin();
	if (late)
		st.late++;
	else
	{
		st.rows++;
		st.has_progress = true;
		st.progress = ts;
		if (ev != SP_KEY_NULL)
		{
			char	   *closed = NULL;

			if (ev == SP_KEY_NEW)
			{
				if (ks.has_key)
					closed = sp_keyio_to_text(&io, ks.key);
				sp_key_replace(&ks, PG_GETARG_DATUM(ARG_KEY));
			}
			if (sp_run_row(st.run, NULL, ev))
			{
				st.emit = palloc(sizeof(SpEmission) * cfg->n_out);
				for (int i = 0; i < cfg->n_out; i++)
				{
					if (!st.run->emitted[i])
						continue;
					st.emit[st.n_emit].ts = ts;
					st.emit[st.n_emit].key = closed;
					st.emit[st.n_emit].port = i;
					st.emit[st.n_emit].value = st.run->emit[i];
					st.n_emit++;
				}
			}
		}
	}
	if (ks.has_key)
		st.key = sp_keyio_to_text(&io, ks.key);
	sp_keyio_end(nest);
	PG_RETURN_POINTER(sp_value_build(cfg, &st));
}
