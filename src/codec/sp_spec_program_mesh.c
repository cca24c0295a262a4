/*
 * sp_spec_program_mesh.c
 *	  The spec reader's programs with operators outside their Pipeline
 *	  (docs/reference.md, "Programs"): the operators before it and after it
 *	  and the Pipeline read as one mesh, the Input's data ports its data
 *	  ports, the key its Pipeline's segment key.
 */
#include "postgres.h"

#include "utils/memutils.h"
#include "sp_json.h"
#include "sp_spec_reader.h"

/* An end of a program connection: the Input, the Output, or an operator. */
#define END_INPUT	(-1)
#define END_OUTPUT	(-2)

static int
mesh_end(SpecReader *r, ProgramReader *p, const SpJsonNode *cj, const char *field)
{
	const char *id = sp_json_string(r->doc, spec_string_member(r, cj, field, true));

	if (strcmp(id, p->id[ROLE_INPUT]) == 0)
		return END_INPUT;
	if (p->id[ROLE_OUTPUT] && strcmp(id, p->id[ROLE_OUTPUT]) == 0)
		return END_OUTPUT;
	return spec_require_op(r, id, field);
}

static inline bool
is_pipe(const SpConfig *cfg, int i)
{
	return i >= 0 && cfg->ops[i].type == &sp_op_program_pipeline;
}

/*
 * Which Input port the key plays: the one wired to every Pipeline's "c1"
 * (the SQL call has one key argument).
 */
static int
mesh_key_port(SpecReader *r, ProgramReader *p, const SpJsonNode *conns)
{
	const SpConfig *cfg = r->cfg;
	int			key = -1;
	int			c = 0;
	int			to;
	int		   *keyed = palloc0(sizeof(int) * cfg->n_ops);	/* 1 + its connection */
	ErrorContextCallback callback;

	callback.callback = spec_connection_context;
	callback.arg = &c;
	callback.previous = error_context_stack;
	error_context_stack = &callback;
	for (const SpJsonNode *cj = sp_json_first(conns); cj; cj = sp_json_next(conns, cj), c++)
	{
		const SpJsonNode *tp,
				   *fp;
		int			from,
					port;
		char		kind;

		if (sp_json_kind(cj) != SPJ_OBJECT)
			spec_error(errmsg("connection must be a JSON object, not %s",
							  sp_json_kind_name(sp_json_kind(cj))));
		spec_check_members(r, cj, spec_connection_fields, OWNER_CONNECTION, NULL);
		tp = spec_string_member(r, cj, "toPort", false);
		to = mesh_end(r, p, cj, "to");
		if (!is_pipe(cfg, to) || tp == NULL || !sp_json_string_eq(r->doc, tp, "c1"))
			continue;
		from = mesh_end(r, p, cj, "from");
		if (from != END_INPUT)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("control port \"c1\" of Pipeline \"%s\" fed by an operator is not supported",
							cfg->ops[to].id),
					 errdetail("The Pipeline's segments are the rows of equal values of the SQL call's key argument, which plays an Input port."),
					 errhint("Wire an Input port to \"c1\", and compute the key in SQL.")));
		fp = spec_string_member(r, cj, "fromPort", false);
		port = spec_program_port(fp ? sp_json_string(r->doc, fp) : "o1", &kind, p->nports[ROLE_INPUT]);
		if (port < 0 || kind != 'o')
			spec_error(errmsg("operator \"%s\" has no output port \"%s\"", p->id[ROLE_INPUT],
							  sp_json_shown(sp_json_string(r->doc, fp))));
		if (keyed[to])
			spec_error(errmsg("port \"c1\" of operator \"%s\" is fed twice", cfg->ops[to].id),
					   errdetail("Connection %d feeds it already.", keyed[to]));
		if (p->types[ROLE_INPUT][port] != SP_PORT_NUMBER)
			spec_error(errmsg("cannot connect %s port \"o%d\" of operator \"%s\" to number port \"c1\" of operator \"%s\"",
							  sp_port_type_name(p->types[ROLE_INPUT][port]), port + 1,
							  p->id[ROLE_INPUT], cfg->ops[to].id));
		if (key >= 0 && port != key)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("Pipelines keyed by two ports of Input \"%s\" are not supported", p->id[ROLE_INPUT]),
					 errdetail("Port \"o%d\" feeds the \"c1\" of Pipeline \"%s\", port \"o%d\" that of another; the SQL call has one key argument.",
							   port + 1, cfg->ops[to].id, key + 1),
					 errhint("Key them by the same port, or write a program per key and call segment_agg once for each.")));
		key = port;
		keyed[to] = c + 1;
	}
	error_context_stack = callback.previous;
	for (int i = 0; i < cfg->n_ops; i++)
		if (is_pipe(cfg, i) && !keyed[i])
			spec_error(errmsg("control port \"c1\" of Pipeline \"%s\" is not connected", cfg->ops[i].id),
					   errdetail("The segment key reaches the Pipeline on \"c1\": wire the Input port the key argument plays to it."));
	return key;
}

