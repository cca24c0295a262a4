/*
 * pipeline_type.c
 *	  SQL-callable input/output functions of the `pipeline` type, and its
 *	  equality and bytewise order.
 *
 * Whatever comes in, as text or binary, is read fully (configuration,
 * state, keys) and stored in canonical form, so equal pipelines are equal
 * bytes and the operators compare bytes.
 */
#include "postgres.h"

#include "fmgr.h"
#include "common/hashfn.h"
#include "libpq/pqformat.h"
#include "mb/pg_wchar.h"
#include "utils/memutils.h"

#include "sp_codec.h"
#include "sp_compat.h"
#include "sp_spec.h"
#include "sp_state.h"

SP_MODULE_MAGIC;

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
	sp_state_canonical_keys(st, code);
	return sp_value_build(cfg, st);
}

Datum
pipeline_in(PG_FUNCTION_ARGS)
{
	char	   *text = PG_GETARG_CSTRING(0);
	char	   *state;
	char	   *config = sp_state_split_document(text, &state,
												 ERRCODE_INVALID_TEXT_REPRESENTATION);

	PG_RETURN_POINTER(value_from_texts(config, state, ERRCODE_INVALID_TEXT_REPRESENTATION));
}

Datum
pipeline_out(PG_FUNCTION_ARGS)
{
	SpValueView view;
	StringInfoData buf;

	(void) sp_value_open(PG_GETARG_DATUM(0), &view);
	if (view.state == NULL)
		PG_RETURN_CSTRING(pnstrdup(view.config, view.config_len));
	initStringInfo(&buf);
	/* the state goes inside the configuration's closing brace */
	appendBinaryStringInfo(&buf, view.config, view.config_len - 1);
	appendStringInfoString(&buf, ", \"state\": ");
	appendBinaryStringInfo(&buf, view.state, view.state_len);
	appendStringInfoChar(&buf, '}');
	PG_RETURN_CSTRING(buf.data);
}

/* len bytes of text in the client encoding, checked, in the server's. */
static char *
wire_text(StringInfo buf, uint32 len, const char *what)
{
	int			nbytes;

	if (memchr(buf->data + buf->cursor, '\0', len) != NULL)
		sp_bad_value(psprintf("The %s text contains a NUL byte.", what));
	if (pg_encoding_verifymbstr(pg_get_client_encoding(),
								buf->data + buf->cursor, len) != len)
		sp_bad_value(psprintf("The %s text is not valid in the client encoding.", what));
	return pq_getmsgtext(buf, len, &nbytes);
}

/*
 * Wire form: version byte, flags byte, reserved uint16, uint32 length of
 * the configuration text, the configuration text, and in version 2 the
 * state's text (the rest of the message).
 */
Datum
pipeline_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int			version,
				flags,
				reserved;
	uint32		len;
	uint32		rest;
	char	   *config;
	char	   *state = NULL;

	if (buf->len - buf->cursor < SP_HEADER_SIZE - VARHDRSZ)
		sp_bad_value("The message is shorter than the header.");
	version = pq_getmsgbyte(buf);
	flags = pq_getmsgbyte(buf);
	reserved = pq_getmsgint(buf, 2);
	len = pq_getmsgint(buf, 4);
	if (version != SP_FORMAT_CONFIG && version != SP_FORMAT_STATE)
		sp_bad_value(psprintf("Format version %d is not supported (this build reads versions %d and %d).",
						  version, SP_FORMAT_CONFIG, SP_FORMAT_STATE));
	if (flags != 0 || reserved != 0)
		sp_bad_value("Unknown flags are set.");
	rest = buf->len - buf->cursor;
	if (version == SP_FORMAT_CONFIG ? len != rest : len >= rest)
		sp_bad_value("The configuration length does not match the message.");
	config = wire_text(buf, len, "configuration");
	if (version == SP_FORMAT_STATE)
		state = wire_text(buf, rest - len, "state");
	PG_RETURN_POINTER(value_from_texts(config, state, ERRCODE_INVALID_BINARY_REPRESENTATION));
}

/* The texts travel in the client encoding, like a text value. */
static void
send_text(StringInfo buf, const char *p, uint32 len, bool with_len)
{
	char	   *wire = pg_server_to_client(p, len);
	uint32		wire_len = (wire == p) ? len : strlen(wire);

	if (with_len)
		pq_sendint32(buf, wire_len);
	pq_sendbytes(buf, wire, wire_len);
}

Datum
pipeline_send(PG_FUNCTION_ARGS)
{
	SpValueView view;
	PipelineValue *pv = sp_value_open(PG_GETARG_DATUM(0), &view);
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbyte(&buf, pv->version);
	pq_sendbyte(&buf, 0);
	pq_sendint16(&buf, 0);
	send_text(&buf, view.config, view.config_len, true);
	if (view.state)
		send_text(&buf, view.state, view.state_len, false);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
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
