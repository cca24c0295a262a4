/*
 * ops_keyed.c
 *	  KeyedPipeline: each row's vector goes to the instance of a sub-graph
 *	  (its "prototype", params.proto) kept for the row's key; the row emits
 *	  what that instance's output operator produces on it.
 *
 * The key is lane key_index of the vector (the classic mode, whose output
 * is the key followed by the sub-graph's value) or the lanes
 * keyColumnIndices name (the computed mode, whose output is the sub-graph's
 * value itself).  The original folds the computed key's lanes into one
 * float8 (a polynomial hash), so that two different keys can share an
 * instance; segpipe keys by the lanes themselves, compared as float8
 * (NaN equals NaN, -0 equals 0), so distinct keys never share one.
 *
 * An instance is the sub-graph's operators' fixed states and rings.  The
 * engine resets a KeyedPipeline as any operator (a memset of its fixed
 * state, its rings cleared), so every instance is dropped at a segment
 * boundary: the original keeps them.  So that this costs O(1) and an
 * instance costs memory only once its key is seen, the instances live in
 * rings, not in the fixed state:
 *
 *	rings[0]	the instances, in ascending order of key, each a record of
 *				nkey key lanes then the sub-graph's fixed state
 *				(proto->state_size bytes, a whole number of float8s), used
 *				as an array (nothing is popped from its front, as TopK's);
 *	rings[1]	scratch for the sub-graph's run of one row (an SpRun's
 *				per-row arrays and lane areas): only its storage is used,
 *				it never holds a value, so it is no part of the state;
 *	rings[2 + i * proto->n_rings ..]	the i-th instance's rings.
 *
 * At most maxKeys instances: every one counts toward the state cap as if
 * full (the rings' limits), and one more key stops the run with 54000.
 */
#include "postgres.h"

#include <math.h>

#include "utils/float.h"

#include "sp_engine.h"

#define KEYED_MAX_KEYS	65536

static bool
key_index_shown(const SpParams *p)
{
	return p->window_size >= 0;
}

static bool
key_columns_shown(const SpParams *p)
{
	return p->nvec[0] > 0;
}

/*
 * key_index in window_size (-1: not given), keyColumnIndices in vec[0],
 * maxKeys in min_rows; "prototype" is read by the spec reader
 * (params.proto).
 */
static const SpParamDef keyed_params[] = {
	{"key_index", SP_PARAM_INT, offsetof(SpParams, window_size), false, -1, 0, SP_MAX_LANES - 1,
	NULL, key_index_shown},
	{"keyColumnIndices", SP_PARAM_VECTOR, offsetof(SpParams, vec[0]), false, 0, 1, SP_MAX_LANES,
	NULL, key_columns_shown},
	{"maxKeys", SP_PARAM_INT, offsetof(SpParams, min_rows), false, 1024, 1, KEYED_MAX_KEYS},
	SP_PARAM_END
};

static const char *
keyed_check_params(SpParams *p)
{
	if (p->window_size >= 0 && p->nvec[0] > 0)
		return "give \"key_index\" or \"keyColumnIndices\", not both";
	if (p->window_size < 0 && p->nvec[0] == 0)
		return "\"key_index\" or \"keyColumnIndices\" is required";
	for (int i = 0; i < p->nvec[0]; i++)
	{
		double		x = p->vec[0][i];

		if (!(x == floor(x) && x >= 0 && x < SP_MAX_LANES))
			return psprintf("element %d of \"keyColumnIndices\" must be an integer between 0 and %d",
							i + 1, SP_MAX_LANES - 1);
	}
	return NULL;
}

typedef struct KeyedState
{
	int64		n;				/* instances held */
} KeyedState;

/* key lanes per instance */
static inline int
keyed_nkey(const SpParams *p)
{
	return p->nvec[0] > 0 ? p->nvec[0] : 1;
}

/* an instance's record in rings[0], in float8s */
static inline int64
keyed_record(const SpParams *p)
{
	return keyed_nkey(p) + (int64) (p->proto->state_size / sizeof(double));
}

static size_t
keyed_state_size(const SpParams *p)
{
	return sizeof(KeyedState);
}

static int
keyed_max_rings(const SpParams *p)
{
	return 2 + p->min_rows * p->proto->n_rings;
}

static int
keyed_rings(const SpParams *p, int64 *limits)
{
	const SpConfig *sub = p->proto;
	int			n = 2;

	limits[0] = p->min_rows * keyed_record(p);
	limits[1] = (int64) ((sp_run_areas_size(sub, true) + sizeof(double) - 1) / sizeof(double));
	for (int k = 0; k < p->min_rows; k++)
		for (int r = 0; r < sub->n_rings; r++)
			limits[n++] = sub->declared_limits[r];
	return n;
}

static bool
keyed_timed(const SpParams *p)
{
	return p->proto->timed;
}

/* Lexicographic order of keys, each lane as float8 orders (NaN last). */
static inline int
key_cmp(const double *a, const double *b, int nkey)
{
	for (int k = 0; k < nkey; k++)
	{
		int			c = float8_cmp_internal(a[k], b[k]);

		if (c != 0)
			return c;
	}
	return 0;
}

