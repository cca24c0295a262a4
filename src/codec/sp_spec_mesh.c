/*
 * sp_spec_mesh.c
 *	  The spec reader's meshes: a pipeline's operators laid out, their ids
 *	  indexed, their connections, their order, the pipeline's ports and its
 *	  output mappings.
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/memutils.h"
#include "sp_json.h"
#include "sp_sort.h"
#include "sp_spec_reader.h"

static const char *const pipeline_fields[] = {
	"type", "id", "input_port_types", "output_port_types", "operators",
	"connections", "entryOperator", "outputMappings", "late",
	"segmentBytecode", "segmentConstants", NULL
};
const char *const spec_connection_fields[] = {
	"from", "to", "fromPort", "toPort", NULL
};

/*
 * Operators in order of id (stable), so that duplicates are found and ids
 * looked up in O(log n) comparisons each, rather than one comparison per
 * operator for each of up to 16384 connections.
 */
static int
id_order(const void *arg, int32 x, int32 y)
{
	const SpConfig *cfg = arg;

	return strcmp(cfg->ops[x].id, cfg->ops[y].id);
}

static void
index_ids(SpecReader *r)
{
	const SpConfig *cfg = r->cfg;
	int32	   *a = palloc(sizeof(int32) * cfg->n_ops);

	for (int i = 0; i < cfg->n_ops; i++)
		a[i] = i;
	r->by_id = sp_sort_indexes(a, palloc(sizeof(int32) * cfg->n_ops), cfg->n_ops, id_order, cfg);
}

