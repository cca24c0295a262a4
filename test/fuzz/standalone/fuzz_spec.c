/*
 * fuzz_spec.c
 *	  libFuzzer target for the spec reader and the engine, outside the
 *	  server (built by test/fuzz/libfuzz.sh with AddressSanitizer and UBSan).
 *
 * Input: a spec text, then optionally a NUL byte and bytes that drive rows.
 * Checks, beyond "no crash, no out-of-bounds access":
 *	- the canonical text of an accepted spec reads back to the same text;
 *	- a run over the rows emits only on ports that exist, and only on rows
 *	  whose key differs from the current one;
 *	- after every row, each operator's state, walked with the state visitor
 *	  as when it is written, passes its own check_state, and writing the
 *	  values back into a zeroed state (and restoring what it derives)
 *	  rebuilds it byte for byte (the visitor misses nothing);
 *	- a state decoded from fuzz bytes is either refused by check_state or
 *	  safe to run.
 * An input that starts with a format version byte (1 or 2) is a binary
 * message of the `pipeline` type, one whose text has a "state" member is a
 * pipeline's text; both go to fuzz_state.c, and so does every accepted spec
 * (as a value without state) with the rest of its bytes.
 */
#include "postgres.h"

#include <math.h>

#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "sp_engine.h"
#include "sp_key.h"
#include "sp_spec.h"

#include "fuzz.h"
#include "shim.h"

bool		fuzz_exact = false;

/* values a row may carry: the edges float8 arithmetic cares about */
static const double interesting[] = {
	0.0, -0.0, 1.0, -1.0, 2.5, 1e308, -1e308, 1e-308, 5e-324, 1e16,
	3.0, 1000.0, -746.0, 710.0, 0.5, 7.0
};

double
fuzz_pick(uint8 b)
{
	if (b & 0x80)
		return (b & 0x40) ? NAN : ((b & 0x20) ? INFINITY : -INFINITY);
	return interesting[b % lengthof(interesting)];
}

/*
 * State visitors: "save" appends every visited field to a list of 8-byte
 * words, "load" writes them back in the same order.
 */
typedef struct Words
{
	SpStateVisitor v;
	uint64	   *w;
	int			n;
	int			cap;
	const uint8 *src;			/* load from fuzz bytes instead, when set */
	size_t		src_len;
	bool		refused;		/* a ring's length was over its limit */
} Words;

static void
words_put(Words *ws, const void *field)
{
	if (ws->n == ws->cap)
	{
		ws->cap = ws->cap ? ws->cap * 2 : 64;
		ws->w = repalloc(ws->w ? ws->w : palloc(8), sizeof(uint64) * ws->cap);
	}
	memcpy(&ws->w[ws->n++], field, 8);
}

static void
words_get(Words *ws, void *field)
{
	if (ws->src != NULL)
	{
		uint8		b[8] = {0};

		for (int i = 0; i < 8 && ws->src_len > 0; i++, ws->src_len--)
			b[i] = *ws->src++;
		memcpy(field, b, 8);
	}
	else
		memcpy(field, &ws->w[ws->n++], 8);
}

static void
save_f64(SpStateVisitor *v, const char *name, double *field)
{
	words_put((Words *) v, field);
}

static void
save_i64(SpStateVisitor *v, const char *name, int64 *field)
{
	words_put((Words *) v, field);
}

static void
save_f64s(SpStateVisitor *v, const char *name, double *field, int n)
{
	for (int i = 0; i < n; i++)
		words_put((Words *) v, &field[i]);
}

static void
load_f64(SpStateVisitor *v, const char *name, double *field)
{
	words_get((Words *) v, field);
}

static void
load_i64(SpStateVisitor *v, const char *name, int64 *field)
{
	words_get((Words *) v, field);
}

static void
load_f64s(SpStateVisitor *v, const char *name, double *field, int n)
{
	/* a length read from hostile bytes has been checked before this */
	for (int i = 0; i < n; i++)
		words_get((Words *) v, &field[i]);
}

/* a ring: its length, then the values held, oldest first */
static void
save_ring(SpStateVisitor *v, const char *name, SpRing *r)
{
	int64		n = r->count;

	words_put((Words *) v, &n);
	for (int64 i = 0; i < n; i++)
	{
		double		x = sp_ring_get(r, i);

		words_put((Words *) v, &x);
	}
}