static void
lane_out_of_range(int lane, int n)
{
	ereport(ERROR,
			(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
			 errmsg("vector lane out of range"),
			 errdetail("KeyedPipeline reads lane %d (counted from 0) of a vector of %d lanes.",
					   lane, n)));
}

/*
 * An SpRun of the sub-graph over instance i (its fixed state in the record,
 * its rings) and the scratch: what sp_run_row needs for one row.
 */
static void
keyed_view(const SpParams *p, SpRing *rings, int64 i, SpRun *view)
{
	const SpConfig *sub = p->proto;
	SpRing	   *scratch = &rings[1];

	Assert(scratch->count == 0);
	if (scratch->cap < scratch->limit)
		sp_ring_reserve(scratch, scratch->limit);
	sp_run_view(view, sub, (char *) scratch->buf, true);
	view->opstate = (char *) (rings[0].buf + i * keyed_record(p) + keyed_nkey(p));
	view->rings = rings + 2 + i * sub->n_rings;
	view->has_key = true;
}

/*
 * The instance of key, found by binary search, or made at its place in
 * the order (the records after it and their rings move up by one).
 */
static int64
keyed_instance(const SpParams *p, KeyedState *s, SpRing *rings, const double *key)
{
	const SpConfig *sub = p->proto;
	SpRing	   *recs = &rings[0];
	SpRing	   *inst = rings + 2;
	int			nkey = keyed_nkey(p);
	int64		rec = keyed_record(p);
	int64		lo = 0,
				hi = s->n;
	int			nr = sub->n_rings;

	Assert(recs->head == 0);
	while (lo < hi)
	{
		int64		mid = lo + (hi - lo) / 2;
		int			c = key_cmp(recs->buf + mid * rec, key, nkey);

		if (c == 0)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (s->n >= p->min_rows)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many keys in a KeyedPipeline"),
				 errdetail("A KeyedPipeline holds at most %d keys in a segment (its \"maxKeys\").",
						   p->min_rows),
				 errhint("Raise \"maxKeys\", or key the rows in SQL (segment_agg ... OVER (PARTITION BY key)).")));
	for (int64 k = 0; k < rec; k++)
		sp_ring_push(recs, 0.0);
	memmove(recs->buf + (lo + 1) * rec, recs->buf + lo * rec, sizeof(double) * (s->n - lo) * rec);
	memcpy(recs->buf + lo * rec, key, sizeof(double) * nkey);
	memset(recs->buf + lo * rec + nkey, 0, sizeof(double) * (rec - nkey));
	if (nr > 0)
	{
		/* the unused rings after the last instance become the new one's */
		SpRing		spare[16];
		SpRing	   *tmp = nr <= lengthof(spare) ? spare : palloc(sizeof(SpRing) * nr);

		memcpy(tmp, inst + s->n * nr, sizeof(SpRing) * nr);
		memmove(inst + (lo + 1) * nr, inst + lo * nr, sizeof(SpRing) * (s->n - lo) * nr);
		memcpy(inst + lo * nr, tmp, sizeof(SpRing) * nr);
		for (int r = 0; r < nr; r++)
			sp_ring_clear(&inst[lo * nr + r]);
		if (tmp != spare)
			pfree(tmp);
	}
	s->n++;
	return lo;
}

static bool
keyed_step_vec(const SpParams *p, void *state, SpRing *rings, int64 ts,
			   const SpValue *in, SpValue *out)
{
	KeyedState *s = state;
	const SpConfig *sub = p->proto;
	int			nkey = keyed_nkey(p);
	double		key[SP_MAX_LANES];
	SpRun		view;
	int64		i;
	int			o;
	int			n = in[0].n;

	for (int k = 0; k < nkey; k++)
	{
		int			lane = p->nvec[0] > 0 ? (int) p->vec[0][k] : p->window_size;

		if (lane >= n)
			lane_out_of_range(lane, n);
		key[k] = in[0].v[lane];
	}
	i = keyed_instance(p, s, rings, key);

	/* the row's vector is the sub-graph's one data port */
	keyed_view(p, rings, i, &view);
	view.ts = ts;
	memcpy(sp_run_lanes(&view, SP_AREA_IN), in[0].v, sizeof(double) * n);
	view.lane_n[SP_AREA_IN] = n;
	view.row_in[0] = n;
	(void) sp_run_row(&view, view.row_in, SP_KEY_SAME);

	o = sub->ops[sub->out_op[0]].first_out + sub->out_port[0];
	if (!view.have[o])
		return false;
	out->n = 0;
	if (p->nvec[0] == 0)
		out->v[out->n++] = key[0];
	if (sub->out_types[0] == SP_PORT_VECTOR_NUMBER)
	{
		int			a = sp_area_slot(sub, o);
		int			m = view.lane_n[a];

		if (out->n + m > SP_MAX_LANES)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("vector too long"),
					 errdetail("KeyedPipeline would produce a vector of %d lanes; at most %d are allowed.",
							   out->n + m, SP_MAX_LANES)));
		memcpy(out->v + out->n, sp_run_lanes(&view, a), sizeof(double) * m);
		out->n += m;
	}
	else
		out->v[out->n++] = sp_run_buffer_value(&view, 0);
	return true;
}

