/*
 * sp_spec_param.c
 *	  The spec reader's parameters: the members of an object, port types
 *	  and port names, one operator with its type and parameters, and a
 *	  Pipeline's segment bytecode.
 */
#include "postgres.h"

#include <ctype.h>
#include <math.h>

#include "sp_json.h"
#include "sp_rpn.h"
#include "sp_time.h"
#include "sp_spec_reader.h"

static const char *const operator_fields[] = {"type", "id", NULL};
static const char *const keyed_fields[] = {"type", "id", "prototype", NULL};
static const char *const trigger_fields[] = {"type", "id", "operators", "connections", "entryOperator",
"outputOperator", NULL};
static const char *const port_type_names[] = {"number", "boolean", "vector_number", "vector_boolean", NULL};

void *
spec_keep_alloc0(SpecReader *r, Size size)
{
	return MemoryContextAllocZero(r->keep, size);
}

char *
spec_keep_string(SpecReader *r, const SpJsonNode *v)
{
	MemoryContext old = MemoryContextSwitchTo(r->keep);
	char	   *s = sp_json_string(r->doc, v);

	MemoryContextSwitchTo(old);
	return s;
}

const char *
sp_port_type_name(SpPortType t)
{
	switch (t)
	{
		case SP_PORT_BOOLEAN:
			return "boolean";
		case SP_PORT_VECTOR_NUMBER:
			return "vector_number";
		case SP_PORT_VECTOR_BOOLEAN:
			return "vector_boolean";
		case SP_PORT_ANY:
			return "any";
		default:
			return "number";
	}
}

/* ---- members ---- */

/* The hint for an unrecognized parameter when none is close. */
static const char *
parameters_hint(const SpOpType *t)
{
	const char *names[64];
	int			n = 0;

	for (const SpParamDef *d = t->params; d->name && n < lengthof(names); d++)
		names[n++] = d->name;
	/* read by spec_read_prototype, not declared */
	if (t == &sp_op_keyed_pipeline)
		names[n++] = "prototype";
	if (t == &sp_op_trigger_set)
	{
		names[n++] = "operators";
		names[n++] = "connections";
		names[n++] = "entryOperator";
		names[n++] = "outputOperator";
	}
	if (n == 0)
		return psprintf("Operator type %s takes no parameters.", t->name);
	if (n == 1)
		return psprintf("The only parameter of %s is %s.", t->name, spec_quoted_list(names, n, "and"));
	return psprintf("The parameters of %s are %s.", t->name, spec_quoted_list(names, n, "and"));
}

/*
 * Whether k names a field of the pipeline around operators: misplaced in an
 * operator, it gets a hint saying where it belongs.
 */
static bool
is_pipeline_only_field(SpecReader *r, const SpJsonNode *k)
{
	static const char *const fields[] = {
		"input_port_types", "output_port_types", "connections", "entryOperator",
		"outputMappings", "late", "segmentBytecode", "segmentConstants", NULL
	};

	for (int i = 0; fields[i]; i++)
		if (sp_json_string_eq(r->doc, k, fields[i]))
			return true;
	return false;
}

/*
 * Refuse the first member of obj whose name is neither in names nor, for an
 * operator of type t, one of its parameters.  The hint is the closest valid
 * name, else the list of valid names.
 */