static void
load_ring(SpStateVisitor *v, const char *name, SpRing *r)
{
	Words	   *ws = (Words *) v;
	int64		n;
	double	   *vals;

	words_get(ws, &n);
	/* a length from hostile bytes is judged before anything is allocated */
	if (n < 0 || n > r->limit)
	{
		ws->refused = true;
		return;
	}
	vals = palloc(sizeof(double) * Max(n, 1));
	for (int64 i = 0; i < n; i++)
		words_get(ws, &vals[i]);
	if (!sp_ring_load(r, vals, n))
		abort();
}

static bool
rings_equal(const SpRing *a, const SpRing *b, int n)
{
	for (int r = 0; r < n; r++)
	{
		if (a[r].count != b[r].count || a[r].limit != b[r].limit)
			return false;
		for (int64 i = 0; i < a[r].count; i++)
		{
			double		x = sp_ring_get(&a[r], i);
			double		y = sp_ring_get(&b[r], i);

			if (memcmp(&x, &y, sizeof(double)) != 0)
				return false;
		}
	}
	return true;
}

/*
 * After every row: each state passes its own check, and the visitor walks
 * all of it: saving it and loading the words into a fresh run rebuilds the
 * fixed part byte for byte and every ring value for value.
 */
static void
check_operator_states(const SpConfig *cfg, SpRun *run)
{
	SpRun	   *copy = sp_run_create(cfg, CurrentMemoryContext);

	for (int i = 0; i < cfg->n_ops; i++)
	{
		const SpOperator *op = &cfg->ops[i];
		char	   *state = run->opstate + op->state_off;
		SpRing	   *rings = run->rings + op->first_ring;
		Words		save = {{save_f64, save_i64, save_f64s, save_ring}};
		Words		load = {{load_f64, load_i64, load_f64s, load_ring}};
		char	   *cstate = copy->opstate + op->state_off;
		SpRing	   *crings = copy->rings + op->first_ring;

		/* the walk first: it sets what a state written now would hold */
		if (op->type->visit != NULL)
			op->type->visit(&op->params, state, rings, &save.v);
		if (op->type->check_state &&
			op->type->check_state(&op->params, state, rings) != NULL)
			abort();			/* the engine reached a state it calls invalid */
		if (op->type->visit == NULL)
			continue;
		load.w = save.w;
		op->type->visit(&op->params, cstate, crings, &load.v);
		/* what the state derives from what it stores is rebuilt */
		if (!load.refused && op->type->restore)
			op->type->restore(&op->params, cstate, crings);
		if (load.refused || load.n != save.n ||
			memcmp(cstate, state, op->state_size) != 0 ||
			!rings_equal(rings, crings, op->n_rings))
			abort();			/* the visitor does not cover the whole state */
	}
}

/*
 * Decode each operator's state from fuzz bytes, as a hostile stored value
 * would; a state check_state accepts must be safe to run.
 */
static void
run_hostile_states(const SpConfig *cfg, const uint8 *p, size_t n)
{
	SpRun	   *run = sp_run_create(cfg, CurrentMemoryContext);
	double	   *vals = palloc0(sizeof(double) * cfg->n_in);

	for (int i = 0; i < cfg->n_ops; i++)
	{
		const SpOperator *op = &cfg->ops[i];
		SpRing	   *rings = run->rings + op->first_ring;
		Words		load = {{load_f64, load_i64, load_f64s, load_ring}};

		if (op->type->visit == NULL)
			continue;
		load.src = p;
		load.src_len = n;
		/* fixed arrays come from the parameters, rings are bounded by limit */
		op->type->visit(&op->params, run->opstate + op->state_off, rings, &load.v);
		if (load.refused)
			return;
		if (op->type->check_state &&
			op->type->check_state(&op->params, run->opstate + op->state_off, rings) != NULL)
			return;				/* refused, as a stored value would be */
		if (op->type->restore)
			op->type->restore(&op->params, run->opstate + op->state_off, rings);
		p = load.src;
		n = load.src_len;
	}
	run->has_key = true;
	for (int r = 0; r < 8; r++)
	{
		for (int i = 0; i < cfg->n_in; i++)
			vals[i] = (double) r;
		sp_run_row(run, vals, SP_KEY_SAME);
	}
}

