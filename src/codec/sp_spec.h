/*
 * sp_spec.h
 *	  Reading a pipeline spec (docs/reference.md, "The spec") into a
 *	  validated SpConfig (sp_spec.c), and writing a configuration back as
 *	  canonical JSON with every default made explicit (sp_spec_write.c).
 */
#ifndef SP_SPEC_H
#define SP_SPEC_H

#include "lib/stringinfo.h"
#include "sp_engine.h"

/*
 * Parse and validate; any problem raises ERROR naming the field at fault.
 * The configuration is allocated in CurrentMemoryContext and keeps nothing
 * of the parse: the JSON document lives in a context of its own, deleted
 * before this returns.  Reading costs time linear in the text, and memory
 * at most 4 bytes per character of it beyond what the configuration keeps.
 */
extern SpConfig *sp_spec_read(const char *text);

extern void sp_spec_write(StringInfo buf, const SpConfig *cfg);

/*
 * sp_spec_proto.c: the text of the spec a document with prototypes stands
 * for, its instances expanded; NULL when it uses none.
 */
struct SpJsonDoc;
extern char *sp_spec_expand(const struct SpJsonDoc *doc);

extern void sp_write_float8(StringInfo buf, double v);

extern const char *sp_port_type_name(SpPortType t);

#endif							/* SP_SPEC_H */