void
spec_check_members(SpecReader *r, const SpJsonNode *obj, const char *const *names,
			  MemberOwner owner, const SpOpType *t)
{
	const SpParamDef *params =
		owner == OWNER_OPERATOR || owner == OWNER_SHORTHAND ? t->params : NULL;

	for (const SpJsonNode *k = sp_json_first(obj); k; k = sp_json_next(obj, k))
	{
		bool		known = false;
		Suggestion s;

		for (int i = 0; !known && names[i]; i++)
			known = sp_json_string_eq(r->doc, k, names[i]);
		for (const SpParamDef *d = params; !known && d && d->name; d++)
			known = sp_json_string_eq(r->doc, k, d->name);
		if (known)
			continue;

		/* a pipeline's field: say where it goes (docs/reference.md, "The spec") */
		if (owner == OWNER_SHORTHAND && is_pipeline_only_field(r, k))
		{
			const char *name = sp_json_shown(sp_json_string(r->doc, k));

			spec_error(errmsg("unrecognized parameter \"%s\"", name),
					   errhint("\"%s\" is a pipeline field, which the one-operator shorthand cannot take: "
							   "use the full form, {\"type\": \"Pipeline\", \"operators\": "
							   "[{\"type\": \"%s\", ...}], \"%s\": ...}.",
							   name, t->name, name));
		}
		if (owner == OWNER_OPERATOR && is_pipeline_only_field(r, k))
		{
			const char *name = sp_json_shown(sp_json_string(r->doc, k));

			spec_error(errmsg("unrecognized parameter \"%s\"", name),
					   errhint("\"%s\" is a pipeline field: put it beside \"operators\".", name));
		}

		spec_suggest_init(&s, sp_json_string(r->doc, k));
		for (int i = 0; names[i]; i++)
			spec_suggest_consider(&s, names[i]);
		for (const SpParamDef *d = params; d && d->name; d++)
			spec_suggest_consider(&s, d->name);
		switch (owner)
		{
			case OWNER_PIPELINE:
				spec_error(errmsg("unrecognized pipeline field \"%s\"", sp_json_shown(s.input)),
						   spec_errhint_suggestion(&s, psprintf("The fields of a pipeline are %s.",
														   spec_quoted_list(names, spec_names_length(names), "and"))));
				break;
			case OWNER_PROGRAM:
				spec_error(errmsg("unrecognized program field \"%s\"", sp_json_shown(s.input)),
						   spec_errhint_suggestion(&s, psprintf("The fields of a program are %s.",
														   spec_quoted_list(names, spec_names_length(names), "and"))));
				break;
			case OWNER_PORT_OPERATOR:
				spec_error(errmsg("unrecognized parameter \"%s\"", sp_json_shown(s.input)),
						   spec_errhint_suggestion(&s, "The only parameter of Input and Output is \"portTypes\"."));
				break;
			case OWNER_PROTOTYPE:
				spec_error(errmsg("unrecognized prototype field \"%s\"", sp_json_shown(s.input)),
						   spec_errhint_suggestion(&s, psprintf("The fields of a KeyedPipeline's prototype are %s.",
														   spec_quoted_list(names, spec_names_length(names), "and"))));
				break;
			case OWNER_TRIGGER_OUTPUT:
				spec_error(errmsg("unrecognized field \"%s\" in \"outputOperator\"", sp_json_shown(s.input)),
						   spec_errhint_suggestion(&s, "A TriggerSet's \"outputOperator\" is an id or {\"id\": id, \"port\": \"o1\"}."));
				break;
			case OWNER_CONNECTION:
				spec_error(errmsg("unrecognized connection field \"%s\"", sp_json_shown(s.input)),
						   spec_errhint_suggestion(&s, psprintf("The fields of a connection are %s.",
														   spec_quoted_list(names, spec_names_length(names), "and"))));
				break;
			case OWNER_OPERATOR:
			case OWNER_SHORTHAND:
				spec_error(errmsg("unrecognized parameter \"%s\"", sp_json_shown(s.input)),
						   spec_errhint_suggestion(&s, parameters_hint(t)));
				break;
		}
	}
}

/* A string member, or NULL when absent and not required. */
const SpJsonNode *
spec_string_member(SpecReader *r, const SpJsonNode *obj, const char *key, bool required)
{
	const SpJsonNode *j = sp_json_get(r->doc, obj, key);

	if (j == NULL)
	{
		if (required)
			spec_error(errmsg("\"%s\" is required", key));
		return NULL;
	}
	if (sp_json_kind(j) != SPJ_STRING)
		spec_error(errmsg("\"%s\" must be a string, not %s",
						  key, sp_json_kind_name(sp_json_kind(j))));
	return j;
}

/* ---- port lists and port names ---- */

