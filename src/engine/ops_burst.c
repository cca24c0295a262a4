/*
 * ops_burst.c
 *	  BurstAggregate: the original library's aggregate over bursts, runs of
 *	  rows within a segment on which a predicate keeps one value.
 *
 * Each row is a vector (one vector_number port) of at least numInputCols
 * lanes.  The segment predicate (segBytecode, one expression of the
 * opcodes without state, as a nested Pipeline's segment bytecode) is
 * computed on every row; when its value differs from the previous row's (as
 * float8: NaN equals NaN), the burst that row closes emits its aggregate
 * (if one was produced) and the aggregate's state starts again.  The
 * aggregate (aggBytecode, numAggOutputs expressions, stateful opcodes
 * allowed: sp_rpn.h) runs on every row after that.  The output is the
 * vector of the row's keyColumns lanes, then the closed burst's aggregates.
 *
 * The burst still open when the segment ends is not emitted (the original
 * emits only on a change of the predicate); the engine's reset at a
 * boundary drops it with the rest of the state.
 */
#include "postgres.h"

#include <math.h>

#include "utils/float.h"

#include "sp_operator.h"
#include "sp_rpn.h"

/*
 * vec[0] aggBytecode, vec[1] aggConstants, vec[2] segBytecode, vec[3]
 * segConstants, vec[4] keyColumns; numAggOutputs in choice, numInputCols
 * in num_ports.
 */
static const SpParamDef burst_params[] = {
	{"aggBytecode", SP_PARAM_VECTOR, offsetof(SpParams, vec[0]), true, 0, 1, SP_RPN_MAX_CODE},
	{"aggConstants", SP_PARAM_VECTOR, offsetof(SpParams, vec[1]), false, 0, 0, SP_RPN_MAX_VALUES},
	{"segBytecode", SP_PARAM_VECTOR, offsetof(SpParams, vec[2]), false, 0, 0, SP_RPN_MAX_CODE},
	{"segConstants", SP_PARAM_VECTOR, offsetof(SpParams, vec[3]), false, 0, 0, SP_RPN_MAX_VALUES},
	{"keyColumns", SP_PARAM_VECTOR, offsetof(SpParams, vec[4]), false, 0, 0, SP_MAX_LANES},
	{"numAggOutputs", SP_PARAM_INT, offsetof(SpParams, choice), true, 0, 1, SP_MAX_LANES},
	{"numInputCols", SP_PARAM_INT, offsetof(SpParams, num_ports), true, 0, 1, SP_MAX_LANES},
	SP_PARAM_END
};

/* The fixed state past the aggregate's cells. */
typedef struct BurstState
{
	int64		seen;			/* 1 once a row gave the predicate a value */
	double		pred;			/* that row's predicate value */
	int64		valid;			/* 1 when the open burst produced aggregates */
	double		out[FLEXIBLE_ARRAY_MEMBER];	/* numAggOutputs: its latest */
} BurstState;

static Size
burst_own_offset(const SpParams *p)
{
	return MAXALIGN(p->rpn->state_size);
}

static BurstState *
burst_own(const SpParams *p, void *state)
{
	return (BurstState *) ((char *) state + burst_own_offset(p));
}

/* which bytecode an error in sp_rpn_compile is about */
static void
burst_code_context(void *arg)
{
	errcontext("in \"%s\"", (const char *) arg);
}

static const SpRpn *
burst_compile(const SpRpnSource *src, const char *name)
{
	ErrorContextCallback cb;
	const SpRpn *prog;

	cb.callback = burst_code_context;
	cb.arg = (void *) name;
	cb.previous = error_context_stack;
	error_context_stack = &cb;
	prog = sp_rpn_compile(src);
	error_context_stack = cb.previous;
	return prog;
}

/* The spec reader calls it in the memory context the configuration keeps. */
static const char *
burst_check_params(SpParams *p)
{
	SpRpnSource agg = {
		.code = p->vec[0], .n_code = p->nvec[0],
		.constants = p->vec[1], .n_constants = p->nvec[1],
		.n_outputs = p->choice,
		.max_inputs = p->num_ports, .inputs_name = "numInputCols",
		.constants_name = "aggConstants", .outputs_name = "numAggOutputs",
	};

	for (int k = 0; k < p->nvec[4]; k++)
	{
		double		x = p->vec[4][k];

		if (!(x == floor(x) && x >= 0 && x < p->num_ports))
			return psprintf("element %d of \"keyColumns\" must be an integer from 0 to %d (a lane below \"numInputCols\"), not %s",
							k + 1, p->num_ports - 1, float8out_internal(x));
	}
	if (p->nvec[4] + p->choice > SP_MAX_LANES)
		return psprintf("\"keyColumns\" and \"numAggOutputs\" give %d lanes; a vector has at most %d",
						p->nvec[4] + p->choice, SP_MAX_LANES);
	p->rpn = burst_compile(&agg, "aggBytecode");
	p->rpn_seg = NULL;
	if (p->nvec[2] > 0)
	{
		SpRpnSource seg = {
			.code = p->vec[2], .n_code = p->nvec[2],
			.constants = p->vec[3], .n_constants = p->nvec[3],
			.n_outputs = 1,
			.max_inputs = p->num_ports, .inputs_name = "numInputCols",
			.segment_key = true, .constants_name = "segConstants",
		};

		p->rpn_seg = burst_compile(&seg, "segBytecode");
	}
	else if (p->nvec[3] > 0)
		return "\"segConstants\" needs a \"segBytecode\"";
	return NULL;
}

