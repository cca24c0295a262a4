/*
 * sp_spec_proto.c
 *	  Prototypes: the original's parameterized templates of operators,
 *	  expanded into the spec they stand for before it is read.
 *
 * A spec or program with a "prototypes" member (or an operator with an
 * inline "prototype") is written out again with every instance replaced by
 * the prototype's operators: ids prefixed with "<instance>::", each string
 * that is exactly "${name}" replaced by the instance's value for that
 * parameter (or the parameter's default), and connections, entry operators,
 * output mappings and program outputs that name an instance redirected to
 * the prototype's entry or output operator.  The result is read as any spec
 * is, so a spec with prototypes is stored as the spec it expands to
 * (docs/reference.md, "Prototypes").
 *
 * Expansion is bounded: at most 4 * SP_MAX_OPERATORS operators are
 * instantiated (a spec then refuses more than SP_MAX_OPERATORS in one
 * Pipeline), a prototype may not contain itself, and the text written may
 * not exceed PROTO_MAX_TEXT (54000).
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/json.h"
#include "sp_json.h"
#include "sp_spec.h"

#define spec_error(...) \
	ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), __VA_ARGS__))

/* bytes of expanded text, at most */
#define PROTO_MAX_TEXT	(64 * 1024 * 1024)

static const char *const param_types[] = {"number", "string", "boolean", "array", "object", NULL};

/* A parameter's value: a node, to be written under the bindings it came with. */
typedef struct Binding
{
	const char *name;
	const SpJsonNode *value;
	const struct Env *env;
} Binding;

typedef struct Env
{
	int			n;
	Binding    *b;
	const char *instance;		/* for messages */
} Env;

/* An instance among the operators of one list, and where it leads. */
typedef struct Instance
{
	const char *id;
	char	   *entry;			/* qualified id of its entry operator */
	char	   *output;			/* ... and of its output operator */
} Instance;

typedef struct Expander
{
	const SpJsonDoc *doc;
	const SpJsonNode *prototypes;	/* the "prototypes" object, or NULL */
	StringInfoData out;
	int			n_ops;			/* operators instantiated so far */
	const char *stack[SP_MAX_OPERATORS];	/* prototypes being expanded */
	int			depth;
	StringInfo	pending;		/* instances' connections, for the list of
								 * connections of the container being written */
} Expander;

static void write_value(Expander *x, const SpJsonNode *v, const Env *env);
static void write_operator_list(Expander *x, const SpJsonNode *ops, const Env *env,
								const char *prefix, Instance **insts, int *n_insts,
								bool brackets);

static void
check_size(Expander *x)
{
	if (x->out.len > PROTO_MAX_TEXT)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("prototypes expand to too large a spec"),
				 errdetail("The expanded spec would exceed %d bytes.", PROTO_MAX_TEXT)));
}

/* "${name}" -> name, else NULL */
static char *
reference_name(const SpJsonDoc *doc, const SpJsonNode *v)
{
	char	   *s;
	int			len;

	if (sp_json_kind(v) != SPJ_STRING)
		return NULL;
	s = sp_json_string(doc, v);
	len = strlen(s);
	if (len > 3 && s[0] == '$' && s[1] == '{' && s[len - 1] == '}')
	{
		s[len - 1] = '\0';
		return s + 2;
	}
	return NULL;
}

static const Binding *
lookup(const Env *env, const char *name)
{
	for (int i = 0; env && i < env->n; i++)
		if (strcmp(env->b[i].name, name) == 0)
			return &env->b[i];
	return NULL;
}

/* The binding a reference stands for; unknown references are refused. */
static const Binding *
resolve(Expander *x, const SpJsonNode *v, const Env *env)
{
	char	   *name;
	const Binding *b;

	if (env == NULL || (name = reference_name(x->doc, v)) == NULL)
		return NULL;
	b = lookup(env, name);
	if (b == NULL)
		spec_error(errmsg("unknown parameter reference \"${%s}\"", sp_json_shown(name)),
				   errdetail("Prototype instance \"%s\" has no parameter \"%s\".",
							 env->instance, sp_json_shown(name)));
	return b;
}

