/*
 * sp_state.c
 *	  The state of a pipeline value as JSON: writing it, and reading it back
 *	  as hostile input (the layout is in sp_state.h).
 *
 * The operators' fields go through their state visitors, so this file
 * knows no operator.  Reading is a pull parse in the order the writer
 * uses: a state of any size is read in one pass, without a tree, where it
 * is stored (no copy of its text), into rings allocated at their size, and
 * allocating nothing that stays per value read; so resuming costs the
 * detoasted text and the rings, and writing reserves its room at once.
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/float.h"
#include "utils/json.h"
#include "utils/timestamp.h"

#include "sp_compat.h"
#include "sp_jscan.h"
#include "sp_json.h"
#include "sp_spec.h"
#include "sp_state.h"

/*
 * A key type's schema-qualified name: two quoted identifiers of
 * NAMEDATALEN - 1 bytes each, every byte a doubled quote, and "[]", fit.
 */
#define KEY_TYPE_NAME_MAX (4 * NAMEDATALEN + 8)

/* Integers beyond this are written as strings: a JSON number may be read as a float8. */
#define EXACT_INT_LIMIT (INT64CONST(1) << 53)

/* ---- writing ---- */

static void
write_i64(StringInfo buf, int64 v)
{
	if (v >= -EXACT_INT_LIMIT && v <= EXACT_INT_LIMIT)
		appendStringInfo(buf, INT64_FORMAT, v);
	else
		appendStringInfo(buf, "\"" INT64_FORMAT "\"", v);
}

/*
 * ISO 8601 in UTC with the zone written out: no DateStyle or TimeZone.  s
 * holds MAXDATELEN + 1 bytes.
 */
static void
ts_text(TimestampTz ts, char *s)
{
	struct pg_tm tm;
	fsec_t		fsec;

	if (TIMESTAMP_NOT_FINITE(ts))
		EncodeSpecialTimestamp(ts, s);
	else if (timestamp2tm(ts, NULL, &tm, &fsec, NULL, NULL) == 0)
	{
		/* tm_isdst < 0 would mean "no zone" and leave the offset out */
		tm.tm_isdst = 0;
		EncodeDateTime(&tm, fsec, true, 0, NULL, USE_ISO_DATES, s);
	}
	else
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("timestamp out of range")));
}

void
sp_state_write_ts(StringInfo buf, TimestampTz ts)
{
	char		s[MAXDATELEN + 1];

	ts_text(ts, s);
	escape_json(buf, s);
}

typedef struct WriteCtx
{
	StringInfo	buf;
	bool		first;
} WriteCtx;

static void
write_name(SpStateVisitor *v, const char *name)
{
	WriteCtx   *w = v->private;

	if (!w->first)
		appendStringInfoString(w->buf, ", ");
	w->first = false;
	escape_json(w->buf, name);
	appendStringInfoString(w->buf, ": ");
}

static void
write_f64(SpStateVisitor *v, const char *name, double *field)
{
	write_name(v, name);
	sp_write_float8(((WriteCtx *) v->private)->buf, *field);
}

static void
write_i64_field(SpStateVisitor *v, const char *name, int64 *field)
{
	write_name(v, name);
	write_i64(((WriteCtx *) v->private)->buf, *field);
}

static void
write_f64s(SpStateVisitor *v, const char *name, double *field, int n)
{
	StringInfo	buf = ((WriteCtx *) v->private)->buf;

	write_name(v, name);
	appendStringInfoChar(buf, '[');
	for (int i = 0; i < n; i++)
	{
		if (i)
			appendStringInfoString(buf, ", ");
		sp_write_float8(buf, field[i]);
	}
	appendStringInfoChar(buf, ']');
}

static void
write_ring(SpStateVisitor *v, const char *name, SpRing *r)
{
	StringInfo	buf = ((WriteCtx *) v->private)->buf;

	write_name(v, name);
	appendStringInfoChar(buf, '[');
	for (int64 i = 0; i < r->count; i++)
	{
		if (i)
			appendStringInfoString(buf, ", ");
		sp_write_float8(buf, sp_ring_get(r, i));
	}
	appendStringInfoChar(buf, ']');
}