static size_t
burst_state_size(const SpParams *p)
{
	return burst_own_offset(p) + offsetof(BurstState, out) + sizeof(double) * p->choice;
}

static int
burst_rings(const SpParams *p, int64 *limits)
{
	return sp_rpn_rings(p->rpn, limits);
}

static bool
burst_step_vec(const SpParams *p, void *state, SpRing *rings, int64 ts,
			   const SpValue *in, SpValue *out)
{
	const SpRpn *agg = p->rpn;
	BurstState *s = burst_own(p, state);
	int			nk = p->nvec[4];
	bool		emit = false;
	double		row[SP_MAX_LANES];

	if (unlikely(in[0].n < p->num_ports))
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("vector lane out of range"),
				 errdetail("BurstAggregate reads %d lanes (\"numInputCols\") of a vector of %d lanes.",
						   p->num_ports, in[0].n)));
	if (p->rpn_seg != NULL)
	{
		double		pred;

		/* without state, every value is produced */
		(void) sp_rpn_run(p->rpn_seg, NULL, NULL, in[0].v, in[0].n, &pred);
		if (s->seen && !float8_eq(pred, s->pred))
		{
			if (s->valid)
			{
				/* the keys are this row's, as the original's */
				for (int k = 0; k < nk; k++)
					out->v[k] = in[0].v[(int) p->vec[4][k]];
				memcpy(out->v + nk, s->out, sizeof(double) * p->choice);
				out->n = nk + p->choice;
				emit = true;
			}
			/* a new burst: the aggregate starts again, as at a boundary */
			memset(state, 0, agg->state_size);
			for (int r = 0; r < agg->n_rings; r++)
				sp_ring_clear(&rings[r]);
			s->valid = 0;
			memset(s->out, 0, sizeof(double) * p->choice);
		}
		s->seen = 1;
		s->pred = pred;
	}
	/* a row that leaves a value absent keeps the burst's earlier ones */
	if (sp_rpn_run(agg, state, rings, in[0].v, in[0].n, row))
	{
		memcpy(s->out, row, sizeof(double) * p->choice);
		s->valid = 1;
	}
	return emit;
}

static void
burst_visit(const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v)
{
	BurstState *s = burst_own(p, state);
	SpPrefixVisitor pv;

	v->i64(v, "seen", &s->seen);
	v->f64(v, "predicate", &s->pred);
	v->i64(v, "valid", &s->valid);
	v->f64s(v, "aggregates", s->out, p->choice);
	sp_rpn_visit(p->rpn, state, rings, sp_prefix_visitor(&pv, v, "agg"));
}

static const char *
burst_check(const SpParams *p, const void *state, const SpRing *rings)
{
	const BurstState *s = (const BurstState *) ((const char *) state + burst_own_offset(p));

	if (s->seen != 0 && s->seen != 1)
		return "seen must be 0 or 1";
	if (s->valid != 0 && s->valid != 1)
		return "valid must be 0 or 1";
	if ((s->seen == 0 || p->rpn_seg == NULL) && (s->pred != 0 || signbit(s->pred)))
		return "predicate must be 0 before a row gave it a value";
	if (s->seen == 1 && p->rpn_seg == NULL)
		return "seen must be 0 without a \"segBytecode\"";
	if (s->valid == 0)
		for (int k = 0; k < p->choice; k++)
			if (s->out[k] != 0 || signbit(s->out[k]))
				return "aggregates must be 0 until the burst produced them";
	return sp_rpn_check(p->rpn, state, rings);
}

static void
burst_restore(const SpParams *p, void *state, const SpRing *rings)
{
	sp_rpn_restore(p->rpn, state, rings);
}

const SpOpType sp_op_burst_aggregate = {
	.name = "BurstAggregate",
	.params = burst_params,
	.nin = 1,
	.in_type = SP_PORT_VECTOR_NUMBER,
	.out_type = SP_PORT_VECTOR_NUMBER,
	.check_params = burst_check_params,
	.state_size = burst_state_size,
	.rings = burst_rings,
	.step_vec = burst_step_vec,
	.visit = burst_visit,
	.check_state = burst_check,
	.restore = burst_restore,
};