/*
 * The program's connections: Input data ports feed operators (the value's
 * elements, in the Input's port order, the key port left out), operators
 * feed operators and the Output; the key port feeds "c1" only.
 */
static void
mesh_connections(SpecReader *r, ProgramReader *p, const SpJsonNode *conns, int key)
{
	SpConfig   *cfg = r->cfg;
	ErrorContextCallback callback;
	int			c = 0;
	int			slot = 0;
	bool	   *input_used = palloc0(sizeof(bool) * p->nports[ROLE_INPUT]);

	cfg->conns = spec_keep_alloc0(r, sizeof(SpConnection) * Max(Min(sp_json_count(conns), r->n_feeds), 1));
	p->output_from = palloc(sizeof(int) * 2 * Max(p->nports[ROLE_OUTPUT], 1));
	for (int k = 0; k < 2 * p->nports[ROLE_OUTPUT]; k++)
		p->output_from[k] = -1;
	callback.callback = spec_connection_context;
	callback.arg = &c;
	callback.previous = error_context_stack;
	error_context_stack = &callback;
	for (const SpJsonNode *cj = sp_json_first(conns); cj; cj = sp_json_next(conns, cj), c++)
	{
		int			from = mesh_end(r, p, cj, "from");
		int			to = mesh_end(r, p, cj, "to");
		const SpJsonNode *fp = spec_string_member(r, cj, "fromPort", false);
		const SpJsonNode *tp = spec_string_member(r, cj, "toPort", false);
		const char *fname = fp ? sp_json_string(r->doc, fp) : "o1";
		const char *tname = tp ? sp_json_string(r->doc, tp) : "i1";
		int			fport,
					tport;
		SpPortType	ftype;
		char		kind;

		if (from == END_OUTPUT || to == END_INPUT || (from == END_INPUT && to == END_OUTPUT))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("a connection from \"%s\" to \"%s\" is not supported",
							from == END_INPUT ? p->id[ROLE_INPUT] : from == END_OUTPUT ?
							p->id[ROLE_OUTPUT] : cfg->ops[from].id,
							to == END_INPUT ? p->id[ROLE_INPUT] : to == END_OUTPUT ?
							p->id[ROLE_OUTPUT] : cfg->ops[to].id),
					 errdetail("The Input feeds operators, and operators feed operators and the Output.")));
		if (is_pipe(cfg, to) && tp && sp_json_string_eq(r->doc, tp, "c1"))
			continue;			/* the key: mesh_key_port */
		if (from >= 0 && to >= 0)
		{
			spec_wire(r, cj, c, slot++, from, to);
			continue;
		}
		if (from == END_INPUT)
		{
			const SpOperator *op = &cfg->ops[to];
			int			nd = spec_op_ndata(op);
			SpSource   *feed;

			fport = spec_program_port(fname, &kind, p->nports[ROLE_INPUT]);
			if (fport < 0 || kind != 'o')
				spec_error(errmsg("operator \"%s\" has no output port \"%s\"", p->id[ROLE_INPUT], sp_json_shown(fname)),
						   errdetail_plural("Operator \"%s\" has %d output port, \"o%d\".",
											"Operator \"%s\" has %d output ports, \"o1\" to \"o%d\".",
											p->nports[ROLE_INPUT], p->id[ROLE_INPUT], p->nports[ROLE_INPUT],
											p->nports[ROLE_INPUT]));
			if (fport == key)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("port \"%s\" of Input \"%s\" feeding operator \"%s\" is not supported",
								fname, p->id[ROLE_INPUT], op->id),
						 errdetail("That port is the key, which the SQL call's key argument plays: it reaches the Pipeline's \"c1\" only."),
						 errhint("Pass the value the operator needs as an element of the value argument too.")));
			tport = tname[0] == 'c' && nd < op->nin ? spec_parse_port(tname, 'c', op->nin - nd) :
				spec_parse_port(tname, 'i', nd);
			if (tport >= 0 && tname[0] == 'c')
				tport += nd;
			if (tport < 0)
				spec_error(errmsg("operator \"%s\" has no input port \"%s\"", op->id, sp_json_shown(tname)));
			ftype = p->types[ROLE_INPUT][fport];
			if (ftype != spec_op_in_type(op, tport) && spec_op_in_type(op, tport) != SP_PORT_ANY)
				spec_error(errmsg("cannot connect %s output of operator \"%s\" to %s input of operator \"%s\"",
								  sp_port_type_name(ftype), p->id[ROLE_INPUT],
								  sp_port_type_name(spec_op_in_type(op, tport)), op->id));
			feed = &cfg->feeds[op->first_feed + tport];
			if (feed->op != -2)
				spec_error(errmsg("input port \"%s\" of operator \"%s\" is fed twice", tname, op->id),
						   errdetail("Connection %d feeds it already.", r->fed_by[op->first_feed + tport] + 1));
			feed->op = -1;
			feed->port = fport < key ? fport : fport - 1;
			r->fed_by[op->first_feed + tport] = c;
			input_used[fport] = true;
			continue;
		}
		/* an operator to the Output */
		{
			const SpOperator *op = &cfg->ops[from];

			fport = spec_parse_port(fname, 'o', op->nout);
			if (fport < 0)
				spec_error(errmsg("operator \"%s\" has no output port \"%s\"", op->id, sp_json_shown(fname)));
			tport = spec_parse_port(tname, 'i', p->nports[ROLE_OUTPUT]);
			if (tport < 0)
				spec_error(errmsg("operator \"%s\" has no input port \"%s\"", p->id[ROLE_OUTPUT], sp_json_shown(tname)),
						   errdetail_plural("Operator \"%s\" has %d input port, \"i%d\".",
											"Operator \"%s\" has %d input ports, \"i1\" to \"i%d\".",
											p->nports[ROLE_OUTPUT], p->id[ROLE_OUTPUT], p->nports[ROLE_OUTPUT],
											p->nports[ROLE_OUTPUT]));
			if (spec_op_out_type(op, fport) != p->types[ROLE_OUTPUT][tport])
				spec_error(errmsg("cannot connect %s output of operator \"%s\" to %s input of operator \"%s\"",
								  sp_port_type_name(spec_op_out_type(op, fport)), op->id,
								  sp_port_type_name(p->types[ROLE_OUTPUT][tport]), p->id[ROLE_OUTPUT]));
			if (p->output_from[2 * tport] >= 0)
				spec_error(errmsg("port \"%s\" of operator \"%s\" is fed twice", tname, p->id[ROLE_OUTPUT]));
			p->output_from[2 * tport] = from;
			p->output_from[2 * tport + 1] = fport;
		}
	}
	error_context_stack = callback.previous;
	cfg->n_conns = slot;
	for (int k = 0; k < p->nports[ROLE_INPUT]; k++)
		if (k != key && !input_used[k])
			spec_error(errmsg("port \"o%d\" of Input \"%s\" is not connected", k + 1, p->id[ROLE_INPUT]));
}

