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
	char	   *canonical;		/* cfg's canonical text, once written */
	uint32		canonical_len;
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

const char *
sp_config_canonical(FmgrInfo *flinfo, const SpConfig *cfg, uint32 *len, bool *written)
{
	ConfigCache *cache = flinfo->fn_extra;
	StringInfoData text;

	*written = false;
	if (cache != NULL && cache->cfg == cfg && cache->canonical != NULL)
	{
		*len = cache->canonical_len;
		return cache->canonical;
	}
	initStringInfo(&text);
	sp_spec_write(&text, cfg);
	*len = text.len;
	if (cache == NULL || cache->cfg != cfg)
	{
		*written = true;
		return text.data;
	}
	cache->canonical = MemoryContextStrdup(flinfo->fn_mcxt, text.data);
	cache->canonical_len = text.len;
	pfree(text.data);
	return cache->canonical;
}