/* A vector's lanes, as a JSON array. */
static void
write_lanes(StringInfo buf, const double *v, int n)
{
	appendStringInfoChar(buf, '[');
	for (int i = 0; i < n; i++)
	{
		if (i)
			appendStringInfoString(buf, ", ");
		sp_write_float8(buf, v[i]);
	}
	appendStringInfoChar(buf, ']');
}

/*
 * Room for what sp_state_write writes, overestimated: a float8 takes at
 * most 24 characters and its separator 2, an integer field fewer than a
 * float8's with its name, and escaping at most sextuples a key.  Reserving
 * it at once spares the copies of a buffer that doubles as it fills; the
 * room not written is never touched, so it costs no memory.
 */
static Size
state_text_bound(const SpState *st)
{
	const SpRun *run = st->run;
	const SpConfig *cfg = run->cfg;
	Size		n = 1024 + 6 * strlen(st->key_type) + 26 * (Size) cfg->n_out;

	if (st->key)
		n += 6 * strlen(st->key);
	for (int i = 0; i < cfg->n_ops; i++)
		n += 6 * strlen(cfg->ops[i].id) + 64 * (cfg->ops[i].state_size / 8 + 8);
	for (int r = 0; r < cfg->n_rings; r++)
		n += 26 * (Size) run->rings[r].count;
	for (int e = 0; e < st->n_emit; e++)
		n += 64 + 6 * strlen(st->emit[e].key) + 26 * (Size) (st->emit[e].lanes ? st->emit[e].value : 0);
	if (cfg->vectors)
		n += 26 * (Size) SP_MAX_LANES * cfg->n_out;
	return n;
}

void
sp_state_write(StringInfo buf, const SpState *st)
{
	const SpRun *run = st->run;
	const SpConfig *cfg = run->cfg;
	WriteCtx	w = {buf, true};
	SpStateVisitor v = {write_f64, write_i64_field, write_f64s, write_ring, &w};
	bool		first = true;
	Size		room = state_text_bound(st);

	/* a hint only: capped where a value could not grow anyway */
	if (room < MaxAllocSize / 2 - (Size) buf->len)
		enlargeStringInfo(buf, (int) room);
	appendStringInfoString(buf, "{\"key_type\": ");
	escape_json(buf, st->key_type);
	appendStringInfoString(buf, ", \"key\": ");
	if (st->key)
		escape_json(buf, st->key);
	else
		appendStringInfoString(buf, "null");
	appendStringInfoString(buf, ", \"progress\": ");
	if (st->has_progress)
		sp_state_write_ts(buf, st->progress);
	else
		appendStringInfoString(buf, "null");
	appendStringInfoString(buf, ", \"rows\": ");
	write_i64(buf, st->rows);
	appendStringInfoString(buf, ", \"discarded\": ");
	write_i64(buf, st->discarded);
	appendStringInfoString(buf, ", \"late\": ");
	write_i64(buf, st->late);

	appendStringInfoString(buf, ", \"buffer\": [");
	for (int i = 0; i < cfg->n_out; i++)
	{
		if (i)
			appendStringInfoString(buf, ", ");
		if (!run->buffered[i])
			appendStringInfoString(buf, "null");
		else if (sp_port_is_vector(cfg->out_types[i]))
			write_lanes(buf, sp_run_lanes(run, sp_area_buffer(cfg, i)),
						run->lane_n[sp_area_buffer(cfg, i)]);
		else
			sp_write_float8(buf, sp_run_buffer_value(run, i));
	}

	appendStringInfoString(buf, "], \"operators\": {");
	for (int i = 0; i < cfg->n_ops; i++)
	{
		const SpOperator *op = &cfg->ops[i];

		if (op->type->visit == NULL)
			continue;
		if (!first)
			appendStringInfoString(buf, ", ");
		first = false;
		escape_json(buf, op->id);
		appendStringInfoString(buf, ": {");
		w.first = true;
		/* the writer only reads through the visitor's pointers */
		op->type->visit(&op->params, run->opstate + op->state_off,
						run->rings + op->first_ring, &v);
		appendStringInfoChar(buf, '}');
	}

	appendStringInfoString(buf, "}, \"emissions\": [");
	for (int e = 0; e < st->n_emit; e++)
	{
		const SpEmission *em = &st->emit[e];

		if (e)
			appendStringInfoString(buf, ", ");
		appendStringInfoChar(buf, '[');
		sp_state_write_ts(buf, em->ts);
		appendStringInfoString(buf, ", ");
		escape_json(buf, em->key);
		appendStringInfo(buf, ", %d, ", em->port + 1);
		if (em->lanes)
			write_lanes(buf, em->lanes, (int) em->value);
		else
			sp_write_float8(buf, em->value);
		appendStringInfoChar(buf, ']');
	}
	appendStringInfoString(buf, "]}");
}