/*
 * Before and after: the operators the Pipelines' data reach them through,
 * and those their outputs reach.  An operator after a Pipeline runs only
 * when the segment closes, on what the Pipelines emit: fed by the Input or
 * an operator before them, it would never have all its inputs at once, and
 * what it gives could not reach a Pipeline, which runs on the rows.
 */
static void
mesh_sides(SpecReader *r, ProgramReader *p)
{
	SpConfig   *cfg = r->cfg;
	char	   *side = palloc0(cfg->n_ops);	/* 'b'efore, 'a'fter, 'p'ipeline */
	int			n_post = 0;

	for (int i = 0; i < cfg->n_ops; i++)
		if (is_pipe(cfg, i))
			side[i] = 'p';
	/* the order is topological: what feeds an operator comes before it */
	for (int k = cfg->n_ops - 1; k >= 0; k--)
	{
		int			i = cfg->order[k];

		for (int c = 0; c < cfg->n_conns && side[i] == 0; c++)
			if (cfg->conns[c].from == i && (side[cfg->conns[c].to] == 'b' || side[cfg->conns[c].to] == 'p'))
				side[i] = 'b';
	}
	for (int k = 0; k < cfg->n_ops; k++)
	{
		int			i = cfg->order[k];

		for (int c = 0; c < cfg->n_conns && side[i] == 0; c++)
			if (cfg->conns[c].to == i && (side[cfg->conns[c].from] == 'a' || side[cfg->conns[c].from] == 'p'))
				side[i] = 'a';
	}
	for (int i = 0; i < cfg->n_ops; i++)
	{
		const SpOperator *op = &cfg->ops[i];

		if (side[i] == 0)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("operator \"%s\" neither before nor after the program's Pipeline is not supported",
							op->id),
					 errdetail("The operators outside a program's Pipeline feed it or are fed by it."),
					 errhint("Compute it in SQL beside the call, or in a program of its own.")));
		if (side[i] == 'a')
			n_post++;
		for (int f = 0; f < op->nin; f++)
		{
			const SpSource *feed = &cfg->feeds[op->first_feed + f];
			char		from = feed->op == -1 ? 'b' : side[feed->op];

			if (side[i] == 'a' && from == 'b')
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("operator \"%s\" after the program's Pipeline fed by \"%s\" before it is not supported",
								op->id, feed->op == -1 ? p->id[ROLE_INPUT] : cfg->ops[feed->op].id),
						 errdetail("An operator after the Pipeline runs when the Pipeline's segment closes, on what it emits; an operator before it runs on every row."),
						 errhint("Feed it from the Pipeline only, or move what it needs into the Pipeline's outputs.")));
			/* a Pipeline's control port is the key's (its feed stands for nothing) */
			if (side[i] != 'a' && (from == 'a' || from == 'p') && !(side[i] == 'p' && f == op->nin - 1))
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 side[i] == 'p' ?
						 errmsg("Pipeline \"%s\" after another Pipeline is not supported", op->id) :
						 errmsg("operator \"%s\" after one Pipeline and before another is not supported", op->id),
						 errdetail("What a Pipeline emits reaches the operators after it when its segment closes; a Pipeline runs on the rows, as the operators before it do."),
						 errhint("Nest one Pipeline among the operators of the other, or write a program per Pipeline.")));
		}
	}
	cfg->n_post = n_post;
	cfg->post_order = spec_keep_alloc0(r, sizeof(int) * Max(n_post, 1));
	n_post = 0;
	for (int k = 0; k < cfg->n_ops; k++)
		if (side[cfg->order[k]] == 'a')
			cfg->post_order[n_post++] = cfg->order[k];
}

