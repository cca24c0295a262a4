/*
 * sp_resume.c
 *	  Decoding a pipeline value's state into a run and its current key.
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "sp_keyio.h"
#include "sp_resume.h"

SpRun *
sp_resume_state(const SpValueView *view, const SpConfig *cfg, SpKeyState *ks,
				SpState *info)
{
	/* what the parse allocates goes with this context; the text is read in place */
	MemoryContext tmp = AllocSetContextCreate(CurrentMemoryContext,
											  "pipeline resume",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(tmp);
	SpState    *st = sp_view_read_state(view, cfg, ks->cxt, false);
	char	   *type_name = sp_keyio_type_name(ks->kt->type);
	SpRun	   *run = st->run;

	Assert(!ks->has_key);
	if (strcmp(type_name, st->key_type) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("key of type %s cannot continue a pipeline whose keys are of type %s",
						type_name, st->key_type)));
	if (st->key != NULL)
	{
		SpKeyIO		io;
		int			nest;
		Datum		key;

		sp_keyio_init(&io, ks->kt->type, tmp);
		nest = sp_keyio_begin(&io);
		key = sp_keyio_from_text(&io, st->key);
		sp_keyio_end(nest);
		/* copies a by-reference key into ks->cxt */
		sp_key_replace(ks, key);
	}
	if (info != NULL)
	{
		memset(info, 0, sizeof(SpState));
		info->has_progress = st->has_progress;
		info->progress = st->progress;
		info->rows = st->rows;
		info->discarded = st->discarded;
		info->late = st->late;
		info->run = run;
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(tmp);
	return run;
}
