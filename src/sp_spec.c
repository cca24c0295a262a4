/*
 * sp_spec.c
 *	  The spec reader: JSON in, validated mesh out.
 *
 * All validation happens here, once, when a spec is read; the engine trusts
 * what it is given.  Every message names the field, operator or port at
 * fault.
 */
#include "postgres.h"

#include <math.h>

#include "sp_json.h"
#include "sp_spec.h"

#define SPEC_ERROR(...) \
	ereport(ERROR, \
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE), \
			 errmsg(__VA_ARGS__)))

static const char *const pipeline_fields[] = {
	"type", "id", "input_port_types", "output_port_types", "operators",
	"connections", "entryOperator", "outputMappings", "late", NULL
};

static bool
in_list(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(s, *list) == 0)
			return true;
	return false;
}

const char *
sp_port_type_name(SpPortType t)
{
	return t == SP_PORT_BOOLEAN ? "boolean" : "number";
}

/* ---- port lists and port names ---- */

static int
read_port_types(const SpJson *j, const char *field, SpPortType **out)
{
	if (j->kind != SPJ_ARRAY)
		SPEC_ERROR("\"%s\" must be an array of port types", field);
	if (j->n == 0)
		SPEC_ERROR("\"%s\" must not be empty", field);
	if (j->n > SP_MAX_PORTS)
		SPEC_ERROR("\"%s\" has %d ports; at most %d are allowed",
				   field, j->n, SP_MAX_PORTS);
	*out = palloc(sizeof(SpPortType) * j->n);
	for (int i = 0; i < j->n; i++)
	{
		const SpJson *e = j->items[i];

		if (e->kind != SPJ_STRING)
			SPEC_ERROR("\"%s\" element %d must be a string", field, i + 1);
		if (strcmp(e->str, "number") == 0)
			(*out)[i] = SP_PORT_NUMBER;
		else if (strcmp(e->str, "boolean") == 0)
			(*out)[i] = SP_PORT_BOOLEAN;
		else if (strcmp(e->str, "vector_number") == 0 ||
				 strcmp(e->str, "vector_boolean") == 0)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("\"%s\" element %d: port type \"%s\" is not supported",
							field, i + 1, e->str),
					 errhint("Use \"number\" or \"boolean\".")));
		else
			SPEC_ERROR("\"%s\" element %d: unknown port type \"%s\"",
					   field, i + 1, e->str);
	}
	return j->n;
}

/*
 * Parse a port name "<prefix>N", N in 1..limit; returns N - 1, or -1 when the
 * name is malformed or out of range.
 */
static int
parse_port(const char *s, char prefix, int limit)
{
	int			n = 0;

	if (s[0] != prefix || s[1] < '1' || s[1] > '9')
		return -1;
	for (s++; *s; s++)
	{
		if (*s < '0' || *s > '9')
			return -1;
		n = n * 10 + (*s - '0');
		if (n > limit)
			return -1;
	}
	return n - 1;
}

static const char *
string_member(const SpJson *obj, const char *key, const char *ctx, bool required)
{
	const SpJson *j = sp_json_get(obj, key);

	if (j == NULL)
	{
		if (required)
			SPEC_ERROR("%s: \"%s\" is required", ctx, key);
		return NULL;
	}
	if (j->kind != SPJ_STRING)
		SPEC_ERROR("%s: \"%s\" must be a string, not %s",
				   ctx, key, sp_json_kind_name(j->kind));
	return j->str;
}

/* ---- operators ---- */