static void
write_string(Expander *x, const char *s)
{
	escape_json(&x->out, s);
}

/* A value, with references resolved under env (none when env is NULL). */
static void
write_value(Expander *x, const SpJsonNode *v, const Env *env)
{
	const Binding *b = resolve(x, v, env);

	if (b != NULL)
	{
		write_value(x, b->value, b->env);
		return;
	}
	check_size(x);
	switch (sp_json_kind(v))
	{
		case SPJ_NULL:
			appendStringInfoString(&x->out, "null");
			break;
		case SPJ_BOOL:
			appendStringInfoString(&x->out, sp_json_bool(x->doc, v) ? "true" : "false");
			break;
		case SPJ_NUMBER:
			{
				const char *p = x->doc->text + v->pos;

				appendBinaryStringInfo(&x->out, p, sp_json_number_end(p) - p);
				break;
			}
		case SPJ_STRING:
		case SPJ_KEY:
			write_string(x, sp_json_string(x->doc, v));
			break;
		case SPJ_ARRAY:
			appendStringInfoChar(&x->out, '[');
			for (const SpJsonNode *e = sp_json_first(v); e; e = sp_json_next(v, e))
			{
				if (e != sp_json_first(v))
					appendStringInfoString(&x->out, ", ");
				write_value(x, e, env);
			}
			appendStringInfoChar(&x->out, ']');
			break;
		case SPJ_OBJECT:
			appendStringInfoChar(&x->out, '{');
			for (const SpJsonNode *k = sp_json_first(v); k; k = sp_json_next(v, k))
			{
				if (k != sp_json_first(v))
					appendStringInfoString(&x->out, ", ");
				write_string(x, sp_json_string(x->doc, k));
				appendStringInfoString(&x->out, ": ");
				write_value(x, sp_json_value(k), env);
			}
			appendStringInfoChar(&x->out, '}');
			break;
	}
}

/* A string member's value after resolution, or NULL when it is not a string. */
static char *
resolved_string(Expander *x, const SpJsonNode *v, const Env *env)
{
	const Binding *b;

	while ((b = resolve(x, v, env)) != NULL)
	{
		v = b->value;
		env = b->env;
	}
	return sp_json_kind(v) == SPJ_STRING ? sp_json_string(x->doc, v) : NULL;
}

static const Instance *
find_instance(const Instance *insts, int n, const char *id)
{
	for (int i = 0; i < n; i++)
		if (strcmp(insts[i].id, id) == 0)
			return &insts[i];
	return NULL;
}

/*
 * An operator id as written in a list under prefix: an instance's id
 * becomes its entry (to_entry) or output operator, and the prefix goes in
 * front.
 */
static void
write_id(Expander *x, const char *id, const char *prefix, const Instance *insts, int n_insts,
		 bool to_entry)
{
	const Instance *in = find_instance(insts, n_insts, id);

	if (in)
		write_string(x, to_entry ? in->entry : in->output);
	else
		write_string(x, psprintf("%s%s", prefix, id));
}

/*
 * A list of connections, its "from" and "to" redirected as write_id says;
 * anything else of a connection is written as it is.
 */
static void
write_connections(Expander *x, const SpJsonNode *conns, const Env *env, const char *prefix,
				  const Instance *insts, int n_insts, bool brackets)
{
	if (sp_json_kind(conns) != SPJ_ARRAY)
	{
		write_value(x, conns, env);		/* the reader names the fault */
		return;
	}
	if (brackets)
		appendStringInfoChar(&x->out, '[');
	for (const SpJsonNode *c = sp_json_first(conns); c; c = sp_json_next(conns, c))
	{
		if (c != sp_json_first(conns))
			appendStringInfoString(&x->out, ", ");
		if (sp_json_kind(c) != SPJ_OBJECT)
		{
			write_value(x, c, env);
			continue;
		}
		appendStringInfoChar(&x->out, '{');
		for (const SpJsonNode *k = sp_json_first(c); k; k = sp_json_next(c, k))
		{
			bool		from = sp_json_string_eq(x->doc, k, "from");
			char	   *id = NULL;

			if (k != sp_json_first(c))
				appendStringInfoString(&x->out, ", ");
			write_string(x, sp_json_string(x->doc, k));
			appendStringInfoString(&x->out, ": ");
			if (from || sp_json_string_eq(x->doc, k, "to"))
				id = resolved_string(x, sp_json_value(k), env);
			if (id)
				write_id(x, id, prefix, insts, n_insts, !from);
			else
				write_value(x, sp_json_value(k), env);
		}
		appendStringInfoChar(&x->out, '}');
	}
	if (brackets)
		appendStringInfoChar(&x->out, ']');
}