/* ---- reading ---- */

static double
read_f64(SpScan *s)
{
	char	   *text;
	char		buf[64];
	double		v;

	if (sp_scan_peek(s, '"'))
	{
		text = sp_scan_string(s);
		v = (strcmp(text, "NaN") == 0) ? get_float8_nan() :
			(strcmp(text, "Infinity") == 0) ? get_float8_infinity() :
			(strcmp(text, "-Infinity") == 0) ? -get_float8_infinity() : 0.0;
		if (v != 0.0)
		{
			pfree(text);
			return v;
		}
		sp_scan_fail(s, "Expected a number, \"NaN\", \"Infinity\" or \"-Infinity\", not \"%s\"", sp_json_shown(text));
	}
	/* the writer's numbers fit the buffer: no allocation per value */
	text = sp_scan_number(s, buf, sizeof(buf));
	errno = 0;
	v = strtod(text, NULL);
	if (errno == ERANGE && isinf(v))
		sp_scan_fail(s, "Number %s is out of range for float8", sp_json_shown(text));
	if (text != buf)
		pfree(text);
	return v;
}

/* An integer: a JSON number, or a decimal string (for any int64). */
static int64
read_i64(SpScan *s)
{
	char		buf[64];
	bool		quoted = sp_scan_peek(s, '"');
	char	   *text = quoted ? sp_scan_string(s) : sp_scan_number(s, buf, sizeof(buf));
	char	   *end;
	int64		v;

	if (!quoted && strpbrk(text, ".eE") != NULL)
	{
		double		d = strtod(text, NULL);

		if (d != floor(d) || !(fabs(d) <= (double) EXACT_INT_LIMIT))
			sp_scan_fail(s, "Expected an integer, not %s", sp_json_shown(text));
		v = (int64) d;
	}
	else
	{
		errno = 0;
		v = strtoi64(text, &end, 10);
		if (errno != 0 || end == text || *end != '\0')
			sp_scan_fail(s, "Expected an integer, not \"%s\"", sp_json_shown(text));
	}
	/* nothing is kept per value read */
	if (text != buf)
		pfree(text);
	return v;
}

static int64
read_count(SpScan *s, const char *name)
{
	int64		v;

	sp_scan_expect(s, ',');
	sp_scan_member(s, name);
	v = read_i64(s);
	if (v < 0 || v > SP_MAX_COUNT)
		sp_scan_fail(s, "\"%s\" must be between 0 and " INT64_FORMAT, name, SP_MAX_COUNT);
	return v;
}

static TimestampTz
read_ts(SpScan *s)
{
	char	   *text = sp_scan_string(s);
	char		canon[MAXDATELEN + 1];
	TimestampTz ts;

	/* the only form accepted is the writer's: nothing else is unambiguous */
	if (strlen(text) >= MAXDATELEN ||
		!((text[0] >= '0' && text[0] <= '9') || strcmp(text, "infinity") == 0 ||
		  strcmp(text, "-infinity") == 0))
		sp_scan_fail(s, "Timestamp \"%s\" is not written as ISO 8601 in UTC", sp_json_shown(text));
	ts = DatumGetTimestampTz(DirectFunctionCall3(timestamptz_in, CStringGetDatum(text),
												 ObjectIdGetDatum(InvalidOid),
												 Int32GetDatum(-1)));
	ts_text(ts, canon);
	if (strcmp(canon, text) != 0)
		sp_scan_fail(s, "Timestamp \"%s\" is not written as \"%s\"", text, canon);
	pfree(text);
	return ts;
}