static void
read_param(SpOperator *op, const SpParamDef *d, const SpJson *j)
{
	char	   *field = (char *) &op->params + d->offset;
	int32		ival;

	switch (d->kind)
	{
		case SP_PARAM_INT:
			if (j->kind != SPJ_NUMBER || j->num != floor(j->num) ||
				j->num < d->min || j->num > d->max)
				SPEC_ERROR("operator \"%s\": \"%s\" must be an integer between %.0f and %.0f",
						   op->id, d->name, d->min, d->max);
			ival = (int32) j->num;
			memcpy(field, &ival, sizeof(ival));
			break;
		case SP_PARAM_FLOAT:
			if (j->kind != SPJ_NUMBER)
				SPEC_ERROR("operator \"%s\": \"%s\" must be a number",
						   op->id, d->name);
			memcpy(field, &j->num, sizeof(double));
			break;
		case SP_PARAM_VECTOR:
			{
				double	   *v;

				if (j->kind != SPJ_ARRAY || j->n < d->min || j->n > d->max)
					SPEC_ERROR("operator \"%s\": \"%s\" must be an array of %.0f to %.0f numbers",
							   op->id, d->name, d->min, d->max);
				v = palloc(sizeof(double) * Max(j->n, 1));
				for (int i = 0; i < j->n; i++)
				{
					if (j->items[i]->kind != SPJ_NUMBER)
						SPEC_ERROR("operator \"%s\": \"%s\" element %d must be a number",
								   op->id, d->name, i + 1);
					v[i] = j->items[i]->num;
				}
				op->params.vec[sp_param_vec_slot(d)] = v;
				op->params.nvec[sp_param_vec_slot(d)] = j->n;
				break;
			}
		case SP_PARAM_CHOICE:
			{
				StringInfoData words;

				for (ival = 0; j->kind == SPJ_STRING && d->choices[ival]; ival++)
					if (strcmp(d->choices[ival], j->str) == 0)
					{
						memcpy(field, &ival, sizeof(ival));
						return;
					}
				initStringInfo(&words);
				for (int k = 0; d->choices[k]; k++)
					appendStringInfo(&words, "%s\"%s\"", k ? ", " : "", d->choices[k]);
				SPEC_ERROR("operator \"%s\": \"%s\" must be one of %s",
						   op->id, d->name, words.data);
			}
	}
}

static void
read_operator(SpOperator *op, const SpJson *j, int index)
{
	const SpJson *idj;
	const char *type;
	const char *msg;

	if (j->kind != SPJ_OBJECT)
		SPEC_ERROR("\"operators\" element %d must be an object", index + 1);
	idj = sp_json_get(j, "id");
	if (idj != NULL && (idj->kind != SPJ_STRING || idj->str[0] == '\0'))
		SPEC_ERROR("\"operators\" element %d: \"id\" must be a non-empty string",
				   index + 1);
	op->id = idj ? pstrdup(idj->str) : psprintf("op%d", index + 1);
	type = string_member(j, "type", psprintf("operator \"%s\"", op->id), true);
	op->type = sp_find_op_type(type);
	if (op->type == NULL)
		SPEC_ERROR("operator \"%s\": unknown operator type \"%s\"", op->id, type);

	for (const SpParamDef *d = op->type->params; d->name; d++)
	{
		const SpJson *pj = sp_json_get(j, d->name);

		if (pj != NULL)
			read_param(op, d, pj);
		else if (d->required)
			SPEC_ERROR("operator \"%s\": parameter \"%s\" is required",
					   op->id, d->name);
		else if (d->kind == SP_PARAM_INT || d->kind == SP_PARAM_CHOICE)
		{
			int32		v = (int32) d->dflt;

			memcpy((char *) &op->params + d->offset, &v, sizeof(v));
		}
		else if (d->kind == SP_PARAM_FLOAT)
			memcpy((char *) &op->params + d->offset, &d->dflt, sizeof(double));
	}
	for (int i = 0; i < j->n; i++)
	{
		bool		known = strcmp(j->keys[i], "type") == 0 ||
			strcmp(j->keys[i], "id") == 0;

		for (const SpParamDef *d = op->type->params; !known && d->name; d++)
			known = strcmp(j->keys[i], d->name) == 0;
		if (!known)
			SPEC_ERROR("operator \"%s\": unknown parameter \"%s\" for %s",
					   op->id, j->keys[i], op->type->name);
	}
	if (op->type->check_params &&
		(msg = op->type->check_params(&op->params)) != NULL)
		SPEC_ERROR("operator \"%s\": %s", op->id, msg);
	op->nin = op->type->nin_from ? op->type->nin_from(&op->params) : op->type->nin;
}

static int
find_op(const SpConfig *cfg, const char *id)
{
	for (int i = 0; i < cfg->n_ops; i++)
		if (strcmp(cfg->ops[i].id, id) == 0)
			return i;
	return -1;
}

static int
require_op(const SpConfig *cfg, const char *id, const char *field)
{
	int			i = find_op(cfg, id);

	if (i < 0)
		SPEC_ERROR("%s names unknown operator \"%s\"", field, id);
	return i;
}

/* ---- wiring ---- */