/*
 * The members of a spec, a program or a Pipeline operator: operators
 * expanded, and what names operators redirected.  prefix goes in front of
 * the ids of the operators of this list (an instance's), not of those of
 * Pipelines inside them, which have a list of their own.
 */
static void
write_container(Expander *x, const SpJsonNode *obj, const Env *env, const char *prefix,
				bool skip_prototypes)
{
	const SpJsonNode *ops = sp_json_get(x->doc, obj, "operators");
	Instance   *insts = NULL;
	int			n_insts = 0;
	bool		first = true;
	bool		wrote_connections = false;
	StringInfoData ops_text = {0};
	StringInfo	outer_pending = x->pending;
	StringInfo	pending = makeStringInfo();

	x->pending = pending;

	/* the operators first, so that the instances are known */
	if (ops != NULL && sp_json_kind(ops) == SPJ_ARRAY)
	{
		StringInfoData saved = x->out;

		initStringInfo(&x->out);
		write_operator_list(x, ops, env, "", &insts, &n_insts, true);
		ops_text = x->out;
		x->out = saved;
	}
	else
		ops_text.data = NULL;

	appendStringInfoChar(&x->out, '{');
	for (const SpJsonNode *k = sp_json_first(obj); k; k = sp_json_next(obj, k))
	{
		const SpJsonNode *v = sp_json_value(k);
		char	   *id;

		if (skip_prototypes && sp_json_string_eq(x->doc, k, "prototypes"))
			continue;
		if (!first)
			appendStringInfoString(&x->out, ", ");
		first = false;
		write_string(x, sp_json_string(x->doc, k));
		appendStringInfoString(&x->out, ": ");
		if (sp_json_string_eq(x->doc, k, "id") && prefix[0] &&
			(id = resolved_string(x, v, env)) != NULL)
			write_string(x, psprintf("%s%s", prefix, id));
		else if (sp_json_string_eq(x->doc, k, "operators") && ops_text.data)
			appendBinaryStringInfo(&x->out, ops_text.data, ops_text.len);
		else if (sp_json_string_eq(x->doc, k, "connections"))
		{
			write_connections(x, v, env, "", insts, n_insts, true);
			/* the instances' connections join the list */
			if (pending->len > 0 && sp_json_kind(v) == SPJ_ARRAY)
			{
				x->out.len--;	/* the closing bracket */
				if (sp_json_first(v) != NULL)
					appendStringInfoString(&x->out, ", ");
				appendBinaryStringInfo(&x->out, pending->data, pending->len);
				appendStringInfoChar(&x->out, ']');
			}
			wrote_connections = true;
		}
		else if (sp_json_string_eq(x->doc, k, "entryOperator") &&
				 (id = resolved_string(x, v, env)) != NULL)
			write_id(x, id, "", insts, n_insts, true);
		/* a TriggerSet's, when it is an id */
		else if (sp_json_string_eq(x->doc, k, "outputOperator") &&
				 (id = resolved_string(x, v, env)) != NULL)
			write_id(x, id, "", insts, n_insts, false);
		else if ((sp_json_string_eq(x->doc, k, "outputMappings") ||
				  sp_json_string_eq(x->doc, k, "output")) && sp_json_kind(v) == SPJ_OBJECT)
		{
			appendStringInfoChar(&x->out, '{');
			for (const SpJsonNode *m = sp_json_first(v); m; m = sp_json_next(v, m))
			{
				if (m != sp_json_first(v))
					appendStringInfoString(&x->out, ", ");
				write_id(x, sp_json_string(x->doc, m), "", insts, n_insts, false);
				appendStringInfoString(&x->out, ": ");
				write_value(x, sp_json_value(m), env);
			}
			appendStringInfoChar(&x->out, '}');
		}
		else
			write_value(x, v, env);
	}
	if (!wrote_connections && pending->len > 0)
		appendStringInfo(&x->out, "%s\"connections\": [%s]", first ? "" : ", ", pending->data);
	appendStringInfoChar(&x->out, '}');
	x->pending = outer_pending;
}