int
spec_find_op(const SpecReader *r, const char *id)
{
	int			lo = 0,
				hi = r->cfg->n_ops;

	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;
		int			c = strcmp(r->cfg->ops[r->by_id[mid]].id, id);

		if (c == 0)
			return r->by_id[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* The operator a string member names; field is the member, for the message. */
int
spec_require_op(SpecReader *r, const char *id, const char *field)
{
	int			i = spec_find_op(r, id);

	if (i < 0)
	{
		Suggestion s;

		spec_suggest_init(&s, id);
		for (int k = 0; k < r->cfg->n_ops; k++)
			spec_suggest_consider(&s, r->cfg->ops[k].id);
		spec_error(errmsg("operator \"%s\" named in \"%s\" does not exist", sp_json_shown(id), field),
				   spec_errhint_suggestion(&s, NULL));
	}
	return i;
}

/* ---- wiring ---- */

void
spec_connection_context(void *arg)
{
	errcontext("connection %d", *(const int *) arg + 1);
}

/*
 * Connection c, the object cj, from operator from_i to operator to_i: its
 * ports named, checked and wired, kept as conns[slot].
 */
void
spec_wire(SpecReader *r, const SpJsonNode *cj, int c, int slot, int from_i, int to_i)
{
	SpConfig   *cfg = r->cfg;
	const SpJsonNode *fp,
			   *tp;
	const SpOperator *from,
			   *to;
	int			from_port,
				to_port;
	SpSource   *feed;

	from = &cfg->ops[from_i];
	to = &cfg->ops[to_i];
	fp = spec_string_member(r, cj, "fromPort", false);
	tp = spec_string_member(r, cj, "toPort", false);
	from_port = fp ? spec_parse_port(sp_json_string(r->doc, fp), 'o', from->nout) : 0;
	if (from_port < 0 && from->nout == 1)
		spec_error(errmsg("operator \"%s\" has no output port \"%s\"",
						  from->id, sp_json_shown(sp_json_string(r->doc, fp))),
				   errdetail("Operator \"%s\" has one output port, \"o1\".", from->id));
	if (from_port < 0)
		spec_error(errmsg("operator \"%s\" has no output port \"%s\"",
						  from->id, sp_json_shown(sp_json_string(r->doc, fp))),
				   errdetail("Operator \"%s\" has output ports \"o1\" to \"o%d\".",
							 from->id, from->nout));
	if (tp && sp_json_string(r->doc, tp)[0] == 'c' && to->params.sub != NULL &&
		to->params.sub->segment_rpn != NULL)
		spec_error(errmsg("Pipeline \"%s\" has no control port \"%s\"",
						  to->id, sp_json_shown(sp_json_string(r->doc, tp))),
				   errdetail("It computes the key of its segments from the vector on its input port \"i1\" with its \"segmentBytecode\"."),
				   errhint("Remove the connection, or remove \"segmentBytecode\" to key the Pipeline by its control port \"c1\"."));
	if (tp && sp_json_string(r->doc, tp)[0] == 'c' && spec_op_ndata(to) < to->nin)
	{
		to_port = spec_parse_port(sp_json_string(r->doc, tp), 'c', to->nin - spec_op_ndata(to));
		if (to_port >= 0)
			to_port += spec_op_ndata(to);
	}
	else
		to_port = tp ? spec_parse_port(sp_json_string(r->doc, tp), 'i', spec_op_ndata(to)) : 0;
	if (to_port < 0 && spec_op_ndata(to) < to->nin)
		spec_error(errmsg("operator \"%s\" has no input port \"%s\"",
						  to->id, sp_json_shown(sp_json_string(r->doc, tp))),
				   errdetail("Operator \"%s\" has data ports \"i1\" to \"i%d\" and control ports \"c1\" to \"c%d\".",
							 to->id, spec_op_ndata(to), to->nin - spec_op_ndata(to)));
	if (to_port < 0)
		spec_error(errmsg("operator \"%s\" has no input port \"%s\"",
						  to->id, sp_json_shown(sp_json_string(r->doc, tp))),
				   errdetail_plural("Operator \"%s\" has %d input port, \"i%d\".",
									"Operator \"%s\" has %d input ports, \"i1\" to \"i%d\".",
									to->nin, to->id, to->nin, to->nin));
	if (spec_op_out_type(from, from_port) != spec_op_in_type(to, to_port) &&
		spec_op_in_type(to, to_port) != SP_PORT_ANY)
		spec_error(errmsg("cannot connect %s output of operator \"%s\" to %s input of operator \"%s\"",
						  sp_port_type_name(spec_op_out_type(from, from_port)), from->id,
						  sp_port_type_name(spec_op_in_type(to, to_port)), to->id),
				   spec_op_out_type(from, from_port) == SP_PORT_BOOLEAN ?
				   errhint("Put a BooleanToNumber operator between them.") : 0);
	feed = &cfg->feeds[to->first_feed + to_port];
	if (feed->op != -2)
	{
		int			by = r->fed_by[to->first_feed + to_port];

		spec_error(errmsg("input port \"%s\" of operator \"%s\" is fed twice",
						  spec_op_port_name(to, to_port), to->id),
				   by < 0 ?
				   errdetail("Pipeline input port %d feeds it, as \"%s\" is the entry operator.",
							 feed->port + 1, to->id) :
				   errdetail("Connection %d feeds it already.", by + 1));
	}
	feed->op = from_i;
	feed->port = 0;
	feed->slot = from->first_out + from_port;
	r->fed_by[to->first_feed + to_port] = c;
	cfg->ops[from_i].feeds_ops = true;
	cfg->conns[slot].from = from_i;
	cfg->conns[slot].from_port = from_port;
	cfg->conns[slot].to = to_i;
	cfg->conns[slot].to_port = to_port;
}

void
spec_read_connections(SpecReader *r, const SpJsonNode *j)
{
	SpConfig   *cfg = r->cfg;
	ErrorContextCallback callback;
	int			c = 0;

	if (sp_json_kind(j) != SPJ_ARRAY)
		spec_error(errmsg("\"connections\" must be an array, not %s",
						  sp_json_kind_name(sp_json_kind(j))));

	/*
	 * Each connection feeds a port no other feeds, so a list longer than the
	 * ports is refused before its end; room for the ports is enough.
	 */
	cfg->conns = spec_keep_alloc0(r, sizeof(SpConnection) * Max(Min(sp_json_count(j), r->n_feeds), 1));

	callback.callback = spec_connection_context;
	callback.arg = &c;
	callback.previous = error_context_stack;
	error_context_stack = &callback;
	for (const SpJsonNode *cj = sp_json_first(j); cj; cj = sp_json_next(j, cj), c++)
	{
		int			from_i,
					to_i;

		if (sp_json_kind(cj) != SPJ_OBJECT)
			spec_error(errmsg("connection must be a JSON object, not %s",
							  sp_json_kind_name(sp_json_kind(cj))));
		spec_check_members(r, cj, spec_connection_fields, OWNER_CONNECTION, NULL);
		from_i = spec_require_op(r, sp_json_string(r->doc, spec_string_member(r, cj, "from", true)), "from");
		to_i = spec_require_op(r, sp_json_string(r->doc, spec_string_member(r, cj, "to", true)), "to");
		spec_wire(r, cj, c, c, from_i, to_i);
	}
	error_context_stack = callback.previous;
	cfg->n_conns = c;
}

/* "a" -> "b" -> "a": a cycle through operators left over by Kahn's algorithm. */
static char *
describe_cycle(const SpConfig *cfg, const int *indeg)
{
	int		   *pred = palloc(sizeof(int) * cfg->n_ops);
	int		   *cycle = palloc(sizeof(int) * cfg->n_ops);
	int			v = -1,
				n = 0,
				first = 0;
	StringInfoData buf;

	/* every leftover operator is fed by a leftover operator */
	for (int i = 0; i < cfg->n_ops; i++)
	{
		pred[i] = -1;
		for (int c = 0; indeg[i] > 0 && c < cfg->n_conns && pred[i] < 0; c++)
			if (cfg->conns[c].to == i && indeg[cfg->conns[c].from] > 0)
				pred[i] = cfg->conns[c].from;
		if (v < 0 && indeg[i] > 0)
			v = i;
	}
	/* n_ops steps back from a leftover operator land on a cycle */
	for (int k = 0; k < cfg->n_ops; k++)
	{
		Assert(v >= 0);
		v = pred[v];
	}
	for (int u = v;; u = pred[u])
	{
		cycle[n++] = u;			/* walking backwards */
		if (pred[u] == v)
			break;
	}
	/* print forwards, from the cycle's first operator in spec order */
	for (int k = 1; k < n; k++)
		if (cycle[k] < cycle[first])
			first = k;
	initStringInfo(&buf);
	for (int k = 0; k <= n; k++)
		appendStringInfo(&buf, "%s\"%s\"", k ? " -> " : "",
						 cfg->ops[cycle[((first - k) % n + n) % n]].id);
	return buf.data;
}

/* Kahn's algorithm; what is left over lies on a cycle or after one. */
void
spec_order_operators(SpecReader *r)
{
	SpConfig   *cfg = r->cfg;
	int		   *indeg = palloc0(sizeof(int) * cfg->n_ops);
	int			head = 0,
				tail = 0;

	cfg->order = spec_keep_alloc0(r, sizeof(int) * cfg->n_ops);
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
		spec_error(errmsg("\"connections\" form a cycle"),
				   errdetail("The cycle is %s.", describe_cycle(cfg, indeg)));
}

static void
mapping_context(void *arg)
{
	errcontext("output mapping of operator \"%s\"", *(const char **) arg);
}

static void
read_output_mappings(SpecReader *r, const SpJsonNode *j)
{
	SpConfig   *cfg = r->cfg;
	ErrorContextCallback callback;
	const char *opname = NULL;
	int			n = 0;

	if (sp_json_kind(j) != SPJ_OBJECT)
		spec_error(errmsg("\"outputMappings\" must be a JSON object, not %s",
						  sp_json_kind_name(sp_json_kind(j))));
	callback.callback = mapping_context;
	callback.arg = &opname;
	callback.previous = error_context_stack;
	for (const SpJsonNode *k = sp_json_first(j); k; k = sp_json_next(j, k))
	{
		const SpJsonNode *pm = sp_json_value(k);
		int			op;

		opname = sp_json_string(r->doc, k);
		op = spec_require_op(r, opname, "outputMappings");
		error_context_stack = &callback;
		if (sp_json_kind(pm) != SPJ_OBJECT || sp_json_first(pm) == NULL)
			spec_error(errmsg("output mapping must be a non-empty JSON object"),
					   errhint("Map the operator's output port to a pipeline output port, as in {\"o1\": \"o1\"}."));
		for (const SpJsonNode *pk = sp_json_first(pm); pk; pk = sp_json_next(pm, pk))
		{
			const SpJsonNode *pv = sp_json_value(pk);
			char	   *name = sp_json_string(r->doc, pk);
			const SpOperator *o = &cfg->ops[op];
			int			port;
			int			from_port = spec_parse_port(name, 'o', o->nout);

			if (from_port < 0 && o->nout == 1)
				spec_error(errmsg("operator \"%s\" has no output port \"%s\"", opname, sp_json_shown(name)),
						   errdetail("Operator \"%s\" has one output port, \"o1\".", opname));
			if (from_port < 0)
				spec_error(errmsg("operator \"%s\" has no output port \"%s\"", opname, sp_json_shown(name)),
						   errdetail("Operator \"%s\" has output ports \"o1\" to \"o%d\".",
									 opname, o->nout));
			if (sp_json_kind(pv) != SPJ_STRING)
				spec_error(errmsg("pipeline output port must be a string such as \"o1\", not %s",
								  sp_json_kind_name(sp_json_kind(pv))));
			name = sp_json_string(r->doc, pv);
			port = spec_parse_port(name, 'o', cfg->n_out);
			if (port < 0)
				spec_error(errmsg("pipeline output port \"%s\" does not exist", sp_json_shown(name)),
						   errdetail_plural("The pipeline has %d output port.",
											"The pipeline has %d output ports.",
											cfg->n_out, cfg->n_out));
			if (cfg->out_op[port] >= 0)
				spec_error(errmsg("pipeline output port \"o%d\" is mapped twice", port + 1),
						   errdetail("Operator \"%s\" is mapped to it already.",
									 cfg->ops[cfg->out_op[port]].id));
			if (spec_op_out_type(o, from_port) != cfg->out_types[port])
				spec_error(errmsg("cannot map a %s output to %s pipeline output port \"o%d\"",
								  sp_port_type_name(spec_op_out_type(o, from_port)),
								  sp_port_type_name(cfg->out_types[port]), port + 1),
						   spec_op_out_type(o, from_port) == SP_PORT_BOOLEAN ?
						   errhint("Put a BooleanToNumber operator after operator \"%s\".", opname) : 0);
			cfg->out_op[port] = op;
			cfg->out_port[port] = from_port;
			cfg->map_order[n++] = port;
		}
		error_context_stack = callback.previous;
	}
	for (int p = 0; p < cfg->n_out; p++)
		if (cfg->out_op[p] < 0)
			spec_error(errmsg("pipeline output port \"o%d\" is not mapped", p + 1),
					   errdetail("Every pipeline output port needs an entry in \"outputMappings\"."));
}

/* ---- the whole spec ---- */

/*
 * The operators, laid out: data ports in feeds[], states in one block.
 * single: the spec is that one operator; else pipe holds "operators".
 */
void
spec_read_operators(SpecReader *r, const SpJsonNode *pipe, const SpJsonNode *single,
					bool program)
{
	SpConfig   *cfg = r->cfg;
	const SpJsonNode *ops_json = NULL;
	const SpJsonNode **nodes;
	int		   *element;		/* per operator: its element of "operators" */
	int			nfeeds = 0;
	int			dup_first = -1,
				dup_second = -1;
	int			e = 0;
	MemoryContext old;

	if (single == NULL)
	{
		ops_json = sp_json_get(r->doc, pipe, "operators");
		if (ops_json == NULL)
			spec_error(errmsg("\"operators\" is required"));
		if (sp_json_kind(ops_json) != SPJ_ARRAY || sp_json_first(ops_json) == NULL)
			spec_error(errmsg("\"operators\" must be a non-empty array"));
		if (sp_json_count(ops_json) > SP_MAX_OPERATORS)
			spec_error(errmsg("too many operators"),
					   errdetail("The pipeline has %d operators; at most %d are allowed.",
								 sp_json_count(ops_json), SP_MAX_OPERATORS));
	}
	nodes = palloc(sizeof(SpJsonNode *) * (single ? 1 : sp_json_count(ops_json)));
	element = palloc(sizeof(int) * (single ? 1 : sp_json_count(ops_json)));
	cfg->n_ops = 0;
	if (single)
	{
		nodes[0] = single;
		element[cfg->n_ops++] = 0;
	}
	for (const SpJsonNode *oj = single ? NULL : sp_json_first(ops_json); oj;
		 oj = sp_json_next(ops_json, oj), e++)
	{
		const SpJsonNode *t = sp_json_kind(oj) == SPJ_OBJECT ? sp_json_get(r->doc, oj, "type") : NULL;

		/* a program's Input and Output are the program's, not the mesh's */
		if (program && t && sp_json_kind(t) == SPJ_STRING &&
			(sp_json_string_eq(r->doc, t, "Input") || sp_json_string_eq(r->doc, t, "Output")))
			continue;
		nodes[cfg->n_ops] = oj;
		element[cfg->n_ops++] = e;
	}
	cfg->ops = spec_keep_alloc0(r, sizeof(SpOperator) * cfg->n_ops);
	for (int i = 0; i < cfg->n_ops; i++)
	{
		SpOperator *op = &cfg->ops[i];

		spec_read_operator(r, op, nodes[i], element[i], single != NULL);
		op->first_feed = nfeeds;
		nfeeds += op->nin;
		op->nout = op->type->nout_from ? op->type->nout_from(&op->params) : 1;
		op->first_out = cfg->n_slots;
		cfg->n_slots += op->nout;
		cfg->max_nin = Max(cfg->max_nin, op->nin);
	}
	/*
	 * Equal ids sit side by side, in spec order; the duplicate reported is
	 * the one that comes first in the spec.
	 */
	index_ids(r);
	for (int k = 1; k < cfg->n_ops; k++)
	{
		int			first = r->by_id[k - 1],
					second = r->by_id[k];

		if (strcmp(cfg->ops[first].id, cfg->ops[second].id) == 0 &&
			(dup_second < 0 || second < dup_second))
		{
			dup_first = first;
			dup_second = second;
		}
	}
	if (dup_second >= 0)
		spec_error(errmsg("duplicate operator id \"%s\"", cfg->ops[dup_second].id),
				   errdetail("Elements %d and %d of \"operators\" have the same id.",
							 element[dup_first] + 1, element[dup_second] + 1));

	/* the total state is known now: refuse a pipeline too large at once */
	old = MemoryContextSwitchTo(r->keep);
	sp_config_layout(cfg);
	MemoryContextSwitchTo(old);

	cfg->feeds = spec_keep_alloc0(r, sizeof(SpSource) * nfeeds);
	r->n_feeds = nfeeds;
	r->fed_by = palloc(sizeof(int) * nfeeds);
	for (int f = 0; f < nfeeds; f++)
		cfg->feeds[f].op = -2;	/* not fed yet */
}

/*
 * The pipeline's ports, by default the entry operator's data ports and one
 * output; the data ports feed the entry operator's, in order.
 */
static void
read_ports(SpecReader *r, const SpJsonNode *pipe)
{
	SpConfig   *cfg = r->cfg;
	const SpOperator *entry_op = &cfg->ops[cfg->entry];
	const SpJsonNode *j;

	if ((j = sp_json_get(r->doc, pipe, "input_port_types")) != NULL)
		cfg->n_in = spec_read_port_types(r, j, "input_port_types", &cfg->in_types);
	else
	{
		cfg->n_in = entry_op->nin;
		cfg->in_types = spec_keep_alloc0(r, sizeof(SpPortType) * cfg->n_in);
		for (int i = 0; i < cfg->n_in; i++)
			cfg->in_types[i] = spec_op_in_type(entry_op, i) == SP_PORT_ANY ?
				SP_PORT_NUMBER : spec_op_in_type(entry_op, i);
	}
	if ((j = sp_json_get(r->doc, pipe, "output_port_types")) != NULL)
		cfg->n_out = spec_read_port_types(r, j, "output_port_types", &cfg->out_types);
	else
	{
		cfg->n_out = 1;
		cfg->out_types = spec_keep_alloc0(r, sizeof(SpPortType));
		cfg->out_types[0] = cfg->n_ops == 1 ? spec_op_out_type(entry_op, 0) : SP_PORT_NUMBER;
	}

	if (entry_op->nin < cfg->n_in)
		spec_error(errmsg("entry operator \"%s\" has fewer data ports than the pipeline",
						  entry_op->id),
				   errdetail_plural("Operator \"%s\" has %d data port; \"input_port_types\" lists %d.",
									"Operator \"%s\" has %d data ports; \"input_port_types\" lists %d.",
									entry_op->nin, entry_op->id, entry_op->nin, cfg->n_in));
	for (int i = 0; i < cfg->n_in; i++)
	{
		/* a row's array is one vector, or one value per port: not both */
		if (sp_port_is_vector(cfg->in_types[i]) && cfg->n_in > 1)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("a pipeline with a vector data port and other data ports is not supported"),
					 errdetail("Pipeline input port %d is %s; a row's array is the vector of a pipeline's one vector port.",
							   i + 1, sp_port_type_name(cfg->in_types[i])),
					 errhint("Give the pipeline the vector port alone, and compose numbers into it with VectorCompose inside.")));
		if (cfg->in_types[i] != spec_op_in_type(entry_op, i) &&
			spec_op_in_type(entry_op, i) != SP_PORT_ANY)
			spec_error(errmsg("pipeline input port %d is %s, but entry operator \"%s\" takes %s",
							  i + 1, sp_port_type_name(cfg->in_types[i]), entry_op->id,
							  sp_port_type_name(spec_op_in_type(entry_op, i))));
		cfg->feeds[entry_op->first_feed + i].op = -1;
		cfg->feeds[entry_op->first_feed + i].port = i;
		r->fed_by[entry_op->first_feed + i] = -1;
	}
}

