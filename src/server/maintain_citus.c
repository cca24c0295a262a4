/*
 * maintain_citus.c
 *	  Maintained results on a Citus distributed table (maintain_citus.h).
 *
 * segpipe does not link with Citus: it reads Citus's metadata table
 * pg_catalog.pg_dist_partition (only a superuser may create in pg_catalog,
 * so the name cannot be taken), and hands the work on every shard group to
 * the extension's SQL function segpipe_shards() (sql/citus.sql, called by
 * OID), whose statements Citus routes to the nodes.
 */
#include "postgres.h"

#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "fmgr.h"
#include "nodes/value.h"
#include "parser/parse_func.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "maintain_catalog.h"
#include "maintain_citus.h"
#include "maintain_sql.h"
#include "sp_settings.h"

bool
maintain_citus_distributed(Oid rel)
{
	if (!OidIsValid(get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE)))
		return false;
	return maintain_sql_finds("SELECT 1 FROM pg_catalog.pg_dist_partition AS p "
							  "WHERE p.logicalrelid = $1 AND p.partmethod = 'h'",
							  rel, "Citus's pg_dist_partition");
}

/*
 * Citus refuses triggers on distributed tables unless told they are safe
 * (these run on each shard, on that shard's rows and tables only), and
 * drops a view over distributed tables only over one connection a node.
 */
static const SpSetting citus_ddl[] = {
	{"citus.enable_unsafe_triggers", "on"},
	{"citus.multi_shard_modify_mode", "sequential"},
};

int
maintain_citus_ddl_begin(void)
{
	return sp_settings_begin(citus_ddl, lengthof(citus_ddl), SP_SETTINGS_ALL(lengthof(citus_ddl)));
}

/*
 * segpipe_shards() by OID: the function of that name and arguments in the
 * extension's schema that is a member of the extension (nothing another
 * role made in its place)
 */
static Oid
shards_function(void)
{
	Oid			args[3] = {REGCLASSOID, TEXTOID, TEXTOID};
	char	   *schema = get_namespace_name(maintain_extension_schema());
	List	   *name = list_make1(makeString(schema));
	Oid			fn;

	name = lappend(name, makeString("segpipe_shards"));
	fn = LookupFuncName(name, 3, args, false);

	if (getExtensionOfObject(ProcedureRelationId, fn) != get_extension_oid("segpipe", false))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("function segpipe_shards() is not segpipe's own")));
	return fn;
}

int64
maintain_citus_shards(Oid results, const char *op, const char *arg)
{
	LOCAL_FCINFO(fcinfo, 3);
	FmgrInfo	flinfo;
	Datum		n;

	fmgr_info(shards_function(), &flinfo);
	InitFunctionCallInfoData(*fcinfo, &flinfo, 3, InvalidOid, NULL, NULL);
	fcinfo->args[0].value = ObjectIdGetDatum(results);
	fcinfo->args[0].isnull = false;
	fcinfo->args[1].value = CStringGetTextDatum(op);
	fcinfo->args[1].isnull = false;
	fcinfo->args[2].value = arg == NULL ? (Datum) 0 : CStringGetTextDatum(arg);
	fcinfo->args[2].isnull = arg == NULL;
	n = FunctionCallInvoke(fcinfo);
	return fcinfo->isnull ? 0 : DatumGetInt64(n);
}
