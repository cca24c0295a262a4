/*
 * sp_spec_nested.c
 *	  The spec reader's meshes within an operator: a nested Pipeline, a
 *	  KeyedPipeline's prototype and a TriggerSet's mesh, each read with a
 *	  reader of its own.
 */
#include "postgres.h"

#include "sp_json.h"
#include "sp_spec_reader.h"

static const char *const trigger_output_fields[] = {"id", "port", NULL};
static const char *const prototype_fields[] = {"operators", "connections", "entry", "output", NULL};
static const char *const prototype_end_fields[] = {"operator", "port", NULL};

/*
 * A Pipeline among the operators: read as a spec of its own, with a reader
 * of its own, and kept as the parameter of a sp_op_pipeline operator.
 */
void
spec_read_nested(SpecReader *r, SpOperator *op, const SpJsonNode *j, bool has_id)
{
	SpecReader	saved = *r;
	SpConfig   *sub;

	MemoryContext old;

	sub = spec_read_pipeline(r, j);
	*r = saved;
	/* the operator's id is the pipeline's */
	if (!has_id)
		sub->id = op->id;
	old = MemoryContextSwitchTo(r->keep);
	op->type = sp_config_nested(sub);
	MemoryContextSwitchTo(old);
	op->params.sub = sub;
	op->nin = op->type->nin_from(&op->params);
}

/* "entry" or "output" of a prototype: {"operator": id, "port": name} */
static int
prototype_end(SpecReader *r, const SpJsonNode *pj, const char *field, const char **port)
{
	const SpJsonNode *j = sp_json_get(r->doc, pj, field);
	const SpJsonNode *pt;

	if (j == NULL)
		spec_error(errmsg("\"%s\" is required", field),
				   errdetail("A KeyedPipeline's prototype names its %s operator as {\"operator\": id}.", field));
	if (sp_json_kind(j) != SPJ_OBJECT)
		spec_error(errmsg("\"%s\" must be a JSON object, not %s", field,
						  sp_json_kind_name(sp_json_kind(j))));
	spec_check_members(r, j, prototype_end_fields, OWNER_PROTOTYPE, NULL);
	pt = spec_string_member(r, j, "port", false);
	*port = pt ? sp_json_string(r->doc, pt) : NULL;
	return spec_require_op(r, sp_json_string(r->doc, spec_string_member(r, j, "operator", true)), field);
}

/*
 * A sub-mesh's one data port (r->cfg's): it feeds entry_op's "i1", of type.
 */
static void
mesh_input(SpecReader *r, const SpOperator *entry_op, SpPortType type)
{
	SpConfig   *sub = r->cfg;

	sub->n_in = 1;
	sub->in_types = spec_keep_alloc0(r, sizeof(SpPortType));
	sub->in_types[0] = type;
	sub->feeds[entry_op->first_feed].op = -1;
	sub->feeds[entry_op->first_feed].port = 0;
	r->fed_by[entry_op->first_feed] = -1;
}

/*
 * A sub-mesh's one output (r->cfg's): operator out's port (its name, or
 * NULL for "o1"); its type is in out_types[0].  Returns the operator.
 */
static const SpOperator *
mesh_output(SpecReader *r, int out, const char *port)
{
	SpConfig   *sub = r->cfg;
	const SpOperator *out_op = &sub->ops[out];

	sub->n_out = 1;
	sub->out_op = spec_keep_alloc0(r, sizeof(int));
	sub->out_port = spec_keep_alloc0(r, sizeof(int));
	sub->map_order = spec_keep_alloc0(r, sizeof(int));
	sub->out_types = spec_keep_alloc0(r, sizeof(SpPortType));
	sub->out_op[0] = out;
	sub->out_port[0] = port ? spec_parse_port(port, 'o', out_op->nout) : 0;
	if (sub->out_port[0] < 0)
		spec_error(errmsg("operator \"%s\" has no output port \"%s\"", out_op->id, sp_json_shown(port)));
	sub->out_types[0] = spec_op_out_type(out_op, sub->out_port[0]);
	return out_op;
}

/*
 * The end of reading a sub-mesh (a KeyedPipeline's prototype, a
 * TriggerSet's mesh) into r->cfg: its "connections" (of the object j),
 * every input port connected (where: the detail naming the operator), the
 * operators ordered, its vector areas laid out.
 */
static void
finish_mesh(SpecReader *r, const SpJsonNode *j, const char *where)
{
	SpConfig   *sub = r->cfg;
	const SpJsonNode *cj;
	MemoryContext old;

	if ((cj = sp_json_get(r->doc, j, "connections")) != NULL)
		spec_read_connections(r, cj);
	else
		sub->conns = spec_keep_alloc0(r, sizeof(SpConnection));
	spec_check_fed(r, where);
	spec_check_input_entry(r);
	spec_order_operators(r);
	old = MemoryContextSwitchTo(r->keep);
	sp_config_vectors(sub);
	MemoryContextSwitchTo(old);
}

/*
 * A KeyedPipeline's "prototype" (prototypes named by reference are
 * expanded in place by sp_spec_proto.c before this): its operators and
 * connections, read as a pipeline's with a reader of their own, whose one
 * data port is a vector_number feeding the "entry" operator's "i1" and
 * whose one output is the "output" operator's port ("o1" unless "port"
 * says), a number or a vector_number.
 */
