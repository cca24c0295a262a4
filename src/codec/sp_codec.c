/*
 * sp_codec.c
 *	  The one owner of a `pipeline` value's forms (the layout is in
 *	  sp_codec.h): building, checking and opening the stored form, the text
 *	  form's assembly and split, and the binary wire form.  pipeline_type.c
 *	  only calls these.
 */
#include "postgres.h"

#include "fmgr.h"
#include "libpq/pqformat.h"
#include "mb/pg_wchar.h"
#include "utils/memutils.h"

#include "sp_codec.h"
#include "sp_compat.h"
#include "sp_jscan.h"
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

/* A value whose configuration text buf holds after the header: add st. */
static PipelineValue *
finish_value(StringInfo buf, const SpState *st)
{
	uint32		config_len = buf->len - SP_HEADER_SIZE;
	PipelineValue *pv;

	sp_state_write(buf, st);
	pv = (PipelineValue *) buf->data;
	memset(pv, 0, SP_HEADER_SIZE);
	SET_VARSIZE(pv, buf->len);
	pv->version = SP_FORMAT_STATE;
	pv->config_len = config_len;
	return pv;
}

PipelineValue *
sp_value_build(const SpConfig *cfg, const SpState *st)
{
	StringInfoData buf;

	/* written in place after a header, so a large state is not copied */
	initStringInfo(&buf);
	appendStringInfoSpaces(&buf, SP_HEADER_SIZE);
	sp_spec_write(&buf, cfg);
	return finish_value(&buf, st);
}

