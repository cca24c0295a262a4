/*
 * sp_spec_program.c
 *	  The spec reader's programs: the original's form, an Input, one
 *	  Pipeline and an Output, read as the configuration of that Pipeline;
 *	  with operators outside the Pipeline, sp_spec_program_mesh.c reads it.
 */
#include "postgres.h"

#include "utils/memutils.h"
#include "sp_json.h"
#include "sp_spec_reader.h"

static const char *const program_fields[] = {
	"operators", "connections", "entryOperator", "output",
	"title", "description", "apiVersion", NULL
};
static const char *const port_operator_fields[] = {"type", "id", "portTypes", NULL};

const char *const spec_role_names[] = {"Input", "Pipeline", "Output"};

static void
program_place_context(void *arg)
{
	errcontext("%s", (const char *) arg);
}

/* Which of the program's operators id names; refused when none. */
static ProgramRole
program_op(SpecReader *r, ProgramReader *p, const char *id, const char *field)
{
	Suggestion s;

	for (int k = 0; k < N_ROLES; k++)
		if (p->id[k] && strcmp(p->id[k], id) == 0)
			return (ProgramRole) k;
	spec_suggest_init(&s, id);
	for (int k = 0; k < N_ROLES; k++)
		if (p->id[k])
			spec_suggest_consider(&s, p->id[k]);
	spec_error(errmsg("operator \"%s\" named in \"%s\" does not exist", sp_json_shown(id), field),
			   spec_errhint_suggestion(&s, NULL));
	pg_unreachable();
}

/* An Input's or Output's "portTypes". */
static void
read_port_operator(SpecReader *r, ProgramReader *p, ProgramRole role, const SpJsonNode *j)
{
	const SpJsonNode *pt;

	spec_check_members(r, j, port_operator_fields, OWNER_PORT_OPERATOR, NULL);
	pt = sp_json_get(r->doc, j, "portTypes");
	if (pt == NULL)
		spec_error(errmsg("parameter \"portTypes\" is required"));
	p->nports[role] = spec_read_port_types(r, pt, "portTypes", &p->types[role]);
}

static void
read_program_operators(SpecReader *r, ProgramReader *p, const SpJsonNode *doc)
{
	const SpJsonNode *ops = sp_json_get(r->doc, doc, "operators");
	int			i = 0;

	if (ops == NULL)
		spec_error(errmsg("\"operators\" is required"));
	if (sp_json_kind(ops) != SPJ_ARRAY || sp_json_first(ops) == NULL)
		spec_error(errmsg("\"operators\" must be a non-empty array"));
	for (const SpJsonNode *oj = sp_json_first(ops); oj; oj = sp_json_next(ops, oj), i++)
	{
		OperatorPlace place = {i, NULL, NULL};
		ErrorContextCallback callback;
		const SpJsonNode *idj;
		char	   *type;
		int			role = -1;

		callback.callback = spec_operator_context;
		callback.arg = &place;
		callback.previous = error_context_stack;
		error_context_stack = &callback;
		if (sp_json_kind(oj) != SPJ_OBJECT)
			spec_error(errmsg("operator must be a JSON object, not %s",
							  sp_json_kind_name(sp_json_kind(oj))));
		idj = spec_string_member(r, oj, "id", true);
		if (sp_json_string_eq(r->doc, idj, "") ||
			sp_json_string_length(r->doc, idj) > SPEC_MAX_ID_LEN)
			spec_error(errmsg("\"id\" must be a non-empty string of at most %d bytes",
							  SPEC_MAX_ID_LEN));
		place.id = sp_json_string(r->doc, idj);
		type = sp_json_string(r->doc, spec_string_member(r, oj, "type", true));
		for (int k = 0; k < N_ROLES; k++)
			if (strcmp(type, spec_role_names[k]) == 0)
				role = k;
		if (role < 0)
		{
			if (sp_find_op_type(type) == NULL)
			{
				Suggestion s;
				const SpOpType *t;

				spec_suggest_init(&s, type);
				for (int k = 0; k < N_ROLES; k++)
					spec_suggest_consider(&s, spec_role_names[k]);
				for (int k = 0; (t = sp_op_type_at(k)) != NULL; k++)
					spec_suggest_consider(&s, t->name);
				spec_error(errmsg("unrecognized operator type \"%s\"", sp_json_shown(type)),
						   spec_errhint_suggestion(&s, "The operator types are listed under \"Operators\" in docs/reference.md."));
			}
			/* read with the mesh (read_program_mesh) */
			p->n_outside++;
			error_context_stack = callback.previous;
			continue;
		}
		for (int k = 0; k < N_ROLES; k++)
			if (p->id[k] && strcmp(p->id[k], place.id) == 0)
				spec_error(errmsg("duplicate operator id \"%s\"", sp_json_shown(place.id)));
		/* more Pipelines: the mesh's (spec_read_program_mesh) */
		if (role == ROLE_PIPELINE && p->node[role] != NULL)
		{
			p->n_outside++;
			error_context_stack = callback.previous;
			continue;
		}
		if (p->node[role] != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("a program with more than one %s is not supported", spec_role_names[role]),
					 errdetail("Operator \"%s\" is its %s already.", p->id[role], spec_role_names[role])));
		p->node[role] = oj;
		p->id[role] = place.id;
		if (role != ROLE_PIPELINE)
			read_port_operator(r, p, role, oj);
		error_context_stack = callback.previous;
	}
	if (p->node[ROLE_INPUT] == NULL)
		spec_error(errmsg("program has no Input operator"),
				   errdetail("A program is an Input, one Pipeline and an Output."));
	if (p->node[ROLE_PIPELINE] == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a program without a Pipeline is not supported"),
				 errdetail("A program is an Input, one Pipeline and an Output: the Pipeline's segments are the rows of equal keys."),
				 errhint("Write the operators as a spec, {\"type\": \"Pipeline\", \"operators\": [...]}.")));
}