int
spec_read_port_types(SpecReader *r, const SpJsonNode *j, const char *field, SpPortType **out)
{
	int			n,
				i = 0;

	if (sp_json_kind(j) != SPJ_ARRAY)
		spec_error(errmsg("\"%s\" must be an array of port types", field));
	n = sp_json_count(j);
	if (n == 0)
		spec_error(errmsg("\"%s\" must not be empty", field));
	if (n > SP_MAX_PORTS)
		spec_error(errmsg("too many ports in \"%s\"", field),
				   errdetail("It lists %d ports; at most %d are allowed.", n, SP_MAX_PORTS));
	*out = spec_keep_alloc0(r, sizeof(SpPortType) * n);
	for (const SpJsonNode *e = sp_json_first(j); e; e = sp_json_next(j, e), i++)
	{
		char	   *name;
		Suggestion s;

		if (sp_json_kind(e) != SPJ_STRING)
			spec_error(errmsg("port type must be a string, not %s",
							  sp_json_kind_name(sp_json_kind(e))),
					   errcontext("element %d of \"%s\"", i + 1, field));
		if (sp_json_string_eq(r->doc, e, "number"))
			(*out)[i] = SP_PORT_NUMBER;
		else if (sp_json_string_eq(r->doc, e, "boolean"))
			(*out)[i] = SP_PORT_BOOLEAN;
		else if (sp_json_string_eq(r->doc, e, "vector_number"))
			(*out)[i] = SP_PORT_VECTOR_NUMBER;
		else if (sp_json_string_eq(r->doc, e, "vector_boolean"))
			(*out)[i] = SP_PORT_VECTOR_BOOLEAN;
		else
		{
			name = sp_json_string(r->doc, e);
			spec_suggest_init(&s, name);
			for (int k = 0; port_type_names[k]; k++)
				spec_suggest_consider(&s, port_type_names[k]);
			spec_error(errmsg("unrecognized port type \"%s\"", sp_json_shown(name)),
					   spec_errhint_suggestion(&s, "Use \"number\", \"boolean\", \"vector_number\" or \"vector_boolean\"."),
					   errcontext("element %d of \"%s\"", i + 1, field));
		}
	}
	return n;
}

/*
 * Parse a port name "<prefix>N", N in 1..limit; returns N - 1, or -1 when the
 * name is malformed or out of range.
 */
int
spec_parse_port(const char *s, char prefix, int limit)
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

/* The type of an operator's input port (0-based, controls included). */
SpPortType
spec_op_in_type(const SpOperator *op, int port)
{
	return op->type->in_type_at ? op->type->in_type_at(&op->params, port) : op->type->in_type;
}

/* The type of an operator's output port (0-based). */
SpPortType
spec_op_out_type(const SpOperator *op, int port)
{
	return op->type->out_type_at ? op->type->out_type_at(&op->params, port) : op->type->out_type;
}

/* An operator's data ports: its ports but the controls. */
int
spec_op_ndata(const SpOperator *op)
{
	return op->nin - (op->type->nctl_from ? op->type->nctl_from(&op->params) : 0);
}

/* "i3", or "c1" for a control port */
char *
spec_op_port_name(const SpOperator *op, int port)
{
	int			nd = spec_op_ndata(op);

	return port < nd ? psprintf("i%d", port + 1) : psprintf("c%d", port - nd + 1);
}

void
spec_operator_context(void *arg)
{
	const OperatorPlace *p = arg;

	if (p->id == NULL)
		errcontext("element %d of \"operators\"", p->index + 1);
	else if (p->type == NULL)
		errcontext("operator \"%s\"", p->id);
	else
		errcontext("operator \"%s\" (%s)", p->id, p->type->name);
}

