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
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/value.h"
#include "parser/parse_func.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "maintain_catalog.h"
#include "maintain_citus.h"
#include "maintain_sql.h"
#include "sp_settings.h"

PG_FUNCTION_INFO_V1(segpipe_attach_shards);

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
 * A function of segpipe's by OID: the one of that name and arguments in the
 * extension's schema that is a member of the extension (nothing another
 * role made in its place)
 */
static Oid
own_function(const char *fname, int nargs, const Oid *args)
{
	char	   *schema = get_namespace_name(maintain_extension_schema());
	List	   *name = list_make1(makeString(schema));
	Oid			fn;

	name = lappend(name, makeString(pstrdup(fname)));
	fn = LookupFuncName(name, nargs, args, false);

	if (getExtensionOfObject(ProcedureRelationId, fn) != get_extension_oid("segpipe", false))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("function %s() is not segpipe's own", fname)));
	return fn;
}

#define SETUPS_NAME "segpipe_citus_setup"
#define SETUPS_WHAT "segpipe's table of set-ups on Citus"

/* a relation's name for a statement built now, from its OID */
static char *
qualified_name(Oid relid)
{
	return quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)), get_rel_name(relid));
}

/*
 * What the statements of this file read and write in: names qualified (bit
 * 0); and, for the drop of a Citus table, without Citus's notices (bit 1).
 */
static const SpSetting file_sql[] = {
	{"search_path", "pg_catalog, pg_temp"},
	{"client_min_messages", "warning"},
};

/*
 * The row of the coordinator's set-up id in segpipe_citus_setup made again
 * from the catalog (taken away when the catalog has none), so that every
 * node has it, a node added later too: the reference table is written as
 * its owner, only here, and only with what the catalog says (the tables'
 * names as regclass prints them with search_path pg_catalog: schema-
 * qualified).  The first call makes it a reference table of Citus's.
 */
void
maintain_citus_publish(int32 id)
{
	Oid			setups = maintain_extension_table(SETUPS_NAME, SETUPS_WHAT, false);
	char	   *setups_name = qualified_name(setups);
	char	   *catalog_name = qualified_name(maintain_catalog_relid());
	Oid			types[2] = {REGCLASSOID, INT4OID};
	Datum		values[2] = {ObjectIdGetDatum(setups), Int32GetDatum(id)};
	Oid			save_user;
	int			save_sec;
	int			nest;

	GetUserIdAndSecContext(&save_user, &save_sec);
	SetUserIdAndSecContext(maintain_rel_owner(setups), save_sec | SECURITY_LOCAL_USERID_CHANGE);
	nest = sp_settings_begin(file_sql, lengthof(file_sql), 1 << 0);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args("SELECT pg_catalog.create_reference_table($1) WHERE NOT EXISTS "
							  "(SELECT 1 FROM pg_catalog.pg_dist_partition AS p WHERE p.logicalrelid = $1)",
							  1, types, values, NULL, false, 0) != SPI_OK_SELECT ||
		SPI_execute_with_args(psprintf("DELETE FROM %s WHERE id = $1", setups_name),
							  1, types + 1, values + 1, NULL, false, 0) != SPI_OK_DELETE ||
		SPI_execute_with_args(psprintf("INSERT INTO %s SELECT c.id, c.results::text, c.readings::text, "
									   "c.state_table::text, c.checkpoint_table::text, c.heartbeat_table::text, "
									   "c.partition_column, c.ts_column, c.value_column, c.key, c.key_type::text, c.spec::text, "
									   "c.late, c.horizon, c.beyond_horizon, c.watermark, c.heartbeat_unit, "
									   "c.heartbeat_zone, c.quiet "
									   "FROM %s AS c WHERE c.id = $1 AND c.shard_of IS NULL", setups_name, catalog_name),
							  1, types + 1, values + 1, NULL, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "segpipe could not write its set-up to segpipe_citus_setup");
	SPI_finish();
	sp_settings_end(nest);
	SetUserIdAndSecContext(save_user, save_sec);
}

/*
 * Before the extension is dropped on the Citus coordinator (no set-up is
 * left: segpipe refuses the drop otherwise): the set-ups' reference table
 * leaves the extension and is dropped as a Citus table, which drops its
 * copies on every node.  Dropped with the extension, Citus would keep them.
 * (The nodes' tables of the same name stay members there, and go with the
 * extension; all of it in the drop's transaction.)
 */
