/*
 * sp_codec.c
 *	  Building and checking the stored form of a `pipeline` value.
 */
#include "postgres.h"

#include "sp_codec.h"
#include "sp_spec.h"

PipelineValue *
sp_value_from_config(const SpConfig *cfg)
{
	StringInfoData text;
	PipelineValue *pv;
	Size		size;

	initStringInfo(&text);
	sp_spec_write(&text, cfg);
	size = SP_HEADER_SIZE + text.len;
	pv = palloc0(size);
	SET_VARSIZE(pv, size);
	pv->version = SP_FORMAT_VERSION;
	pv->config_len = text.len;
	memcpy(pv->config, text.data, text.len);
	pfree(text.data);
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
sp_value_check(const PipelineValue *pv)
{
	Size		size = VARSIZE(pv);

	if (size < SP_HEADER_SIZE)
		sp_bad_value("The value is shorter than its header.");
	if (pv->version != SP_FORMAT_VERSION)
		sp_bad_value(psprintf("Format version %u is not supported (this build reads version %d).",
							  pv->version, SP_FORMAT_VERSION));
	if (pv->flags != 0 || pv->reserved != 0)
		sp_bad_value("Unknown flags are set.");
	if (pv->config_len != size - SP_HEADER_SIZE)
		sp_bad_value("The configuration length does not match the value's size.");
}

SpConfig *
sp_value_config(const PipelineValue *pv)
{
	char	   *text;

	sp_value_check(pv);
	text = pnstrdup(pv->config, pv->config_len);
	if (strlen(text) != pv->config_len)
		sp_bad_value("The configuration text contains a NUL byte.");
	return sp_spec_read(text);
}
