/*
 * sp_spec_write.c
 *	  The canonical text of a configuration: the spec's JSON with members in
 *	  a fixed order, every default made explicit, floats shortest-exact.
 *	  sp_spec_read() of this text gives the same configuration.
 */
#include "postgres.h"

#include <math.h>

#include "common/shortest_dec.h"
#include "utils/json.h"
#include "sp_spec.h"
#include "sp_time.h"

/*
 * Shortest text that reads back to the same float8.  Not float8out: what is
 * stored must not depend on extra_float_digits, which makes float8out round
 * to 15 digits when it is 0 or less.
 */
void
sp_write_float8(StringInfo buf, double v)
{
	char		s[DOUBLE_SHORTEST_DECIMAL_LEN];

	if (isnan(v))
		appendStringInfoString(buf, "\"NaN\"");	/* JSON has no such literal */
	else if (isinf(v))
		appendStringInfoString(buf, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
	else
	{
		double_to_shortest_decimal_buf(v, s);
		appendStringInfoString(buf, s);
	}
}

static void
write_port_types(StringInfo buf, const SpPortType *types, int n)
{
	appendStringInfoChar(buf, '[');
	for (int i = 0; i < n; i++)
		appendStringInfo(buf, "%s\"%s\"", i ? ", " : "", sp_port_type_name(types[i]));
	appendStringInfoChar(buf, ']');
}

/* , "name": [numbers] */
static void
write_numbers(StringInfo buf, const char *name, const double *v, int n)
{
	appendStringInfo(buf, ", \"%s\": [", name);
	for (int i = 0; i < n; i++)
	{
		if (i)
			appendStringInfoString(buf, ", ");
		sp_write_float8(buf, v[i]);
	}
	appendStringInfoChar(buf, ']');
}

static void write_operators(StringInfo buf, const SpConfig *cfg);

/* A KeyedPipeline's sub-graph, in the original's form of a prototype. */
static void
write_prototype(StringInfo buf, const SpConfig *sub)
{
	appendStringInfoString(buf, ", \"prototype\": {");
	write_operators(buf, sub);
	appendStringInfoString(buf, ", \"entry\": {\"operator\": ");
	escape_json(buf, sub->ops[sub->entry].id);
	appendStringInfoString(buf, "}, \"output\": {\"operator\": ");
	escape_json(buf, sub->ops[sub->out_op[0]].id);
	appendStringInfo(buf, ", \"port\": \"o%d\"}}", sub->out_port[0] + 1);
}

/* A TriggerSet's mesh, in the original's form. */
static void
write_trigger_set(StringInfo buf, const SpConfig *sub)
{
	appendStringInfoString(buf, ", ");
	write_operators(buf, sub);
	appendStringInfoString(buf, ", \"entryOperator\": ");
	escape_json(buf, sub->ops[sub->entry].id);
	appendStringInfoString(buf, ", \"outputOperator\": {\"id\": ");
	escape_json(buf, sub->ops[sub->out_op[0]].id);
	appendStringInfo(buf, ", \"port\": \"o%d\"}", sub->out_port[0] + 1);
}

static void
write_operator(StringInfo buf, const SpOperator *op)
{
	/* a nested Pipeline: its own canonical text, which names its id */
	if (op->params.sub != NULL)
	{
		sp_spec_write(buf, op->params.sub);
		return;
	}
	appendStringInfoString(buf, "{\"type\": ");
	escape_json(buf, op->type->name);
	appendStringInfoString(buf, ", \"id\": ");
	escape_json(buf, op->id);
	for (const SpParamDef *d = op->type->params; d->name; d++)
	{
		const char *field = (const char *) &op->params + d->offset;
		int32		ival;
		double		fval;
		int64		i64val;

		if (d->shown != NULL && !d->shown(&op->params))
			continue;
		appendStringInfoString(buf, ", ");
		escape_json(buf, d->name);
		appendStringInfoString(buf, ": ");
		switch (d->kind)
		{
			case SP_PARAM_INT:
				memcpy(&ival, field, sizeof(ival));
				appendStringInfo(buf, "%d", ival);
				break;
			case SP_PARAM_FLOAT:
				memcpy(&fval, field, sizeof(fval));
				sp_write_float8(buf, fval);
				break;
			case SP_PARAM_VECTOR:
				appendStringInfoChar(buf, '[');
				for (int i = 0; i < op->params.nvec[sp_param_vec_slot(d)]; i++)
				{
					if (i)
						appendStringInfoString(buf, ", ");
					sp_write_float8(buf, op->params.vec[sp_param_vec_slot(d)][i]);
				}
				appendStringInfoChar(buf, ']');
				break;
			case SP_PARAM_POINTS:
				appendStringInfoChar(buf, '[');
				for (int i = 0; i < op->params.nvec[sp_param_vec_slot(d)]; i++)
				{
					appendStringInfoString(buf, i ? ", [" : "[");
					sp_write_float8(buf, op->params.vec[sp_param_vec_slot(d)][2 * i]);
					appendStringInfoString(buf, ", ");
					sp_write_float8(buf, op->params.vec[sp_param_vec_slot(d)][2 * i + 1]);
					appendStringInfoChar(buf, ']');
				}
				appendStringInfoChar(buf, ']');
				break;
			case SP_PARAM_PORT_TYPES:
				appendStringInfoChar(buf, '[');
				for (int i = 0; i < op->params.nvec[sp_param_vec_slot(d)]; i++)
				{
					if (i)
						appendStringInfoString(buf, ", ");
					escape_json(buf, sp_port_type_name((SpPortType) op->params.vec[sp_param_vec_slot(d)][i]));
				}
				appendStringInfoChar(buf, ']');
				break;
			case SP_PARAM_BOOL:
				memcpy(&ival, field, sizeof(ival));
				appendStringInfoString(buf, ival ? "true" : "false");
				break;
			case SP_PARAM_CHOICE:
				memcpy(&ival, field, sizeof(ival));
				escape_json(buf, d->choices[ival]);
				break;
			case SP_PARAM_INTERVAL:
				memcpy(&i64val, field, sizeof(i64val));
				escape_json(buf, sp_duration_text(i64val));
				break;
		}
	}
	if (op->type == &sp_op_trigger_set)
		write_trigger_set(buf, op->params.proto);
	else if (op->params.proto != NULL)
		write_prototype(buf, op->params.proto);
	appendStringInfoChar(buf, '}');
}

/* {"from": ..., "to": ..., "fromPort": ..., "toPort": ...} */
static void
write_connection(StringInfo buf, const SpConfig *cfg, const SpConnection *conn)
{
	const SpOperator *to = &cfg->ops[conn->to];
	int			nd = to->nin - (to->type->nctl_from ? to->type->nctl_from(&to->params) : 0);

	appendStringInfoString(buf, "{\"from\": ");
	escape_json(buf, cfg->ops[conn->from].id);
	appendStringInfoString(buf, ", \"to\": ");
	escape_json(buf, to->id);
	/* control ports after the data ports, as "c1", ... */
	if (conn->to_port < nd)
		appendStringInfo(buf, ", \"fromPort\": \"o%d\", \"toPort\": \"i%d\"}",
						 conn->from_port + 1, conn->to_port + 1);
	else
		appendStringInfo(buf, ", \"fromPort\": \"o%d\", \"toPort\": \"c%d\"}",
						 conn->from_port + 1, conn->to_port - nd + 1);
}

/* "operators" and "connections", a pipeline's or a prototype's */
static void
write_operators(StringInfo buf, const SpConfig *cfg)
{
	appendStringInfoString(buf, "\"operators\": [");
	for (int i = 0; i < cfg->n_ops; i++)
	{
		if (i)
			appendStringInfoString(buf, ", ");
		write_operator(buf, &cfg->ops[i]);
	}
	appendStringInfoString(buf, "], \"connections\": [");
	for (int c = 0; c < cfg->n_conns; c++)
	{
		if (c)
			appendStringInfoString(buf, ", ");
		write_connection(buf, cfg, &cfg->conns[c]);
	}
	appendStringInfoChar(buf, ']');
}

/* An Input port's connection: {"from": Input, "to": op, ...}, its ports named */
static void
write_input_connection(StringInfo buf, const SpConfig *cfg, int from_port, const SpOperator *to,
					   const char *to_port)
{
	appendStringInfoString(buf, ", {\"from\": ");
	escape_json(buf, cfg->program_input);
	appendStringInfoString(buf, ", \"to\": ");
	escape_json(buf, to->id);
	appendStringInfo(buf, ", \"fromPort\": \"o%d\", \"toPort\": \"%s\"}", from_port + 1, to_port);
}

/*
 * A program with operators outside its Pipeline, as a program: its Input
 * (the data ports and the key's), its operators, an Output of the
 * program's outputs, and the connections of all of them.
 */
static void
write_program(StringInfo buf, const SpConfig *cfg)
{
	appendStringInfoString(buf, "{\"operators\": [{\"type\": \"Input\", \"id\": ");
	escape_json(buf, cfg->program_input);
	appendStringInfoString(buf, ", \"portTypes\": [");
	for (int k = 0, d = 0; k <= cfg->n_in; k++)
	{
		if (k)
			appendStringInfoString(buf, ", ");
		escape_json(buf, sp_port_type_name(k == cfg->program_key_port ? SP_PORT_NUMBER : cfg->in_types[d++]));
	}
	appendStringInfoString(buf, "]}");
	for (int i = 0; i < cfg->n_ops; i++)
	{
		appendStringInfoString(buf, ", ");
		write_operator(buf, &cfg->ops[i]);
	}
	appendStringInfoString(buf, ", {\"type\": \"Output\", \"id\": ");
	escape_json(buf, cfg->program_output);
	appendStringInfoString(buf, ", \"portTypes\": ");
	write_port_types(buf, cfg->out_types, cfg->n_out);
	appendStringInfoString(buf, "}], \"connections\": [");
	/* the key first, then the data ports by operator, then the mesh's */
	for (int i = 0, n = 0; i < cfg->n_ops; i++)
	{
		if (cfg->ops[i].type != &sp_op_program_pipeline)
			continue;
		appendStringInfoString(buf, n++ ? ", {\"from\": " : "{\"from\": ");
		escape_json(buf, cfg->program_input);
		appendStringInfoString(buf, ", \"to\": ");
		escape_json(buf, cfg->ops[i].id);
		appendStringInfo(buf, ", \"fromPort\": \"o%d\", \"toPort\": \"c1\"}", cfg->program_key_port + 1);
	}
	for (int i = 0; i < cfg->n_ops; i++)
	{
		const SpOperator *op = &cfg->ops[i];
		int			nd = op->nin - (op->type->nctl_from ? op->type->nctl_from(&op->params) : 0);

		for (int f = 0; f < op->nin; f++)
		{
			const SpSource *feed = &cfg->feeds[op->first_feed + f];
			int			port;

			if (feed->op != -1 || (op->type == &sp_op_program_pipeline && f == op->nin - 1))
				continue;
			port = feed->port < cfg->program_key_port ? feed->port : feed->port + 1;
			write_input_connection(buf, cfg, port, op,
								   f < nd ? psprintf("i%d", f + 1) : psprintf("c%d", f - nd + 1));
		}
	}
	for (int c = 0; c < cfg->n_conns; c++)
	{
		appendStringInfoString(buf, ", ");
		write_connection(buf, cfg, &cfg->conns[c]);
	}
	for (int k = 0; k < cfg->n_out; k++)
	{
		appendStringInfoString(buf, ", {\"from\": ");
		escape_json(buf, cfg->ops[cfg->out_op[k]].id);
		appendStringInfoString(buf, ", \"to\": ");
		escape_json(buf, cfg->program_output);
		appendStringInfo(buf, ", \"fromPort\": \"o%d\", \"toPort\": \"i%d\"}",
						 cfg->out_port[k] + 1, k + 1);
	}
	appendStringInfoString(buf, "], \"entryOperator\": ");
	escape_json(buf, cfg->program_input);
	appendStringInfoString(buf, ", \"output\": {");
	escape_json(buf, cfg->program_output);
	appendStringInfoString(buf, ": [");
	for (int k = 0; k < cfg->n_out; k++)
		appendStringInfo(buf, "%s\"o%d\"", k ? ", " : "", k + 1);
	appendStringInfoString(buf, "]}}");
}

void
sp_spec_write(StringInfo buf, const SpConfig *cfg)
{
	if (cfg->program)
	{
		write_program(buf, cfg);
		return;
	}
	appendStringInfoString(buf, "{\"type\": \"Pipeline\", \"id\": ");
	escape_json(buf, cfg->id);
	appendStringInfoString(buf, ", \"input_port_types\": ");
	write_port_types(buf, cfg->in_types, cfg->n_in);
	appendStringInfoString(buf, ", \"output_port_types\": ");
	write_port_types(buf, cfg->out_types, cfg->n_out);
	appendStringInfoString(buf, ", ");
	write_operators(buf, cfg);
	appendStringInfoString(buf, ", \"entryOperator\": ");
	escape_json(buf, cfg->ops[cfg->entry].id);
	appendStringInfoString(buf, ", \"outputMappings\": {");
	/*
	 * One member per operator, in the order of its first mapping, holding
	 * its mappings in their order: an operator of one output has one.
	 */
	for (int m = 0; m < cfg->n_out; m++)
	{
		int			op = cfg->out_op[cfg->map_order[m]];
		bool		seen = false;
		bool		first = true;

		for (int e = 0; e < m && !seen; e++)
			seen = cfg->out_op[cfg->map_order[e]] == op;
		if (seen)
			continue;
		if (m)
			appendStringInfoString(buf, ", ");
		escape_json(buf, cfg->ops[op].id);
		appendStringInfoString(buf, ": {");
		for (int e = m; e < cfg->n_out; e++)
		{
			int			port = cfg->map_order[e];

			if (cfg->out_op[port] != op)
				continue;
			appendStringInfo(buf, "%s\"o%d\": \"o%d\"", first ? "" : ", ",
							 cfg->out_port[port] + 1, port + 1);
			first = false;
		}
		appendStringInfoChar(buf, '}');
	}
	appendStringInfoChar(buf, '}');
	/* a segment bytecode, where the original writes it; none is not shown */
	if (cfg->segment_rpn != NULL)
	{
		write_numbers(buf, "segmentBytecode", cfg->segment_code, cfg->n_segment_code);
		write_numbers(buf, "segmentConstants", cfg->segment_constants, cfg->n_segment_constants);
	}
	appendStringInfo(buf, ", \"late\": \"%s\"}", cfg->late_drop ? "drop" : "error");
}
