/*
 * sp_keyio.c
 *	  Key types by name and keys as text under fixed settings.
 */
#include "postgres.h"

#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "sp_json.h"
#include "sp_keyio.h"

static bool name_cache_callbacks = false;
static Oid	cached_type = InvalidOid;
static char *cached_name = NULL;

static void
forget_type_name(Datum arg, int cacheid, uint32 hashvalue)
{
	if (cached_name != NULL)
		pfree(cached_name);
	cached_name = NULL;
	cached_type = InvalidOid;
}

char *
sp_keyio_type_name(Oid type)
{
	/*
	 * The last name given is kept: runs over many states of one key type
	 * ask for it for each.  A change of any type or schema forgets it.
	 */
	if (!name_cache_callbacks)
	{
		CacheRegisterSyscacheCallback(TYPEOID, forget_type_name, (Datum) 0);
		CacheRegisterSyscacheCallback(NAMESPACEOID, forget_type_name, (Datum) 0);
		name_cache_callbacks = true;
	}
	if (cached_name == NULL || cached_type != type)
	{
		char	   *name = format_type_be_qualified(type);

		if (cached_name != NULL)
			pfree(cached_name);
		cached_name = MemoryContextStrdup(TopMemoryContext, name);
		cached_type = type;
		pfree(name);
	}
	return pstrdup(cached_name);
}

void
sp_keyio_init(SpKeyIO *io, Oid type, MemoryContext cxt)
{
	Oid			in,
				out;
	bool		varlena;

	io->type = type;
	getTypeInputInfo(type, &in, &io->ioparam);
	getTypeOutputInfo(type, &out, &varlena);
	fmgr_info_cxt(in, &io->in, cxt);
	fmgr_info_cxt(out, &io->out, cxt);
}

static const char *const fixed_settings[][2] = {
	{"datestyle", "ISO, YMD"},
	{"intervalstyle", "postgres"},
	{"timezone", "UTC"},
	{"extra_float_digits", "1"},
	{"bytea_output", "hex"},
	{"lc_monetary", "C"},
	/* the type's output quotes a "NULL" string, so NULL is always NULL */
	{"array_nulls", "on"},
	{"quote_all_identifiers", "off"},
	{"search_path", "pg_catalog"},
};

/*
 * Set by sp_keyio_hold: the settings are in force already, for a stretch of
 * C code that converts many keys (the maintained trigger's), and a begin
 * inside it sets nothing.  Cleared by sp_keyio_release, on error too.
 */
static bool held = false;

int
sp_keyio_begin(void)
{
	int			nest;

	if (held)
		return 0;				/* NewGUCNestLevel never gives 0 */
	/* a setting that shows the fixed value already needs no change */
	nest = 0;
	for (int i = 0; i < lengthof(fixed_settings); i++)
	{
		const char *now = GetConfigOption(fixed_settings[i][0], false, false);

		if (now != NULL && strcmp(now, fixed_settings[i][1]) == 0)
			continue;
		if (nest == 0)
			nest = NewGUCNestLevel();
		(void) set_config_option(fixed_settings[i][0], fixed_settings[i][1],
								 PGC_USERSET, PGC_S_SESSION,
								 GUC_ACTION_SAVE, true, 0, false);
	}
	return nest;
}

void
sp_keyio_end(int nest)
{
	if (nest != 0)
		AtEOXact_GUC(true, nest);
}

int
sp_keyio_hold(void)
{
	int			nest = sp_keyio_begin();

	held = true;
	return nest;
}

void
sp_keyio_release(int nest)
{
	held = false;
	sp_keyio_end(nest);
}

void
sp_keyio_abandon(void)
{
	held = false;
}

char *
sp_keyio_to_text(SpKeyIO *io, Datum key)
{
	return OutputFunctionCall(&io->out, key);
}

/* Errors that say nothing about the key: they pass as they are. */
static bool
error_is_not_the_keys(int sqlerrcode)
{
	switch (ERRCODE_TO_CATEGORY(sqlerrcode))
	{
		case ERRCODE_INSUFFICIENT_RESOURCES:
		case ERRCODE_PROGRAM_LIMIT_EXCEEDED:
		case ERRCODE_OPERATOR_INTERVENTION:
		case ERRCODE_SYSTEM_ERROR:
		case ERRCODE_INTERNAL_ERROR:
		case ERRCODE_TRANSACTION_ROLLBACK:
			return true;
		default:
			return false;
	}
}

Datum
sp_keyio_from_text(SpKeyIO *io, const char *text)
{
	MemoryContext cxt = CurrentMemoryContext;
	Datum		key = (Datum) 0;

	PG_TRY();
	{
		key = InputFunctionCall(&io->in, unconstify(char *, text), io->ioparam, -1);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		if (error_is_not_the_keys(edata->sqlerrcode))
			PG_RE_THROW();
		/* the error is replaced, never resumed from: the abort cleans up */
		FlushErrorState();
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("stored key \"%s\" is not a valid value of type %s",
						sp_json_shown(text), format_type_be(io->type)),
				 errdetail("%s", edata->message),
				 errhint("The key was written before the type changed (a renamed enum label, an added attribute), or by hand. "
						 "Replace it in the stored pipeline's text, or start that pipeline again from its configuration.")));
	}
	PG_END_TRY();
	return key;
}