void
spec_read_prototype(SpecReader *r, SpOperator *op, const SpJsonNode *j)
{
	const SpJsonNode *pj = sp_json_get(r->doc, j, "prototype");
	SpecReader	saved = *r;
	SpConfig   *sub;
	const SpOperator *entry_op;
	const SpOperator *out_op;
	const char *port;
	int			out;

	if (pj == NULL)
		spec_error(errmsg("parameter \"prototype\" is required"));
	if (sp_json_kind(pj) != SPJ_OBJECT)
		spec_error(errmsg("\"prototype\" must be the name of a prototype or a prototype object, not %s",
						  sp_json_kind_name(sp_json_kind(pj))));
	spec_check_members(r, pj, prototype_fields, OWNER_PROTOTYPE, NULL);
	sub = spec_keep_alloc0(r, sizeof(SpConfig));
	r->cfg = sub;
	spec_read_operators(r, pj, NULL, false);
	sub->id = op->id;

	sub->entry = prototype_end(r, pj, "entry", &port);
	entry_op = &sub->ops[sub->entry];
	if (port != NULL && strcmp(port, "i1") != 0)
		spec_error(errmsg("the entry of a KeyedPipeline's prototype must be port \"i1\", not \"%s\"",
						  sp_json_shown(port)));
	if (spec_op_ndata(entry_op) < 1 ||
		(spec_op_in_type(entry_op, 0) != SP_PORT_VECTOR_NUMBER && spec_op_in_type(entry_op, 0) != SP_PORT_ANY))
		spec_error(errmsg("entry operator \"%s\" of a KeyedPipeline's prototype must take a vector_number",
						  entry_op->id),
				   errdetail("A KeyedPipeline gives each row's vector to its prototype's entry operator."));
	mesh_input(r, entry_op, SP_PORT_VECTOR_NUMBER);

	out = prototype_end(r, pj, "output", &port);
	out_op = mesh_output(r, out, port);
	if (sub->out_types[0] != SP_PORT_NUMBER && sub->out_types[0] != SP_PORT_VECTOR_NUMBER)
		spec_error(errmsg("the output of a KeyedPipeline's prototype must be a number or a vector_number"),
				   errdetail("Operator \"%s\" gives a %s.", out_op->id,
							 sp_port_type_name(sub->out_types[0])));

	finish_mesh(r, pj, psprintf("In the prototype of KeyedPipeline \"%s\".", op->id));
	*r = saved;
	op->params.proto = sub;
}

/*
 * A TriggerSet's mesh: "operators" and "connections", read as a pipeline's
 * with a reader of their own, whose one data port (input_port_type) feeds
 * the "entryOperator"'s "i1" and whose one output is the "outputOperator"'s
 * port (an id, or {"id": id, "port": name}; "o1" unless "port" says), of
 * output_port_type.
 */
void
spec_read_trigger_set(SpecReader *r, SpOperator *op, const SpJsonNode *j)
{
	SpecReader	saved = *r;
	SpConfig   *sub;
	const SpOperator *entry_op;
	const SpOperator *out_op;
	const SpJsonNode *oj;
	const char *port = NULL;
	int			out;
	SpPortType	in_type = (SpPortType) op->params.choice;
	SpPortType	out_type = (SpPortType) op->params.num_ports;

	sub = spec_keep_alloc0(r, sizeof(SpConfig));
	r->cfg = sub;
	spec_read_operators(r, j, NULL, false);
	sub->id = op->id;

	sub->entry = spec_require_op(r, sp_json_string(r->doc, spec_string_member(r, j, "entryOperator", true)),
							"entryOperator");
	entry_op = &sub->ops[sub->entry];
	if (spec_op_ndata(entry_op) < 1 ||
		(spec_op_in_type(entry_op, 0) != in_type && spec_op_in_type(entry_op, 0) != SP_PORT_ANY))
		spec_error(errmsg("entry operator \"%s\" of TriggerSet \"%s\" must take a %s on \"i1\"",
						  entry_op->id, op->id, sp_port_type_name(in_type)),
				   spec_op_ndata(entry_op) < 1 ? 0 :
				   errdetail("Its \"i1\" takes a %s; the TriggerSet's \"input_port_type\" is %s.",
							 sp_port_type_name(spec_op_in_type(entry_op, 0)), sp_port_type_name(in_type)));
	mesh_input(r, entry_op, in_type);

	oj = sp_json_get(r->doc, j, "outputOperator");
	if (oj == NULL)
		spec_error(errmsg("\"outputOperator\" is required"),
				   errdetail("A TriggerSet names its output operator as an id or as {\"id\": id, \"port\": \"o1\"}."));
	if (sp_json_kind(oj) == SPJ_OBJECT)
	{
		const SpJsonNode *pt;

		spec_check_members(r, oj, trigger_output_fields, OWNER_TRIGGER_OUTPUT, NULL);
		pt = spec_string_member(r, oj, "port", false);
		port = pt ? sp_json_string(r->doc, pt) : NULL;
		out = spec_require_op(r, sp_json_string(r->doc, spec_string_member(r, oj, "id", true)), "outputOperator");
	}
	else
	{
		if (sp_json_kind(oj) != SPJ_STRING)
			spec_error(errmsg("\"outputOperator\" must be a string or a JSON object, not %s",
							  sp_json_kind_name(sp_json_kind(oj))));
		out = spec_require_op(r, sp_json_string(r->doc, oj), "outputOperator");
	}
	out_op = mesh_output(r, out, port);
	if (sub->out_types[0] != out_type)
		spec_error(errmsg("output operator \"%s\" of TriggerSet \"%s\" gives a %s, not a %s",
						  out_op->id, op->id, sp_port_type_name(sub->out_types[0]),
						  sp_port_type_name(out_type)),
				   errdetail("The TriggerSet's \"output_port_type\" is %s.", sp_port_type_name(out_type)));

	finish_mesh(r, j, psprintf("In TriggerSet \"%s\".", op->id));
	*r = saved;
	op->params.proto = sub;
}
