/*
 * sp_spec.c
 *	  The spec reader: JSON in, validated mesh out.
 *
 * All validation happens here, once, when a spec is read; the engine trusts
 * what it is given.  Messages follow the server's style: the primary message
 * says what is wrong, an error context line says where (which operator,
 * connection or output mapping), and a hint suggests the name that was
 * probably meant.  Within an object, members that do not belong there are
 * reported before members that are missing, so a misspelt name is named
 * rather than reported as absent.
 *
 * The JSON document lives in a memory context of its own, deleted before
 * sp_spec_read() returns: the configuration keeps only what it needs,
 * allocated in the caller's context.
 */
#include "postgres.h"

#include <math.h>

#include "lib/stringinfo.h"
#include "utils/memutils.h"
#include "sp_json.h"
#include "sp_spec.h"
#include "sp_rpn.h"
#include "sp_sort.h"
#include "sp_time.h"

#define spec_error(...) \
	ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), __VA_ARGS__))

/*
 * Ids are names, bounded as the server bounds identifiers: they are kept,
 * printed (up to three times each in the canonical text) and compared.
 */
#define SPEC_MAX_ID_LEN (NAMEDATALEN - 1)

static const char *const pipeline_fields[] = {
	"type", "id", "input_port_types", "output_port_types", "operators",
	"connections", "entryOperator", "outputMappings", "late",
	"segmentBytecode", "segmentConstants", NULL
};
static const char *const connection_fields[] = {
	"from", "to", "fromPort", "toPort", NULL
};
static const char *const operator_fields[] = {"type", "id", NULL};
static const char *const keyed_fields[] = {"type", "id", "prototype", NULL};
static const char *const trigger_fields[] = {"type", "id", "operators", "connections", "entryOperator",
"outputOperator", NULL};
static const char *const trigger_output_fields[] = {"id", "port", NULL};
static const char *const prototype_fields[] = {"operators", "connections", "entry", "output", NULL};
static const char *const prototype_end_fields[] = {"operator", "port", NULL};
static const char *const port_type_names[] = {"number", "boolean", "vector_number", "vector_boolean", NULL};

typedef struct SpecReader
{
	const SpJsonDoc *doc;
	MemoryContext keep;			/* the caller's: what the configuration keeps */
	SpConfig   *cfg;
	int32	   *by_id;			/* operators in order of id, see index_ids() */
	int			n_feeds;
	int		   *fed_by;			/* per feed: connection feeding it, -1 the pipeline */
} SpecReader;

static void *
keep_alloc0(SpecReader *r, Size size)
{
	return MemoryContextAllocZero(r->keep, size);
}

static char *
keep_string(SpecReader *r, const SpJsonNode *v)
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

/* "a", "b" and "c" (conj "and"), or with "or" */
static char *
quoted_list(const char *const *names, int n, const char *conj)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = 0; i < n; i++)
		appendStringInfo(&buf, "%s\"%s\"",
						 i == 0 ? "" : i == n - 1 ? psprintf(" %s ", conj) : ", ",
						 names[i]);
	return buf.data;
}

static int
list_length(const char *const *names)
{
	int			n = 0;

	while (names[n])
		n++;
	return n;
}

/* ---- suggestions: the valid names closest to a misspelt one ---- */

#define SUGGEST_MAX_LEN 64		/* longer names are never suggested */
#define SUGGEST_MAX 3

/*
 * Edit distance between two names, ignoring case: inserting or deleting a
 * character costs 1, swapping two adjacent ones 1, replacing one 2 (as much
 * as deleting it and inserting another).  With insertions cheap, an
 * abbreviation ("MovingAvg") comes closer to its full name ("MovingAverage")
 * than to a name of its own length ("MovingSum").  la and lb are the
 * lengths, at most SUGGEST_MAX_LEN.
 */
static int
name_distance(const char *a, int la, const char *b, int lb)
{
	int			rows[3][SUGGEST_MAX_LEN + 1];
	int		   *prev2 = rows[0],
			   *prev = rows[1],
			   *cur = rows[2];

	for (int j = 0; j <= lb; j++)
		prev[j] = j;
	for (int i = 1; i <= la; i++)
	{
		char		ca = pg_ascii_tolower((unsigned char) a[i - 1]);
		int		   *t;

		cur[0] = i;
		for (int j = 1; j <= lb; j++)
		{
			char		cb = pg_ascii_tolower((unsigned char) b[j - 1]);
			int			d = prev[j - 1] + (ca == cb ? 0 : 2);

			d = Min(d, prev[j] + 1);
			d = Min(d, cur[j - 1] + 1);
			if (i > 1 && j > 1 && ca != cb &&
				ca == pg_ascii_tolower((unsigned char) b[j - 2]) &&
				pg_ascii_tolower((unsigned char) a[i - 2]) == cb)
				d = Min(d, prev2[j - 2] + 1);
			cur[j] = d;
		}
		t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb];
}

typedef struct Suggestion
{
	const char *input;
	int			n;
	const char *names[SUGGEST_MAX];
	int			dist[SUGGEST_MAX];
} Suggestion;

static void
suggest_init(Suggestion *s, const char *input)
{
	s->input = input;
	s->n = 0;
}

/*
 * Keep name if it is among the closest so far, and close at all: within a
 * third of the longer name's length.  Ties keep the order of consideration.
 */