static void
instance_context(void *arg)
{
	errcontext("prototype instance \"%s\"", (const char *) arg);
}

/* The prototype an instance names, or its inline definition. */
static const SpJsonNode *
find_prototype(Expander *x, const SpJsonNode *ref, const Env *env, const char **name)
{
	const SpJsonNode *p;
	char	   *s;

	if (sp_json_kind(ref) == SPJ_OBJECT)
	{
		*name = NULL;
		return ref;
	}
	s = resolved_string(x, ref, env);
	if (s == NULL)
		spec_error(errmsg("\"prototype\" must be the name of a prototype or a prototype object"));
	*name = s;
	p = x->prototypes ? sp_json_get(x->doc, x->prototypes, s) : NULL;
	if (p == NULL)
		spec_error(errmsg("prototype \"%s\" does not exist", sp_json_shown(s)),
				   x->prototypes ? 0 : errdetail("The spec has no \"prototypes\"."));
	return p;
}

/*
 * The parameters of a prototype bound for one use of it (an instance, or a
 * KeyedPipeline): given (an object, or NULL), else the default; each of its
 * declared type.  qualified names the use in messages.
 */
static Env *
bind_parameters(Expander *x, const SpJsonNode *proto, const SpJsonNode *given, const Env *env,
				const char *qualified)
{
	const SpJsonNode *decl;
	Env		   *inner = palloc0(sizeof(Env));
	int			n_decl;

	decl = sp_json_get(x->doc, proto, "parameters");
	if (decl && sp_json_kind(decl) != SPJ_ARRAY)
		spec_error(errmsg("the \"parameters\" of a prototype must be an array"));
	if (given && sp_json_kind(given) != SPJ_OBJECT)
		spec_error(errmsg("the \"parameters\" of a prototype instance must be a JSON object"));
	n_decl = decl ? sp_json_count(decl) : 0;
	inner->b = palloc0(sizeof(Binding) * Max(n_decl, 1));
	inner->instance = qualified;
	for (const SpJsonNode *k = given ? sp_json_first(given) : NULL; k; k = sp_json_next(given, k))
	{
		bool		declared = false;

		for (const SpJsonNode *d = decl ? sp_json_first(decl) : NULL; d && !declared; d = sp_json_next(decl, d))
		{
			const SpJsonNode *n = sp_json_kind(d) == SPJ_OBJECT ? sp_json_get(x->doc, d, "name") : NULL;

			declared = n && sp_json_kind(n) == SPJ_STRING &&
				strcmp(sp_json_string(x->doc, n), sp_json_string(x->doc, k)) == 0;
		}
		if (!declared)
			spec_error(errmsg("unknown parameter \"%s\" in prototype instance \"%s\"",
							  sp_json_shown(sp_json_string(x->doc, k)), qualified));
	}
	for (const SpJsonNode *d = decl ? sp_json_first(decl) : NULL; d; d = sp_json_next(decl, d))
	{
		const SpJsonNode *n,
				   *t,
				   *v;
		const Env  *venv;
		const Binding *b;
		char	   *name;
		int			ti;

		if (sp_json_kind(d) != SPJ_OBJECT ||
			(n = sp_json_get(x->doc, d, "name")) == NULL || sp_json_kind(n) != SPJ_STRING ||
			(t = sp_json_get(x->doc, d, "type")) == NULL || sp_json_kind(t) != SPJ_STRING)
			spec_error(errmsg("a prototype parameter needs a \"name\" and a \"type\", strings"));
		name = sp_json_string(x->doc, n);
		for (ti = 0; param_types[ti]; ti++)
			if (sp_json_string_eq(x->doc, t, param_types[ti]))
				break;
		if (param_types[ti] == NULL)
			spec_error(errmsg("parameter \"%s\" has an unrecognized type \"%s\"", sp_json_shown(name),
							  sp_json_shown(sp_json_string(x->doc, t))),
					   errhint("The types are \"number\", \"string\", \"boolean\", \"array\" and \"object\"."));
		if (lookup(inner, name))
			spec_error(errmsg("parameter \"%s\" is declared twice", sp_json_shown(name)));
		v = given ? sp_json_get(x->doc, given, name) : NULL;
		venv = env;
		if (v == NULL)
		{
			/* a default is written as the prototype has it, without bindings */
			v = sp_json_get(x->doc, d, "default");
			venv = NULL;
			if (v == NULL || sp_json_kind(v) == SPJ_NULL)
				spec_error(errmsg("missing required parameter \"%s\" in prototype instance \"%s\"",
								  sp_json_shown(name), qualified));
		}
		while ((b = resolve(x, v, venv)) != NULL)
		{
			v = b->value;
			venv = b->env;
		}
		if (!((ti == 0 && sp_json_kind(v) == SPJ_NUMBER) ||
			  (ti == 1 && sp_json_kind(v) == SPJ_STRING) ||
			  (ti == 2 && sp_json_kind(v) == SPJ_BOOL) ||
			  (ti == 3 && sp_json_kind(v) == SPJ_ARRAY) ||
			  (ti == 4 && sp_json_kind(v) == SPJ_OBJECT)))
			spec_error(errmsg("parameter \"%s\" must be a%s %s, not %s", sp_json_shown(name),
							  ti == 3 || ti == 4 ? "n" : "", param_types[ti],
							  sp_json_kind_name(sp_json_kind(v))));
		inner->b[inner->n].name = name;
		inner->b[inner->n].value = v;
		inner->b[inner->n].env = venv;
		inner->n++;
	}

	return inner;
}