static void
read_param(SpecReader *r, SpOperator *op, const SpParamDef *d, const SpJsonNode *j)
{
	char	   *field = (char *) &op->params + d->offset;
	SpJsonKind	kind = sp_json_kind(j);
	int32		ival;
	double		num;

	switch (d->kind)
	{
		case SP_PARAM_INT:
			num = kind == SPJ_NUMBER ? sp_json_number(r->doc, j) : NAN;
			if (!(num == floor(num) && num >= d->min && num <= d->max))
				spec_error(errmsg("\"%s\" must be an integer between %.0f and %.0f",
								  d->name, d->min, d->max));
			ival = (int32) num;
			memcpy(field, &ival, sizeof(ival));
			break;
		case SP_PARAM_FLOAT:
			if (kind != SPJ_NUMBER)
				spec_error(errmsg("\"%s\" must be a number, not %s",
								  d->name, sp_json_kind_name(kind)));
			num = sp_json_number(r->doc, j);
			memcpy(field, &num, sizeof(double));
			break;
		case SP_PARAM_VECTOR:
			{
				int			n = kind == SPJ_ARRAY ? sp_json_count(j) : -1;
				int			i = 0;
				double	   *v;

				if (n < d->min || n > d->max)
					spec_error(errmsg("\"%s\" must be an array of %.0f to %.0f numbers",
									  d->name, d->min, d->max));
				v = spec_keep_alloc0(r, sizeof(double) * Max(n, 1));
				for (const SpJsonNode *e = sp_json_first(j); e; e = sp_json_next(j, e), i++)
				{
					if (sp_json_kind(e) != SPJ_NUMBER)
						spec_error(errmsg("element %d of \"%s\" must be a number, not %s",
										  i + 1, d->name, sp_json_kind_name(sp_json_kind(e))));
					v[i] = sp_json_number(r->doc, e);
				}
				op->params.vec[sp_param_vec_slot(d)] = v;
				op->params.nvec[sp_param_vec_slot(d)] = n;
				break;
			}
		case SP_PARAM_POINTS:
			{
				int			n = kind == SPJ_ARRAY ? sp_json_count(j) : -1;
				int			i = 0;
				double	   *v;

				if (n < d->min || n > d->max)
					spec_error(errmsg("\"%s\" must be an array of %.0f to %.0f points",
									  d->name, d->min, d->max),
							   errhint("A point is an array of two numbers, [x, y]."));
				v = spec_keep_alloc0(r, sizeof(double) * 2 * Max(n, 1));
				for (const SpJsonNode *e = sp_json_first(j); e; e = sp_json_next(j, e), i++)
				{
					const SpJsonNode *x = sp_json_first(e);
					const SpJsonNode *y = x ? sp_json_next(e, x) : NULL;

					if (sp_json_kind(e) != SPJ_ARRAY || sp_json_count(e) != 2 ||
						sp_json_kind(x) != SPJ_NUMBER || sp_json_kind(y) != SPJ_NUMBER)
						spec_error(errmsg("element %d of \"%s\" must be a point, an array of two numbers [x, y]",
										  i + 1, d->name));
					v[2 * i] = sp_json_number(r->doc, x);
					v[2 * i + 1] = sp_json_number(r->doc, y);
				}
				op->params.vec[sp_param_vec_slot(d)] = v;
				op->params.nvec[sp_param_vec_slot(d)] = n;
				break;
			}
		case SP_PARAM_INTERVAL:
			{
				const char *msg;
				int64		us;

				if (kind != SPJ_STRING)
					spec_error(errmsg("\"%s\" must be a duration in a string, not %s",
									  d->name, sp_json_kind_name(kind)),
							   errhint("For example \"5 minutes\" or \"00:05:00\"."));
				msg = sp_duration_parse(sp_json_string(r->doc, j), &us);
				if (msg != NULL)
					spec_error(errmsg("invalid duration for \"%s\": \"%s\"", d->name,
									  sp_json_shown(sp_json_string(r->doc, j))),
							   errdetail("%s", msg),
							   errhint("A duration is a positive interval without months or years, such as \"5 minutes\", \"1 day 02:00:00\" or \"00:00:00.5\"."));
				memcpy(field, &us, sizeof(us));
				break;
			}
		case SP_PARAM_BOOL:
			if (kind != SPJ_BOOL)
				spec_error(errmsg("\"%s\" must be true or false, not %s",
								  d->name, sp_json_kind_name(kind)));
			ival = sp_json_bool(r->doc, j) ? 1 : 0;
			memcpy(field, &ival, sizeof(ival));
			break;
		case SP_PARAM_PORT_TYPES:
			{
				SpPortType *types;
				int			n;
				double	   *v;

				n = spec_read_port_types(r, j, d->name, &types);
				if (n < d->min || n > d->max)
					spec_error(errmsg("\"%s\" must list %.0f to %.0f port types",
									  d->name, d->min, d->max),
							   errdetail("It lists %d.", n));
				v = spec_keep_alloc0(r, sizeof(double) * n);
				for (int i = 0; i < n; i++)
					v[i] = types[i];
				op->params.vec[sp_param_vec_slot(d)] = v;
				op->params.nvec[sp_param_vec_slot(d)] = n;
				break;
			}
		case SP_PARAM_CHOICE:
			for (ival = 0; kind == SPJ_STRING && d->choices[ival]; ival++)
				if (sp_json_string_eq(r->doc, j, d->choices[ival]))
				{
					memcpy(field, &ival, sizeof(ival));
					return;
				}
			spec_error(errmsg("\"%s\" must be %s", d->name,
							  spec_quoted_list(d->choices, spec_names_length(d->choices), "or")));
	}
}