static void
read_connections(SpConfig *cfg, const SpJson *j)
{
	if (j->kind != SPJ_ARRAY)
		SPEC_ERROR("\"connections\" must be an array");
	cfg->n_conns = j->n;
	cfg->conns = palloc0(sizeof(SpConnection) * Max(j->n, 1));
	for (int c = 0; c < j->n; c++)
	{
		const SpJson *cj = j->items[c];
		char	   *ctx = psprintf("connection %d", c + 1);
		const char *fp,
				   *tp;
		SpConnection *conn = &cfg->conns[c];
		const SpOperator *from,
				   *to;
		SpSource   *feed;

		if (cj->kind != SPJ_OBJECT)
			SPEC_ERROR("%s must be an object", ctx);
		for (int k = 0; k < cj->n; k++)
			if (!in_list(cj->keys[k], (const char *const[]) {"from", "to", "fromPort", "toPort", NULL}))
				SPEC_ERROR("%s: unknown field \"%s\"", ctx, cj->keys[k]);
		conn->from = require_op(cfg, string_member(cj, "from", ctx, true),
								psprintf("%s: \"from\"", ctx));
		conn->to = require_op(cfg, string_member(cj, "to", ctx, true),
							  psprintf("%s: \"to\"", ctx));
		from = &cfg->ops[conn->from];
		to = &cfg->ops[conn->to];
		fp = string_member(cj, "fromPort", ctx, false);
		tp = string_member(cj, "toPort", ctx, false);
		if (fp && parse_port(fp, 'o', 1) != 0)
			SPEC_ERROR("%s: operator \"%s\" has no output port \"%s\"",
					   ctx, from->id, fp);
		conn->to_port = tp ? parse_port(tp, 'i', to->nin) : 0;
		if (conn->to_port < 0)
			SPEC_ERROR("%s: operator \"%s\" has no input port \"%s\"",
					   ctx, to->id, tp);
		if (from->type->out_type != to->type->in_type)
			SPEC_ERROR("%s: cannot connect %s output of operator \"%s\" to %s input of operator \"%s\"",
					   ctx, sp_port_type_name(from->type->out_type), from->id,
					   sp_port_type_name(to->type->in_type), to->id);
		feed = &cfg->feeds[to->first_feed + conn->to_port];
		if (feed->op != -2)
			SPEC_ERROR("%s: input port i%d of operator \"%s\" is already fed",
					   ctx, conn->to_port + 1, to->id);
		feed->op = conn->from;
		feed->port = 0;
		cfg->ops[conn->from].feeds_ops = true;
	}
}

static void
read_output_mappings(SpConfig *cfg, const SpJson *j)
{
	int			n = 0;

	if (j->kind != SPJ_OBJECT)
		SPEC_ERROR("\"outputMappings\" must be an object");
	for (int m = 0; m < j->n; m++)
	{
		char	   *ctx = psprintf("\"outputMappings\" of operator \"%s\"", j->keys[m]);
		int			op = require_op(cfg, j->keys[m], "\"outputMappings\"");
		const SpJson *pm = j->items[m];

		if (pm->kind != SPJ_OBJECT || pm->n == 0)
			SPEC_ERROR("%s must be a non-empty object of port names", ctx);
		for (int k = 0; k < pm->n; k++)
		{
			const SpOpType *t = cfg->ops[op].type;
			int			port;

			if (parse_port(pm->keys[k], 'o', 1) != 0)
				SPEC_ERROR("%s: operator has no output port \"%s\"", ctx, pm->keys[k]);
			if (pm->items[k]->kind != SPJ_STRING)
				SPEC_ERROR("%s: pipeline output port must be a string such as \"o1\"", ctx);
			port = parse_port(pm->items[k]->str, 'o', cfg->n_out);
			if (port < 0)
				SPEC_ERROR("%s: pipeline output port \"%s\" does not exist (the pipeline has %d output port%s)",
						   ctx, pm->items[k]->str, cfg->n_out, cfg->n_out == 1 ? "" : "s");
			if (cfg->out_op[port] >= 0)
				SPEC_ERROR("%s: pipeline output port \"o%d\" is already mapped",
						   ctx, port + 1);
			if (t->out_type != cfg->out_types[port])
				SPEC_ERROR("%s: cannot map a %s output to %s pipeline port \"o%d\"",
						   ctx, sp_port_type_name(t->out_type),
						   sp_port_type_name(cfg->out_types[port]), port + 1);
			cfg->out_op[port] = op;
			cfg->map_order[n++] = port;
		}
	}
	for (int p = 0; p < cfg->n_out; p++)
		if (cfg->out_op[p] < 0)
			SPEC_ERROR("pipeline output port \"o%d\" has no entry in \"outputMappings\"",
					   p + 1);
}

