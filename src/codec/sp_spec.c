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

#include "utils/memutils.h"
#include "sp_json.h"
#include "sp_spec_reader.h"


/*
 * A document is a program when it has no "type" and has what only a
 * program has: an "output", or an Input among its operators and no
 * "outputMappings".
 */
static bool
is_program(SpecReader *r, const SpJsonNode *doc)
{
	const SpJsonNode *ops;

	if (sp_json_get(r->doc, doc, "type") != NULL)
		return false;
	if (sp_json_get(r->doc, doc, "output") != NULL)
		return true;
	/* a pipeline's own (its operators may hold an Input as their entry) */
	if (sp_json_get(r->doc, doc, "outputMappings") != NULL)
		return false;
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
		cfg = spec_read_program(&r, &r.doc->nodes[0]);
	else
		cfg = spec_read_pipeline(&r, &r.doc->nodes[0]);
	spec_refuse_top_level_bytecode(cfg);
	MemoryContextSwitchTo(keep);
	MemoryContextDelete(work);
	return cfg;
}