PipelineValue *
sp_value_build_text(const char *config, uint32 config_len, const SpState *st)
{
	StringInfoData buf;

	initStringInfo(&buf);
	enlargeStringInfo(&buf, SP_HEADER_SIZE + config_len + 256);
	appendStringInfoSpaces(&buf, SP_HEADER_SIZE);
	appendBinaryStringInfo(&buf, config, config_len);
	return finish_value(&buf, st);
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

/* The header's version, flags and reserved field, stored or on the wire. */
static void
check_header(int version, int flags, int reserved)
{
	if (version != SP_FORMAT_CONFIG && version != SP_FORMAT_STATE)
		sp_bad_value(psprintf("Format version %d is not supported (this build reads versions %d and %d).",
							  version, SP_FORMAT_CONFIG, SP_FORMAT_STATE));
	if (flags != 0 || reserved != 0)
		sp_bad_value("Unknown flags are set.");
}

void
sp_value_view(const PipelineValue *pv, SpValueView *view)
{
	Size		size = VARSIZE(pv);

	if (size < SP_HEADER_SIZE)
		sp_bad_value("The value is shorter than its header.");
	check_header(pv->version, pv->flags, pv->reserved);
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

/* A part of a value or message holds no NUL: its text ends at its length. */
static void
check_no_nul(const char *p, uint32 len, const char *what)
{
	if (memchr(p, '\0', len) != NULL)
		sp_bad_value(psprintf("The %s text contains a NUL byte.", what));
}

static char *
part_text(const char *p, uint32 len, const char *what)
{
	check_no_nul(p, len, what);
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

/* ---- the text form: the configuration's JSON with the state as its last member ---- */

char *
sp_value_text(const SpValueView *view)
{
	StringInfoData buf;

	if (view->state == NULL)
		return pnstrdup(view->config, view->config_len);
	initStringInfo(&buf);
	/* the state goes inside the configuration's closing brace */
	appendBinaryStringInfo(&buf, view->config, view->config_len - 1);
	appendStringInfoString(&buf, ", \"state\": ");
	appendBinaryStringInfo(&buf, view->state, view->state_len);
	appendStringInfoChar(&buf, '}');
	return buf.data;
}

char *
sp_text_split(const char *text, char **state_text, int code)
{
	SpScan		s;
	StringInfoData config;
	bool		first = true;

	*state_text = NULL;
	/* most texts are specs: leave them to the spec reader as they are */
	if (strstr(text, "\"state\"") == NULL)
		return unconstify(char *, text);
	sp_scan_init(&s, text, code);
	/* the state is found in the whole text: positions count from its start */
	s.what = "the text";
	initStringInfo(&config);
	appendStringInfoChar(&config, '{');
	sp_scan_expect(&s, '{');
	if (!sp_scan_accept(&s, '}'))
	{
		do
		{
			const char *member;
			char	   *name;
			const char *value;

			sp_scan_peek(&s, '"');
			member = s.p;
			name = sp_scan_string(&s);
			sp_scan_expect(&s, ':');
			value = sp_scan_skip(&s);
			if (strcmp(name, "state") == 0 && *state_text == NULL)
				*state_text = pnstrdup(value, s.p - value);
			else
			{
				/* a second "state" goes to the spec reader, which refuses it */
				if (!first)
					appendStringInfoString(&config, ", ");
				first = false;
				appendBinaryStringInfo(&config, member, s.p - member);
			}
		} while (sp_scan_accept(&s, ','));
		sp_scan_expect(&s, '}');
	}
	sp_scan_finish(&s);
	appendStringInfoChar(&config, '}');
	return config.data;
}

/* ---- the binary wire form: the stored form without the varlena header ---- */

/* len bytes of text in the client encoding, checked, in the server's. */
static char *
wire_text(StringInfo buf, uint32 len, const char *what)
{
	int			nbytes;

	check_no_nul(buf->data + buf->cursor, len, what);
	if (pg_encoding_verifymbstr(pg_get_client_encoding(),
								buf->data + buf->cursor, len) != len)
		sp_bad_value(psprintf("The %s text is not valid in the client encoding.", what));
	return pq_getmsgtext(buf, len, &nbytes);
}

char *
sp_wire_read(StringInfo buf, char **state_text)
{
	int			version,
				flags,
				reserved;
	uint32		len;
	uint32		rest;
	char	   *config;

	*state_text = NULL;
	if (buf->len - buf->cursor < SP_HEADER_SIZE - VARHDRSZ)
		sp_bad_value("The message is shorter than the header.");
	version = pq_getmsgbyte(buf);
	flags = pq_getmsgbyte(buf);
	reserved = pq_getmsgint(buf, 2);
	len = pq_getmsgint(buf, 4);
	check_header(version, flags, reserved);
	rest = buf->len - buf->cursor;
	if (version == SP_FORMAT_CONFIG ? len != rest : len >= rest)
		sp_bad_value("The configuration length does not match the message.");
	config = wire_text(buf, len, "configuration");
	if (version == SP_FORMAT_STATE)
		*state_text = wire_text(buf, rest - len, "state");
	return config;
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

bytea *
sp_wire_write(const PipelineValue *pv, const SpValueView *view)
{
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbyte(&buf, pv->version);
	pq_sendbyte(&buf, 0);
	pq_sendint16(&buf, 0);
	send_text(&buf, view->config, view->config_len, true);
	if (view->state)
		send_text(&buf, view->state, view->state_len, false);
	return pq_endtypsend(&buf);
}

SpState *
sp_view_read_state(const SpValueView *view, const SpConfig *cfg,
				   MemoryContext run_cxt, bool keep_emissions)
{
	Assert(view->state != NULL);
	check_no_nul(view->state, view->state_len, "state");
	return sp_state_read_len(view->state, view->state_len, cfg, run_cxt,
							 ERRCODE_INVALID_BINARY_REPRESENTATION, keep_emissions);
}

bool
sp_view_read_header(const SpValueView *view, SpState *st)
{
	if (view->state == NULL)
	{
		memset(st, 0, sizeof(SpState));
		return false;
	}
	check_no_nul(view->state, view->state_len, "state");
	sp_state_read_header(view->state, view->state_len,
						 ERRCODE_INVALID_BINARY_REPRESENTATION, st);
	return true;
}
