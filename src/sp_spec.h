/*
 * sp_spec.h
 *	  Reading a pipeline spec (SPEC section 4) into a validated SpConfig, and
 *	  writing a configuration back as canonical JSON with every default made
 *	  explicit.
 */
#ifndef SP_SPEC_H
#define SP_SPEC_H

#include "lib/stringinfo.h"
#include "sp_engine.h"

/* Parse and validate; any problem raises ERROR naming the field at fault. */
extern SpConfig *sp_spec_read(const char *text);

extern void sp_spec_write(StringInfo buf, const SpConfig *cfg);

extern void sp_write_float8(StringInfo buf, double v);

#endif							/* SP_SPEC_H */