/*
 * Entering a prototype (pname, or the inline one of the instance shown):
 * it must be an object, and not one the expansion is inside already.
 */
static void
enter_prototype(Expander *x, const SpJsonNode *proto, const char *pname, const char *shown)
{
	if (sp_json_kind(proto) != SPJ_OBJECT)
		spec_error(errmsg("prototype \"%s\" must be a JSON object", pname ? sp_json_shown(pname) : shown));
	for (int i = 0; pname && i < x->depth; i++)
		if (strcmp(x->stack[i], pname) == 0)
			spec_error(errmsg("prototype \"%s\" contains itself", sp_json_shown(pname)));
	if (x->depth >= lengthof(x->stack))
		spec_error(errmsg("prototypes nest too deeply"));
	x->stack[x->depth++] = pname ? pname : "";
}

/*
 * One instance: its parameters bound (given, else default; of the declared
 * type), its operators written with prefix "<id>::" into the list being
 * written, and its entry and output operators returned.
 */
static void
expand_instance(Expander *x, const SpJsonNode *op, const Env *env, const char *prefix,
				bool *first_out, Instance *inst)
{
	ErrorContextCallback callback;
	const SpJsonNode *idj = sp_json_get(x->doc, op, "id");
	const SpJsonNode *proto;
	const SpJsonNode *ops,
			   *j;
	const char *pname;
	char	   *id;
	char	   *qualified;
	char	   *inner_prefix;
	Env		   *inner;
	Instance   *insts = NULL;
	int			n_insts = 0;

	id = idj ? resolved_string(x, idj, env) : NULL;
	if (id == NULL || id[0] == '\0')
		spec_error(errmsg("a prototype instance needs an \"id\", a non-empty string"));
	qualified = psprintf("%s%s", prefix, id);
	inst->id = id;
	callback.callback = instance_context;
	callback.arg = qualified;
	callback.previous = error_context_stack;
	error_context_stack = &callback;

	for (const SpJsonNode *k = sp_json_first(op); k; k = sp_json_next(op, k))
		if (!sp_json_string_eq(x->doc, k, "id") && !sp_json_string_eq(x->doc, k, "prototype") &&
			!sp_json_string_eq(x->doc, k, "parameters"))
			spec_error(errmsg("unrecognized member \"%s\" of a prototype instance",
							  sp_json_shown(sp_json_string(x->doc, k))),
					   errhint("An instance has \"id\", \"prototype\" and \"parameters\"."));
	proto = find_prototype(x, sp_json_get(x->doc, op, "prototype"), env, &pname);
	enter_prototype(x, proto, pname, id);

	inner = bind_parameters(x, proto, sp_json_get(x->doc, op, "parameters"), env, qualified);

	/* the operators, then the prototype's own connections, into the list */
	ops = sp_json_get(x->doc, proto, "operators");
	if (ops == NULL || sp_json_kind(ops) != SPJ_ARRAY || sp_json_first(ops) == NULL)
		spec_error(errmsg("a prototype's \"operators\" must be a non-empty array"));
	inner_prefix = psprintf("%s::", qualified);
	if (!*first_out)
		appendStringInfoString(&x->out, ", ");
	write_operator_list(x, ops, inner, inner_prefix, &insts, &n_insts, false);
	*first_out = false;

	/* the prototype's connections, for the container's list */
	j = sp_json_get(x->doc, proto, "connections");
	if (j != NULL && sp_json_kind(j) != SPJ_ARRAY)
		spec_error(errmsg("a prototype's \"connections\" must be an array"));
	if (j != NULL && sp_json_first(j) != NULL)
	{
		StringInfoData saved = x->out;

		x->out = *x->pending;
		if (x->out.len > 0)
			appendStringInfoString(&x->out, ", ");
		write_connections(x, j, inner, inner_prefix, insts, n_insts, false);
		*x->pending = x->out;
		x->out = saved;
	}

	/* where connections to and from the instance go */
	for (int e = 0; e < 2; e++)
	{
		const char *field = e == 0 ? "entry" : "output";
		const SpJsonNode *o;
		char	   *opid;
		const Instance *in;

		j = sp_json_get(x->doc, proto, field);
		if (j == NULL || sp_json_kind(j) != SPJ_OBJECT ||
			(o = sp_json_get(x->doc, j, "operator")) == NULL ||
			(opid = resolved_string(x, o, inner)) == NULL)
			spec_error(errmsg("a prototype needs \"%s\": {\"operator\": id}", field));
		in = find_instance(insts, n_insts, opid);
		if (in)
			opid = e == 0 ? in->entry : in->output;
		else
			opid = psprintf("%s%s", inner_prefix, opid);
		if (e == 0)
			inst->entry = opid;
		else
			inst->output = opid;
	}
	x->depth--;
	error_context_stack = callback.previous;
}