/*
 * TimeShift's "shift" moves a value to a later time (docs/reference.md,
 * "TimeShift"): a negative one would give a row a value of its future,
 * which the row cannot have; the original's is an integer in its
 * timestamps' units.  Said here in those words, before the parameter is
 * read as a duration (which has no sign).
 */
static void
check_time_shift(SpecReader *r, const SpJsonNode *j)
{
	const SpJsonNode *v = sp_json_get(r->doc, j, "shift");
	bool		negative = false;

	if (v == NULL)
		return;
	if (sp_json_kind(v) == SPJ_NUMBER)
		negative = sp_json_number(r->doc, v) < 0;
	else if (sp_json_kind(v) == SPJ_STRING)
	{
		const char *t = sp_json_string(r->doc, v);

		while (isspace((unsigned char) *t))
			t++;
		negative = (*t == '-');
	}
	if (!negative && sp_json_kind(v) == SPJ_NUMBER)
		spec_error(errmsg("\"shift\" must be a duration in a string, not a number"),
				   errhint("The original's shift counts the units of its timestamps: over timestamps in seconds, \"shift\": 5 is \"shift\": \"5 seconds\"."));
	if (negative)
		spec_error(errmsg("\"shift\" must not be negative"),
				   errdetail("A negative shift asks, on a row, for the value of a later row, which has not arrived."),
				   errhint("Give the later operand the earlier time instead: shift the other port's input by the duration."));
}

/*
 * A member close to "type" in an operator that has none is a misspelt
 * "type", and is reported as unrecognized rather than "type" as missing.
 */
static void
check_misspelt_type(SpecReader *r, const SpJsonNode *j)
{
	for (const SpJsonNode *k = sp_json_first(j); k; k = sp_json_next(j, k))
	{
		Suggestion s;

		if (sp_json_string_eq(r->doc, k, "id"))
			continue;
		spec_suggest_init(&s, sp_json_string(r->doc, k));
		spec_suggest_consider(&s, "type");
		if (s.n > 0)
			spec_error(errmsg("unrecognized parameter \"%s\"", sp_json_shown(s.input)),
					   spec_errhint_suggestion(&s, NULL));
	}
}

/*
 * One operator; single: the whole spec is this operator (the shorthand), so
 * "Pipeline" is a type it could have meant.
 */