/* Output mappings, or the default o1 -> o1 of a one-operator pipeline. */
static void
read_outputs(SpecReader *r, const SpJsonNode *pipe)
{
	SpConfig   *cfg = r->cfg;
	const SpJsonNode *j = sp_json_get(r->doc, pipe, "outputMappings");

	cfg->out_op = spec_keep_alloc0(r, sizeof(int) * cfg->n_out);
	cfg->out_port = spec_keep_alloc0(r, sizeof(int) * cfg->n_out);
	cfg->map_order = spec_keep_alloc0(r, sizeof(int) * cfg->n_out);
	for (int p = 0; p < cfg->n_out; p++)
		cfg->out_op[p] = -1;
	if (j)
		read_output_mappings(r, j);
	else if (cfg->n_ops == 1 && cfg->n_out == 1)
	{
		if (spec_op_out_type(&cfg->ops[0], 0) != cfg->out_types[0])
			spec_error(errmsg("operator \"%s\" has a %s output, but pipeline output port \"o1\" is %s",
							  cfg->ops[0].id, sp_port_type_name(spec_op_out_type(&cfg->ops[0], 0)),
							  sp_port_type_name(cfg->out_types[0])));
		cfg->out_op[0] = 0;
		cfg->map_order[0] = 0;
	}
	else
		spec_error(errmsg("\"outputMappings\" is required"),
				   errdetail("Only a pipeline of one operator and one output port maps it by default."));
}