/*
 * A KeyedPipeline's "prototype", a name or an object: written as the
 * object it stands for, its parameters bound from the KeyedPipeline's
 * "parameters" (else their defaults), its own instances expanded, and its
 * "entry" and "output" redirected when they name one; the ids of its
 * operators are its own (the sub-graph has its own names), whatever prefix
 * the KeyedPipeline's id gets.
 */
static void
write_keyed_prototype(Expander *x, const SpJsonNode *kp, const SpJsonNode *ref, const Env *env,
					  const char *qualified)
{
	const char *pname;
	const SpJsonNode *proto = find_prototype(x, ref, env, &pname);
	const SpJsonNode *ops;
	const SpJsonNode *conns;
	Env		   *inner;
	Instance   *insts = NULL;
	int			n_insts = 0;
	StringInfo	outer_pending = x->pending;
	StringInfo	pending = makeStringInfo();
	StringInfoData saved;
	StringInfoData ops_text;

	enter_prototype(x, proto, pname, qualified);
	inner = bind_parameters(x, proto, sp_json_get(x->doc, kp, "parameters"), env, qualified);

	ops = sp_json_get(x->doc, proto, "operators");
	if (ops == NULL || sp_json_kind(ops) != SPJ_ARRAY || sp_json_first(ops) == NULL)
		spec_error(errmsg("a prototype's \"operators\" must be a non-empty array"));
	conns = sp_json_get(x->doc, proto, "connections");
	if (conns != NULL && sp_json_kind(conns) != SPJ_ARRAY)
		spec_error(errmsg("a prototype's \"connections\" must be an array"));
	x->pending = pending;
	saved = x->out;
	initStringInfo(&x->out);
	write_operator_list(x, ops, inner, "", &insts, &n_insts, true);
	ops_text = x->out;
	x->out = saved;

	appendStringInfoString(&x->out, "{\"operators\": ");
	appendBinaryStringInfo(&x->out, ops_text.data, ops_text.len);
	appendStringInfoString(&x->out, ", \"connections\": [");
	if (conns != NULL)
		write_connections(x, conns, inner, "", insts, n_insts, false);
	if (pending->len > 0)
	{
		if (conns != NULL && sp_json_first(conns) != NULL)
			appendStringInfoString(&x->out, ", ");
		appendBinaryStringInfo(&x->out, pending->data, pending->len);
	}
	appendStringInfoChar(&x->out, ']');
	x->pending = outer_pending;
	for (const SpJsonNode *k = sp_json_first(proto); k; k = sp_json_next(proto, k))
	{
		const SpJsonNode *v = sp_json_value(k);
		bool		entry = sp_json_string_eq(x->doc, k, "entry");

		if (sp_json_string_eq(x->doc, k, "parameters") || sp_json_string_eq(x->doc, k, "operators") ||
			sp_json_string_eq(x->doc, k, "connections"))
			continue;
		appendStringInfoString(&x->out, ", ");
		write_string(x, sp_json_string(x->doc, k));
		appendStringInfoString(&x->out, ": ");
		if ((entry || sp_json_string_eq(x->doc, k, "output")) && sp_json_kind(v) == SPJ_OBJECT)
		{
			/* an instance named here leads to its entry or output operator */
			appendStringInfoChar(&x->out, '{');
			for (const SpJsonNode *m = sp_json_first(v); m; m = sp_json_next(v, m))
			{
				char	   *id;

				if (m != sp_json_first(v))
					appendStringInfoString(&x->out, ", ");
				write_string(x, sp_json_string(x->doc, m));
				appendStringInfoString(&x->out, ": ");
				if (sp_json_string_eq(x->doc, m, "operator") &&
					(id = resolved_string(x, sp_json_value(m), inner)) != NULL)
					write_id(x, id, "", insts, n_insts, entry);
				else
					write_value(x, sp_json_value(m), inner);
			}
			appendStringInfoChar(&x->out, '}');
		}
		else
			write_value(x, v, inner);	/* the reader names the fault */
	}
	appendStringInfoChar(&x->out, '}');
	x->depth--;
}