/* Kahn's algorithm; what is left over lies on a cycle. */
static void
order_operators(SpConfig *cfg)
{
	int		   *indeg = palloc0(sizeof(int) * cfg->n_ops);
	int			head = 0,
				tail = 0;

	cfg->order = palloc(sizeof(int) * cfg->n_ops);
	for (int c = 0; c < cfg->n_conns; c++)
		indeg[cfg->conns[c].to]++;
	for (int i = 0; i < cfg->n_ops; i++)
		if (indeg[i] == 0)
			cfg->order[tail++] = i;
	while (head < tail)
	{
		int			i = cfg->order[head++];

		for (int c = 0; c < cfg->n_conns; c++)
			if (cfg->conns[c].from == i && --indeg[cfg->conns[c].to] == 0)
				cfg->order[tail++] = cfg->conns[c].to;
	}
	if (tail < cfg->n_ops)
		for (int i = 0; i < cfg->n_ops; i++)
			if (indeg[i] > 0)
				SPEC_ERROR("\"connections\" form a cycle through operator \"%s\"",
						   cfg->ops[i].id);
}

/* ---- the whole spec ---- */

/* The operators, laid out: data ports in feeds[], states in one block. */
static void
read_operators(SpConfig *cfg, const SpJson *pipe, const SpJson *single_op)
{
	const SpJson *ops_json = sp_json_get(pipe, "operators");
	int			nfeeds = 0;

	if (single_op == NULL)
	{
		if (ops_json == NULL)
			SPEC_ERROR("pipeline spec: \"operators\" is required");
		if (ops_json->kind != SPJ_ARRAY || ops_json->n == 0)
			SPEC_ERROR("\"operators\" must be a non-empty array");
		if (ops_json->n > SP_MAX_OPERATORS)
			SPEC_ERROR("\"operators\" has %d operators; at most %d are allowed",
					   ops_json->n, SP_MAX_OPERATORS);
	}
	cfg->n_ops = single_op ? 1 : ops_json->n;
	cfg->ops = palloc0(sizeof(SpOperator) * cfg->n_ops);
	for (int i = 0; i < cfg->n_ops; i++)
	{
		SpOperator *op = &cfg->ops[i];

		read_operator(op, single_op ? single_op : ops_json->items[i], i);
		for (int k = 0; k < i; k++)
			if (strcmp(cfg->ops[k].id, op->id) == 0)
				SPEC_ERROR("duplicate operator id \"%s\"", op->id);
		op->first_feed = nfeeds;
		nfeeds += op->nin;
		cfg->max_nin = Max(cfg->max_nin, op->nin);
	}
	/* the total state is known now: refuse a pipeline too large at once */
	sp_config_layout(cfg);
	cfg->feeds = palloc(sizeof(SpSource) * Max(nfeeds, 1));
	for (int f = 0; f < nfeeds; f++)
		cfg->feeds[f].op = -2;	/* not fed yet */
}

/*
 * The pipeline's ports, by default the entry operator's data ports and one
 * output; the data ports feed the entry operator's, in order.
 */
static void
read_ports(SpConfig *cfg, const SpJson *pipe)
{
	const SpOperator *entry_op = &cfg->ops[cfg->entry];
	const SpJson *j;

	if ((j = sp_json_get(pipe, "input_port_types")) != NULL)
		cfg->n_in = read_port_types(j, "input_port_types", &cfg->in_types);
	else
	{
		cfg->n_in = entry_op->nin;
		cfg->in_types = palloc(sizeof(SpPortType) * cfg->n_in);
		for (int i = 0; i < cfg->n_in; i++)
			cfg->in_types[i] = entry_op->type->in_type;
	}
	if ((j = sp_json_get(pipe, "output_port_types")) != NULL)
		cfg->n_out = read_port_types(j, "output_port_types", &cfg->out_types);
	else
	{
		cfg->n_out = 1;
		cfg->out_types = palloc(sizeof(SpPortType));
		cfg->out_types[0] = cfg->n_ops == 1 ? entry_op->type->out_type : SP_PORT_NUMBER;
	}

	if (entry_op->nin < cfg->n_in)
		SPEC_ERROR("entry operator \"%s\" has %d data port%s, fewer than the pipeline's %d",
				   entry_op->id, entry_op->nin, entry_op->nin == 1 ? "" : "s",
				   cfg->n_in);
	for (int i = 0; i < cfg->n_in; i++)
	{
		if (cfg->in_types[i] != entry_op->type->in_type)
			SPEC_ERROR("pipeline input port %d is %s but entry operator \"%s\" takes %s",
					   i + 1, sp_port_type_name(cfg->in_types[i]), entry_op->id,
					   sp_port_type_name(entry_op->type->in_type));
		cfg->feeds[entry_op->first_feed + i].op = -1;
		cfg->feeds[entry_op->first_feed + i].port = i;
	}
}