static void
run_rows(const SpConfig *cfg, const uint8 *p, size_t n)
{
	SpRun	   *run = sp_run_create(cfg, CurrentMemoryContext);
	double	   *vals = palloc(sizeof(double) * cfg->n_in);
	size_t		step = 2 + cfg->n_in;
	double		cur_key = 0.0;

	for (; n >= step; p += step, n -= step)
	{
		uint8		flags = p[0];
		bool		punct = (flags & 1) != 0;
		bool		knull = (flags & 6) == 6;
		double		key = fuzz_pick(p[1]);
		bool		had_key = run->has_key;
		bool		same = had_key && sp_float8_key_equal(cur_key, key);
		bool		emitted;

		for (int i = 0; i < cfg->n_in; i++)
			vals[i] = fuzz_pick(p[2 + i]);
		/* a vector port: 1 to 4 lanes, from the row's bytes and the flags */
		if (cfg->vectors && sp_port_is_vector(cfg->in_types[0]))
		{
			double	   *lanes = sp_run_lanes(run, SP_AREA_IN);

			run->lane_n[SP_AREA_IN] = 1 + ((flags >> 1) & 3);
			for (int i = 0; i < run->lane_n[SP_AREA_IN]; i++)
				lanes[i] = fuzz_pick((uint8) (p[2] + 37 * i));
		}
		/* time moves on by 0 to 31 seconds (for the operators that know it) */
		run->ts += (int64) (flags >> 3) * 1000000;
		emitted = sp_run_row(run, punct ? NULL : vals,
							 knull ? SP_KEY_NULL : same ? SP_KEY_SAME : SP_KEY_NEW);
		if (!knull)
			cur_key = key;
		if (emitted && (knull || !had_key || same))
			abort();			/* emitted without a boundary */
		if (emitted != (run->n_emitted > 0) || run->n_emitted > cfg->n_out)
			abort();
		check_operator_states(cfg, run);
	}
}

int			LLVMFuzzerTestOneInput(const uint8 *data, size_t size);

int			LLVMFuzzerInitialize(int *argc, char ***argv);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_exact = getenv("SEGPIPE_FUZZ_EXACT") != NULL;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8 *data, size_t size)
{
	sigjmp_buf	env;
	size_t		text_len = strnlen((const char *) data, size);
	char	   *text = malloc(text_len + 1);
	const uint8 *rest = data + Min(text_len + 1, size);
	size_t		rest_len = size - Min(text_len + 1, size);

	/* the server's text input is valid in its encoding before a type sees it */
	bool		valid = pg_encoding_verifymbstr(PG_UTF8, (const char *) data, text_len) == text_len;

	memcpy(text, data, text_len);
	text[text_len] = '\0';
	shim_error_jmp = &env;
	fuzz_exact_pending = false;
	if (sigsetjmp(env, 0) == 0)
	{
		if (size > 0 && (data[0] == SP_FORMAT_CONFIG || data[0] == SP_FORMAT_STATE))
			fuzz_message(data, size);
		else if (strstr(text, "\"state\"") != NULL)
		{
			if (valid)
				fuzz_text(text, rest, rest_len);
		}
		else
		{
			SpConfig   *cfg = sp_spec_read(text);
			StringInfoData first,
						again;

			initStringInfo(&first);
			sp_spec_write(&first, cfg);
			initStringInfo(&again);
			sp_spec_write(&again, sp_spec_read(first.data));
			if (strcmp(first.data, again.data) != 0)
				abort();		/* canonical text is not a fixed point */
			if (text_len < size)
			{
				run_rows(cfg, rest, rest_len);
				run_hostile_states(cfg, rest, rest_len);
				if (valid)
					fuzz_value(sp_value_from_config(cfg), rest, rest_len);
			}
		}
	}
	else if (fuzz_exact_pending)
	{
		fprintf(stderr, "refused: %s\n", shim_last_error);
		abort();				/* the server's own output must be read */
	}
	shim_error_jmp = NULL;
	shim_free_all();
	free(text);
	return 0;
}