typedef struct ReadCtx
{
	SpScan	   *s;
	bool		first;
} ReadCtx;

static SpScan *
read_name(SpStateVisitor *v, const char *name)
{
	ReadCtx    *r = v->private;

	if (!r->first)
		sp_scan_expect(r->s, ',');
	r->first = false;
	sp_scan_member(r->s, name);
	return r->s;
}

static void
read_f64_field(SpStateVisitor *v, const char *name, double *field)
{
	*field = read_f64(read_name(v, name));
}

static void
read_i64_field(SpStateVisitor *v, const char *name, int64 *field)
{
	*field = read_i64(read_name(v, name));
}

static void
read_f64s(SpStateVisitor *v, const char *name, double *field, int n)
{
	SpScan	   *s = read_name(v, name);
	int			i = 0;

	sp_scan_expect(s, '[');
	if (!sp_scan_accept(s, ']'))
	{
		do
		{
			if (i == n)
				sp_scan_fail(s, "\"%s\" has more than %d values", name, n);
			field[i++] = read_f64(s);
		} while (sp_scan_accept(s, ','));
		sp_scan_expect(s, ']');
	}
	if (i != n)
		sp_scan_fail(s, "\"%s\" has %d values; %d were expected", name, i, n);
}

/*
 * A ring, read into its own storage: the values are counted first, so that
 * it is allocated once at its size (a state being read costs its text and
 * its rings, nothing in between).
 */
static void
read_ring(SpStateVisitor *v, const char *name, SpRing *r)
{
	SpScan	   *s = read_name(v, name);
	int64		n;

	sp_scan_peek(s, '[');
	n = sp_scan_count_values(s, r->limit);
	/* checked before anything is allocated: no more than the window */
	if (n > r->limit)
		sp_scan_fail(s, "\"%s\" holds more than its " INT64_FORMAT " values", name, r->limit);
	sp_ring_clear(r);
	sp_ring_reserve(r, n);
	sp_scan_expect(s, '[');
	if (!sp_scan_accept(s, ']'))
	{
		do
		{
			/* the count may be wrong for malformed text: checked again */
			if (r->count == r->limit)
				sp_scan_fail(s, "\"%s\" holds more than its " INT64_FORMAT " values", name, r->limit);
			if ((r->count & 0xFFFF) == 0)
				CHECK_FOR_INTERRUPTS();
			sp_ring_push(r, read_f64(s));
		} while (sp_scan_accept(s, ','));
		sp_scan_expect(s, ']');
	}
}

static int
find_op(const SpConfig *cfg, const char *id)
{
	for (int i = 0; i < cfg->n_ops; i++)
		if (strcmp(cfg->ops[i].id, id) == 0)
			return i;
	return -1;
}