/* Every operator's every input port fed; where: a detail naming the mesh, or NULL. */
void
spec_check_fed(SpecReader *r, const char *where)
{
	const SpConfig *cfg = r->cfg;

	for (int i = 0; i < cfg->n_ops; i++)
		for (int p = 0; p < cfg->ops[i].nin; p++)
			if (cfg->feeds[cfg->ops[i].first_feed + p].op == -2)
				spec_error(errmsg("input port \"%s\" of operator \"%s\" is not connected",
								  spec_op_port_name(&cfg->ops[i], p), cfg->ops[i].id),
						   where ? errdetail("%s", where) : 0);
}

/*
 * An Input inside a pipeline (the original's way to name its entry) passes
 * on the pipeline's data ports: it is the entry operator or nothing, so
 * every port of it receives a value on every row.
 */
void
spec_check_input_entry(SpecReader *r)
{
	const SpConfig *cfg = r->cfg;

	for (int i = 0; i < cfg->n_ops; i++)
		if (cfg->ops[i].type == &sp_op_input && i != cfg->entry)
			spec_error(errmsg("Input \"%s\" must be the entry operator", cfg->ops[i].id),
					   errdetail("An Input inside a pipeline passes on the pipeline's data ports; the entry operator is \"%s\".",
								 cfg->ops[cfg->entry].id),
					   errhint("Name it in \"entryOperator\", or connect what it feeds to what would feed it."));
}

