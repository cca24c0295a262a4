/*
 * sp_spec.h
 *	  Reading a pipeline spec (SPEC section 4) into a validated SpConfig
 *	  (sp_spec.c), and writing a configuration back as canonical JSON with
 *	  every default made explicit (sp_spec_write.c).
 */
#ifndef SP_SPEC_H
#define SP_SPEC_H

#include "lib/stringinfo.h"
#include "sp_engine.h"

/* Parse and validate; any problem raises ERROR naming the field at fault. */
extern SpConfig *sp_spec_read(const char *text);

extern void sp_spec_write(StringInfo buf, const SpConfig *cfg);

extern void sp_write_float8(StringInfo buf, double v);

extern const char *sp_port_type_name(SpPortType t);

#endif							/* SP_SPEC_H */
