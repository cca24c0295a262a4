/*
 * fuzz_state.c
 *	  The libFuzzer target's half for pipelines that carry state: the text
 *	  and binary input of the `pipeline` type, the state codec, resuming in
 *	  pipeline_agg, all as the server runs them (pipeline_type.c,
 *	  pipeline_agg.c, sp_state.c, sp_resume.c ...), with the stand-ins of
 *	  shim_state.c for timestamps, keys and the aggregate's call context.
 *
 * For a value that was accepted (refusal is an ERROR, which is fine):
 *	- its text and its binary form read back to the same bytes;
 *	- rows from the fuzz bytes run through pipeline_agg from it, as one
 *	  call and as two, the second resuming from the first's result: the
 *	  emissions concatenated equal the single call's, and the states are
 *	  the same but for the emissions (an ERROR in the split calls that the
 *	  single call did not raise is a failure);
 *	- the result's text and binary form read back to the same bytes.
 * With SEGPIPE_FUZZ_EXACT set (test/fuzz/libfuzz.sh, on seeds written by the
 * server), a value must be accepted and print back as exactly its input.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "port/pg_bswap.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "sp_codec.h"
#include "sp_keyio.h"
#include "sp_spec.h"
#include "sp_state.h"

#include "fuzz.h"
#include "shim.h"

extern Datum pipeline_in(PG_FUNCTION_ARGS);
extern Datum pipeline_out(PG_FUNCTION_ARGS);
extern Datum pipeline_recv(PG_FUNCTION_ARGS);
extern Datum pipeline_send(PG_FUNCTION_ARGS);
extern Datum pipeline_agg_step(PG_FUNCTION_ARGS);
extern Datum pipeline_agg_step_array(PG_FUNCTION_ARGS);
extern Datum pipeline_agg_final(PG_FUNCTION_ARGS);

bool		fuzz_exact_pending = false;

static void
fail(const char *what)
{
	fprintf(stderr, "fuzz_state: %s\n", what);
	abort();
}

static bool
same_bytes(const void *a, const void *b)
{
	return VARSIZE(a) == VARSIZE(b) &&
		memcmp(VARDATA(a), VARDATA(b), VARSIZE(a) - VARHDRSZ) == 0;
}

static PipelineValue *
from_message(const char *msg, int len)
{
	StringInfoData buf;

	buf.data = unconstify(char *, msg);
	buf.len = len;
	buf.maxlen = len + 1;
	buf.cursor = 0;
	return (PipelineValue *) DatumGetPointer(DirectFunctionCall1(pipeline_recv, PointerGetDatum(&buf)));
}

/* Text and binary forms both read back to the value's bytes. */
static void
check_round_trips(PipelineValue *pv)
{
	char	   *text = DatumGetCString(DirectFunctionCall1(pipeline_out, PointerGetDatum(pv)));
	bytea	   *msg = DatumGetByteaPP(DirectFunctionCall1(pipeline_send, PointerGetDatum(pv)));
	PipelineValue *again;

	PG_TRY();
	{
		again = (PipelineValue *) DatumGetPointer(DirectFunctionCall1(pipeline_in, CStringGetDatum(text)));
		if (!same_bytes(pv, again))
			fail("the text form does not read back to the same value");
		again = from_message(VARDATA(msg), VARSIZE(msg) - VARHDRSZ);
		if (!same_bytes(pv, again))
			fail("the binary form does not read back to the same value");
	}
	PG_CATCH();
	{
		fprintf(stderr, "value: %s\nerror: %s\n", text, shim_last_error);
		fail("a value's own text or binary form was refused");
	}
	PG_END_TRY();
}

/* ---- rows through pipeline_agg ---- */

/*
 * Per row, 3 + n_in bytes: flags (1: punctuation; 6 both set: NULL key;
 * 0x70 all set: NULL timestamp), the key, the time step (next_time), the
 * values.
 */
typedef struct Rows
{
	const uint8 *p;
	int			n;				/* rows */
	int			step;			/* bytes per row */
	int			n_in;
	Oid			key_type;
	bool		scalar;			/* pipeline_agg(ts, float8, ...) */
	bool		late_drop;		/* the spec drops late rows */
	TimestampTz start;			/* the first row's time base */
} Rows;

static Datum
row_key(Oid type, uint8 b)
{
	static const double f[] = {0.0, -0.0, NAN, 1.0, 2.0, 1e308, INFINITY, 1.5};
	static const int64 i[] = {0, 1, 2, -1, PG_INT64_MAX, PG_INT64_MIN, 3, 4};
	static const char *const t[] = {"", "a", "b", "\xc3\xa9", "a\"b", "x y", "\\", "ab"};

	switch (type)
	{
		case FLOAT8OID:
			return Float8GetDatum(f[b % lengthof(f)]);
		case INT8OID:
			return Int64GetDatum(i[b % lengthof(i)]);
		default:
			return PointerGetDatum(cstring_to_text(t[b % lengthof(t)]));
	}
}