void
spec_read_operator(SpecReader *r, SpOperator *op, const SpJsonNode *j, int index, bool single)
{
	OperatorPlace place = {index, NULL, NULL};
	ErrorContextCallback callback;
	const SpJsonNode *idj;
	const SpJsonNode *typej;
	char	   *type;
	const char *msg;

	callback.callback = spec_operator_context;
	callback.arg = &place;
	callback.previous = error_context_stack;
	error_context_stack = &callback;

	if (sp_json_kind(j) != SPJ_OBJECT)
		spec_error(errmsg("operator must be a JSON object, not %s",
						  sp_json_kind_name(sp_json_kind(j))));
	idj = sp_json_get(r->doc, j, "id");
	if (idj != NULL && (sp_json_kind(idj) != SPJ_STRING || sp_json_string_eq(r->doc, idj, "")))
		spec_error(errmsg("\"id\" must be a non-empty string"));
	if (idj != NULL && sp_json_string_length(r->doc, idj) > SPEC_MAX_ID_LEN)
		spec_error(errmsg("operator id is too long"),
				   errdetail("It has %d bytes; at most %d are allowed.",
							 sp_json_string_length(r->doc, idj), SPEC_MAX_ID_LEN));
	if (idj)
		op->id = spec_keep_string(r, idj);
	else
		op->id = MemoryContextStrdup(r->keep, psprintf("op%d", index + 1));
	place.id = op->id;

	if (sp_json_get(r->doc, j, "type") == NULL)
		check_misspelt_type(r, j);
	typej = spec_string_member(r, j, "type", true);
	type = sp_json_string(r->doc, typej);
	if (!single && strcmp(type, "Pipeline") == 0)
	{
		spec_read_nested(r, op, j, idj != NULL);
		error_context_stack = callback.previous;
		return;
	}
	op->type = sp_find_op_type(type);
	if (op->type == NULL)
	{
		Suggestion s;
		const SpOpType *t;

		spec_suggest_init(&s, type);
		if (single)
			spec_suggest_consider(&s, "Pipeline");
		for (int i = 0; (t = sp_op_type_at(i)) != NULL; i++)
			spec_suggest_consider(&s, t->name);
		spec_error(errmsg("unrecognized operator type \"%s\"", sp_json_shown(type)),
				   spec_errhint_suggestion(&s, "The operator types are listed under \"Operators\" in docs/reference.md."));
	}
	place.type = op->type;
	if (op->type == &sp_op_time_shift)
		check_time_shift(r, j);

	spec_check_members(r, j, op->type == &sp_op_keyed_pipeline ? keyed_fields :
				  op->type == &sp_op_trigger_set ? trigger_fields : operator_fields,
				  single ? OWNER_SHORTHAND : OWNER_OPERATOR, op->type);
	/* what is given, then what is missing */
	for (const SpParamDef *d = op->type->params; d->name; d++)
	{
		const SpJsonNode *pj = sp_json_get(r->doc, j, d->name);

		if (pj != NULL)
			read_param(r, op, d, pj);
	}
	for (const SpParamDef *d = op->type->params; d->name; d++)
	{
		if (sp_json_get(r->doc, j, d->name) != NULL)
			continue;
		if (d->required)
			spec_error(errmsg("parameter \"%s\" is required", d->name));
		if (d->kind == SP_PARAM_INT || d->kind == SP_PARAM_CHOICE || d->kind == SP_PARAM_BOOL)
		{
			int32		v = (int32) d->dflt;

			memcpy((char *) &op->params + d->offset, &v, sizeof(v));
		}
		else if (d->kind == SP_PARAM_FLOAT)
			memcpy((char *) &op->params + d->offset, &d->dflt, sizeof(double));
	}
	/* what a check derives (FusedExpression's program) the configuration keeps */
	if (op->type->check_params)
	{
		MemoryContext old = MemoryContextSwitchTo(r->keep);

		msg = op->type->check_params(&op->params);
		MemoryContextSwitchTo(old);
		if (msg != NULL)
			spec_error(errmsg("%s", msg));
	}
	if (op->type == &sp_op_keyed_pipeline)
		spec_read_prototype(r, op, j);
	if (op->type == &sp_op_trigger_set)
		spec_read_trigger_set(r, op, j);
	op->nin = op->type->nin_from ? op->type->nin_from(&op->params) : op->type->nin;
	error_context_stack = callback.previous;
}