/* Whether operator op is a Pipeline or after one: its outputs can be the program's. */
static bool
is_after(const SpConfig *cfg, int op)
{
	if (is_pipe(cfg, op))
		return true;
	for (int k = 0; k < cfg->n_post; k++)
		if (cfg->post_order[k] == op)
			return true;
	return false;
}

/*
 * The program's "output": the Output's ports (each fed by the Pipeline or
 * an operator after it), or those operators' ports directly.
 */
static void
mesh_output(SpecReader *r, ProgramReader *p, const SpJsonNode *doc)
{
	SpConfig   *cfg = r->cfg;
	const SpJsonNode *j = sp_json_get(r->doc, doc, "output");
	int			n = 0,
				max = 0;

	if (j == NULL)
		spec_error(errmsg("\"output\" is required"),
				   errdetail("It names the program's outputs, as in {\"%s\": [\"o1\"]}.",
							 p->id[ROLE_OUTPUT] ? p->id[ROLE_OUTPUT] : p->id[ROLE_PIPELINE]));
	if (sp_json_kind(j) != SPJ_OBJECT || sp_json_first(j) == NULL)
		spec_error(errmsg("\"output\" must be a non-empty JSON object"));
	for (const SpJsonNode *k = sp_json_first(j); k; k = sp_json_next(j, k))
		max += sp_json_kind(sp_json_value(k)) == SPJ_ARRAY ? sp_json_count(sp_json_value(k)) : 0;
	if (max > SP_MAX_PORTS)
		spec_error(errmsg("too many program outputs"),
				   errdetail("\"output\" lists %d ports; at most %d are allowed.", max, SP_MAX_PORTS));
	cfg->out_op = spec_keep_alloc0(r, sizeof(int) * Max(max, 1));
	cfg->out_port = spec_keep_alloc0(r, sizeof(int) * Max(max, 1));
	cfg->out_types = spec_keep_alloc0(r, sizeof(SpPortType) * Max(max, 1));
	cfg->map_order = spec_keep_alloc0(r, sizeof(int) * Max(max, 1));
	for (const SpJsonNode *k = sp_json_first(j); k; k = sp_json_next(j, k))
	{
		const SpJsonNode *list = sp_json_value(k);
		const char *name = sp_json_string(r->doc, k);
		bool		is_output = p->id[ROLE_OUTPUT] && strcmp(name, p->id[ROLE_OUTPUT]) == 0;
		int			op = -1;

		if (strcmp(name, p->id[ROLE_INPUT]) == 0)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("the Input as a program output is not supported"),
					 errdetail("The program's outputs are the Pipeline's or those of operators after it, directly or through the Output.")));
		if (!is_output)
			op = spec_require_op(r, name, "output");
		if (sp_json_kind(list) != SPJ_ARRAY || sp_json_first(list) == NULL)
			spec_error(errmsg("\"output\" of operator \"%s\" must be a non-empty array of port names",
							  sp_json_shown(name)));
		for (const SpJsonNode *e = sp_json_first(list); e; e = sp_json_next(list, e))
		{
			const char *pname;
			int			port,
						from = op;
			int			limit = is_output ? p->nports[ROLE_OUTPUT] : cfg->ops[op].nout;

			if (sp_json_kind(e) != SPJ_STRING)
				spec_error(errmsg("\"output\" of operator \"%s\" must be a non-empty array of port names",
								  sp_json_shown(name)));
			pname = sp_json_string(r->doc, e);
			port = spec_parse_port(pname, 'o', limit);
			if (port < 0)
				spec_error(errmsg("operator \"%s\" has no output port \"%s\"", sp_json_shown(name), sp_json_shown(pname)),
						   errcontext("\"output\" of the program"));
			if (is_output)
			{
				if (p->output_from[2 * port] < 0)
					spec_error(errmsg("input port \"i%d\" of Output \"%s\" is not connected",
									  port + 1, p->id[ROLE_OUTPUT]));
				from = p->output_from[2 * port];
				port = p->output_from[2 * port + 1];
			}
			if (!is_after(cfg, from))
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("output port \"o%d\" of operator \"%s\" before the program's Pipeline as a program output is not supported",
								port + 1, cfg->ops[from].id),
						 errdetail("A program's outputs are emitted when the Pipeline's segment closes: they are the Pipeline's, or those of operators after it.")));
			for (int m = 0; m < n; m++)
				if (cfg->out_op[m] == from && cfg->out_port[m] == port)
					ereport(ERROR,
							(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
							 errmsg("output port \"o%d\" of operator \"%s\" as two program outputs is not supported",
									port + 1, cfg->ops[from].id)));
			cfg->out_op[n] = from;
			cfg->out_port[n] = port;
			cfg->out_types[n] = spec_op_out_type(&cfg->ops[from], port);
			cfg->map_order[n] = n;
			n++;
		}
	}
	cfg->n_out = n;
}

