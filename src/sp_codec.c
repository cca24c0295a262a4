/*
 * sp_codec.c
 *	  Building, checking and opening the stored form of a `pipeline` value.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/memutils.h"

#include "sp_codec.h"
#include "sp_spec.h"

static PipelineValue *
make_value(const char *config, uint32 config_len, const char *state, uint32 state_len)
{
	Size		size = SP_HEADER_SIZE + (Size) config_len + state_len;
	PipelineValue *pv;

	if (size > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("pipeline value would be too large"),
				 errdetail("Its text takes %zu bytes; at most %zu are allowed.",
						   size, (Size) MaxAllocSize)));
	pv = palloc0(size);
	SET_VARSIZE(pv, size);
	pv->version = state ? SP_FORMAT_STATE : SP_FORMAT_CONFIG;
	pv->config_len = config_len;
	memcpy(pv->config, config, config_len);
	if (state)
		memcpy(pv->config + config_len, state, state_len);
	return pv;
}

PipelineValue *
sp_value_from_config(const SpConfig *cfg)
{
	StringInfoData text;
	PipelineValue *pv;

	initStringInfo(&text);
	sp_spec_write(&text, cfg);
	pv = make_value(text.data, text.len, NULL, 0);
	pfree(text.data);
	return pv;
}

PipelineValue *
sp_value_build(const SpConfig *cfg, const SpState *st)
{
	StringInfoData buf;
	PipelineValue *pv;
	uint32		config_len;

	/* written in place after a header, so a large state is not copied */
	initStringInfo(&buf);
	appendStringInfoSpaces(&buf, SP_HEADER_SIZE);
	sp_spec_write(&buf, cfg);
	config_len = buf.len - SP_HEADER_SIZE;
	sp_state_write(&buf, st);
	pv = (PipelineValue *) buf.data;
	memset(pv, 0, SP_HEADER_SIZE);
	SET_VARSIZE(pv, buf.len);
	pv->version = SP_FORMAT_STATE;
	pv->config_len = config_len;
	return pv;
}

/* Raise 22P03 for a malformed stored value or wire message. */
void
sp_bad_value(const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("invalid binary representation of type pipeline"),
			 errdetail_internal("%s", detail)));
}

void
sp_value_view(const PipelineValue *pv, SpValueView *view)
{
	Size		size = VARSIZE(pv);

	if (size < SP_HEADER_SIZE)
		sp_bad_value("The value is shorter than its header.");
	if (pv->version != SP_FORMAT_CONFIG && pv->version != SP_FORMAT_STATE)
		sp_bad_value(psprintf("Format version %u is not supported (this build reads versions %d and %d).",
						   pv->version, SP_FORMAT_CONFIG, SP_FORMAT_STATE));
	if (pv->flags != 0 || pv->reserved != 0)
		sp_bad_value("Unknown flags are set.");
	view->config = pv->config;
	view->config_len = pv->config_len;
	view->state = NULL;
	view->state_len = 0;
	if (pv->version == SP_FORMAT_CONFIG)
	{
		if (pv->config_len != size - SP_HEADER_SIZE)
			sp_bad_value("The configuration length does not match the value's size.");
		return;
	}
	if (pv->config_len >= size - SP_HEADER_SIZE)
		sp_bad_value("The configuration length leaves no room for the state.");
	/* the text form puts the state inside the configuration's braces */
	if (pv->config_len < 2 || pv->config[pv->config_len - 1] != '}')
		sp_bad_value("The configuration is not a JSON object.");
	view->state = pv->config + pv->config_len;
	view->state_len = size - SP_HEADER_SIZE - pv->config_len;
}

PipelineValue *
sp_value_open(Datum d, SpValueView *view)
{
	PipelineValue *pv = (PipelineValue *) PG_DETOAST_DATUM(d);

	sp_value_view(pv, view);
	return pv;
}

static char *
part_text(const char *p, uint32 len, const char *what)
{
	if (memchr(p, '\0', len) != NULL)
		sp_bad_value(psprintf("The %s text contains a NUL byte.", what));
	return pnstrdup(p, len);
}

char *
sp_view_config_text(const SpValueView *view)
{
	return part_text(view->config, view->config_len, "configuration");
}

char *
sp_view_state_text(const SpValueView *view)
{
	Assert(view->state != NULL);
	return part_text(view->state, view->state_len, "state");
}

SpState *
sp_view_read_state(const SpValueView *view, const SpConfig *cfg,
				   MemoryContext run_cxt, bool keep_emissions)
{
	Assert(view->state != NULL);
	if (memchr(view->state, '\0', view->state_len) != NULL)
		sp_bad_value("The state text contains a NUL byte.");
	return sp_state_read_len(view->state, view->state_len, cfg, run_cxt,
							 ERRCODE_INVALID_BINARY_REPRESENTATION, keep_emissions);
}
