/*
 * pipeline_cast.c
 *	  The cast from jsonb to `pipeline`.
 *
 * json -> pipeline and pipeline -> json / jsonb are I/O conversion casts
 * (the text forms are JSON).  jsonb -> pipeline needs a function of its own
 * because jsonb cannot carry a state exactly: it reorders object members
 * (the state's reader follows the writer's order) and its numbers have no
 * negative zero.  A jsonb value is read as a configuration, and one with a
 * "state" member is refused rather than read back differently.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/jsonb.h"

#include "sp_codec.h"
#include "sp_compat.h"
#include "sp_spec.h"

PG_FUNCTION_INFO_V1(pipeline_from_jsonb);

Datum
pipeline_from_jsonb(PG_FUNCTION_ARGS)
{
	Jsonb	   *jb = PG_GETARG_JSONB_P(0);
	JsonbValue	state;
	char	   *text;

	if (JB_ROOT_IS_OBJECT(jb) &&
		getKeyJsonValueFromContainer(&jb->root, "state", strlen("state"), &state) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot cast a jsonb value with a \"state\" member to type pipeline"),
				 errdetail("jsonb keeps neither the order of the state's members nor the sign of a negative zero, so the state cannot be read back exactly."),
				 errhint("Pass a pipeline that carries state as json or text, for example p::json.")));
	/* the same text jsonb's output function prints, read as a spec */
	text = JsonbToCString(NULL, &jb->root, VARSIZE(jb));
	PG_RETURN_POINTER(sp_value_from_config(sp_spec_read(text)));
}