SpConfig *
spec_read_pipeline(SpecReader *r, const SpJsonNode *doc)
{
	SpConfig   *cfg = spec_keep_alloc0(r, sizeof(SpConfig));
	const SpJsonNode *pipe = doc;	/* the pipeline's members; NULL for shorthand */
	const SpJsonNode *typej;
	const SpJsonNode *j;

	r->cfg = cfg;
	if (sp_json_kind(doc) != SPJ_OBJECT)
		spec_error(errmsg("pipeline spec must be a JSON object, not %s",
						  sp_json_kind_name(sp_json_kind(doc))));
	typej = sp_json_get(r->doc, doc, "type");
	if (typej != NULL && sp_json_kind(typej) != SPJ_STRING)
		spec_error(errmsg("\"type\" must be a string, not %s",
						  sp_json_kind_name(sp_json_kind(typej))));
	if (typej != NULL && !sp_json_string_eq(r->doc, typej, "Pipeline"))
	{
		/* shorthand: one operator object */
		spec_read_operators(r, NULL, doc, false);
		pipe = NULL;			/* sp_json_get(NULL, ...) finds nothing */
	}
	else
	{
		spec_check_members(r, doc, pipeline_fields, OWNER_PIPELINE, NULL);
		/* "type" may be left out of a full pipeline spec, never of an operator */
		if (typej == NULL && sp_json_get(r->doc, doc, "operators") == NULL)
			spec_error(errmsg("\"type\" is required"),
					   errdetail("Only a pipeline, with \"operators\", may leave it out."));
		spec_read_operators(r, doc, NULL, false);
	}

	j = sp_json_get(r->doc, pipe, "id");
	if (j && (sp_json_kind(j) != SPJ_STRING || sp_json_string_eq(r->doc, j, "")))
		spec_error(errmsg("\"id\" must be a non-empty string"));
	if (j && sp_json_string_length(r->doc, j) > SPEC_MAX_ID_LEN)
		spec_error(errmsg("pipeline id is too long"),
				   errdetail("It has %d bytes; at most %d are allowed.",
							 sp_json_string_length(r->doc, j), SPEC_MAX_ID_LEN));
	cfg->id = j ? spec_keep_string(r, j) : MemoryContextStrdup(r->keep, "pipeline");
	j = sp_json_get(r->doc, pipe, "late");
	if (j && (sp_json_kind(j) != SPJ_STRING ||
			  (!sp_json_string_eq(r->doc, j, "error") && !sp_json_string_eq(r->doc, j, "drop"))))
		spec_error(errmsg("\"late\" must be \"error\" or \"drop\""));
	cfg->late_drop = j && sp_json_string_eq(r->doc, j, "drop");

	j = spec_string_member(r, pipe, "entryOperator", false);
	if (j == NULL && cfg->n_ops > 1)
		spec_error(errmsg("\"entryOperator\" is required"),
				   errdetail("With more than one operator, it names the one the pipeline's data ports feed."));
	cfg->entry = j ? spec_require_op(r, sp_json_string(r->doc, j), "entryOperator") : 0;
	spec_check_input_entry(r);

	read_ports(r, pipe);
	spec_read_segment_bytecode(r, pipe);

	if ((j = sp_json_get(r->doc, pipe, "connections")) != NULL)
		spec_read_connections(r, j);
	else
		cfg->conns = spec_keep_alloc0(r, sizeof(SpConnection));
	spec_check_fed(r, NULL);
	spec_order_operators(r);

	read_outputs(r, pipe);
	{
		MemoryContext old = MemoryContextSwitchTo(r->keep);

		sp_config_vectors(cfg);
		MemoryContextSwitchTo(old);
	}
	return cfg;
}