static Datum
float8_array(const double *v, int n)
{
	Size		size = ARR_OVERHEAD_NONULLS(1) + sizeof(double) * n;
	ArrayType  *a = palloc0(size);

	SET_VARSIZE(a, size);
	a->ndim = 1;
	a->dataoffset = 0;
	a->elemtype = FLOAT8OID;
	ARR_DIMS(a)[0] = n;
	ARR_LBOUND(a)[0] = 1;
	memcpy(ARR_DATA_PTR(a), v, sizeof(double) * n);
	return PointerGetDatum(a);
}

/*
 * The next row's time from the latest so far, kept valid: 0 to 3 seconds
 * on, or back by up to 7 (late) when the low bits are all set: one row in
 * four where late rows are dropped, one in 64 where they are an error.
 */
static TimestampTz
next_time(TimestampTz cur, uint8 b, bool late_drop)
{
	bool		late = (b & (late_drop ? 0x03 : 0x3F)) == (late_drop ? 0x03 : 0x3F);
	int64		d = late ? -(int64) (b >> 5) * USECS_PER_SEC : (b % 4) * USECS_PER_SEC;

	if (cur == DT_NOEND)
		return d >= 0 ? DT_NOEND : 0;
	if (cur == DT_NOBEGIN)
		return d > 0 ? 0 : DT_NOBEGIN;
	return IS_VALID_TIMESTAMP(cur + d) ? cur + d : cur;
}

/*
 * Rows [from, to) through pipeline_agg with spec; the final value, or
 * NULL when there are no rows (the aggregate's result is NULL then).
 * *cur carries the time base from call to call.
 */
static PipelineValue *
run_agg(const Rows *r, int from, int to, PipelineValue *spec, TimestampTz *cur)
{
	LOCAL_FCINFO(fcinfo, 5);
	FmgrInfo	flinfo = {0};
	Datum		state = (Datum) 0;
	bool		have = false;
	double	   *vals = palloc(sizeof(double) * r->n_in);

	flinfo.fn_mcxt = CurrentMemoryContext;
	flinfo.fn_nargs = 5;
	shim_key_type = r->key_type;
	shim_agg_context = AllocSetContextCreate(CurrentMemoryContext, "agg", ALLOCSET_DEFAULT_SIZES);
	for (int k = from; k < to; k++)
	{
		const uint8 *p = r->p + (Size) k * r->step;
		bool		punct = (p[0] & 1) != 0;
		bool		knull = (p[0] & 6) == 6;
		bool		tnull = (p[0] & 0x70) == 0x70;
		TimestampTz ts = next_time(*cur, p[2], r->late_drop);

		if (!tnull && ts > *cur)
			*cur = ts;
		for (int i = 0; i < r->n_in; i++)
			vals[i] = fuzz_pick(p[3 + i]);
		InitFunctionCallInfoData(*fcinfo, &flinfo, 5, DEFAULT_COLLATION_OID, NULL, NULL);
		fcinfo->args[0].value = state;
		fcinfo->args[0].isnull = !have;
		fcinfo->args[1].value = TimestampTzGetDatum(ts);
		fcinfo->args[1].isnull = tnull;
		fcinfo->args[2].value = r->scalar ? Float8GetDatum(vals[0]) : float8_array(vals, r->n_in);
		fcinfo->args[2].isnull = punct;
		fcinfo->args[3].value = knull ? (Datum) 0 : row_key(r->key_type, p[1]);
		fcinfo->args[3].isnull = knull;
		fcinfo->args[4].value = PointerGetDatum(spec);
		fcinfo->args[4].isnull = false;
		state = r->scalar ? pipeline_agg_step(fcinfo) : pipeline_agg_step_array(fcinfo);
		have = true;
	}
	if (!have)
		return NULL;
	InitFunctionCallInfoData(*fcinfo, NULL, 1, DEFAULT_COLLATION_OID, NULL, NULL);
	fcinfo->args[0].value = state;
	fcinfo->args[0].isnull = false;
	return (PipelineValue *) DatumGetPointer(pipeline_agg_final(fcinfo));
}

static SpState *
decode(PipelineValue *pv, const SpConfig **cfg)
{
	SpValueView view;

	sp_value_view(pv, &view);
	if (view.state == NULL)
		fail("pipeline_agg returned a value without state");
	*cfg = sp_spec_read(sp_view_config_text(&view));
	return sp_state_read(sp_view_state_text(&view), *cfg, CurrentMemoryContext,
						 ERRCODE_INVALID_BINARY_REPRESENTATION);
}

static char *
state_without_emissions(SpState *st)
{
	StringInfoData buf;
	int			n = st->n_emit;

	initStringInfo(&buf);
	st->n_emit = 0;
	sp_state_write(&buf, st);
	st->n_emit = n;
	return buf.data;
}

static bool
same_emission(const SpEmission *a, const SpEmission *b)
{
	return a->ts == b->ts && a->port == b->port && strcmp(a->key, b->key) == 0 &&
		memcmp(&a->value, &b->value, sizeof(double)) == 0;
}