/* Output mappings, or the default o1 -> o1 of a one-operator pipeline. */
static void
read_outputs(SpConfig *cfg, const SpJson *pipe)
{
	const SpJson *j = sp_json_get(pipe, "outputMappings");

	cfg->out_op = palloc(sizeof(int) * cfg->n_out);
	cfg->map_order = palloc(sizeof(int) * cfg->n_out);
	for (int p = 0; p < cfg->n_out; p++)
		cfg->out_op[p] = -1;
	if (j)
		read_output_mappings(cfg, j);
	else if (cfg->n_ops == 1 && cfg->n_out == 1)
	{
		if (cfg->ops[0].type->out_type != cfg->out_types[0])
			SPEC_ERROR("operator \"%s\" has a %s output but pipeline output port \"o1\" is %s",
					   cfg->ops[0].id, sp_port_type_name(cfg->ops[0].type->out_type),
					   sp_port_type_name(cfg->out_types[0]));
		cfg->out_op[0] = 0;
		cfg->map_order[0] = 0;
	}
	else
		SPEC_ERROR("pipeline spec: \"outputMappings\" is required unless there is one operator and one output port");
}

static SpConfig *
spec_from_json(const SpJson *doc)
{
	SpConfig   *cfg = palloc0(sizeof(SpConfig));
	const SpJson *pipe = doc;	/* the pipeline's members; NULL for shorthand */
	const SpJson *single_op = NULL;
	const SpJson *j;
	const char *type;
	const char *entry;

	if (doc->kind != SPJ_OBJECT)
		SPEC_ERROR("a pipeline spec must be a JSON object, not %s",
				   sp_json_kind_name(doc->kind));
	/* "type" may be left out of a full pipeline spec, never of an operator */
	type = string_member(doc, "type", "pipeline spec",
						 sp_json_get(doc, "operators") == NULL);
	if (type != NULL && strcmp(type, "Pipeline") != 0)
	{
		single_op = doc;		/* shorthand: one operator object */
		pipe = NULL;			/* sp_json_get(NULL, ...) finds nothing */
	}
	else
		for (int k = 0; k < doc->n; k++)
			if (!in_list(doc->keys[k], pipeline_fields))
				SPEC_ERROR("pipeline spec: unknown field \"%s\"", doc->keys[k]);

	read_operators(cfg, pipe, single_op);

	j = sp_json_get(pipe, "id");
	if (j && (j->kind != SPJ_STRING || j->str[0] == '\0'))
		SPEC_ERROR("pipeline spec: \"id\" must be a non-empty string");
	cfg->id = pstrdup(j ? j->str : "pipeline");
	j = sp_json_get(pipe, "late");
	if (j && (j->kind != SPJ_STRING ||
			  (strcmp(j->str, "error") != 0 && strcmp(j->str, "drop") != 0)))
		SPEC_ERROR("pipeline spec: \"late\" must be \"error\" or \"drop\"");
	cfg->late_drop = j && strcmp(j->str, "drop") == 0;

	entry = string_member(pipe, "entryOperator", "pipeline spec", false);
	if (entry == NULL && cfg->n_ops > 1)
		SPEC_ERROR("pipeline spec: \"entryOperator\" is required when there is more than one operator");
	cfg->entry = entry ? require_op(cfg, entry, "\"entryOperator\"") : 0;

	read_ports(cfg, pipe);

	if ((j = sp_json_get(pipe, "connections")) != NULL)
		read_connections(cfg, j);
	else
		cfg->conns = palloc0(sizeof(SpConnection));
	for (int i = 0; i < cfg->n_ops; i++)
		for (int p = 0; p < cfg->ops[i].nin; p++)
			if (cfg->feeds[cfg->ops[i].first_feed + p].op == -2)
				SPEC_ERROR("input port i%d of operator \"%s\" is not connected",
						   p + 1, cfg->ops[i].id);
	order_operators(cfg);

	read_outputs(cfg, pipe);
	return cfg;
}

SpConfig *
sp_spec_read(const char *text)
{
	return spec_from_json(sp_json_parse(text, "pipeline"));
}
