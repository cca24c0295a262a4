/*
 * ops_trigger.c
 *	  TriggerSet: a mesh of operators behind one input and one output that
 *	  fires once and re-arms (docs/reference.md, "TriggerSet").
 *
 * Each row's value goes to the entry operator's "i1"; when the output
 * operator produces on the row, the TriggerSet passes that value on and
 * resets every operator of its mesh, so the next row starts it afresh.  A
 * segment boundary resets it as it resets every operator.  The mesh
 * (params.proto) runs as an SpRun over the TriggerSet's own state:
 *
 *	fixed state		the mesh's operators' fixed states (proto->state_size)
 *	rings[0 ..]		the mesh's operators' rings
 *	rings[n_rings]	scratch for the mesh's run of one row (an SpRun's
 *					per-row arrays and lane areas): only its storage is
 *					used, it never holds a value, so it is no part of the
 *					state
 */
#include "postgres.h"

#include "sp_engine.h"

/* The port type words, in the order of SpPortType. */
static const char *const trigger_port_types[] = {
	"number", "boolean", "vector_number", "vector_boolean", NULL
};

/*
 * input_port_type in choice, output_port_type in num_ports (both
 * SpPortType codes); "operators", "connections", "entryOperator" and
 * "outputOperator" are read by the spec reader into params.proto.
 */
static const SpParamDef trigger_params[] = {
	{"input_port_type", SP_PARAM_CHOICE, offsetof(SpParams, choice), true, 0, 0, 0,
	trigger_port_types},
	{"output_port_type", SP_PARAM_CHOICE, offsetof(SpParams, num_ports), true, 0, 0, 0,
	trigger_port_types},
	SP_PARAM_END
};

static SpPortType
trigger_in_type_at(const SpParams *p, int port)
{
	return (SpPortType) p->choice;
}

static SpPortType
trigger_out_type_at(const SpParams *p, int port)
{
	return (SpPortType) p->num_ports;
}

static size_t
trigger_state_size(const SpParams *p)
{
	return p->proto->state_size;
}

static int
trigger_max_rings(const SpParams *p)
{
	return p->proto->n_rings + 1;
}

static int
trigger_rings(const SpParams *p, int64 *limits)
{
	const SpConfig *sub = p->proto;

	for (int r = 0; r < sub->n_rings; r++)
		limits[r] = sub->declared_limits[r];
	limits[sub->n_rings] =
		(int64) ((sp_run_areas_size(sub, sub->vectors) + sizeof(double) - 1) / sizeof(double));
	return sub->n_rings + 1;
}

static bool
trigger_timed(const SpParams *p)
{
	return p->proto->timed;
}

/* An SpRun of the mesh over the TriggerSet's state and the scratch. */
static void
trigger_view(const SpParams *p, void *state, SpRing *rings, SpRun *view)
{
	const SpConfig *sub = p->proto;
	SpRing	   *scratch = &rings[sub->n_rings];

	Assert(scratch->count == 0);
	if (scratch->cap < scratch->limit)
		sp_ring_reserve(scratch, scratch->limit);
	sp_run_view(view, sub, (char *) scratch->buf, sub->vectors);
	view->opstate = state;
	view->rings = rings;
	view->has_key = true;
}

static bool
trigger_step_vec(const SpParams *p, void *state, SpRing *rings, int64 ts,
				 const SpValue *in, SpValue *out)
{
	const SpConfig *sub = p->proto;
	SpRun		view;
	int			o;

	trigger_view(p, state, rings, &view);
	view.ts = ts;
	if (sp_port_is_vector(sub->in_types[0]))
	{
		memcpy(sp_run_lanes(&view, SP_AREA_IN), in[0].v, sizeof(double) * in[0].n);
		view.lane_n[SP_AREA_IN] = in[0].n;
		view.row_in[0] = in[0].n;
	}
	else
		view.row_in[0] = in[0].x;
	(void) sp_run_row(&view, view.row_in, SP_KEY_SAME);

	o = sub->ops[sub->out_op[0]].first_out + sub->out_port[0];
	if (!view.have[o])
		return false;
	if (sp_port_is_vector(sub->out_types[0]))
	{
		int			a = sp_area_slot(sub, o);

		out->n = view.lane_n[a];
		memcpy(out->v, sp_run_lanes(&view, a), sizeof(double) * out->n);
	}
	else
		out->x = sp_run_buffer_value(&view, 0);

	/* fired: the mesh starts again, as at a boundary */
	memset(state, 0, sub->state_size);
	for (int r = 0; r < sub->n_rings; r++)
		sp_ring_clear(&rings[r]);
	return true;
}

/* The mesh's operators' fields, "<operator id>/<field>". */
static void
trigger_visit(const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v)
{
	const SpConfig *sub = p->proto;

	for (int i = 0; i < sub->n_ops; i++)
	{
		const SpOperator *op = &sub->ops[i];
		SpPrefixVisitor pv;

		if (op->type->visit)
			op->type->visit(&op->params, (char *) state + op->state_off, rings + op->first_ring,
							sp_prefix_visitor(&pv, v, op->id));
	}
}

static const char *
trigger_check(const SpParams *p, const void *state, const SpRing *rings)
{
	const SpConfig *sub = p->proto;

	if (rings[sub->n_rings].count != 0)
		return "the scratch ring must be empty";
	for (int i = 0; i < sub->n_ops; i++)
	{
		const SpOperator *op = &sub->ops[i];
		const char *msg;

		if (op->type->check_state &&
			(msg = op->type->check_state(&op->params, (const char *) state + op->state_off,
										 rings + op->first_ring)) != NULL)
			return psprintf("operator \"%s\": %s", op->id, msg);
	}
	return NULL;
}

static void
trigger_restore(const SpParams *p, void *state, const SpRing *rings)
{
	sp_config_restore(p->proto, state, rings);
}

const SpOpType sp_op_trigger_set = {
	.name = "TriggerSet",
	.params = trigger_params,
	.nin = 1,
	.in_type = SP_PORT_NUMBER,
	.out_type = SP_PORT_NUMBER,
	.in_type_at = trigger_in_type_at,
	.out_type_at = trigger_out_type_at,
	.state_size = trigger_state_size,
	.rings = trigger_rings,
	.max_rings = trigger_max_rings,
	.timed = trigger_timed,
	.step_vec = trigger_step_vec,
	.visit = trigger_visit,
	.check_state = trigger_check,
	.restore = trigger_restore,
};