/* "operators": each operator with state, in spec order, then check_state. */
static void
read_operators(SpScan *s, SpRun *run)
{
	const SpConfig *cfg = run->cfg;
	ReadCtx		r = {s, true};
	SpStateVisitor v = {read_f64_field, read_i64_field, read_f64s, read_ring, &r};
	bool		first = true;

	sp_scan_expect(s, '{');
	for (int i = 0; i < cfg->n_ops; i++)
	{
		const SpOperator *op = &cfg->ops[i];
		void	   *state = run->opstate + op->state_off;
		SpRing	   *rings = run->rings + op->first_ring;
		const char *at;
		char	   *id;
		const char *msg;
		int			k;

		if (op->type->visit == NULL)
			continue;
		if (!first)
			sp_scan_expect(s, ',');
		first = false;
		if (sp_scan_peek(s, '}'))
			sp_scan_fail(s, "The state of operator \"%s\" is missing", op->id);
		at = s->p;
		id = sp_scan_string(s);
		if (strcmp(id, op->id) != 0)
		{
			s->p = at;
			k = find_op(cfg, id);
			if (k < 0)
				sp_scan_fail(s, "State of unknown operator \"%s\"", sp_json_shown(id));
			if (cfg->ops[k].type->visit == NULL)
				sp_scan_fail(s, "Operator \"%s\" (%s) has no state", id, cfg->ops[k].type->name);
			sp_scan_fail(s, "Expected the state of operator \"%s\", not of \"%s\"", op->id, id);
		}
		sp_scan_expect(s, ':');
		sp_scan_expect(s, '{');
		r.first = true;
		op->type->visit(&op->params, state, rings, &v);
		sp_scan_expect(s, '}');
		if (op->type->check_state &&
			(msg = op->type->check_state(&op->params, state, rings)) != NULL)
			sp_scan_fail(s, "Operator \"%s\": %s", op->id, msg);
		if (op->type->restore)
			op->type->restore(&op->params, state, rings);
	}
	if (sp_scan_peek(s, '"') || sp_scan_peek(s, ','))
	{
		char	   *id;
		int			k;

		(void) sp_scan_accept(s, ',');
		sp_scan_peek(s, '"');
		id = sp_scan_string(s);
		k = find_op(cfg, id);
		if (k < 0)
			sp_scan_fail(s, "State of unknown operator \"%s\"", sp_json_shown(id));
		if (cfg->ops[k].type->visit == NULL)
			sp_scan_fail(s, "Operator \"%s\" (%s) has no state", id, cfg->ops[k].type->name);
		sp_scan_fail(s, "The state of operator \"%s\" is given twice", id);
	}
	sp_scan_expect(s, '}');
}

/*
 * A vector's lanes into v (room for SP_MAX_LANES); returns how many.  A
 * vector_boolean's lanes must be 1 or 0.
 */
static int
read_lanes(SpScan *s, double *v, SpPortType t, const char *what)
{
	int			n = 0;

	sp_scan_expect(s, '[');
	if (sp_scan_accept(s, ']'))
		return 0;
	do
	{
		double		x;

		if (n == SP_MAX_LANES)
			sp_scan_fail(s, "%s has more than %d lanes", what, SP_MAX_LANES);
		x = read_f64(s);
		if (t == SP_PORT_VECTOR_BOOLEAN && x != 0.0 && x != 1.0)
			sp_scan_fail(s, "%s is a vector_boolean: its lanes must be 1 or 0", what);
		v[n++] = x;
	} while (sp_scan_accept(s, ','));
	sp_scan_expect(s, ']');
	return n;
}

static void
read_buffer(SpScan *s, SpRun *run)
{
	const SpConfig *cfg = run->cfg;
	int			n_out = run->cfg->n_out;
	int			i = 0;

	sp_scan_expect(s, '[');
	if (!sp_scan_accept(s, ']'))
	{
		do
		{
			if (i == n_out)
				sp_scan_fail(s, "\"buffer\" must have one entry per output port (%d)", n_out);
			if (!sp_scan_null(s))
			{
				run->buffered[i] = true;
				if (sp_port_is_vector(cfg->out_types[i]))
				{
					int			a = sp_area_buffer(cfg, i);

					run->lane_n[a] = read_lanes(s, sp_run_lanes(run, a), cfg->out_types[i],
												"A buffered vector");
					run->buffer[i] = run->lane_n[a];
				}
				else
					run->buffer[i] = read_f64(s);
			}
			i++;
		} while (sp_scan_accept(s, ','));
		sp_scan_expect(s, ']');
	}
	if (i != n_out)
		sp_scan_fail(s, "\"buffer\" must have one entry per output port (%d)", n_out);
}

/*
 * "emissions", each checked as it is read (its time order too: progress is
 * read by then).  Kept in st only when keep is set: a resumed run does not
 * report them, and they would cost memory in proportion to the text.
 */
