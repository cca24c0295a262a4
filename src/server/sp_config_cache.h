/*
 * sp_config_cache.h
 *	  The configuration of the values a call site reads, parsed once.
 *
 * A query usually passes values of one configuration to a function row
 * after row (a spec column's default, a state table's pipelines): the
 * configuration of the first is parsed and kept with the call site
 * (flinfo->fn_extra), and a later value with the same configuration text
 * uses it.  A value with another configuration is parsed into 'cxt'.
 */
#ifndef SP_CONFIG_CACHE_H
#define SP_CONFIG_CACHE_H

#include "fmgr.h"

#include "sp_codec.h"
#include "sp_spec.h"

/*
 * view's configuration; flinfo->fn_extra must be free for this use (not
 * for a value-per-call set-returning function).
 */
extern const SpConfig *sp_config_cached(FmgrInfo *flinfo, const SpValueView *view,
										MemoryContext cxt);

/*
 * cfg's canonical text (sp_spec_write), *len bytes: for the configuration
 * cached with flinfo, written once and kept with it (a state table's
 * values are written again on every maintained insert); for another,
 * written now in the current context (*written: the caller's to free).
 */
extern const char *sp_config_canonical(FmgrInfo *flinfo, const SpConfig *cfg, uint32 *len,
									   bool *written);

#endif							/* SP_CONFIG_CACHE_H */
