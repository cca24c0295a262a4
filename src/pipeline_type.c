/*
 * pipeline_type.c
 *	  SQL-callable input/output functions of the `pipeline` type, and its
 *	  equality and bytewise order.
 *
 * Whatever comes in, as text or binary, is read fully (configuration and
 * state) and stored in canonical form, so equal pipelines are equal bytes
 * and the operators compare bytes.  Keys and their type's name are the
 * exception: they are kept as the text they came as, never parsed or looked
 * up here (sp_keyio.h says why), so a value with a hand-written "03" for an
 * integer key is another value than the one segpipe writes, "3".
 */
#include "postgres.h"

#include "fmgr.h"
#include "common/hashfn.h"
#include "utils/memutils.h"

#include "sp_codec.h"
#include "sp_spec.h"
#include "sp_state.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(pipeline_in);
PG_FUNCTION_INFO_V1(pipeline_out);
PG_FUNCTION_INFO_V1(pipeline_recv);
PG_FUNCTION_INFO_V1(pipeline_send);
PG_FUNCTION_INFO_V1(pipeline_eq);
PG_FUNCTION_INFO_V1(pipeline_ne);
PG_FUNCTION_INFO_V1(pipeline_lt);
PG_FUNCTION_INFO_V1(pipeline_le);
PG_FUNCTION_INFO_V1(pipeline_gt);
PG_FUNCTION_INFO_V1(pipeline_ge);
PG_FUNCTION_INFO_V1(pipeline_cmp);
PG_FUNCTION_INFO_V1(pipeline_hash);

/*
 * A configuration and, when there is one, a state's text: read, checked
 * and stored canonically.  code is the SQLSTATE of bad input.
 */
static PipelineValue *
value_from_texts(const char *config, const char *state, int code)
{
	SpConfig   *cfg = sp_spec_read(config);
	SpState    *st;

	if (state == NULL)
		return sp_value_from_config(cfg);
	st = sp_state_read(state, cfg, CurrentMemoryContext, code);
	return sp_value_build(cfg, st);
}

Datum
pipeline_in(PG_FUNCTION_ARGS)
{
	char	   *state;
	char	   *config = sp_text_split(PG_GETARG_CSTRING(0), &state,
									   ERRCODE_INVALID_TEXT_REPRESENTATION);

	PG_RETURN_POINTER(value_from_texts(config, state, ERRCODE_INVALID_TEXT_REPRESENTATION));
}

Datum
pipeline_out(PG_FUNCTION_ARGS)
{
	SpValueView view;

	(void) sp_value_open(PG_GETARG_DATUM(0), &view);
	PG_RETURN_CSTRING(sp_value_text(&view));
}

Datum
pipeline_recv(PG_FUNCTION_ARGS)
{
	char	   *state;
	char	   *config = sp_wire_read((StringInfo) PG_GETARG_POINTER(0), &state);

	PG_RETURN_POINTER(value_from_texts(config, state, ERRCODE_INVALID_BINARY_REPRESENTATION));
}

Datum
pipeline_send(PG_FUNCTION_ARGS)
{
	SpValueView view;
	PipelineValue *pv = sp_value_open(PG_GETARG_DATUM(0), &view);

	PG_RETURN_BYTEA_P(sp_wire_write(pv, &view));
}

/* ---- equality and order: the canonical stored bytes ---- */

static int
compare_values(FunctionCallInfo fcinfo)
{
	SpValueView va,
				vb;
	PipelineValue *a = sp_value_open(PG_GETARG_DATUM(0), &va);
	PipelineValue *b = sp_value_open(PG_GETARG_DATUM(1), &vb);
	Size		la = VARSIZE(a) - VARHDRSZ;
	Size		lb = VARSIZE(b) - VARHDRSZ;
	int			c = memcmp(VARDATA(a), VARDATA(b), Min(la, lb));

	if (c == 0 && la != lb)
		c = (la < lb) ? -1 : 1;
	PG_FREE_IF_COPY(a, 0);
	PG_FREE_IF_COPY(b, 1);
	return c;
}

Datum
pipeline_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(compare_values(fcinfo) == 0);
}

Datum
pipeline_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(compare_values(fcinfo) != 0);
}

Datum
pipeline_lt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(compare_values(fcinfo) < 0);
}

Datum
pipeline_le(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(compare_values(fcinfo) <= 0);
}

Datum
pipeline_gt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(compare_values(fcinfo) > 0);
}

Datum
pipeline_ge(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(compare_values(fcinfo) >= 0);
}

Datum
pipeline_cmp(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(compare_values(fcinfo));
}

Datum
pipeline_hash(PG_FUNCTION_ARGS)
{
	SpValueView view;
	PipelineValue *pv = sp_value_open(PG_GETARG_DATUM(0), &view);
	Datum		h = hash_any((unsigned char *) VARDATA(pv), VARSIZE(pv) - VARHDRSZ);

	PG_FREE_IF_COPY(pv, 0);
	PG_RETURN_DATUM(h);
}