/*
 * A KeyedPipeline: its members as they are (its id prefixed as any
 * operator's in an instance), "prototype" written out in full and
 * "parameters", which it binds, left out.
 */
static void
write_keyed(Expander *x, const SpJsonNode *kp, const Env *env, const char *prefix,
			bool skip_prototypes)
{
	const SpJsonNode *idj = sp_json_get(x->doc, kp, "id");
	char	   *id = idj ? resolved_string(x, idj, env) : NULL;
	char	   *qualified = psprintf("%s%s", prefix, id ? id : "KeyedPipeline");
	bool		first = true;

	appendStringInfoChar(&x->out, '{');
	for (const SpJsonNode *k = sp_json_first(kp); k; k = sp_json_next(kp, k))
	{
		const SpJsonNode *v = sp_json_value(k);

		if ((skip_prototypes && sp_json_string_eq(x->doc, k, "prototypes")) ||
			sp_json_string_eq(x->doc, k, "parameters"))
			continue;
		if (!first)
			appendStringInfoString(&x->out, ", ");
		first = false;
		write_string(x, sp_json_string(x->doc, k));
		appendStringInfoString(&x->out, ": ");
		if (sp_json_string_eq(x->doc, k, "id") && prefix[0] && id != NULL)
			write_string(x, qualified);
		else if (sp_json_string_eq(x->doc, k, "prototype"))
			write_keyed_prototype(x, kp, v, env, qualified);
		else
			write_value(x, v, env);
	}
	appendStringInfoChar(&x->out, '}');
}