static void
suggest_consider(Suggestion *s, const char *name)
{
	int			la = strnlen(s->input, SUGGEST_MAX_LEN + 1),
				lb = strnlen(name, SUGGEST_MAX_LEN + 1);
	int			d,
				i;

	if (la > SUGGEST_MAX_LEN || lb > SUGGEST_MAX_LEN)
		return;
	d = name_distance(s->input, la, name, lb);
	if (d > Max(la, lb) / 3)
		return;
	for (i = s->n; i > 0 && s->dist[i - 1] > d; i--)
	{
		if (i < SUGGEST_MAX)
		{
			s->names[i] = s->names[i - 1];
			s->dist[i] = s->dist[i - 1];
		}
	}
	if (i < SUGGEST_MAX)
	{
		s->names[i] = name;
		s->dist[i] = d;
		s->n = Min(s->n + 1, SUGGEST_MAX);
	}
}

/* errhint() naming the suggestions, else the fallback hint (may be NULL). */
static int
errhint_suggestion(const Suggestion *s, const char *otherwise)
{
	/* an exact match but for case outranks every other */
	int			n = (s->n > 0 && s->dist[0] == 0) ? 1 : s->n;

	if (n > 0)
		return errhint("Did you mean %s?", quoted_list(s->names, n, "or"));
	if (otherwise)
		return errhint("%s", otherwise);
	return 0;
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
	/* read by read_prototype, not declared */
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
		return psprintf("The only parameter of %s is %s.", t->name, quoted_list(names, n, "and"));
	return psprintf("The parameters of %s are %s.", t->name, quoted_list(names, n, "and"));
}

/* What an object with members to check is. */
typedef enum MemberOwner
{
	OWNER_PIPELINE,
	OWNER_CONNECTION,
	OWNER_OPERATOR,				/* its type's parameters are members too */
	OWNER_SHORTHAND,			/* the same, the operator being the whole spec */
	OWNER_PROGRAM,				/* a program (the original's form) */
	OWNER_PORT_OPERATOR,		/* a program's Input or Output */
	OWNER_PROTOTYPE,			/* a KeyedPipeline's "prototype" */
	OWNER_TRIGGER_OUTPUT		/* a TriggerSet's "outputOperator" */
} MemberOwner;

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
static void
check_members(SpecReader *r, const SpJsonNode *obj, const char *const *names,
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

		suggest_init(&s, sp_json_string(r->doc, k));
		for (int i = 0; names[i]; i++)
			suggest_consider(&s, names[i]);
		for (const SpParamDef *d = params; d && d->name; d++)
			suggest_consider(&s, d->name);
		switch (owner)
		{
			case OWNER_PIPELINE:
				spec_error(errmsg("unrecognized pipeline field \"%s\"", sp_json_shown(s.input)),
						   errhint_suggestion(&s, psprintf("The fields of a pipeline are %s.",
														   quoted_list(names, list_length(names), "and"))));
				break;
			case OWNER_PROGRAM:
				spec_error(errmsg("unrecognized program field \"%s\"", sp_json_shown(s.input)),
						   errhint_suggestion(&s, psprintf("The fields of a program are %s.",
														   quoted_list(names, list_length(names), "and"))));
				break;
			case OWNER_PORT_OPERATOR:
				spec_error(errmsg("unrecognized parameter \"%s\"", sp_json_shown(s.input)),
						   errhint_suggestion(&s, "The only parameter of Input and Output is \"portTypes\"."));
				break;
			case OWNER_PROTOTYPE:
				spec_error(errmsg("unrecognized prototype field \"%s\"", sp_json_shown(s.input)),
						   errhint_suggestion(&s, psprintf("The fields of a KeyedPipeline's prototype are %s.",
														   quoted_list(names, list_length(names), "and"))));
				break;
			case OWNER_TRIGGER_OUTPUT:
				spec_error(errmsg("unrecognized field \"%s\" in \"outputOperator\"", sp_json_shown(s.input)),
						   errhint_suggestion(&s, "A TriggerSet's \"outputOperator\" is an id or {\"id\": id, \"port\": \"o1\"}."));
				break;
			case OWNER_CONNECTION:
				spec_error(errmsg("unrecognized connection field \"%s\"", sp_json_shown(s.input)),
						   errhint_suggestion(&s, psprintf("The fields of a connection are %s.",
														   quoted_list(names, list_length(names), "and"))));
				break;
			case OWNER_OPERATOR:
			case OWNER_SHORTHAND:
				spec_error(errmsg("unrecognized parameter \"%s\"", sp_json_shown(s.input)),
						   errhint_suggestion(&s, parameters_hint(t)));
				break;
		}
	}
}

/* A string member, or NULL when absent and not required. */
static const SpJsonNode *
string_member(SpecReader *r, const SpJsonNode *obj, const char *key, bool required)
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

static int
read_port_types(SpecReader *r, const SpJsonNode *j, const char *field, SpPortType **out)
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
	*out = keep_alloc0(r, sizeof(SpPortType) * n);
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
			suggest_init(&s, name);
			for (int k = 0; port_type_names[k]; k++)
				suggest_consider(&s, port_type_names[k]);
			spec_error(errmsg("unrecognized port type \"%s\"", sp_json_shown(name)),
					   errhint_suggestion(&s, "Use \"number\", \"boolean\", \"vector_number\" or \"vector_boolean\"."),
					   errcontext("element %d of \"%s\"", i + 1, field));
		}
	}
	return n;
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

/* The type of an operator's input port (0-based, controls included). */
static SpPortType
op_in_type(const SpOperator *op, int port)
{
	return op->type->in_type_at ? op->type->in_type_at(&op->params, port) : op->type->in_type;
}

/* The type of an operator's output port (0-based). */
static SpPortType
op_out_type(const SpOperator *op, int port)
{
	return op->type->out_type_at ? op->type->out_type_at(&op->params, port) : op->type->out_type;
}