/* An array of at most max numbers, kept; *n its length. */
static double *
read_numbers(SpecReader *r, const SpJsonNode *j, const char *field, int max, int *n)
{
	double	   *v;
	int			i = 0;

	if (sp_json_kind(j) != SPJ_ARRAY)
		spec_error(errmsg("\"%s\" must be an array of numbers, not %s",
						  field, sp_json_kind_name(sp_json_kind(j))));
	*n = sp_json_count(j);
	if (*n > max)
		spec_error(errmsg("\"%s\" must be an array of at most %d numbers", field, max),
				   errdetail("It has %d.", *n));
	v = spec_keep_alloc0(r, sizeof(double) * Max(*n, 1));
	for (const SpJsonNode *e = sp_json_first(j); e; e = sp_json_next(j, e), i++)
	{
		if (sp_json_kind(e) != SPJ_NUMBER)
			spec_error(errmsg("element %d of \"%s\" must be a number, not %s",
							  i + 1, field, sp_json_kind_name(sp_json_kind(e))));
		v[i] = sp_json_number(r->doc, e);
	}
	return v;
}

static void
segment_bytecode_context(void *arg)
{
	errcontext("\"segmentBytecode\" of pipeline \"%s\"", (const char *) arg);
}

/*
 * "segmentBytecode", "segmentConstants": the original's Pipeline that keys
 * its segments by an expression of its first data port's vector (the RPN
 * bytecode of FusedExpression, its opcodes without state), in place of its
 * control port.  An empty bytecode is the control port's mode, as in the
 * original, and is not kept.
 */
void
spec_read_segment_bytecode(SpecReader *r, const SpJsonNode *pipe)
{
	SpConfig   *cfg = r->cfg;
	const SpJsonNode *bj = sp_json_get(r->doc, pipe, "segmentBytecode");
	const SpJsonNode *cj = sp_json_get(r->doc, pipe, "segmentConstants");
	SpRpnSource src = {0};
	ErrorContextCallback callback;
	MemoryContext old;

	if (bj != NULL)
		cfg->segment_code = read_numbers(r, bj, "segmentBytecode", SP_RPN_MAX_CODE,
										 &cfg->n_segment_code);
	if (cj != NULL)
		cfg->segment_constants = read_numbers(r, cj, "segmentConstants", SP_RPN_MAX_VALUES,
											  &cfg->n_segment_constants);
	if (cfg->n_segment_code == 0)
	{
		if (cfg->n_segment_constants > 0)
			spec_error(errmsg("\"segmentConstants\" requires a \"segmentBytecode\""),
					   errdetail("Without a bytecode the pipeline's segments are keyed by its control port \"c1\"."));
		cfg->segment_code = cfg->segment_constants = NULL;
		cfg->n_segment_constants = 0;
		return;
	}
	if (cfg->in_types[0] != SP_PORT_VECTOR_NUMBER)
		spec_error(errmsg("\"segmentBytecode\" requires a vector_number input port"),
				   errdetail("The bytecode computes the segment key from the vector on input port 1, which is %s.",
							 sp_port_type_name(cfg->in_types[0])),
				   errhint("Give the pipeline \"input_port_types\": [\"vector_number\"]."));
	src.code = cfg->segment_code;
	src.n_code = cfg->n_segment_code;
	src.constants = cfg->segment_constants;
	src.n_constants = cfg->n_segment_constants;
	src.n_outputs = 1;
	src.max_inputs = SP_MAX_LANES;
	src.inputs_name = "the most lanes a vector has";
	src.segment_key = true;
	src.constants_name = "segmentConstants";
	callback.callback = segment_bytecode_context;
	callback.arg = cfg->id;
	callback.previous = error_context_stack;
	error_context_stack = &callback;
	old = MemoryContextSwitchTo(r->keep);
	cfg->segment_rpn = sp_rpn_compile(&src);
	MemoryContextSwitchTo(old);
	error_context_stack = callback.previous;
}

/*
 * The pipeline a SQL call runs keys its segments by the call's key
 * argument: a segment bytecode has its place in a nested Pipeline only
 * (docs/reference.md, "Segment bytecode").
 */
void
spec_refuse_top_level_bytecode(const SpConfig *cfg)
{
	if (cfg->segment_rpn != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("\"segmentBytecode\" in the outermost pipeline is not supported"),
				 errdetail("The segments of the outermost pipeline are the rows of equal values of the SQL call's key argument."),
				 errhint("Compute the key in SQL and pass it as the key argument, or nest the pipeline as an operator of an outer one whose data port feeds its \"i1\".")));
}