/* The Pipeline itself, read as a spec. */
static void
read_program_pipeline(SpecReader *r, ProgramReader *p)
{
	ErrorContextCallback callback;

	callback.callback = program_place_context;
	callback.arg = psprintf("Pipeline \"%s\" of the program", p->id[ROLE_PIPELINE]);
	callback.previous = error_context_stack;
	error_context_stack = &callback;
	spec_refuse_top_level_bytecode(spec_read_pipeline(r, p->node[ROLE_PIPELINE]));
	error_context_stack = callback.previous;
}

/*
 * A program port name: "o", "i" or "c" then N, N in 1..limit; returns N - 1
 * and sets *kind, or -1.
 */
int
spec_program_port(const char *s, char *kind, int limit)
{
	*kind = s[0];
	if (s[0] != 'o' && s[0] != 'i' && s[0] != 'c')
		return -1;
	return spec_parse_port(s, s[0], limit);
}

static void
read_program_connections(SpecReader *r, ProgramReader *p, const SpJsonNode *doc)
{
	const SpConfig *cfg = r->cfg;
	const SpJsonNode *j = sp_json_get(r->doc, doc, "connections");
	ErrorContextCallback callback;
	int			c = 0;
	int		   *pipe_fed;		/* per Pipeline data port, then c1: feeding
								 * Input port, -1 none */
	int		   *out_fed;

	p->input_to = palloc(sizeof(int) * p->nports[ROLE_INPUT]);
	for (int k = 0; k < p->nports[ROLE_INPUT]; k++)
		p->input_to[k] = -1;
	p->output_from = palloc(sizeof(int) * Max(p->nports[ROLE_OUTPUT], 1));
	for (int k = 0; k < p->nports[ROLE_OUTPUT]; k++)
		p->output_from[k] = -1;
	pipe_fed = palloc(sizeof(int) * (cfg->n_in + 1));
	for (int k = 0; k <= cfg->n_in; k++)
		pipe_fed[k] = -1;
	out_fed = p->output_from;

	if (j == NULL)
		spec_error(errmsg("\"connections\" is required"),
				   errdetail("A program's connections wire its Input to the Pipeline and the Pipeline to its Output."));
	if (sp_json_kind(j) != SPJ_ARRAY)
		spec_error(errmsg("\"connections\" must be an array, not %s",
						  sp_json_kind_name(sp_json_kind(j))));
	callback.callback = spec_connection_context;
	callback.arg = &c;
	callback.previous = error_context_stack;
	error_context_stack = &callback;
	for (const SpJsonNode *cj = sp_json_first(j); cj; cj = sp_json_next(j, cj), c++)
	{
		const SpJsonNode *fp,
				   *tp;
		ProgramRole from,
					to;
		const char *fname,
				   *tname;
		char		fkind,
					tkind;
		int			fport,
					tport;
		SpPortType	ftype,
					ttype;

		if (sp_json_kind(cj) != SPJ_OBJECT)
			spec_error(errmsg("connection must be a JSON object, not %s",
							  sp_json_kind_name(sp_json_kind(cj))));
		spec_check_members(r, cj, spec_connection_fields, OWNER_CONNECTION, NULL);
		from = program_op(r, p, sp_json_string(r->doc, spec_string_member(r, cj, "from", true)), "from");
		to = program_op(r, p, sp_json_string(r->doc, spec_string_member(r, cj, "to", true)), "to");
		if (!((from == ROLE_INPUT && to == ROLE_PIPELINE) ||
			  (from == ROLE_PIPELINE && to == ROLE_OUTPUT)))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("a connection from %s \"%s\" to %s \"%s\" is not supported",
							spec_role_names[from], p->id[from], spec_role_names[to], p->id[to]),
					 errdetail("A program's connections go from its Input to its Pipeline, and from its Pipeline to its Output.")));
		fp = spec_string_member(r, cj, "fromPort", false);
		tp = spec_string_member(r, cj, "toPort", false);
		fname = fp ? sp_json_string(r->doc, fp) : "o1";
		tname = tp ? sp_json_string(r->doc, tp) : "i1";
		fport = spec_program_port(fname, &fkind, from == ROLE_INPUT ? p->nports[ROLE_INPUT] : cfg->n_out);
		if (fport < 0 || fkind != 'o')
			spec_error(errmsg("operator \"%s\" has no output port \"%s\"", p->id[from], sp_json_shown(fname)),
					   errdetail_plural("Operator \"%s\" has %d output port, \"o%d\".",
										"Operator \"%s\" has %d output ports, \"o1\" to \"o%d\".",
										from == ROLE_INPUT ? p->nports[ROLE_INPUT] : cfg->n_out,
										p->id[from], from == ROLE_INPUT ? p->nports[ROLE_INPUT] : cfg->n_out,
										from == ROLE_INPUT ? p->nports[ROLE_INPUT] : cfg->n_out));
		tport = spec_program_port(tname, &tkind, to == ROLE_PIPELINE ? (tname[0] == 'c' ? 1 : cfg->n_in) : p->nports[ROLE_OUTPUT]);
		if (tport < 0 || tkind == 'o' || (tkind == 'c' && to != ROLE_PIPELINE))
			spec_error(errmsg("operator \"%s\" has no input port \"%s\"", p->id[to], sp_json_shown(tname)),
					   to == ROLE_PIPELINE ?
					   errdetail_plural("Pipeline \"%s\" has %d data port, \"i%d\", and its control port \"c1\".",
										"Pipeline \"%s\" has %d data ports, \"i1\" to \"i%d\", and its control port \"c1\".",
										cfg->n_in, p->id[to], cfg->n_in, cfg->n_in) :
					   errdetail_plural("Operator \"%s\" has %d input port, \"i%d\".",
										"Operator \"%s\" has %d input ports, \"i1\" to \"i%d\".",
										p->nports[ROLE_OUTPUT], p->id[to], p->nports[ROLE_OUTPUT],
										p->nports[ROLE_OUTPUT]));
		ftype = from == ROLE_INPUT ? p->types[ROLE_INPUT][fport] : cfg->out_types[fport];
		ttype = to == ROLE_OUTPUT ? p->types[ROLE_OUTPUT][tport] :
			tkind == 'c' ? SP_PORT_NUMBER : cfg->in_types[tport];
		if (ftype != ttype)
			spec_error(errmsg("cannot connect %s port \"%s\" of operator \"%s\" to %s port \"%s\" of operator \"%s\"",
							  sp_port_type_name(ftype), fname, p->id[from],
							  sp_port_type_name(ttype), tname, p->id[to]));
		if (from == ROLE_INPUT)
		{
			int			slot = tkind == 'c' ? cfg->n_in : tport;

			if (pipe_fed[slot] >= 0)
				spec_error(errmsg("port \"%s\" of operator \"%s\" is fed twice", tname, p->id[to]));
			if (p->input_to[fport] >= 0)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("port \"%s\" of Input \"%s\" feeding two ports is not supported",
								fname, p->id[from]),
						 errdetail("Each Input port plays one SQL argument: the key feeds \"c1\", the value the data ports.")));
			pipe_fed[slot] = fport;
			p->input_to[fport] = tkind == 'c' ? SP_MAX_PORTS : tport;
		}
		else
		{
			if (out_fed[tport] >= 0)
				spec_error(errmsg("port \"%s\" of operator \"%s\" is fed twice", tname, p->id[to]));
			out_fed[tport] = fport;
		}
	}
	error_context_stack = callback.previous;

	/*
	 * The key argument plays the Input port wired to "c1" and the value the
	 * others, in order: so the k-th of them must feed data port k, as the
	 * value's k-th element does in a spec.
	 */
	if (pipe_fed[cfg->n_in] < 0)
		spec_error(errmsg("control port \"c1\" of Pipeline \"%s\" is not connected", p->id[ROLE_PIPELINE]),
				   errdetail("The segment key reaches the Pipeline on \"c1\": wire the Input port the key argument plays to it."));
	for (int k = 0, data = 0; k < p->nports[ROLE_INPUT]; k++)
	{
		if (p->input_to[k] == SP_MAX_PORTS)
			continue;
		if (p->input_to[k] < 0)
			spec_error(errmsg("port \"o%d\" of Input \"%s\" is not connected", k + 1, p->id[ROLE_INPUT]));
		if (p->input_to[k] != data)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("port \"o%d\" of Input \"%s\" must feed data port \"i%d\" of Pipeline \"%s\"",
							k + 1, p->id[ROLE_INPUT], data + 1, p->id[ROLE_PIPELINE]),
					 errdetail("The row's value feeds the Input's data ports in order, and they feed the Pipeline's in the same order.")));
		data++;
	}
	for (int k = 0; k < cfg->n_in; k++)
		if (pipe_fed[k] < 0)
			spec_error(errmsg("input port \"i%d\" of Pipeline \"%s\" is not connected", k + 1, p->id[ROLE_PIPELINE]));
}

