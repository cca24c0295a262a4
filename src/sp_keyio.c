/*
 * sp_keyio.c
 *	  Key types by name and keys as text under fixed settings.
 */
#include "postgres.h"

#include "parser/parse_type.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "sp_compat.h"
#include "sp_json.h"
#include "sp_keyio.h"

char *
sp_keyio_type_name(Oid type)
{
	return format_type_be_qualified(type);
}

Oid
sp_keyio_type_from_name(const char *name, int code)
{
	MemoryContext cxt = CurrentMemoryContext;
	Oid			type = InvalidOid;
	int32		typmod;

	/*
	 * The parser raises errors of its own for a malformed name: a crafted
	 * state is bad input, so those become 'code'.
	 */
	PG_TRY();
	{
		sp_parse_type_string(name, &type, &typmod);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		/* a malformed or unusable name: "a b", "a.b.c.d", "other_db.s.t" */
		if (ERRCODE_TO_CATEGORY(edata->sqlerrcode) != ERRCODE_SYNTAX_ERROR_OR_ACCESS_RULE_VIOLATION &&
			ERRCODE_TO_CATEGORY(edata->sqlerrcode) != ERRCODE_FEATURE_NOT_SUPPORTED &&
			ERRCODE_TO_CATEGORY(edata->sqlerrcode) != ERRCODE_DATA_EXCEPTION)
			PG_RE_THROW();
		FlushErrorState();
		ereport(ERROR,
				(errcode(code),
				 errmsg("invalid pipeline state"),
				 errdetail("Key type \"%s\" is not a type name: %s.", sp_json_shown(name), edata->message)));
	}
	PG_END_TRY();
	if (!OidIsValid(type))
		ereport(ERROR,
				(errcode(code),
				 errmsg("invalid pipeline state"),
				 errdetail("Key type \"%s\" does not exist.", sp_json_shown(name))));
	/* one spelling per type, so that equal states are equal bytes */
	if (strcmp(format_type_be_qualified(type), name) != 0)
		ereport(ERROR,
				(errcode(code),
				 errmsg("invalid pipeline state"),
				 errdetail("Key type \"%s\" is not written as \"%s\".",
						   sp_json_shown(name), format_type_be_qualified(type))));
	return type;
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
	{"search_path", "pg_catalog"},
};

int
sp_keyio_begin(void)
{
	int			nest = NewGUCNestLevel();

	for (int i = 0; i < lengthof(fixed_settings); i++)
		(void) set_config_option(fixed_settings[i][0], fixed_settings[i][1],
								 PGC_USERSET, PGC_S_SESSION,
								 GUC_ACTION_SAVE, true, 0, false);
	return nest;
}

void
sp_keyio_end(int nest)
{
	AtEOXact_GUC(true, nest);
}

char *
sp_keyio_to_text(SpKeyIO *io, Datum key)
{
	return OutputFunctionCall(&io->out, key);
}

Datum
sp_keyio_from_text(SpKeyIO *io, const char *text)
{
	return InputFunctionCall(&io->in, unconstify(char *, text), io->ioparam, -1);
}
