/*
 * ops_fused.c
 *	  FusedExpression: the original library's RPN bytecode over numPorts
 *	  number ports, one output port per expression (sp_rpn.h runs it).
 *
 * On a row where every port has a value the bytecode runs once; the row
 * emits on every output port, or, when an expression's value was not
 * produced (a window not full yet) or a GATE closed, on none.  The state
 * is the stateful opcodes', each an operator's state, so that a reset at a
 * boundary (the engine's memset and ring clear) returns them all to their
 * start.
 */
#include "postgres.h"

#include "sp_operator.h"
#include "sp_rpn.h"

static bool
coefficients_shown(const SpParams *p)
{
	return p->nvec[2] > 0;
}

/* numOutputs is kept in SpParams.choice, an int32 no other parameter of it uses */
static const SpParamDef fused_params[] = {
	{"numPorts", SP_PARAM_INT, offsetof(SpParams, num_ports), true, 0, 1, SP_MAX_PORTS},
	{"numOutputs", SP_PARAM_INT, offsetof(SpParams, choice), true, 0, 1, SP_MAX_PORTS},
	{"bytecode", SP_PARAM_VECTOR, offsetof(SpParams, vec[0]), true, 0, 1, SP_RPN_MAX_CODE},
	{"constants", SP_PARAM_VECTOR, offsetof(SpParams, vec[1]), false, 0, 0, SP_RPN_MAX_VALUES},
	{"coefficients", SP_PARAM_VECTOR, offsetof(SpParams, vec[2]), false, 0, 0, SP_RPN_MAX_VALUES,
	NULL, coefficients_shown},
	SP_PARAM_END
};

/*
 * The bytecode, its constants and coefficients (vec[0..2]) compiled for
 * inputs below max_inputs.  The spec reader calls check_params in the
 * memory context the configuration keeps.
 */
static const char *
fused_compile(SpParams *p, int max_inputs, const char *inputs_name)
{
	SpRpnSource src = {
		.code = p->vec[0], .n_code = p->nvec[0],
		.constants = p->vec[1], .n_constants = p->nvec[1],
		.coefficients = p->vec[2], .n_coefficients = p->nvec[2],
		.n_outputs = p->choice,
		.max_inputs = max_inputs, .inputs_name = inputs_name,
	};

	p->rpn = sp_rpn_compile(&src);
	return NULL;
}

static const char *
fused_check_params(SpParams *p)
{
	return fused_compile(p, p->num_ports, "numPorts");
}

static int32
fused_nin(const SpParams *p)
{
	return p->num_ports;
}

static int32
fused_nout(const SpParams *p)
{
	return p->choice;
}

static size_t
fused_state_size(const SpParams *p)
{
	return p->rpn->state_size;
}

static int
fused_rings(const SpParams *p, int64 *limits)
{
	return sp_rpn_rings(p->rpn, limits);
}

static bool
fused_step_multi(const SpParams *p, void *state, SpRing *rings, int64 ts,
				 const double *in, double *out, bool *have)
{
	if (!sp_rpn_run(p->rpn, state, rings, in, p->num_ports, out))
		return false;
	for (int k = 0; k < p->choice; k++)
		have[k] = true;
	return true;
}

/* with one output port, the engine steps it as any operator */
static bool
fused_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out)
{
	return sp_rpn_run(p->rpn, state, rings, in, p->num_ports, out);
}

static void
fused_visit(const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v)
{
	sp_rpn_visit(p->rpn, state, rings, v);
}

static const char *
fused_check(const SpParams *p, const void *state, const SpRing *rings)
{
	return sp_rpn_check(p->rpn, state, rings);
}

static void
fused_restore(const SpParams *p, void *state, const SpRing *rings)
{
	sp_rpn_restore(p->rpn, state, rings);
}

const SpOpType sp_op_fused_expression = {
	.name = "FusedExpression",
	.params = fused_params,
	.nin_from = fused_nin,
	.nout_from = fused_nout,
	.check_params = fused_check_params,
	.state_size = fused_state_size,
	.rings = fused_rings,
	.step = fused_step,
	.step_multi = fused_step_multi,
	.visit = fused_visit,
	.check_state = fused_check,
	.restore = fused_restore,
};

/*
 * ---- FusedExpressionVector: INPUT k reads lane k of the row's vector; the
 * row emits one vector of numOutputs lanes, or nothing ----
 *
 * The lanes a vector has are known only when a row brings it: the bytecode
 * may read any lane below SP_MAX_LANES, and a vector without the highest
 * lane it reads stops the run with 2202E, as VectorExtract does (the
 * original throws "INPUT index out of bounds" then).
 */
static const SpParamDef fused_vector_params[] = {
	{"numOutputs", SP_PARAM_INT, offsetof(SpParams, choice), true, 0, 1, SP_MAX_LANES},
	{"bytecode", SP_PARAM_VECTOR, offsetof(SpParams, vec[0]), true, 0, 1, SP_RPN_MAX_CODE},
	{"constants", SP_PARAM_VECTOR, offsetof(SpParams, vec[1]), false, 0, 0, SP_RPN_MAX_VALUES},
	{"coefficients", SP_PARAM_VECTOR, offsetof(SpParams, vec[2]), false, 0, 0, SP_RPN_MAX_VALUES,
	NULL, coefficients_shown},
	SP_PARAM_END
};

static const char *
fused_vector_check_params(SpParams *p)
{
	return fused_compile(p, SP_MAX_LANES, "the most lanes a vector has");
}

static bool
fused_vector_step_vec(const SpParams *p, void *state, SpRing *rings, int64 ts,
					  const SpValue *in, SpValue *out)
{
	const SpRpn *rpn = p->rpn;

	if (unlikely(in[0].n < rpn->n_inputs))
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("vector lane out of range"),
				 errdetail("FusedExpressionVector reads lane %d (counted from 0) of a vector of %d lanes.",
						   rpn->n_inputs - 1, in[0].n)));
	if (!sp_rpn_run(rpn, state, rings, in[0].v, in[0].n, out->v))
		return false;
	out->n = p->choice;
	return true;
}

const SpOpType sp_op_fused_expression_vector = {
	.name = "FusedExpressionVector",
	.params = fused_vector_params,
	.nin = 1,
	.in_type = SP_PORT_VECTOR_NUMBER,
	.out_type = SP_PORT_VECTOR_NUMBER,
	.check_params = fused_vector_check_params,
	.state_size = fused_state_size,
	.rings = fused_rings,
	.step_vec = fused_vector_step_vec,
	.visit = fused_visit,
	.check_state = fused_check,
	.restore = fused_restore,
};
