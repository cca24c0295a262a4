/*
 * pipeline_type.c
 *	  SQL-callable input/output functions of the `pipeline` type.
 */
#include "postgres.h"

#include "fmgr.h"
#include "libpq/pqformat.h"
#include "mb/pg_wchar.h"
#include "sp_codec.h"
#include "sp_spec.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(pipeline_in);
PG_FUNCTION_INFO_V1(pipeline_out);
PG_FUNCTION_INFO_V1(pipeline_recv);
PG_FUNCTION_INFO_V1(pipeline_send);

Datum
pipeline_in(PG_FUNCTION_ARGS)
{
	char	   *text = PG_GETARG_CSTRING(0);

	PG_RETURN_POINTER(sp_value_from_config(sp_spec_read(text)));
}

Datum
pipeline_out(PG_FUNCTION_ARGS)
{
	PipelineValue *pv = (PipelineValue *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0));

	sp_value_check(pv);
	PG_RETURN_CSTRING(pnstrdup(pv->config, pv->config_len));
}

/*
 * Wire form: version byte, flags byte, reserved uint16, uint32 length, then
 * the configuration text; integers in network byte order.
 */
Datum
pipeline_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int			version,
				flags,
				reserved;
	uint32		len;
	int			nbytes;
	char	   *text;

	if (buf->len - buf->cursor < SP_HEADER_SIZE - VARHDRSZ)
		sp_bad_value("The message is shorter than the header.");
	version = pq_getmsgbyte(buf);
	flags = pq_getmsgbyte(buf);
	reserved = pq_getmsgint(buf, 2);
	len = pq_getmsgint(buf, 4);
	if (version != SP_FORMAT_VERSION)
		sp_bad_value(psprintf("Format version %d is not supported (this build reads version %d).",
							  version, SP_FORMAT_VERSION));
	if (flags != 0 || reserved != 0)
		sp_bad_value("Unknown flags are set.");
	if (len != (uint32) (buf->len - buf->cursor))
		sp_bad_value("The configuration length does not match the message.");
	if (memchr(buf->data + buf->cursor, '\0', len) != NULL)
		sp_bad_value("The configuration text contains a NUL byte.");
	if (pg_encoding_verifymbstr(pg_get_client_encoding(),
								buf->data + buf->cursor, len) != len)
		sp_bad_value("The configuration text is not valid in the client encoding.");
	/* the text travels in the client encoding, like a text value */
	text = pq_getmsgtext(buf, len, &nbytes);
	PG_RETURN_POINTER(sp_value_from_config(sp_spec_read(text)));
}

Datum
pipeline_send(PG_FUNCTION_ARGS)
{
	PipelineValue *pv = (PipelineValue *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
	StringInfoData buf;
	char	   *wire;
	uint32		wire_len;

	sp_value_check(pv);
	pq_begintypsend(&buf);
	pq_sendbyte(&buf, pv->version);
	pq_sendbyte(&buf, pv->flags);
	pq_sendint16(&buf, pv->reserved);
	/* the text travels in the client encoding, like a text value */
	wire = pg_server_to_client(pv->config, pv->config_len);
	wire_len = (wire == pv->config) ? pv->config_len : strlen(wire);
	pq_sendint32(&buf, wire_len);
	pq_sendbytes(&buf, wire, wire_len);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}