/* Whether v is an operator object of type KeyedPipeline. */
static bool
is_keyed(Expander *x, const SpJsonNode *v, const Env *env)
{
	const SpJsonNode *t = sp_json_kind(v) == SPJ_OBJECT ? sp_json_get(x->doc, v, "type") : NULL;
	char	   *type = t ? resolved_string(x, t, env) : NULL;

	return type != NULL && strcmp(type, "KeyedPipeline") == 0;
}

/*
 * The elements of an operator list; instances expand in place, their own
 * connections collected into x->pending.
 */
static void
write_operator_list(Expander *x, const SpJsonNode *ops, const Env *env,
					const char *prefix, Instance **insts, int *n_insts, bool brackets)
{
	int			cap = Max(sp_json_count(ops), 1);
	bool		first = true;

	*insts = palloc0(sizeof(Instance) * cap);
	*n_insts = 0;
	if (brackets)
		appendStringInfoChar(&x->out, '[');
	for (const SpJsonNode *op = sp_json_first(ops); op; op = sp_json_next(ops, op))
	{
		const SpJsonNode *t;

		if (sp_json_kind(op) == SPJ_OBJECT && sp_json_get(x->doc, op, "prototype") != NULL &&
			!is_keyed(x, op, env))
		{
			expand_instance(x, op, env, prefix, &first, &(*insts)[(*n_insts)++]);
			continue;
		}
		if (++x->n_ops > SP_MAX_OPERATORS * 4)
			spec_error(errmsg("too many operators"),
					   errdetail("Prototypes expand to more than %d operators.", SP_MAX_OPERATORS * 4));
		if (!first)
			appendStringInfoString(&x->out, ", ");
		first = false;
		t = sp_json_kind(op) == SPJ_OBJECT ? sp_json_get(x->doc, op, "type") : NULL;
		if (is_keyed(x, op, env))
			write_keyed(x, op, env, prefix, false);
		else if (t && sp_json_kind(t) == SPJ_STRING && (sp_json_string_eq(x->doc, t, "Pipeline") ||
														 sp_json_string_eq(x->doc, t, "TriggerSet")))
			write_container(x, op, env, prefix, false);
		else if (sp_json_kind(op) == SPJ_OBJECT && prefix[0])
			write_container(x, op, env, prefix, false);
		else
			write_value(x, op, env);
	}
	if (brackets)
		appendStringInfoChar(&x->out, ']');
}

/* Whether a document uses prototypes: "prototypes" or "prototype" anywhere. */
static bool
uses_prototypes(const SpJsonDoc *doc, const SpJsonNode *v)
{
	if (sp_json_kind(v) == SPJ_OBJECT)
	{
		for (const SpJsonNode *k = sp_json_first(v); k; k = sp_json_next(v, k))
			if (sp_json_string_eq(doc, k, "prototypes") || sp_json_string_eq(doc, k, "prototype") ||
				uses_prototypes(doc, sp_json_value(k)))
				return true;
	}
	else if (sp_json_kind(v) == SPJ_ARRAY)
	{
		for (const SpJsonNode *e = sp_json_first(v); e; e = sp_json_next(v, e))
			if (uses_prototypes(doc, e))
				return true;
	}
	return false;
}

char *
sp_spec_expand(const SpJsonDoc *doc)
{
	const SpJsonNode *root = &doc->nodes[0];
	Expander	x = {0};

	if (sp_json_kind(root) != SPJ_OBJECT || !uses_prototypes(doc, root))
		return NULL;
	x.doc = doc;
	x.prototypes = sp_json_get(doc, root, "prototypes");
	if (x.prototypes && sp_json_kind(x.prototypes) != SPJ_OBJECT)
		spec_error(errmsg("\"prototypes\" must be a JSON object"),
				   errhint("Name each prototype: {\"prototypes\": {\"name\": {\"parameters\": [...], \"operators\": [...], ...}}}."));
	initStringInfo(&x.out);
	if (is_keyed(&x, root, NULL))
		write_keyed(&x, root, NULL, "", true);	/* the one-operator shorthand */
	else
		write_container(&x, root, NULL, "", true);
	return x.out.data;
}
