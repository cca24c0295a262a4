/*
 * ops_vector.c
 *	  Operators on vectors: VectorExtract (a lane as a number), VectorProject
 *	  (lanes as a vector), VectorCompose (numbers as a vector) and TopK (the
 *	  best k vectors of a segment by one lane).
 *
 * They step with step_vec (sp_operator.h): a vector is n lanes, at most
 * SP_MAX_LANES.  A lane that a vector does not have is an error (2202E), as
 * in the original library; so is a result longer than SP_MAX_LANES (54000).
 */
#include "postgres.h"

#include <math.h>

#include "utils/float.h"

#include "sp_operator.h"

static void
lane_out_of_range(const char *what, int lane, int n)
{
	ereport(ERROR,
			(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
			 errmsg("vector lane out of range"),
			 errdetail("%s reads lane %d (counted from 0) of a vector of %d lanes.",
					   what, lane, n)));
}

static void
vector_too_long(const char *what, int64 n)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("vector too long"),
			 errdetail("%s would produce a vector of " INT64_FORMAT " lanes; at most %d are allowed.",
					   what, n, SP_MAX_LANES)));
}

/* ---- VectorExtract: lane "index" of the vector, as a number ---- */

static const SpParamDef extract_params[] = {
	{"index", SP_PARAM_INT, offsetof(SpParams, window_size), true, 0, 0, SP_MAX_LANES - 1},
	SP_PARAM_END
};

static bool
extract_step_vec(const SpParams *p, void *state, SpRing *rings, int64 ts,
				 const SpValue *in, SpValue *out)
{
	if (p->window_size >= in[0].n)
		lane_out_of_range("VectorExtract", p->window_size, in[0].n);
	out->x = in[0].v[p->window_size];
	return true;
}

const SpOpType sp_op_vector_extract = {
	.name = "VectorExtract", .params = extract_params, .nin = 1,
	.in_type = SP_PORT_VECTOR_NUMBER, .out_type = SP_PORT_NUMBER,
	.step_vec = extract_step_vec,
};

/* ---- VectorProject: the lanes "indices" name, in that order ---- */

static const SpParamDef project_params[] = {
	{"indices", SP_PARAM_VECTOR, offsetof(SpParams, vec[0]), true, 0, 1, SP_MAX_LANES},
	SP_PARAM_END
};

static const char *
project_check_params(SpParams *p)
{
	for (int i = 0; i < p->nvec[0]; i++)
	{
		double		x = p->vec[0][i];

		if (!(x == floor(x) && x >= 0 && x < SP_MAX_LANES))
			return psprintf("element %d of \"indices\" must be an integer between 0 and %d",
							i + 1, SP_MAX_LANES - 1);
	}
	return NULL;
}

static bool
project_step_vec(const SpParams *p, void *state, SpRing *rings, int64 ts,
				 const SpValue *in, SpValue *out)
{
	for (int i = 0; i < p->nvec[0]; i++)
	{
		int			lane = (int) p->vec[0][i];

		if (lane >= in[0].n)
			lane_out_of_range("VectorProject", lane, in[0].n);
		out->v[i] = in[0].v[lane];
	}
	out->n = p->nvec[0];
	return true;
}

const SpOpType sp_op_vector_project = {
	.name = "VectorProject", .params = project_params, .nin = 1,
	.check_params = project_check_params,
	.in_type = SP_PORT_VECTOR_NUMBER, .out_type = SP_PORT_VECTOR_NUMBER,
	.step_vec = project_step_vec,
};

/*
 * ---- VectorCompose: numPorts numbers, on a row that brings all of them,
 * as a vector in port order ----
 */

static const SpParamDef compose_params[] = {
	{"numPorts", SP_PARAM_INT, offsetof(SpParams, num_ports), true, 0, 1, SP_MAX_PORTS},
	SP_PARAM_END
};

static int32
compose_nin(const SpParams *p)
{
	return p->num_ports;
}

static bool
compose_step_vec(const SpParams *p, void *state, SpRing *rings, int64 ts,
				 const SpValue *in, SpValue *out)
{
	for (int i = 0; i < p->num_ports; i++)
		out->v[i] = in[i].x;
	out->n = p->num_ports;
	return true;
}

const SpOpType sp_op_vector_compose = {
	.name = "VectorCompose", .params = compose_params, .nin_from = compose_nin,
	.in_type = SP_PORT_NUMBER, .out_type = SP_PORT_VECTOR_NUMBER,
	.step_vec = compose_step_vec,
};

/*
 * ---- TopK: the k vectors of the segment so far with the best values in
 * lane score_index (the highest when descending is "true", the lowest
 * otherwise), on every row, best first, concatenated ----
 *
 * Among equal scores the later vector ranks first, as in the original
 * library (it inserts before the first entry that is not better).  Scores
 * compare as PostgreSQL's float8 does: NaN equals NaN and is above every
 * other value.  The original emits one message per entry held; a segpipe
 * row gives one value per output, so the entries come as one vector: with
 * entries of m lanes each, lanes j*m .. j*m+m-1 are the (j+1)-th best.
 *
 * The entries are kept in one ring, as records [lanes, lane 0, ...], best
 * first; the ring is used as an array (nothing is popped from its front, so
 * its values start at slot 0, as they do after a reset, a copy or a
 * decoded state).  It has room for k + 1 records of
 * SP_MAX_LANES lanes: a new entry goes in before the worst is dropped.
 */