/*
 * "keys", then per instance i (from 1, in the order of their keys) "i/key"
 * (its lanes) and its operators' fields, "i/<operator id>/<field>".  How
 * many instances are walked is a field of the state: a decoded count is
 * judged against maxKeys (22P02, which the state reader makes its
 * caller's code) before any instance is, so the walk stays within the
 * rings' limits.
 */
static void
keyed_visit(const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v)
{
	KeyedState *s = state;
	const SpConfig *sub = p->proto;
	SpRing	   *recs = &rings[0];
	int			nkey = keyed_nkey(p);
	int64		rec = keyed_record(p);
	int64		n;

	v->i64(v, "keys", &s->n);
	/* decoded: a count out of range is refused before anything is walked */
	if (s->n < 0 || s->n > p->min_rows)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid pipeline state"),
				 errdetail("A KeyedPipeline's \"keys\" is " INT64_FORMAT "; it holds 0 to %d (its \"maxKeys\").",
						   s->n, p->min_rows)));
	n = s->n;
	/* a state being decoded: room for the instances it names */
	if (recs->count != n * rec)
	{
		sp_ring_clear(recs);
		sp_ring_reserve(recs, n * rec);
		for (int64 k = 0; k < n * rec; k++)
			sp_ring_push(recs, 0.0);
	}
	for (int64 i = 0; i < n; i++)
	{
		double	   *r = recs->buf + i * rec;
		char	   *sstate = (char *) (r + nkey);
		SpRing	   *srings = rings + 2 + i * sub->n_rings;

		v->f64s(v, psprintf(INT64_FORMAT "/key", i + 1), r, nkey);
		for (int k = 0; k < sub->n_ops; k++)
		{
			const SpOperator *op = &sub->ops[k];
			SpPrefixVisitor pv;

			if (op->type->visit)
				op->type->visit(&op->params, sstate + op->state_off, srings + op->first_ring,
								sp_prefix_visitor(&pv, v,
												  psprintf(INT64_FORMAT "/%s", i + 1, op->id)));
		}
	}
}

static const char *
keyed_check(const SpParams *p, const void *state, const SpRing *rings)
{
	const KeyedState *s = state;
	const SpConfig *sub = p->proto;
	const SpRing *recs = &rings[0];
	int			nkey = keyed_nkey(p);
	int64		rec = keyed_record(p);

	if (s->n < 0 || s->n > p->min_rows)
		return psprintf("keys must be between 0 and maxKeys (%d)", p->min_rows);
	if (recs->count != s->n * rec || recs->head != 0)
		return "the instances do not match keys";
	if (rings[1].count != 0)
		return "the scratch ring must be empty";
	for (int64 i = 0; i < s->n; i++)
	{
		const double *r = recs->buf + i * rec;
		const char *sstate = (const char *) (r + nkey);
		const SpRing *srings = rings + 2 + i * sub->n_rings;

		if (i > 0 && key_cmp(r - rec, r, nkey) >= 0)
			return "the instances' keys must be distinct and in ascending order";
		for (int k = 0; k < sub->n_ops; k++)
		{
			const SpOperator *op = &sub->ops[k];
			const char *msg;

			if (op->type->check_state &&
				(msg = op->type->check_state(&op->params, sstate + op->state_off,
											 srings + op->first_ring)) != NULL)
				return psprintf("instance " INT64_FORMAT ", operator \"%s\": %s", i + 1, op->id, msg);
		}
	}
	/* the rings of the instances not held are empty */
	for (int64 r = 2 + s->n * sub->n_rings; r < keyed_max_rings(p); r++)
		if (rings[r].count != 0)
			return "a ring of no instance holds values";
	return NULL;
}

static void
keyed_restore(const SpParams *p, void *state, const SpRing *rings)
{
	const KeyedState *s = state;
	const SpConfig *sub = p->proto;
	int64		rec = keyed_record(p);

	for (int64 i = 0; i < s->n; i++)
	{
		sp_config_restore(sub, (char *) (rings[0].buf + i * rec + keyed_nkey(p)),
						  rings + 2 + i * sub->n_rings);
	}
}

const SpOpType sp_op_keyed_pipeline = {
	.name = "KeyedPipeline",
	.params = keyed_params,
	.nin = 1,
	.in_type = SP_PORT_VECTOR_NUMBER,
	.out_type = SP_PORT_VECTOR_NUMBER,
	.check_params = keyed_check_params,
	.state_size = keyed_state_size,
	.rings = keyed_rings,
	.max_rings = keyed_max_rings,
	.timed = keyed_timed,
	.step_vec = keyed_step_vec,
	.visit = keyed_visit,
	.check_state = keyed_check,
	.restore = keyed_restore,
};
