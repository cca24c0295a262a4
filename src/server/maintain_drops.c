/*
 * maintain_drops.c
 *	  Tables of maintained readings dropped without any DDL event: the
 *	  chunks of a TimescaleDB hypertable that drop_chunks(), a retention
 *	  policy's job or a TRUNCATE of the hypertable take away.
 *
 * TimescaleDB drops a chunk with performDeletion() from a function (or
 * from its own ProcessUtility hook, before PostgreSQL's event triggers
 * start): no trigger and no event trigger fires, so the rows would leave
 * the readings and stay in the results.  The object access hook is called
 * for every dropped object, before it goes: for a table that inherits from
 * maintained readings (not a partition: their drops are the event
 * triggers' in maintain_admin.c), its sensors are run again without its
 * rows, as a TRUNCATE of a partition runs them; under beyond_horizon =>
 * 'keep' its rows older than the horizon are left out (the results stay
 * final), under 'error' such rows refuse the drop.
 *
 * The hook only acts in the server processes that loaded the library, so
 * set-up refuses a hypertable unless segpipe is in shared_preload_libraries
 * (maintain_drops_require_preload): then every backend and background
 * worker (a retention job) has it.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_type.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "sp_compat.h"
#include "maintain_catalog.h"
#include "maintain_correct.h"
#include "maintain_drops.h"
#include "sp_settings.h"

void		_PG_init(void);

static object_access_hook_type prev_object_access = NULL;
static bool preloaded = false;

/* the parents of rel by inheritance (pg_inherits), direct ones only */
static List *
inheritance_parents(Oid rel)
{
	Relation	inh = table_open(InheritsRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	t;
	List	   *parents = NIL;

	ScanKeyInit(&key, Anum_pg_inherits_inhrelid, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(rel));
	scan = systable_beginscan(inh, InheritsRelidSeqnoIndexId, true, NULL, 1, &key);
	while (HeapTupleIsValid(t = systable_getnext(scan)))
		parents = lappend_oid(parents, ((Form_pg_inherits) GETSTRUCT(t))->inhparent);
	systable_endscan(scan);
	table_close(inh, AccessShareLock);
	return parents;
}

/* whether anc is rel's ancestor by inheritance (at most 8 levels up) */
static bool
inherits_from(Oid rel, Oid anc, int depth)
{
	ListCell   *lc;

	if (depth > 8)
		return false;
	foreach(lc, inheritance_parents(rel))
		if (lfirst_oid(lc) == anc || inherits_from(lfirst_oid(lc), anc, depth + 1))
			return true;
	return false;
}

/*
 * whether TimescaleDB still counts rel among its chunks: drop_chunks() and
 * TRUNCATE forget a chunk before they drop it, a DROP TABLE of the
 * hypertable drops every chunk first and forgets them afterwards (and a
 * query of the hypertable in between would name the chunks already gone)
 */
static bool
registered_chunk(Oid rel)
{
	Oid			types[2] = {TEXTOID, TEXTOID};
	Datum		v[2];
	bool		found;

	if (!OidIsValid(get_extension_oid("timescaledb", true)))
		return false;
	v[0] = CStringGetTextDatum(get_namespace_name(get_rel_namespace(rel)));
	v[1] = CStringGetTextDatum(get_rel_name(rel));
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	/*
	 * its public view (the catalog table differs between versions), not
	 * read-only: a new snapshot, that sees what this command deleted
	 */
	if (SPI_execute_with_args("SELECT 1 FROM timescaledb_information.chunks AS c "
							  "WHERE c.chunk_schema::pg_catalog.text OPERATOR(pg_catalog.=) $1 "
							  "AND c.chunk_name::pg_catalog.text OPERATOR(pg_catalog.=) $2",
							  2, types, v, NULL, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "segpipe could not read TimescaleDB's chunks");
	found = SPI_processed > 0;
	SPI_finish();
	return found;
}

static void
chunk_dropped(Oid rel)
{
	int			n;
	MaintainEntry **entries = maintain_entries_all(&n);
	List	   *of = NIL;
	ListCell   *lc;
	int			nest;

	for (int k = 0; k < n; k++)
		if (inherits_from(rel, entries[k]->readings, 0))
			of = lappend_int(of, entries[k]->id);
	if (of == NIL || registered_chunk(rel))
		return;
	nest = sp_settings_begin(maintain_settings, maintain_n_settings, SP_SETTINGS_ALL(maintain_n_settings));
	/* its rows are still there: their sensors run again without them */
	foreach(lc, of)
		maintain_correct_relation(maintain_plans_for(lfirst_int(lc)), rel, true);
	sp_settings_end(nest);
}

static void
drops_object_access(ObjectAccessType access, Oid classId, Oid objectId, int subId, void *arg)
{
	Oid			ext;

	if (prev_object_access)
		prev_object_access(access, classId, objectId, subId, arg);
	/* cheapest tests first: this runs for every object any role drops */
	if (access != OAT_DROP || classId != RelationRelationId || subId != 0)
		return;
	if (get_rel_relkind(objectId) != RELKIND_RELATION || get_rel_relispartition(objectId))
		return;
	if (!has_superclass(objectId) || !IsTransactionState())
		return;
	ext = get_extension_oid("segpipe", true);
	/* (a version before 0.10.0 has no catalog: nothing of it is this hook's) */
	if (!OidIsValid(ext) || !OidIsValid(get_relname_relid("segpipe_catalog", maintain_schema_of_extension(ext))))
		return;
	chunk_dropped(objectId);
}

void
_PG_init(void)
{
	preloaded = process_shared_preload_libraries_in_progress;
	prev_object_access = object_access_hook;
	object_access_hook = drops_object_access;
}

bool
maintain_drops_hypertable(Oid rel)
{
	if (!OidIsValid(get_extension_oid("timescaledb", true)))
		return false;
	return maintain_sql_finds("SELECT 1 FROM timescaledb_information.hypertables AS h "
							  "WHERE pg_catalog.to_regclass(pg_catalog.quote_ident(h.hypertable_schema::pg_catalog.text) "
							  "OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) "
							  "pg_catalog.quote_ident(h.hypertable_name::pg_catalog.text)) OPERATOR(pg_catalog.=) $1",
							  rel, "TimescaleDB's hypertables");
}

/*
 * Set-up on a TimescaleDB hypertable: refused unless every server process
 * has the hook (segpipe in shared_preload_libraries).
 */
void
maintain_drops_require_preload(Oid readings)
{
	if (!preloaded && maintain_drops_hypertable(readings))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("segpipe must be in shared_preload_libraries to maintain results from hypertable \"%s\"",
						get_rel_name(readings)),
				 errdetail("drop_chunks() and retention policies drop chunks without any trigger firing; segpipe runs their sensors again as the chunks go, in every server process that loaded it."),
				 errhint("Set shared_preload_libraries = 'timescaledb,segpipe' and restart the server.")));
}