/*
 * The Output's id, for the canonical text, which always has one: a fresh
 * id when the program has none.
 */
static const char *
output_id(SpecReader *r, ProgramReader *p)
{
	const char *id = "output";

	if (p->id[ROLE_OUTPUT])
		return p->id[ROLE_OUTPUT];
	for (int n = 2; spec_find_op(r, id) >= 0 || strcmp(id, p->id[ROLE_INPUT]) == 0; n++)
		id = psprintf("output%d", n);
	return id;
}

/*
 * A program with operators outside its Pipeline (docs/reference.md,
 * "Programs"): one mesh of them and the Pipeline, whose segments are the
 * rows of equal keys; the Input's data ports are the configuration's.
 */
SpConfig *
spec_read_program_mesh(SpecReader *r, ProgramReader *p, const SpJsonNode *doc)
{
	SpConfig   *cfg = spec_keep_alloc0(r, sizeof(SpConfig));
	const SpJsonNode *conns = sp_json_get(r->doc, doc, "connections");
	int			key;
	MemoryContext old;

	r->cfg = cfg;
	cfg->program = true;
	spec_read_operators(r, doc, NULL, true);
	for (int k = 0; k < N_ROLES; k++)
		if (k != ROLE_PIPELINE && p->id[k] && spec_find_op(r, p->id[k]) >= 0)
			spec_error(errmsg("duplicate operator id \"%s\"", sp_json_shown(p->id[k])));
	/* the program's Pipelines: every nested one (its other operators are not) */
	cfg->entry = spec_require_op(r, p->id[ROLE_PIPELINE], "operators");
	cfg->id = cfg->ops[cfg->entry].id;
	for (int i = 0; i < cfg->n_ops; i++)
	{
		SpOperator *op = &cfg->ops[i];

		if (op->params.sub == NULL)
			continue;
		if (op->type != &sp_op_pipeline || op->params.sub->segment_rpn != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("Pipeline \"%s\" with vectors among operators outside it is not supported",
							op->id),
					 errdetail("A program's Pipeline among operators outside it takes and gives numbers and booleans, and is keyed by the SQL call's key argument."),
					 errhint("Move the operators outside it into it, or compose the vectors inside it.")));
		/* a program's Pipeline closes by a flush, which carries nothing */
		if (op->params.sub->carries)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("Pipeline \"%s\" among operators outside it cannot carry values into its segments",
							op->id),
					 errdetail("An operator inside it has \"carry\"; a program's Pipeline starts each segment afresh."),
					 errhint("Write the Pipeline alone, as the spec of the SQL call, to carry values.")));
		op->type = &sp_op_program_pipeline;
		/* late rows: dropped when a Pipeline says so */
		cfg->late_drop |= op->params.sub->late_drop;
	}

	if (conns == NULL)
		spec_error(errmsg("\"connections\" is required"));
	if (sp_json_kind(conns) != SPJ_ARRAY)
		spec_error(errmsg("\"connections\" must be an array, not %s",
						  sp_json_kind_name(sp_json_kind(conns))));
	key = mesh_key_port(r, p, conns);
	if (p->nports[ROLE_INPUT] < 2)
		spec_error(errmsg("Input \"%s\" has no data port", p->id[ROLE_INPUT]),
				   errdetail("Its one port is the key."));
	cfg->program_input = MemoryContextStrdup(r->keep, p->id[ROLE_INPUT]);
	cfg->program_key_port = key;
	cfg->n_in = p->nports[ROLE_INPUT] - 1;
	cfg->in_types = spec_keep_alloc0(r, sizeof(SpPortType) * cfg->n_in);
	for (int k = 0, d = 0; k < p->nports[ROLE_INPUT]; k++)
		if (k != key)
			cfg->in_types[d++] = p->types[ROLE_INPUT][k];
	/* a Pipeline's control port's value is not read (sp_op_program_pipeline) */
	for (int i = 0; i < cfg->n_ops; i++)
		if (is_pipe(cfg, i))
		{
			cfg->feeds[cfg->ops[i].first_feed + cfg->ops[i].nin - 1].op = -1;
			cfg->feeds[cfg->ops[i].first_feed + cfg->ops[i].nin - 1].port = 0;
		}
	mesh_connections(r, p, conns, key);
	spec_check_fed(r, NULL);
	spec_order_operators(r);
	mesh_sides(r, p);
	mesh_output(r, p, doc);
	cfg->program_output = MemoryContextStrdup(r->keep, output_id(r, p));
	old = MemoryContextSwitchTo(r->keep);
	sp_config_vectors(cfg);
	MemoryContextSwitchTo(old);
	if (cfg->vectors)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("vectors among operators outside a program's Pipeline are not supported"),
				 errhint("Move the operators that take or give vectors into the Pipeline.")));
	return cfg;
}