/* An operator's data ports: its ports but the controls. */
static int
op_ndata(const SpOperator *op)
{
	return op->nin - (op->type->nctl_from ? op->type->nctl_from(&op->params) : 0);
}

/* "i3", or "c1" for a control port */
static char *
op_port_name(const SpOperator *op, int port)
{
	int			nd = op_ndata(op);

	return port < nd ? psprintf("i%d", port + 1) : psprintf("c%d", port - nd + 1);
}

/* ---- operators ---- */

/* Where an error arises while one operator is read. */
typedef struct OperatorPlace
{
	int			index;
	const char *id;				/* NULL until known */
	const SpOpType *type;		/* NULL until known */
} OperatorPlace;

static void
operator_context(void *arg)
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
				v = keep_alloc0(r, sizeof(double) * Max(n, 1));
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
				v = keep_alloc0(r, sizeof(double) * 2 * Max(n, 1));
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

				n = read_port_types(r, j, d->name, &types);
				if (n < d->min || n > d->max)
					spec_error(errmsg("\"%s\" must list %.0f to %.0f port types",
									  d->name, d->min, d->max),
							   errdetail("It lists %d.", n));
				v = keep_alloc0(r, sizeof(double) * n);
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
							  quoted_list(d->choices, list_length(d->choices), "or")));
	}
}

/*
 * A member close to "type" in an operator that has none is a misspelt
 * "type", and is reported as unrecognized rather than "type" as missing.
 */
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

static void
check_misspelt_type(SpecReader *r, const SpJsonNode *j)
{
	for (const SpJsonNode *k = sp_json_first(j); k; k = sp_json_next(j, k))
	{
		Suggestion s;

		if (sp_json_string_eq(r->doc, k, "id"))
			continue;
		suggest_init(&s, sp_json_string(r->doc, k));
		suggest_consider(&s, "type");
		if (s.n > 0)
			spec_error(errmsg("unrecognized parameter \"%s\"", sp_json_shown(s.input)),
					   errhint_suggestion(&s, NULL));
	}
}

static SpConfig *read_spec(SpecReader *r, const SpJsonNode *doc);

/*
 * A Pipeline among the operators: read as a spec of its own, with a reader
 * of its own, and kept as the parameter of a sp_op_pipeline operator.
 */
static void
read_nested(SpecReader *r, SpOperator *op, const SpJsonNode *j, bool has_id)
{
	SpecReader	saved = *r;
	SpConfig   *sub;

	MemoryContext old;

	sub = read_spec(r, j);
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

static void read_operators(SpecReader *r, const SpJsonNode *pipe, const SpJsonNode *single);
static void read_connections(SpecReader *r, const SpJsonNode *j);
static void order_operators(SpecReader *r);
static int	require_op(SpecReader *r, const char *id, const char *field);

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
	check_members(r, j, prototype_end_fields, OWNER_PROTOTYPE, NULL);
	pt = string_member(r, j, "port", false);
	*port = pt ? sp_json_string(r->doc, pt) : NULL;
	return require_op(r, sp_json_string(r->doc, string_member(r, j, "operator", true)), field);
}

/*
 * A sub-mesh's one data port (r->cfg's): it feeds entry_op's "i1", of type.
 */