/*
 * The program's "output": the Pipeline output ports it names, directly or
 * through the Output, become the configuration's output ports, in order.
 */
static void
read_program_output(SpecReader *r, ProgramReader *p, const SpJsonNode *doc)
{
	SpConfig   *cfg = r->cfg;
	const SpJsonNode *j = sp_json_get(r->doc, doc, "output");
	int		   *ports = palloc(sizeof(int) * cfg->n_out);
	bool	   *used = palloc0(sizeof(bool) * cfg->n_out);
	int			n = 0;
	SpPortType *types;
	int		   *out_op;
	int		   *out_port;
	int		   *map_order;

	if (j == NULL)
		spec_error(errmsg("\"output\" is required"),
				   errdetail("It names the program's outputs, as in {\"%s\": [\"o1\"]}.",
							 p->id[ROLE_OUTPUT] ? p->id[ROLE_OUTPUT] : p->id[ROLE_PIPELINE]));
	if (sp_json_kind(j) != SPJ_OBJECT || sp_json_first(j) == NULL)
		spec_error(errmsg("\"output\" must be a non-empty JSON object"),
				   errhint("Name the operators whose output ports are the program's outputs, as in {\"%s\": [\"o1\"]}.",
						   p->id[ROLE_OUTPUT] ? p->id[ROLE_OUTPUT] : p->id[ROLE_PIPELINE]));
	for (const SpJsonNode *k = sp_json_first(j); k; k = sp_json_next(j, k))
	{
		const SpJsonNode *list = sp_json_value(k);
		ProgramRole role = program_op(r, p, sp_json_string(r->doc, k), "output");
		int			limit = role == ROLE_OUTPUT ? p->nports[ROLE_OUTPUT] : cfg->n_out;

		if (role == ROLE_INPUT)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("the Input as a program output is not supported"),
					 errdetail("The program's outputs are the Pipeline's, directly or through the Output.")));
		if (sp_json_kind(list) != SPJ_ARRAY || sp_json_first(list) == NULL)
			spec_error(errmsg("\"output\" of operator \"%s\" must be a non-empty array of port names",
							  p->id[role]));
		for (const SpJsonNode *e = sp_json_first(list); e; e = sp_json_next(list, e))
		{
			const char *name;
			int			port;

			if (sp_json_kind(e) != SPJ_STRING)
				spec_error(errmsg("\"output\" of operator \"%s\" must be a non-empty array of port names",
								  p->id[role]));
			name = sp_json_string(r->doc, e);
			port = spec_parse_port(name, 'o', limit);
			if (port < 0)
				spec_error(errmsg("operator \"%s\" has no output port \"%s\"", p->id[role], sp_json_shown(name)),
						   errdetail_plural("Operator \"%s\" has %d output port.",
											"Operator \"%s\" has %d output ports.",
											limit, p->id[role], limit),
						   errcontext("\"output\" of the program"));
			if (role == ROLE_OUTPUT)
			{
				if (p->output_from[port] < 0)
					spec_error(errmsg("input port \"i%d\" of Output \"%s\" is not connected",
									  port + 1, p->id[ROLE_OUTPUT]));
				port = p->output_from[port];
			}
			if (used[port])
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("output port \"o%d\" of Pipeline \"%s\" as two program outputs is not supported",
								port + 1, p->id[ROLE_PIPELINE])));
			used[port] = true;
			ports[n++] = port;
		}
	}
	types = spec_keep_alloc0(r, sizeof(SpPortType) * n);
	out_op = spec_keep_alloc0(r, sizeof(int) * n);
	out_port = spec_keep_alloc0(r, sizeof(int) * n);
	map_order = spec_keep_alloc0(r, sizeof(int) * n);
	for (int k = 0; k < n; k++)
	{
		types[k] = cfg->out_types[ports[k]];
		out_op[k] = cfg->out_op[ports[k]];
		out_port[k] = cfg->out_port[ports[k]];
		map_order[k] = k;
	}
	cfg->n_out = n;
	cfg->out_types = types;
	cfg->out_op = out_op;
	cfg->out_port = out_port;
	cfg->map_order = map_order;
}

/*
 * A program as the original writes it.  It stands for the one Pipeline it
 * holds, the SQL arguments playing its Input (docs/reference.md,
 * "Programs"), and is kept as that Pipeline's canonical text: a program and
 * the spec of its Pipeline are the same configuration.
 */
SpConfig *
spec_read_program(SpecReader *r, const SpJsonNode *doc)
{
	ProgramReader p = {0};
	const SpJsonNode *j;

	spec_check_members(r, doc, program_fields, OWNER_PROGRAM, NULL);
	read_program_operators(r, &p, doc);
	j = spec_string_member(r, doc, "entryOperator", true);
	if (!sp_json_string_eq(r->doc, j, p.id[ROLE_INPUT]))
		spec_error(errmsg("\"entryOperator\" must name the Input operator \"%s\"", p.id[ROLE_INPUT]),
				   errdetail("It names \"%s\".", sp_json_shown(sp_json_string(r->doc, j))));
	if (p.n_outside > 0)
		return spec_read_program_mesh(r, &p, doc);
	read_program_pipeline(r, &p);
	read_program_connections(r, &p, doc);
	read_program_output(r, &p, doc);
	return r->cfg;
}
