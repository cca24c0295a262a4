/*
 * sp_keyio.c
 *	  Key types by name and keys as text under fixed settings.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "sp_json.h"
#include "sp_keyio.h"
#include "sp_settings.h"

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


static const SpSetting fixed_settings[] = {
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

#define SET_DATESTYLE		(1 << 0)
#define SET_INTERVALSTYLE	(1 << 1)
#define SET_TIMEZONE		(1 << 2)
#define SET_FLOAT_DIGITS	(1 << 3)
#define SET_ALL				SP_SETTINGS_ALL(lengthof(fixed_settings))

/*
 * The fixed settings that type's text I/O reads.  Setting one costs a
 * check and an assignment, and its undoing another; the maintained insert
 * trigger converts keys on every statement.  Only built-in types whose
 * input and output functions are known are narrowed: integers, text,
 * numeric and the like read none; float4 and float8 extra_float_digits;
 * the date and time types DateStyle and TimeZone (TimeZone also for the
 * input of 'now' and 'today'); interval DateStyle and IntervalStyle.
 * Every other type (arrays, composites, domains, enums, ranges, money,
 * bytea, the reg* types, extensions' types) gets them all.
 */
static uint32
settings_of(Oid type)
{
	switch (type)
	{
		case BOOLOID:
		case CHAROID:
		case NAMEOID:
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case OIDOID:
		case TEXTOID:
		case BPCHAROID:
		case VARCHAROID:
		case NUMERICOID:
		case UUIDOID:
			return 0;
		case FLOAT4OID:
		case FLOAT8OID:
			return SET_FLOAT_DIGITS;
		case DATEOID:
		case TIMEOID:
		case TIMETZOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return SET_DATESTYLE | SET_TIMEZONE;
		case INTERVALOID:
			return SET_DATESTYLE | SET_INTERVALSTYLE;
		default:
			return SET_ALL;
	}
}

/*
 * The settings sp_keyio_hold has put in force, for a stretch of C code that
 * converts many keys (the maintained trigger's): a begin inside it sets
 * only what they leave out.  Cleared by sp_keyio_release, on error too.
 */
static uint32 held = 0;

void
sp_keyio_init(SpKeyIO *io, Oid type, MemoryContext cxt)
{
	Oid			in,
				out;
	bool		varlena;

	io->type = type;
	io->settings = settings_of(type);
	getTypeInputInfo(type, &in, &io->ioparam);
	getTypeOutputInfo(type, &out, &varlena);
	fmgr_info_cxt(in, &io->in, cxt);
	fmgr_info_cxt(out, &io->out, cxt);
}

int
sp_keyio_begin(const SpKeyIO *io)
{
	return sp_settings_begin(fixed_settings, lengthof(fixed_settings), io->settings & ~held);
}

void
sp_keyio_end(int nest)
{
	sp_settings_end(nest);
}

int
sp_keyio_hold(Oid type)
{
	uint32		settings = settings_of(type);
	int			nest = sp_settings_begin(fixed_settings, lengthof(fixed_settings),
										 settings & ~held);

	held |= settings;
	return nest;
}

void
sp_keyio_release(int nest)
{
	held = 0;
	sp_keyio_end(nest);
}

void
sp_keyio_abandon(void)
{
	held = 0;
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
