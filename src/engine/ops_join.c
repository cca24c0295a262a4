/*
 * ops_join.c
 *	  Join: the values of its ports, passed on together on the rows where
 *	  every port received one (docs/reference.md, "Join, Variable and
 *	  KeyedVariable").
 *
 * The original's Join buffers each port's messages and passes on those of
 * a timestamp every port has, dropping the older ones.  In segpipe a row's
 * values all have the row's time, the mesh runs once per row, and an
 * operator runs on a row only when each of its data ports received a value
 * on it: that rule is the join, and nothing is left to buffer between rows,
 * so Join has no state.  Port k's value leaves on output port k, of the
 * same type ("portTypes").
 *
 * Input, inside a Pipeline, is the original's entry operator: it passes on
 * the ports it is given.  It may only be a pipeline's entry (sp_spec_mesh.c),
 * where every port receives a value on every row, so Join's rule is its
 * own and it is a Join of one port or more.
 */
#include "postgres.h"

#include "sp_operator.h"

#define JOIN_MIN_PORTS	2

/* portTypes in vec[0], as SpPortType codes */
static const SpParamDef join_params[] = {
	{"portTypes", SP_PARAM_PORT_TYPES, offsetof(SpParams, vec[0]), true, 0,
	JOIN_MIN_PORTS, SP_MAX_PORTS, NULL},
	SP_PARAM_END
};

static const SpParamDef input_params[] = {
	{"portTypes", SP_PARAM_PORT_TYPES, offsetof(SpParams, vec[0]), true, 0,
	1, SP_MAX_PORTS, NULL},
	SP_PARAM_END
};

static int32
join_nports(const SpParams *p)
{
	return p->nvec[0];
}

static SpPortType
join_type_at(const SpParams *p, int port)
{
	return (SpPortType) p->vec[0][port];
}

/* Without a vector port: every value on, as it came (booleans are 1 or 0). */
static bool
join_step_multi(const SpParams *p, void *state, SpRing *rings, int64 ts,
				const double *in, double *out, bool *have)
{
	for (int k = 0; k < p->nvec[0]; k++)
	{
		out[k] = in[k];
		have[k] = true;
	}
	return true;
}

/* In a pipeline with vectors: a vector's lanes are copied to its output. */
static bool
join_step_vec_multi(const SpParams *p, void *state, SpRing *rings, int64 ts,
					const SpValue *in, SpValue *out, bool *have)
{
	for (int k = 0; k < p->nvec[0]; k++)
	{
		if (sp_port_is_vector(join_type_at(p, k)))
		{
			Assert(in[k].v != NULL && out[k].v != NULL);
			out[k].n = in[k].n;
			memcpy(out[k].v, in[k].v, sizeof(double) * in[k].n);
		}
		else
			out[k].x = in[k].x;
		have[k] = true;
	}
	return true;
}

/* Join and Input: their ports' values on, each on the output of its number */
#define PASS_PORTS_COMMON \
	.nin_from = join_nports, \
	.in_type = SP_PORT_NUMBER, \
	.out_type = SP_PORT_NUMBER, \
	.in_type_at = join_type_at, \
	.nout_from = join_nports, \
	.out_type_at = join_type_at, \
	.step_multi = join_step_multi, \
	.step_vec_multi = join_step_vec_multi

const SpOpType sp_op_join = {
	.name = "Join",
	.params = join_params,
	PASS_PORTS_COMMON,
};

/* Input of one port: the executor steps an operator of one output with step */
static bool
input_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out)
{
	*out = in[0];
	return true;
}

const SpOpType sp_op_input = {
	.name = "Input",
	.params = input_params,
	PASS_PORTS_COMMON,
	.step = input_step,
};
