/*
 * sp_settings.c
 *	  Fixed settings in force for a stretch of C code (sp_settings.h).
 */
#include "postgres.h"

#include "utils/guc.h"

#include "sp_settings.h"

int
sp_settings_begin(const SpSetting *settings, int n, uint32 mask)
{
	int			nest = 0;

	for (int i = 0; i < n; i++)
	{
		const char *now;

		if (!(mask & (1 << i)))
			continue;
		now = GetConfigOption(settings[i].name, false, false);
		if (now != NULL && strcmp(now, settings[i].value) == 0)
			continue;
		if (nest == 0)
			nest = NewGUCNestLevel();
		(void) set_config_option(settings[i].name, settings[i].value,
								 PGC_USERSET, PGC_S_SESSION,
								 GUC_ACTION_SAVE, true, 0, false);
	}
	return nest;				/* NewGUCNestLevel never gives 0 */
}

void
sp_settings_end(int nest)
{
	if (nest != 0)
		AtEOXact_GUC(true, nest);
}