static const char *const true_false_words[] = {"true", "false", NULL};

static const SpParamDef topk_params[] = {
	{"k", SP_PARAM_INT, offsetof(SpParams, window_size), true, 0, 1, SP_MAX_WINDOW},
	{"score_index", SP_PARAM_INT, offsetof(SpParams, num_ports), true, 0, 0, SP_MAX_LANES - 1},
	{"descending", SP_PARAM_CHOICE, offsetof(SpParams, choice), false, 0, 0, 0, true_false_words},
	SP_PARAM_END
};

typedef struct TopKState
{
	int64		n;				/* entries held, at most k */
} TopKState;

static size_t
topk_state_size(const SpParams *p)
{
	return sizeof(TopKState);
}

static int
topk_rings(const SpParams *p, int64 *limits)
{
	limits[0] = ((int64) p->window_size + 1) * (SP_MAX_LANES + 1);
	return 1;
}

/* does score a rank before score b? */
static inline bool
topk_better(const SpParams *p, double a, double b)
{
	return p->choice == 0 ? float8_gt(a, b) : float8_lt(a, b);
}

static bool
topk_step_vec(const SpParams *p, void *state, SpRing *rings, int64 ts,
			  const SpValue *in, SpValue *out)
{
	TopKState  *s = state;
	SpRing	   *r = &rings[0];
	int			m = in[0].n;
	double		score;
	int64		pos = 0,
				at = -1,
				last = 0,
				end,
				total = 0;

	if (p->num_ports >= m)
		lane_out_of_range("TopK", p->num_ports, m);
	score = in[0].v[p->num_ports];
	Assert(r->head == 0);

	/* the first entry not better than the new one: insert before it */
	for (int64 e = 0; e < s->n; e++)
	{
		int			len = (int) r->buf[pos];

		if (at < 0 && !topk_better(p, r->buf[pos + 1 + p->num_ports], score))
			at = pos;
		last = pos;
		pos += 1 + len;
	}
	end = pos;
	if (at < 0)
		at = end;
	/* room for the record at the end, then move the tail up */
	for (int i = 0; i <= m; i++)
		sp_ring_push(r, 0.0);
	memmove(r->buf + at + 1 + m, r->buf + at, sizeof(double) * (pos - at));
	r->buf[at] = m;
	memcpy(r->buf + at + 1, in[0].v, sizeof(double) * m);
	s->n++;
	if (s->n > p->window_size)
	{
		/* drop the worst: the new entry itself, or the old last one moved up */
		r->count = at == end ? at : last + 1 + m;
		s->n--;
	}

	/* the entries, best first, without their lengths */
	pos = 0;
	for (int64 e = 0; e < s->n; e++)
	{
		int			len = (int) r->buf[pos];

		if (total + len > SP_MAX_LANES)
			vector_too_long("TopK", total + len);
		memcpy(out->v + total, r->buf + pos + 1, sizeof(double) * len);
		total += len;
		pos += 1 + len;
	}
	out->n = (int32) total;
	return true;
}

static void
topk_visit(const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v)
{
	TopKState  *s = state;

	v->i64(v, "n", &s->n);
	v->ring(v, "entries", &rings[0]);
}

static const char *
topk_check(const SpParams *p, const void *state, const SpRing *rings)
{
	const TopKState *s = state;
	const SpRing *r = &rings[0];
	int64		pos = 0;
	double		prev = 0;

	if (s->n < 0 || s->n > p->window_size)
		return "n must be between 0 and k";
	for (int64 e = 0; e < s->n; e++)
	{
		double		len;
		double		score;

		if (pos >= r->count)
			return "entries hold fewer than n records";
		len = sp_ring_get(r, pos);
		if (!(len == floor(len) && len > p->num_ports && len <= SP_MAX_LANES))
			return "an entry's length must be an integer above score_index and at most the lanes a vector has";
		if (pos + 1 + (int64) len > r->count)
			return "an entry is cut short";
		score = sp_ring_get(r, pos + 1 + p->num_ports);
		if (e > 0 && topk_better(p, score, prev))
			return "entries must be in order of their scores, best first";
		prev = score;
		pos += 1 + (int64) len;
	}
	if (pos != r->count)
		return "entries hold more than n records";
	return NULL;
}

const SpOpType sp_op_top_k = {
	.name = "TopK", .params = topk_params, .nin = 1,
	.in_type = SP_PORT_VECTOR_NUMBER, .out_type = SP_PORT_VECTOR_NUMBER,
	.state_size = topk_state_size,
	.rings = topk_rings,
	.step_vec = topk_step_vec,
	.visit = topk_visit,
	.check_state = topk_check,
};