static void
mesh_input(SpecReader *r, const SpOperator *entry_op, SpPortType type)
{
	SpConfig   *sub = r->cfg;

	sub->n_in = 1;
	sub->in_types = keep_alloc0(r, sizeof(SpPortType));
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
	sub->out_op = keep_alloc0(r, sizeof(int));
	sub->out_port = keep_alloc0(r, sizeof(int));
	sub->map_order = keep_alloc0(r, sizeof(int));
	sub->out_types = keep_alloc0(r, sizeof(SpPortType));
	sub->out_op[0] = out;
	sub->out_port[0] = port ? parse_port(port, 'o', out_op->nout) : 0;
	if (sub->out_port[0] < 0)
		spec_error(errmsg("operator \"%s\" has no output port \"%s\"", out_op->id, sp_json_shown(port)));
	sub->out_types[0] = op_out_type(out_op, sub->out_port[0]);
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
		read_connections(r, cj);
	else
		sub->conns = keep_alloc0(r, sizeof(SpConnection));
	for (int i = 0; i < sub->n_ops; i++)
		for (int p = 0; p < sub->ops[i].nin; p++)
			if (sub->feeds[sub->ops[i].first_feed + p].op == -2)
				spec_error(errmsg("input port \"%s\" of operator \"%s\" is not connected",
								  op_port_name(&sub->ops[i], p), sub->ops[i].id),
						   errdetail("%s", where));
	order_operators(r);
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
static void
read_prototype(SpecReader *r, SpOperator *op, const SpJsonNode *j)
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
	check_members(r, pj, prototype_fields, OWNER_PROTOTYPE, NULL);
	sub = keep_alloc0(r, sizeof(SpConfig));
	r->cfg = sub;
	read_operators(r, pj, NULL);
	sub->id = op->id;

	sub->entry = prototype_end(r, pj, "entry", &port);
	entry_op = &sub->ops[sub->entry];
	if (port != NULL && strcmp(port, "i1") != 0)
		spec_error(errmsg("the entry of a KeyedPipeline's prototype must be port \"i1\", not \"%s\"",
						  sp_json_shown(port)));
	if (op_ndata(entry_op) < 1 ||
		(op_in_type(entry_op, 0) != SP_PORT_VECTOR_NUMBER && op_in_type(entry_op, 0) != SP_PORT_ANY))
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
static void
read_trigger_set(SpecReader *r, SpOperator *op, const SpJsonNode *j)
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

	sub = keep_alloc0(r, sizeof(SpConfig));
	r->cfg = sub;
	read_operators(r, j, NULL);
	sub->id = op->id;

	sub->entry = require_op(r, sp_json_string(r->doc, string_member(r, j, "entryOperator", true)),
							"entryOperator");
	entry_op = &sub->ops[sub->entry];
	if (op_ndata(entry_op) < 1 ||
		(op_in_type(entry_op, 0) != in_type && op_in_type(entry_op, 0) != SP_PORT_ANY))
		spec_error(errmsg("entry operator \"%s\" of TriggerSet \"%s\" must take a %s on \"i1\"",
						  entry_op->id, op->id, sp_port_type_name(in_type)),
				   op_ndata(entry_op) < 1 ? 0 :
				   errdetail("Its \"i1\" takes a %s; the TriggerSet's \"input_port_type\" is %s.",
							 sp_port_type_name(op_in_type(entry_op, 0)), sp_port_type_name(in_type)));
	mesh_input(r, entry_op, in_type);

	oj = sp_json_get(r->doc, j, "outputOperator");
	if (oj == NULL)
		spec_error(errmsg("\"outputOperator\" is required"),
				   errdetail("A TriggerSet names its output operator as an id or as {\"id\": id, \"port\": \"o1\"}."));
	if (sp_json_kind(oj) == SPJ_OBJECT)
	{
		const SpJsonNode *pt;

		check_members(r, oj, trigger_output_fields, OWNER_TRIGGER_OUTPUT, NULL);
		pt = string_member(r, oj, "port", false);
		port = pt ? sp_json_string(r->doc, pt) : NULL;
		out = require_op(r, sp_json_string(r->doc, string_member(r, oj, "id", true)), "outputOperator");
	}
	else
	{
		if (sp_json_kind(oj) != SPJ_STRING)
			spec_error(errmsg("\"outputOperator\" must be a string or a JSON object, not %s",
							  sp_json_kind_name(sp_json_kind(oj))));
		out = require_op(r, sp_json_string(r->doc, oj), "outputOperator");
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

/*
 * One operator; single: the whole spec is this operator (the shorthand), so
 * "Pipeline" is a type it could have meant.
 */
static void
read_operator(SpecReader *r, SpOperator *op, const SpJsonNode *j, int index, bool single)
{
	OperatorPlace place = {index, NULL, NULL};
	ErrorContextCallback callback;
	const SpJsonNode *idj;
	const SpJsonNode *typej;
	char	   *type;
	const char *msg;

	callback.callback = operator_context;
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
		op->id = keep_string(r, idj);
	else
		op->id = MemoryContextStrdup(r->keep, psprintf("op%d", index + 1));
	place.id = op->id;

	if (sp_json_get(r->doc, j, "type") == NULL)
		check_misspelt_type(r, j);
	typej = string_member(r, j, "type", true);
	type = sp_json_string(r->doc, typej);
	if (!single && strcmp(type, "Pipeline") == 0)
	{
		read_nested(r, op, j, idj != NULL);
		error_context_stack = callback.previous;
		return;
	}
	op->type = sp_find_op_type(type);
	if (op->type == NULL)
	{
		Suggestion s;
		const SpOpType *t;

		suggest_init(&s, type);
		if (single)
			suggest_consider(&s, "Pipeline");
		for (int i = 0; (t = sp_op_type_at(i)) != NULL; i++)
			suggest_consider(&s, t->name);
		spec_error(errmsg("unrecognized operator type \"%s\"", sp_json_shown(type)),
				   errhint_suggestion(&s, "The operator types are listed under \"Operators\" in docs/reference.md."));
	}
	place.type = op->type;
	if (op->type == &sp_op_time_shift)
		check_time_shift(r, j);

	check_members(r, j, op->type == &sp_op_keyed_pipeline ? keyed_fields :
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
		read_prototype(r, op, j);
	if (op->type == &sp_op_trigger_set)
		read_trigger_set(r, op, j);
	op->nin = op->type->nin_from ? op->type->nin_from(&op->params) : op->type->nin;
	error_context_stack = callback.previous;
}

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

static int
find_op(const SpecReader *r, const char *id)
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
static int
require_op(SpecReader *r, const char *id, const char *field)
{
	int			i = find_op(r, id);

	if (i < 0)
	{
		Suggestion s;

		suggest_init(&s, id);
		for (int k = 0; k < r->cfg->n_ops; k++)
			suggest_consider(&s, r->cfg->ops[k].id);
		spec_error(errmsg("operator \"%s\" named in \"%s\" does not exist", sp_json_shown(id), field),
				   errhint_suggestion(&s, NULL));
	}
	return i;
}

/* ---- wiring ---- */

static void
connection_context(void *arg)
{
	errcontext("connection %d", *(const int *) arg + 1);
}

static void
read_connections(SpecReader *r, const SpJsonNode *j)
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
	cfg->conns = keep_alloc0(r, sizeof(SpConnection) * Max(Min(sp_json_count(j), r->n_feeds), 1));

	callback.callback = connection_context;
	callback.arg = &c;
	callback.previous = error_context_stack;
	error_context_stack = &callback;
	for (const SpJsonNode *cj = sp_json_first(j); cj; cj = sp_json_next(j, cj), c++)
	{
		const SpJsonNode *fp,
				   *tp;
		const SpOperator *from,
				   *to;
		int			from_i,
					from_port,
					to_i,
					to_port;
		SpSource   *feed;

		if (sp_json_kind(cj) != SPJ_OBJECT)
			spec_error(errmsg("connection must be a JSON object, not %s",
							  sp_json_kind_name(sp_json_kind(cj))));
		check_members(r, cj, connection_fields, OWNER_CONNECTION, NULL);
		from_i = require_op(r, sp_json_string(r->doc, string_member(r, cj, "from", true)), "from");
		to_i = require_op(r, sp_json_string(r->doc, string_member(r, cj, "to", true)), "to");
		from = &cfg->ops[from_i];
		to = &cfg->ops[to_i];
		fp = string_member(r, cj, "fromPort", false);
		tp = string_member(r, cj, "toPort", false);
		from_port = fp ? parse_port(sp_json_string(r->doc, fp), 'o', from->nout) : 0;
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
		if (tp && sp_json_string(r->doc, tp)[0] == 'c' && op_ndata(to) < to->nin)
		{
			to_port = parse_port(sp_json_string(r->doc, tp), 'c', to->nin - op_ndata(to));
			if (to_port >= 0)
				to_port += op_ndata(to);
		}
		else
			to_port = tp ? parse_port(sp_json_string(r->doc, tp), 'i', op_ndata(to)) : 0;
		if (to_port < 0 && op_ndata(to) < to->nin)
			spec_error(errmsg("operator \"%s\" has no input port \"%s\"",
							  to->id, sp_json_shown(sp_json_string(r->doc, tp))),
					   errdetail("Operator \"%s\" has data ports \"i1\" to \"i%d\" and control ports \"c1\" to \"c%d\".",
								 to->id, op_ndata(to), to->nin - op_ndata(to)));
		if (to_port < 0)
			spec_error(errmsg("operator \"%s\" has no input port \"%s\"",
							  to->id, sp_json_shown(sp_json_string(r->doc, tp))),
					   errdetail_plural("Operator \"%s\" has %d input port, \"i%d\".",
										"Operator \"%s\" has %d input ports, \"i1\" to \"i%d\".",
										to->nin, to->id, to->nin, to->nin));
		if (op_out_type(from, from_port) != op_in_type(to, to_port) &&
			op_in_type(to, to_port) != SP_PORT_ANY)
			spec_error(errmsg("cannot connect %s output of operator \"%s\" to %s input of operator \"%s\"",
							  sp_port_type_name(op_out_type(from, from_port)), from->id,
							  sp_port_type_name(op_in_type(to, to_port)), to->id),
					   op_out_type(from, from_port) == SP_PORT_BOOLEAN ?
					   errhint("Put a BooleanToNumber operator between them.") : 0);
		feed = &cfg->feeds[to->first_feed + to_port];
		if (feed->op != -2)
		{
			int			by = r->fed_by[to->first_feed + to_port];

			spec_error(errmsg("input port \"%s\" of operator \"%s\" is fed twice",
							  op_port_name(to, to_port), to->id),
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
		cfg->conns[c].from = from_i;
		cfg->conns[c].from_port = from_port;
		cfg->conns[c].to = to_i;
		cfg->conns[c].to_port = to_port;
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
static void
order_operators(SpecReader *r)
{
	SpConfig   *cfg = r->cfg;
	int		   *indeg = palloc0(sizeof(int) * cfg->n_ops);
	int			head = 0,
				tail = 0;

	cfg->order = keep_alloc0(r, sizeof(int) * cfg->n_ops);
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
		op = require_op(r, opname, "outputMappings");
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
			int			from_port = parse_port(name, 'o', o->nout);

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
			port = parse_port(name, 'o', cfg->n_out);
			if (port < 0)
				spec_error(errmsg("pipeline output port \"%s\" does not exist", sp_json_shown(name)),
						   errdetail_plural("The pipeline has %d output port.",
											"The pipeline has %d output ports.",
											cfg->n_out, cfg->n_out));
			if (cfg->out_op[port] >= 0)
				spec_error(errmsg("pipeline output port \"o%d\" is mapped twice", port + 1),
						   errdetail("Operator \"%s\" is mapped to it already.",
									 cfg->ops[cfg->out_op[port]].id));
			if (op_out_type(o, from_port) != cfg->out_types[port])
				spec_error(errmsg("cannot map a %s output to %s pipeline output port \"o%d\"",
								  sp_port_type_name(op_out_type(o, from_port)),
								  sp_port_type_name(cfg->out_types[port]), port + 1),
						   op_out_type(o, from_port) == SP_PORT_BOOLEAN ?
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
static void
read_operators(SpecReader *r, const SpJsonNode *pipe, const SpJsonNode *single)
{
	SpConfig   *cfg = r->cfg;
	const SpJsonNode *ops_json = NULL;
	const SpJsonNode *oj;
	int			nfeeds = 0;
	int			dup_first = -1,
				dup_second = -1;
	MemoryContext old;

	if (single == NULL)
	{
		ops_json = sp_json_get(r->doc, pipe, "operators");
		if (ops_json == NULL)
			spec_error(errmsg("\"operators\" is required"));
		if (sp_json_kind(ops_json) != SPJ_ARRAY || sp_json_first(ops_json) == NULL)
			spec_error(errmsg("\"operators\" must be a non-empty array"));
		cfg->n_ops = sp_json_count(ops_json);
		if (cfg->n_ops > SP_MAX_OPERATORS)
			spec_error(errmsg("too many operators"),
					   errdetail("The pipeline has %d operators; at most %d are allowed.",
								 cfg->n_ops, SP_MAX_OPERATORS));
	}
	else
		cfg->n_ops = 1;
	cfg->ops = keep_alloc0(r, sizeof(SpOperator) * cfg->n_ops);
	oj = single ? single : sp_json_first(ops_json);
	for (int i = 0; i < cfg->n_ops; i++, oj = single ? NULL : sp_json_next(ops_json, oj))
	{
		SpOperator *op = &cfg->ops[i];

		read_operator(r, op, oj, i, single != NULL);
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
							 dup_first + 1, dup_second + 1));

	/* the total state is known now: refuse a pipeline too large at once */
	old = MemoryContextSwitchTo(r->keep);
	sp_config_layout(cfg);
	MemoryContextSwitchTo(old);

	cfg->feeds = keep_alloc0(r, sizeof(SpSource) * nfeeds);
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
		cfg->n_in = read_port_types(r, j, "input_port_types", &cfg->in_types);
	else
	{
		cfg->n_in = entry_op->nin;
		cfg->in_types = keep_alloc0(r, sizeof(SpPortType) * cfg->n_in);
		for (int i = 0; i < cfg->n_in; i++)
			cfg->in_types[i] = op_in_type(entry_op, i) == SP_PORT_ANY ?
				SP_PORT_NUMBER : op_in_type(entry_op, i);
	}
	if ((j = sp_json_get(r->doc, pipe, "output_port_types")) != NULL)
		cfg->n_out = read_port_types(r, j, "output_port_types", &cfg->out_types);
	else
	{
		cfg->n_out = 1;
		cfg->out_types = keep_alloc0(r, sizeof(SpPortType));
		cfg->out_types[0] = cfg->n_ops == 1 ? op_out_type(entry_op, 0) : SP_PORT_NUMBER;
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
		if (cfg->in_types[i] != op_in_type(entry_op, i) &&
			op_in_type(entry_op, i) != SP_PORT_ANY)
			spec_error(errmsg("pipeline input port %d is %s, but entry operator \"%s\" takes %s",
							  i + 1, sp_port_type_name(cfg->in_types[i]), entry_op->id,
							  sp_port_type_name(op_in_type(entry_op, i))));
		cfg->feeds[entry_op->first_feed + i].op = -1;
		cfg->feeds[entry_op->first_feed + i].port = i;
		r->fed_by[entry_op->first_feed + i] = -1;
	}
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
	v = keep_alloc0(r, sizeof(double) * Max(*n, 1));
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
static void
read_segment_bytecode(SpecReader *r, const SpJsonNode *pipe)
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
static void
refuse_top_level_bytecode(const SpConfig *cfg)
{
	if (cfg->segment_rpn != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("\"segmentBytecode\" in the outermost pipeline is not supported"),
				 errdetail("The segments of the outermost pipeline are the rows of equal values of the SQL call's key argument."),
				 errhint("Compute the key in SQL and pass it as the key argument, or nest the pipeline as an operator of an outer one whose data port feeds its \"i1\".")));
}

/* Output mappings, or the default o1 -> o1 of a one-operator pipeline. */
static void
read_outputs(SpecReader *r, const SpJsonNode *pipe)
{
	SpConfig   *cfg = r->cfg;
	const SpJsonNode *j = sp_json_get(r->doc, pipe, "outputMappings");

	cfg->out_op = keep_alloc0(r, sizeof(int) * cfg->n_out);
	cfg->out_port = keep_alloc0(r, sizeof(int) * cfg->n_out);
	cfg->map_order = keep_alloc0(r, sizeof(int) * cfg->n_out);
	for (int p = 0; p < cfg->n_out; p++)
		cfg->out_op[p] = -1;
	if (j)
		read_output_mappings(r, j);
	else if (cfg->n_ops == 1 && cfg->n_out == 1)
	{
		if (op_out_type(&cfg->ops[0], 0) != cfg->out_types[0])
			spec_error(errmsg("operator \"%s\" has a %s output, but pipeline output port \"o1\" is %s",
							  cfg->ops[0].id, sp_port_type_name(op_out_type(&cfg->ops[0], 0)),
							  sp_port_type_name(cfg->out_types[0])));
		cfg->out_op[0] = 0;
		cfg->map_order[0] = 0;
	}
	else
		spec_error(errmsg("\"outputMappings\" is required"),
				   errdetail("Only a pipeline of one operator and one output port maps it by default."));
}

static SpConfig *
read_spec(SpecReader *r, const SpJsonNode *doc)
{
	SpConfig   *cfg = keep_alloc0(r, sizeof(SpConfig));
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
		read_operators(r, NULL, doc);
		pipe = NULL;			/* sp_json_get(NULL, ...) finds nothing */
	}
	else
	{
		check_members(r, doc, pipeline_fields, OWNER_PIPELINE, NULL);
		/* "type" may be left out of a full pipeline spec, never of an operator */
		if (typej == NULL && sp_json_get(r->doc, doc, "operators") == NULL)
			spec_error(errmsg("\"type\" is required"),
					   errdetail("Only a pipeline, with \"operators\", may leave it out."));
		read_operators(r, doc, NULL);
	}

	j = sp_json_get(r->doc, pipe, "id");
	if (j && (sp_json_kind(j) != SPJ_STRING || sp_json_string_eq(r->doc, j, "")))
		spec_error(errmsg("\"id\" must be a non-empty string"));
	if (j && sp_json_string_length(r->doc, j) > SPEC_MAX_ID_LEN)
		spec_error(errmsg("pipeline id is too long"),
				   errdetail("It has %d bytes; at most %d are allowed.",
							 sp_json_string_length(r->doc, j), SPEC_MAX_ID_LEN));
	cfg->id = j ? keep_string(r, j) : MemoryContextStrdup(r->keep, "pipeline");
	j = sp_json_get(r->doc, pipe, "late");
	if (j && (sp_json_kind(j) != SPJ_STRING ||
			  (!sp_json_string_eq(r->doc, j, "error") && !sp_json_string_eq(r->doc, j, "drop"))))
		spec_error(errmsg("\"late\" must be \"error\" or \"drop\""));
	cfg->late_drop = j && sp_json_string_eq(r->doc, j, "drop");

	j = string_member(r, pipe, "entryOperator", false);
	if (j == NULL && cfg->n_ops > 1)
		spec_error(errmsg("\"entryOperator\" is required"),
				   errdetail("With more than one operator, it names the one the pipeline's data ports feed."));
	cfg->entry = j ? require_op(r, sp_json_string(r->doc, j), "entryOperator") : 0;

	read_ports(r, pipe);
	read_segment_bytecode(r, pipe);

	if ((j = sp_json_get(r->doc, pipe, "connections")) != NULL)
		read_connections(r, j);
	else
		cfg->conns = keep_alloc0(r, sizeof(SpConnection));
	for (int i = 0; i < cfg->n_ops; i++)
		for (int p = 0; p < cfg->ops[i].nin; p++)
			if (cfg->feeds[cfg->ops[i].first_feed + p].op == -2)
				spec_error(errmsg("input port \"%s\" of operator \"%s\" is not connected",
								  op_port_name(&cfg->ops[i], p), cfg->ops[i].id));
	order_operators(r);

	read_outputs(r, pipe);
	{
		MemoryContext old = MemoryContextSwitchTo(r->keep);

		sp_config_vectors(cfg);
		MemoryContextSwitchTo(old);
	}
	return cfg;
}

/* ---- programs: the original's Input, one Pipeline and an Output ---- */

static const char *const program_fields[] = {
	"operators", "connections", "entryOperator", "output",
	"title", "description", "apiVersion", NULL
};
static const char *const port_operator_fields[] = {"type", "id", "portTypes", NULL};

/* The program's own operators: at most these three are allowed. */
typedef enum ProgramRole
{
	ROLE_INPUT,
	ROLE_PIPELINE,
	ROLE_OUTPUT,
	N_ROLES
} ProgramRole;

static const char *const role_names[] = {"Input", "Pipeline", "Output"};

typedef struct ProgramReader
{
	const SpJsonNode *node[N_ROLES];	/* NULL when absent */
	const char *id[N_ROLES];
	int			nports[N_ROLES];	/* Input, Output: their ports */
	SpPortType *types[N_ROLES];
	int		   *input_to;		/* per Input port: the Pipeline data port it
								 * feeds, SP_MAX_PORTS for c1, -1 none */
	int		   *output_from;	/* per Output port: the Pipeline output port
								 * feeding it, -1 none */
} ProgramReader;

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
	suggest_init(&s, id);
	for (int k = 0; k < N_ROLES; k++)
		if (p->id[k])
			suggest_consider(&s, p->id[k]);
	spec_error(errmsg("operator \"%s\" named in \"%s\" does not exist", sp_json_shown(id), field),
			   errhint_suggestion(&s, NULL));
	pg_unreachable();
}

/* An Input's or Output's "portTypes". */
static void
read_port_operator(SpecReader *r, ProgramReader *p, ProgramRole role, const SpJsonNode *j)
{
	const SpJsonNode *pt;

	check_members(r, j, port_operator_fields, OWNER_PORT_OPERATOR, NULL);
	pt = sp_json_get(r->doc, j, "portTypes");
	if (pt == NULL)
		spec_error(errmsg("parameter \"portTypes\" is required"));
	p->nports[role] = read_port_types(r, pt, "portTypes", &p->types[role]);
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

		callback.callback = operator_context;
		callback.arg = &place;
		callback.previous = error_context_stack;
		error_context_stack = &callback;
		if (sp_json_kind(oj) != SPJ_OBJECT)
			spec_error(errmsg("operator must be a JSON object, not %s",
							  sp_json_kind_name(sp_json_kind(oj))));
		idj = string_member(r, oj, "id", true);
		if (sp_json_string_eq(r->doc, idj, "") ||
			sp_json_string_length(r->doc, idj) > SPEC_MAX_ID_LEN)
			spec_error(errmsg("\"id\" must be a non-empty string of at most %d bytes",
							  SPEC_MAX_ID_LEN));
		place.id = sp_json_string(r->doc, idj);
		type = sp_json_string(r->doc, string_member(r, oj, "type", true));
		for (int k = 0; k < N_ROLES; k++)
			if (strcmp(type, role_names[k]) == 0)
				role = k;
		if (role < 0)
		{
			if (sp_find_op_type(type) == NULL)
			{
				Suggestion s;
				const SpOpType *t;

				suggest_init(&s, type);
				for (int k = 0; k < N_ROLES; k++)
					suggest_consider(&s, role_names[k]);
				for (int k = 0; (t = sp_op_type_at(k)) != NULL; k++)
					suggest_consider(&s, t->name);
				spec_error(errmsg("unrecognized operator type \"%s\"", sp_json_shown(type)),
						   errhint_suggestion(&s, "The operator types are listed under \"Operators\" in docs/reference.md."));
			}
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("operator \"%s\" outside the program's Pipeline is not supported",
							sp_json_shown(place.id)),
					 errdetail("A program is an Input, one Pipeline and an Output: the Pipeline's segments are the rows of equal keys."),
					 errhint("Move it into the Pipeline's \"operators\".")));
		}
		for (int k = 0; k < N_ROLES; k++)
			if (p->id[k] && strcmp(p->id[k], place.id) == 0)
				spec_error(errmsg("duplicate operator id \"%s\"", sp_json_shown(place.id)));
		if (p->node[role] != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("a program with more than one %s is not supported", role_names[role]),
					 errdetail("Operator \"%s\" is its %s already.", p->id[role], role_names[role])));
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
	refuse_top_level_bytecode(read_spec(r, p->node[ROLE_PIPELINE]));
	error_context_stack = callback.previous;
}

/*
 * A program port name: "o", "i" or "c" then N, N in 1..limit; returns N - 1
 * and sets *kind, or -1.
 */
static int
program_port(const char *s, char *kind, int limit)
{
	*kind = s[0];
	if (s[0] != 'o' && s[0] != 'i' && s[0] != 'c')
		return -1;
	return parse_port(s, s[0], limit);
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
	callback.callback = connection_context;
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
		check_members(r, cj, connection_fields, OWNER_CONNECTION, NULL);
		from = program_op(r, p, sp_json_string(r->doc, string_member(r, cj, "from", true)), "from");
		to = program_op(r, p, sp_json_string(r->doc, string_member(r, cj, "to", true)), "to");
		if (!((from == ROLE_INPUT && to == ROLE_PIPELINE) ||
			  (from == ROLE_PIPELINE && to == ROLE_OUTPUT)))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("a connection from %s \"%s\" to %s \"%s\" is not supported",
							role_names[from], p->id[from], role_names[to], p->id[to]),
					 errdetail("A program's connections go from its Input to its Pipeline, and from its Pipeline to its Output.")));
		fp = string_member(r, cj, "fromPort", false);
		tp = string_member(r, cj, "toPort", false);
		fname = fp ? sp_json_string(r->doc, fp) : "o1";
		tname = tp ? sp_json_string(r->doc, tp) : "i1";
		fport = program_port(fname, &fkind, from == ROLE_INPUT ? p->nports[ROLE_INPUT] : cfg->n_out);
		if (fport < 0 || fkind != 'o')
			spec_error(errmsg("operator \"%s\" has no output port \"%s\"", p->id[from], sp_json_shown(fname)),
					   errdetail_plural("Operator \"%s\" has %d output port, \"o%d\".",
										"Operator \"%s\" has %d output ports, \"o1\" to \"o%d\".",
										from == ROLE_INPUT ? p->nports[ROLE_INPUT] : cfg->n_out,
										p->id[from], from == ROLE_INPUT ? p->nports[ROLE_INPUT] : cfg->n_out,
										from == ROLE_INPUT ? p->nports[ROLE_INPUT] : cfg->n_out));
		tport = program_port(tname, &tkind, to == ROLE_PIPELINE ? (tname[0] == 'c' ? 1 : cfg->n_in) : p->nports[ROLE_OUTPUT]);
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
			port = parse_port(name, 'o', limit);
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
	types = keep_alloc0(r, sizeof(SpPortType) * n);
	out_op = keep_alloc0(r, sizeof(int) * n);
	out_port = keep_alloc0(r, sizeof(int) * n);
	map_order = keep_alloc0(r, sizeof(int) * n);
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
static SpConfig *
read_program(SpecReader *r, const SpJsonNode *doc)
{
	ProgramReader p = {0};
	const SpJsonNode *j;

	check_members(r, doc, program_fields, OWNER_PROGRAM, NULL);
	read_program_operators(r, &p, doc);
	j = string_member(r, doc, "entryOperator", true);
	if (!sp_json_string_eq(r->doc, j, p.id[ROLE_INPUT]))
		spec_error(errmsg("\"entryOperator\" must name the Input operator \"%s\"", p.id[ROLE_INPUT]),
				   errdetail("It names \"%s\".", sp_json_shown(sp_json_string(r->doc, j))));
	read_program_pipeline(r, &p);
	read_program_connections(r, &p, doc);
	read_program_output(r, &p, doc);
	return r->cfg;
}

/*
 * A document is a program when it has no "type" and has what only a
 * program has: an "output", or an Input among its operators.
 */
static bool
is_program(SpecReader *r, const SpJsonNode *doc)
{
	const SpJsonNode *ops;

	if (sp_json_get(r->doc, doc, "type") != NULL)
		return false;
	if (sp_json_get(r->doc, doc, "output") != NULL)
		return true;
	ops = sp_json_get(r->doc, doc, "operators");
	if (ops == NULL || sp_json_kind(ops) != SPJ_ARRAY)
		return false;
	for (const SpJsonNode *oj = sp_json_first(ops); oj; oj = sp_json_next(ops, oj))
	{
		const SpJsonNode *t = sp_json_kind(oj) == SPJ_OBJECT ?
			sp_json_get(r->doc, oj, "type") : NULL;

		if (t && sp_json_kind(t) == SPJ_STRING && sp_json_string_eq(r->doc, t, "Input"))
			return true;
	}
	return false;
}

SpConfig *
sp_spec_read(const char *text)
{
	MemoryContext keep = CurrentMemoryContext;
	MemoryContext work = AllocSetContextCreate(keep, "segpipe spec reader",
											   ALLOCSET_DEFAULT_SIZES);
	SpecReader	r = {0};
	SpConfig   *cfg;

	MemoryContextSwitchTo(work);
	r.doc = sp_json_parse(text, "pipeline");
	{
		char	   *expanded = sp_spec_expand(r.doc);

		if (expanded != NULL)
			r.doc = sp_json_parse(expanded, "pipeline");
	}
	r.keep = keep;
	if (sp_json_kind(&r.doc->nodes[0]) == SPJ_OBJECT && is_program(&r, &r.doc->nodes[0]))
		cfg = read_program(&r, &r.doc->nodes[0]);
	else
		cfg = read_spec(&r, &r.doc->nodes[0]);
	refuse_top_level_bytecode(cfg);
	MemoryContextSwitchTo(keep);
	MemoryContextDelete(work);
	return cfg;
}