/* A then B, resumed from A's result, equals one call over both. */
static void
check_split(const Rows *r, int split, PipelineValue *spec, PipelineValue *whole)
{
	TimestampTz cur = r->start;
	PipelineValue *a,
			   *b;

	PG_TRY();
	{
		a = run_agg(r, 0, split, spec, &cur);
		b = run_agg(r, split, r->n, a, &cur);
	}
	PG_CATCH();
	{
		fprintf(stderr, "error: %s\n", shim_last_error);
		fail("a split run raised an error that the whole run did not");
	}
	PG_END_TRY();
	{
		const SpConfig *cw,
				   *ca,
				   *cb;
		SpState    *sw = decode(whole, &cw);
		SpState    *sa = decode(a, &ca);
		SpState    *sb = decode(b, &cb);

		if (strcmp(state_without_emissions(sw), state_without_emissions(sb)) != 0)
		{
			fprintf(stderr, "whole: %s\nsplit: %s\n", state_without_emissions(sw),
					state_without_emissions(sb));
			fail("resuming reaches another state than one run");
		}
		if (sa->n_emit + sb->n_emit != sw->n_emit)
			fail("resuming emits another number of values than one run");
		for (int e = 0; e < sw->n_emit; e++)
			if (!same_emission(&sw->emit[e], e < sa->n_emit ? &sa->emit[e] : &sb->emit[e - sa->n_emit]))
				fail("resuming emits other values than one run");
	}
}

void
fuzz_value(PipelineValue *pv, const uint8 *p, size_t n)
{
	const SpConfig *cfg;
	SpValueView view;
	Rows		r;
	uint8		sel;
	PipelineValue *whole;
	TimestampTz cur;

	check_round_trips(pv);
	if (n < 1)
		return;
	sel = p[0];
	sp_value_view(pv, &view);
	cfg = sp_spec_read(sp_view_config_text(&view));
	memset(&r, 0, sizeof(r));
	r.n_in = cfg->n_in;
	r.step = 3 + r.n_in;
	r.p = p + 1;
	r.n = (int) Min((n - 1) / r.step, 64);
	r.scalar = r.n_in == 1 && (sel & 0x20) != 0;
	r.late_drop = cfg->late_drop;
	if (view.state != NULL)
	{
		/* the type the state's keys are of: another is refused, tested in SQL */
		SpState    *st = sp_state_read(sp_view_state_text(&view), cfg, CurrentMemoryContext,
									   ERRCODE_INVALID_BINARY_REPRESENTATION);

		r.key_type = shim_key_type_from_name(st->key_type, ERRCODE_INVALID_BINARY_REPRESENTATION);
		r.start = st->has_progress ? st->progress : 0;
	}
	else
		r.key_type = (sel >> 6) == 0 ? FLOAT8OID : (sel >> 6) == 1 ? INT8OID : TEXTOID;
	cur = r.start;
	/* an ERROR here (a late row, say) is the rows' refusal: nothing to check */
	whole = run_agg(&r, 0, r.n, pv, &cur);
	if (whole == NULL)
		return;
	check_round_trips(whole);
	if (r.n >= 2)
		check_split(&r, 1 + (sel & 0x1F) % (r.n - 1), pv, whole);
}

/*
 * A fuzz input that starts with a format version byte: a wire message (its
 * header, the configuration of the length it gives, the state up to a NUL),
 * then row bytes.
 */
void
fuzz_message(const uint8 *data, size_t size)
{
	size_t		len = SP_HEADER_SIZE - VARHDRSZ;
	uint32		config_len;
	PipelineValue *pv;
	bytea	   *again;

	if (size < len)
		return;
	config_len = pg_ntoh32(*(const uint32 *) (data + 4));
	if (config_len > size - len)
		return;
	len += config_len;
	while (len < size && data[len] != '\0')
		len++;
	fuzz_exact_pending = fuzz_exact;
	pv = from_message((const char *) data, (int) len);
	if (fuzz_exact)
	{
		again = DatumGetByteaPP(DirectFunctionCall1(pipeline_send, PointerGetDatum(pv)));
		if (VARSIZE(again) - VARHDRSZ != len || memcmp(VARDATA(again), data, len) != 0)
			fail("a message from the server is not sent back as it came");
		fuzz_exact_pending = false;
	}
	fuzz_value(pv, data + Min(len + 1, size), size - Min(len + 1, size));
}

/* A pipeline's text with a "state" member, then row bytes. */
void
fuzz_text(const char *text, const uint8 *rows, size_t n)
{
	PipelineValue *pv;

	fuzz_exact_pending = fuzz_exact;
	pv = (PipelineValue *) DatumGetPointer(DirectFunctionCall1(pipeline_in, CStringGetDatum(text)));
	if (fuzz_exact)
	{
		char	   *out = DatumGetCString(DirectFunctionCall1(pipeline_out, PointerGetDatum(pv)));

		if (strcmp(out, text) != 0)
		{
			fprintf(stderr, "server: %s\nhere:   %s\n", text, out);
			fail("a pipeline from the server does not print back as it came");
		}
		fuzz_exact_pending = false;
	}
	fuzz_value(pv, rows, n);
}