void
maintain_citus_release(void)
{
	Oid			setups;
	Oid			save_user;
	int			save_sec;
	int			nest;
	bool		coordinator;
	bool		isnull;

	if (!OidIsValid(get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE)))
		return;
	setups = maintain_extension_table(SETUPS_NAME, SETUPS_WHAT, true);
	if (!OidIsValid(setups) ||
		!maintain_sql_finds("SELECT 1 FROM pg_catalog.pg_dist_partition AS p WHERE p.logicalrelid = $1",
							setups, "Citus's pg_dist_partition"))
		return;
	nest = sp_settings_begin(file_sql, lengthof(file_sql), SP_SETTINGS_ALL(lengthof(file_sql)));
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute("SELECT pg_catalog.citus_is_coordinator()", true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "segpipe could not ask Citus whether this node is the coordinator");
	coordinator = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull)) && !isnull;
	if (coordinator)
	{
		char	   *name = qualified_name(setups);

		/* by the dropping role, who owns the extension; the table as its owner */
		if (SPI_execute(psprintf("ALTER EXTENSION segpipe DROP TABLE %s", name), false, 0) != SPI_OK_UTILITY)
			elog(ERROR, "segpipe could not take segpipe_citus_setup out of the extension");
		GetUserIdAndSecContext(&save_user, &save_sec);
		SetUserIdAndSecContext(maintain_rel_owner(setups), save_sec | SECURITY_LOCAL_USERID_CHANGE);
		if (SPI_execute(psprintf("DROP TABLE %s", name), false, 0) != SPI_OK_UTILITY)
			elog(ERROR, "segpipe could not drop segpipe_citus_setup");
		SetUserIdAndSecContext(save_user, save_sec);
	}
	SPI_finish();
	sp_settings_end(nest);
}

/*
 * A shard group that Citus moved or split onto this node has the triggers
 * (Citus copies them) and no catalog row here: its row made from the
 * set-up's in segpipe_citus_setup (sql/citus.sql, segpipe_shard_adopt), as
 * the owner of the readings, whose register checks that it owns every
 * shard, one backend at a time.  The row's id; 0 where there is nothing to
 * make it from (no Citus metadata, no such set-up or shard group).
 */
int32
maintain_citus_adopt(int32 shard_of, Oid rel)
{
	Oid			args[3] = {INT4OID, REGCLASSOID, REGCLASSOID};
	Oid			setups;
	MaintainEntry *e;
	Oid			save_user;
	int			save_sec;

	if (!OidIsValid(get_relname_relid("pg_dist_shard", PG_CATALOG_NAMESPACE)))
		return 0;
	setups = maintain_extension_table(SETUPS_NAME, SETUPS_WHAT, false);
	LockRelationOid(maintain_catalog_relid(), ShareRowExclusiveLock);
	/* (another backend may have made it while this one waited) */
	if ((e = maintain_entry_of_shard(shard_of, rel)) != NULL)
		return e->id;
	GetUserIdAndSecContext(&save_user, &save_sec);
	SetUserIdAndSecContext(maintain_rel_owner(rel),
						   save_sec | SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
	(void) OidFunctionCall3(own_function("segpipe_shard_adopt", 3, args), Int32GetDatum(shard_of),
							ObjectIdGetDatum(rel), ObjectIdGetDatum(setups));
	SetUserIdAndSecContext(save_user, save_sec);
	e = maintain_entry_of_shard(shard_of, rel);
	return e != NULL ? e->id : 0;
}

int64
maintain_citus_shards(Oid results, const char *op, const char *arg)
{
	LOCAL_FCINFO(fcinfo, 3);
	FmgrInfo	flinfo;
	Datum		n;
	Oid			args[3] = {REGCLASSOID, TEXTOID, TEXTOID};
	MaintainEntry *e;

	fmgr_info(own_function("segpipe_shards", 3, args), &flinfo);
	InitFunctionCallInfoData(*fcinfo, &flinfo, 3, InvalidOid, NULL, NULL);
	fcinfo->args[0].value = ObjectIdGetDatum(results);
	fcinfo->args[0].isnull = false;
	fcinfo->args[1].value = CStringGetTextDatum(op);
	fcinfo->args[1].isnull = false;
	fcinfo->args[2].value = arg == NULL ? (Datum) 0 : CStringGetTextDatum(arg);
	fcinfo->args[2].isnull = arg == NULL;
	n = FunctionCallInvoke(fcinfo);
	/* (segpipe_shards checked that the caller owns the readings) */
	if ((strcmp(op, "attach") == 0 || strcmp(op, "rebuild") == 0) &&
		(e = maintain_entry_by_results(results)) != NULL)
		maintain_citus_publish(e->id);
	return fcinfo->isnull ? 0 : DatumGetInt64(n);
}

/* segpipe_attach_shards(results), on the coordinator */
Datum
segpipe_attach_shards(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("argument \"results\" must not be null")));
	PG_RETURN_INT64(maintain_citus_shards(PG_GETARG_OID(0), "attach", NULL));
}