static void
read_emissions(SpScan *s, SpState *st, const SpConfig *cfg, bool keep)
{
	int			n_out = cfg->n_out;
	double	   *lanes = cfg->vectors ? palloc(sizeof(double) * SP_MAX_LANES) : NULL;
	int			cap = 8;
	int64		n = 0;
	TimestampTz prev = 0;

	st->n_emit = 0;
	st->emit = palloc(sizeof(SpEmission) * cap);
	sp_scan_expect(s, '[');
	if (sp_scan_accept(s, ']'))
		return;
	do
	{
		SpEmission	one;
		SpEmission *em = &one;
		int64		port;

		if (keep)
		{
			if (st->n_emit == cap)
			{
				if (cap >= MaxAllocHugeSize / sizeof(SpEmission) / 2)
					sp_scan_fail(s, "Too many emissions");
				cap *= 2;
				st->emit = repalloc_huge(st->emit, sizeof(SpEmission) * cap);
			}
			em = &st->emit[st->n_emit++];
		}
		n++;
		sp_scan_expect(s, '[');
		em->ts = read_ts(s);
		if (!st->has_progress || em->ts > st->progress || (n > 1 && em->ts < prev))
			sp_scan_fail(s, "Emission " INT64_FORMAT " is out of time order", n);
		prev = em->ts;
		sp_scan_expect(s, ',');
		em->key = sp_scan_string(s);
		sp_scan_expect(s, ',');
		port = read_i64(s);
		if (port < 1 || port > n_out)
			sp_scan_fail(s, "Emission port " INT64_FORMAT " does not exist (the pipeline has %d output port%s)",
						 port, n_out, n_out == 1 ? "" : "s");
		em->port = (int) port - 1;
		sp_scan_expect(s, ',');
		em->lanes = NULL;
		if (sp_port_is_vector(cfg->out_types[em->port]))
		{
			int			nl = read_lanes(s, lanes, cfg->out_types[em->port], "An emitted vector");

			em->value = nl;
			if (keep)
			{
				em->lanes = palloc(sizeof(double) * Max(nl, 1));
				memcpy(em->lanes, lanes, sizeof(double) * nl);
			}
		}
		else
			em->value = read_f64(s);
		sp_scan_expect(s, ']');
		if (!keep)
			pfree(em->key);
		if ((n & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	} while (sp_scan_accept(s, ','));
	sp_scan_expect(s, ']');
}

/* Relations between members that the grammar does not express. */
static void
check_state(SpScan *s, const SpState *st)
{
	const SpRun *run = st->run;
	const SpConfig *cfg = run->cfg;

	if (st->discarded > st->rows)
		sp_scan_fail(s, "\"discarded\" exceeds \"rows\"");
	if (st->key != NULL && !st->has_progress)
		sp_scan_fail(s, "A state with a key must have a progress");
	if (st->rows > st->discarded && !st->has_progress)
		sp_scan_fail(s, "A state that processed rows must have a progress");
	/* the emissions' time order is checked as they are read */
	/* a program's outputs are emitted on the row that produces them */
	for (int i = 0; cfg->program && i < cfg->n_out; i++)
		if (run->buffered[i])
			sp_scan_fail(s, "A program's state has a buffered value");
	if (st->key == NULL)
	{
		for (int i = 0; i < cfg->n_out; i++)
			if (run->buffered[i])
				sp_scan_fail(s, "A state without a key has a buffered value");
		/*
		 * Without a key, nothing is buffered and every operator is reset; in
		 * a program, those of its Pipelines (the others never reset).
		 */
		for (int i = 0; i < (cfg->program ? cfg->n_ops : 1); i++)
		{
			const SpOperator *pipe = cfg->program ? &cfg->ops[i] : NULL;
			Size		from = pipe ? pipe->state_off : 0;
			Size		to = pipe ? pipe->state_off + pipe->state_size : cfg->state_size;
			int			ring0 = pipe ? pipe->first_ring : 0;
			int			ring1 = pipe ? pipe->first_ring + pipe->n_rings : cfg->n_rings;

			if (pipe && pipe->type != &sp_op_program_pipeline)
				continue;
			for (Size b = from; b < to; b++)
				if (run->opstate[b] != 0)
					sp_scan_fail(s, "A state without a key has operators not in their initial state");
			for (int r = ring0; r < ring1; r++)
				if (run->rings[r].count != 0)
					sp_scan_fail(s, "A state without a key has operators not in their initial state");
		}
	}
}

/* The members before the run: key type, key, progress and counters. */
static void
read_header(SpScan *s, SpState *st)
{
	sp_scan_expect(s, '{');
	sp_scan_member(s, "key_type");
	st->key_type = sp_scan_string(s);
	/* only text here: the name is compared with a resuming call's type */
	if (st->key_type[0] == '\0' || strlen(st->key_type) > KEY_TYPE_NAME_MAX)
		sp_scan_fail(s, "The key type name is empty or longer than %d bytes", KEY_TYPE_NAME_MAX);
	sp_scan_expect(s, ',');
	sp_scan_member(s, "key");
	st->key = sp_scan_null(s) ? NULL : sp_scan_string(s);
	sp_scan_expect(s, ',');
	sp_scan_member(s, "progress");
	st->has_progress = !sp_scan_null(s);
	if (st->has_progress)
		st->progress = read_ts(s);
	st->rows = read_count(s, "rows");
	st->discarded = read_count(s, "discarded");
	st->late = read_count(s, "late");
}

static SpState *
read_state(SpScan *s, const SpConfig *cfg, MemoryContext run_cxt, bool keep_emissions)
{
	SpState    *st = palloc0(sizeof(SpState));

	st->run = sp_run_create(cfg, run_cxt);
	read_header(s, st);
	st->run->has_key = (st->key != NULL);
	sp_scan_expect(s, ',');
	sp_scan_member(s, "buffer");
	read_buffer(s, st->run);
	sp_scan_expect(s, ',');
	sp_scan_member(s, "operators");
	read_operators(s, st->run);
	sp_scan_expect(s, ',');
	sp_scan_member(s, "emissions");
	read_emissions(s, st, cfg, keep_emissions);
	sp_scan_expect(s, '}');
	check_state(s, st);
	return st;
}

/*
 * Errors that functions called on the way raise on bad data (a timestamp
 * out of range) are the caller's bad input.
 */
SP_NORETURN static void
rethrow_as(MemoryContext cxt, int code)
{
	ErrorData  *edata;

	MemoryContextSwitchTo(cxt);
	edata = CopyErrorData();
	if (ERRCODE_TO_CATEGORY(edata->sqlerrcode) != ERRCODE_DATA_EXCEPTION)
		PG_RE_THROW();
	FlushErrorState();
	edata->sqlerrcode = code;
	ReThrowError(edata);
}

SpState *
sp_state_read(const char *text, const SpConfig *cfg, MemoryContext run_cxt, int code)
{
	return sp_state_read_len(text, strlen(text), cfg, run_cxt, code, true);
}

SpState *
sp_state_read_len(const char *text, size_t len, const SpConfig *cfg,
				  MemoryContext run_cxt, int code, bool keep_emissions)
{
	MemoryContext cxt = CurrentMemoryContext;
	SpState    *volatile st = NULL;

	PG_TRY();
	{
		SpScan		s;

		sp_scan_init_len(&s, text, len, code);
		st = read_state(&s, cfg, run_cxt, keep_emissions);
		sp_scan_finish(&s);
	}
	PG_CATCH();
	{
		rethrow_as(cxt, code);
	}
	PG_END_TRY();
	return st;
}

void
sp_state_read_header(const char *text, size_t len, int code, SpState *st)
{
	MemoryContext cxt = CurrentMemoryContext;

	memset(st, 0, sizeof(SpState));
	PG_TRY();
	{
		SpScan		s;

		sp_scan_init_len(&s, text, len, code);
		read_header(&s, st);
	}
	PG_CATCH();
	{
		rethrow_as(cxt, code);
	}
	PG_END_TRY();
}
