/*
 * sp_config_cache.c
 *	  The configuration of the values a call site reads, parsed once
 *	  (sp_config_cache.h).
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "sp_config_cache.h"

typedef struct ConfigCache
{
	char	   *text;
	uint32		len;
	SpConfig   *cfg;
} ConfigCache;

const SpConfig *
sp_config_cached(FmgrInfo *flinfo, const SpValueView *view, MemoryContext cxt)
{
	ConfigCache *cache = flinfo->fn_extra;
	MemoryContext old;
	SpConfig   *cfg;

	if (cache != NULL && cache->len == view->config_len &&
		memcmp(cache->text, view->config, view->config_len) == 0)
		return cache->cfg;
	if (cache == NULL)
	{
		old = MemoryContextSwitchTo(flinfo->fn_mcxt);
		cache = palloc0(sizeof(ConfigCache));
		cache->cfg = sp_spec_read(sp_view_config_text(view));
		cache->len = view->config_len;
		cache->text = pnstrdup(view->config, view->config_len);
		flinfo->fn_extra = cache;
		MemoryContextSwitchTo(old);
		return cache->cfg;
	}
	old = MemoryContextSwitchTo(cxt);
	cfg = sp_spec_read(sp_view_config_text(view));
	MemoryContextSwitchTo(old);
	return cfg;
}
